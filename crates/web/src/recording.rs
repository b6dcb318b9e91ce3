//! One recording open in the playground: a real PyTorch run written by the Python recorder
//! (`python -m stridelab_record`), read and checked by the core's reader
//! (`trace::report::recording`), and stepped through with the same answers a trace's
//! [`Session`](crate::session::Session) gives the panels (`goto`'s state, `cells`, `flags`,
//! `cell`, `chain`).
//!
//! Nothing here runs: every PyTorch field is the recording's. A step's state is what the
//! recording says after its first `k` steps: each name's latest record (a name rebound to
//! something that is not a tensor leaves the list), the storages as far as those records cover
//! them (a cell no named tensor reaches is unknown), the step's writes, and the autograd graph
//! the recording holds at its end, with each saved tensor's version as the step's records give
//! it (so the step of the write that makes a saved tensor stale says so). tinygrad's views are
//! the product's prediction from each recorded layout; the bridge is not run.

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Map, Value as Json};
use stridelab_core::strided::StridedIndex;
use stridelab_core::trace::report::recording::{predicted, RecordedStep, RecordedTensor, RecordedWrite, Recording};
use stridelab_core::trace::report::ValueList;
use stridelab_core::Error;

use crate::session::{CELL_REPEATED, CELL_SELECTED, CELL_WRITTEN, INLINE_VALUES, PAGE_LIST, PAGE_VALUES};

/// Where a name's current record is: a step's tensors, or the recording's final `tensors`
/// (at its last step, which are PyTorch's end state).
#[derive(Clone, Copy)]
enum Source {
    Step(usize),
    End,
}

/// A name bound to a tensor at the current step.
struct Live {
    name: String,
    record: Source,
    /// The step that last bound the name, or first showed it (its view chain's row says which
    /// line).
    defined: Option<usize>,
}

/// One storage as the current step's records cover it.
struct Cells {
    dtype: String,
    /// One past the last cell any record on it reaches.
    len: usize,
    version: u64,
    known: HashMap<usize, Json>,
}

pub struct RecordingSession {
    rec: Recording,
    at: usize,
    live: Vec<Live>,
    storages: BTreeMap<usize, Cells>,
}

impl RecordingSession {
    /// Reads and checks a recording (its JSON text); stands on its last step.
    pub fn new(json: &str) -> Result<RecordingSession, Error> {
        let rec = Recording::from_json(json.as_bytes())?;
        let mut s = RecordingSession { rec, at: 0, live: Vec::new(), storages: BTreeMap::new() };
        s.goto(s.step_count());
        Ok(s)
    }

    pub fn step_count(&self) -> usize {
        self.rec.steps().len()
    }

    pub fn at(&self) -> usize {
        self.at
    }

    /// Who recorded what, for the page's banner: the recording's `recorded` object, the
    /// failing line, and the source the steps ran (see [`RecordingSession::source`]).
    pub fn about(&self) -> Json {
        json!({
            "recorded": self.rec.recorded(),
            "error": self.rec.error(),
            "steps": self.step_count(),
            "source": self.source(),
        })
    }

    /// The recorded script as written where the recording holds its text; otherwise its lines
    /// as its steps ran them, each at its own line number (lines no step ran are blank): what
    /// the page's read-only editor shows, so a step's line is marked where the recording says
    /// it is. Lines of other files are left out.
    pub fn source(&self) -> String {
        if let Some(text) = self.rec.recorded().source.as_deref() {
            return text.to_string();
        }
        let mut lines: BTreeMap<usize, &str> = BTreeMap::new();
        for s in self.rec.steps().iter().filter(|s| s.file.is_none()) {
            lines.entry(s.line).or_insert(s.source.trim_end());
        }
        let last = lines.keys().next_back().copied().unwrap_or(0);
        let mut out = String::new();
        for n in 1..=last {
            out.push_str(lines.get(&n).copied().unwrap_or(""));
            out.push('\n');
        }
        out
    }

    /// Stands after the first `k` steps (clamped to the recording's length).
    pub fn goto(&mut self, k: usize) {
        let k = k.min(self.step_count());
        let mut live: Vec<Live> = Vec::new();
        for (i, s) in self.rec.steps()[..k].iter().enumerate() {
            for name in &s.defines {
                if !s.tensors.0.iter().any(|(n, _)| n == name) {
                    live.retain(|l| &l.name != name);
                }
            }
            for (name, _) in &s.tensors.0 {
                let defined = s.defines.contains(name).then_some(i);
                match live.iter_mut().find(|l| &l.name == name) {
                    Some(l) => {
                        l.record = Source::Step(i);
                        l.defined = defined.or(l.defined);
                    }
                    // First seen here: bound here, or reached through a name bound here
                    // (`model.weight` when `model = nn.Linear(...)` runs).
                    None => live.push(Live { name: name.clone(), record: Source::Step(i), defined: Some(i) }),
                }
            }
        }
        if k == self.step_count() {
            for (name, _) in self.rec.tensors() {
                match live.iter_mut().find(|l| &l.name == name) {
                    Some(l) => l.record = Source::End,
                    None => live.push(Live { name: name.clone(), record: Source::End, defined: None }),
                }
            }
        }
        self.live = live;
        self.at = k;
        self.storages = self.cover();
    }

    fn record(&self, l: &Live) -> Option<&RecordedTensor> {
        let named: &[(String, RecordedTensor)] = match l.record {
            Source::Step(i) => &self.rec.steps()[i].tensors.0,
            Source::End => self.rec.tensors(),
        };
        named.iter().find(|(n, _)| *n == l.name).map(|(_, t)| t)
    }

    fn tensor(&self, name: &str) -> Option<&RecordedTensor> {
        self.live.iter().find(|l| l.name == name).and_then(|l| self.record(l))
    }

    /// The step the viewer stands on (the last one run), if any.
    fn step(&self) -> Option<&RecordedStep> {
        self.at.checked_sub(1).map(|i| &self.rec.steps()[i])
    }

    /// The storages the live records cover: each record's values placed at its cells, older
    /// records first so the newest wins where two disagree.
    fn cover(&self) -> BTreeMap<usize, Cells> {
        let mut order: Vec<&Live> = self.live.iter().collect();
        order.sort_by_key(|l| match l.record {
            Source::Step(i) => i,
            Source::End => usize::MAX,
        });
        let mut out: BTreeMap<usize, Cells> = BTreeMap::new();
        for l in order {
            let Some(t) = self.record(l) else { continue };
            let c = out.entry(t.torch.storage).or_insert_with(|| Cells {
                dtype: t.dtype.clone(),
                len: 0,
                version: 0,
                known: HashMap::new(),
            });
            c.len = c.len.max(extent(t));
            c.version = c.version.max(t.torch.version);
            // A dtype view reads the same bytes as other cells: its values are not this map's.
            if t.dtype != c.dtype {
                continue;
            }
            let cells = StridedIndex::new(&t.shape, &t.torch.strides, t.torch.storage_offset);
            for (cell, v) in cells.zip(&t.values) {
                if let Ok(cell) = usize::try_from(cell) {
                    c.known.insert(cell, serde_json::to_value(v).unwrap_or(Json::Null));
                }
            }
        }
        if let Some(step) = self.step() {
            for w in writes(step) {
                if let Some(c) = out.get_mut(&w.storage) {
                    let last = w.elements.iter().filter_map(|&e| usize::try_from(e).ok()).max();
                    c.len = c.len.max(last.map_or(0, |e| e + 1));
                }
            }
        }
        out
    }

    /// What the panels show at the current step, in the shape a trace's state has.
    pub fn state(&self) -> Json {
        let list = ValueList::First(PAGE_VALUES);
        let mut tensors = Map::new();
        for l in &self.live {
            if let Some(t) = self.record(l) {
                tensors.insert(l.name.clone(), serde_json::to_value(predicted(t, list)).unwrap_or(Json::Null));
            }
        }
        let mut storages = Map::new();
        for (id, c) in &self.storages {
            let values = if c.len <= INLINE_VALUES {
                Json::Array((0..c.len).map(|i| c.known.get(&i).cloned().unwrap_or(Json::Null)).collect())
            } else {
                Json::Null
            };
            storages.insert(
                id.to_string(),
                json!({"dtype": c.dtype, "len": c.len, "version": c.version, "values": values, "known": c.known.len()}),
            );
        }
        let end = self.at == self.step_count();
        let mut step = self.step().map_or(Json::Null, |s| serde_json::to_value(s).unwrap_or(Json::Null));
        let (graph, stale) = self.graph();
        if let (Some(obj), false) = (step.as_object_mut(), stale.is_empty()) {
            obj.insert("stale".into(), json!(stale));
        }
        json!({
            "recording": true,
            "recorded": self.rec.recorded(),
            "error": if end { serde_json::to_value(self.rec.error()).unwrap_or(Json::Null) } else { Json::Null },
            "stale_line": if end { json!(self.rec.stale_line()) } else { Json::Null },
            "tensors": tensors,
            "autograd_graph": graph,
            "storages": storages,
            "at": self.at,
            "steps": self.step_count(),
            "step": step,
            "error_storage": Json::Null,
        })
    }

    /// The autograd graph the recording holds at its end, as it stood at the current step: the
    /// nodes made by lines run so far, each saved tensor's version as the step's records give it
    /// (the recorded one at the end, where PyTorch's own `stale` and `freed` hold); and, for the
    /// step's time machine, the saved tensors this step's write made stale.
    fn graph(&self) -> (Json, Vec<String>) {
        let nodes = self.rec.autograd_graph();
        if self.at == self.step_count() {
            return (serde_json::to_value(nodes).unwrap_or(json!([])), Vec::new());
        }
        let ran: std::collections::BTreeSet<usize> = self.rec.steps()[..self.at].iter().map(|s| s.line).collect();
        let step = self.step();
        // The step of the recording's `stale_line`, the first line that made a saved tensor stale.
        let stale_from = self
            .rec
            .stale_line()
            .and_then(|line| self.rec.steps().iter().position(|s| s.line == line && s.file.is_none()));
        let mut out = Vec::new();
        let mut stale = Vec::new();
        for n in nodes.iter().filter(|n| ran.contains(&n.line)) {
            let mut v = serde_json::to_value(n).unwrap_or(Json::Null);
            v["freed"] = json!(false);
            for (s, sv) in n.saved.iter().zip(v["saved"].as_array_mut().into_iter().flatten()) {
                let known = s
                    .tensor
                    .as_deref()
                    .and_then(|name| self.tensor(name))
                    .map(|t| t.torch.version)
                    .or_else(|| s.storage.and_then(|id| self.storages.get(&id)).map(|c| c.version));
                // A saved tensor no name or storage identifies (a saved result) went stale where
                // the recording says its graph did.
                let now = known.unwrap_or(if s.stale && stale_from.is_some_and(|i| self.at > i) {
                    s.version
                } else {
                    s.saved_version
                });
                sv["version"] = json!(now);
                sv["stale"] = json!(now != s.saved_version);
                let touched = step.is_some_and(|st| {
                    s.tensor.as_ref().is_some_and(|t| st.tensors_changed.contains(t))
                        || s.storage.is_some_and(|id| writes(st).any(|w| w.storage == id))
                }) || (known.is_none() && stale_from.is_some_and(|i| self.at == i + 1));
                if now != s.saved_version && touched {
                    let whose = format!("{} (line {})", n.name, n.line);
                    let what = match &s.tensor {
                        Some(t) => format!("`{t}`, saved by {whose} at version {},", s.saved_version),
                        None => format!("the tensor {whose} saved at version {}", s.saved_version),
                    };
                    stale.push(format!("{what} is now at version {now}: a backward through it will fail"));
                }
            }
            out.push(v);
        }
        (Json::Array(out), stale)
    }

    /// Where each element of `name` lives: its recorded storage cell and tinygrad's predicted
    /// buffer offset, for the first [`PAGE_LIST`] elements.
    pub fn tensor_cells(&self, name: &str) -> Json {
        let Some(t) = self.tensor(name) else {
            return Json::Null;
        };
        let cells: Vec<i64> =
            StridedIndex::new(&t.shape, &t.torch.strides, t.torch.storage_offset).take(PAGE_LIST).collect();
        let tinygrad = t.tracker().first_offsets(PAGE_LIST);
        let mut out = json!({"storage": t.torch.storage, "cells": cells, "tinygrad": tinygrad, "predicted": true});
        let numel: usize = t.shape.iter().product();
        if numel > PAGE_LIST {
            out["cells_total"] = json!(numel);
            out["tinygrad_total"] = json!(numel);
        }
        out
    }

    /// One byte per cell of `name`'s storage: the cells it reads (twice, where a stride repeats
    /// one) and the ones the current step wrote.
    pub fn flags(&self, name: &str) -> Vec<u8> {
        let Some(t) = self.tensor(name) else {
            return Vec::new();
        };
        let Some(c) = self.storages.get(&t.torch.storage) else {
            return Vec::new();
        };
        let mut flags = vec![0u8; c.len];
        for i in StridedIndex::new(&t.shape, &t.torch.strides, t.torch.storage_offset) {
            if let Some(f) = usize::try_from(i).ok().and_then(|i| flags.get_mut(i)) {
                *f |= if *f & CELL_SELECTED != 0 { CELL_REPEATED } else { CELL_SELECTED };
            }
        }
        if let Some(step) = self.step() {
            for w in writes(step).filter(|w| w.storage == t.torch.storage) {
                for &e in &w.elements {
                    if let Some(f) = usize::try_from(e).ok().and_then(|i| flags.get_mut(i)) {
                        *f |= CELL_WRITTEN;
                    }
                }
            }
        }
        flags
    }

    /// One storage cell's recorded value (null where no named tensor covers it).
    pub fn cell(&self, storage: usize, index: usize) -> Json {
        self.storages.get(&storage).and_then(|c| c.known.get(&index)).cloned().unwrap_or(Json::Null)
    }

    /// The view chain panel's one row for a recorded tensor: the line that bound it and its
    /// recorded layout with tinygrad's predicted view (a recording has no program to follow
    /// back to a root).
    pub fn chain(&self, name: &str) -> Json {
        let Some(l) = self.live.iter().find(|l| l.name == name) else {
            return json!([]);
        };
        let Some(t) = self.record(l) else {
            return json!([]);
        };
        let op = match l.defined.map(|i| &self.rec.steps()[i]) {
            Some(s) => format!("line {}: {}", s.line, s.source.trim()),
            None => format!("{name} (bound before the first recorded line)"),
        };
        json!([{"op": op, "tensor": predicted(t, ValueList::First(PAGE_LIST))}])
    }
}

/// Every write a step records (its first storage's, then the others').
fn writes(step: &RecordedStep) -> impl Iterator<Item = &RecordedWrite> {
    step.writes.iter().flat_map(|w| std::iter::once(w).chain(w.all.iter()))
}

/// One past the last storage cell `t` reaches (0 when it has no elements).
fn extent(t: &RecordedTensor) -> usize {
    if t.shape.contains(&0) {
        return 0;
    }
    let far = t.shape.iter().zip(&t.torch.strides).fold(t.torch.storage_offset, |acc, (&n, &s)| {
        acc.saturating_add(i64::try_from(n).unwrap_or(i64::MAX).saturating_sub(1).saturating_mul(s.max(0)))
    });
    usize::try_from(far).map_or(0, |f| f.saturating_add(1))
}
