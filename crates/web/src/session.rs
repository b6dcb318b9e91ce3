//! One trace open in the playground, and the statement the viewer stands on.
//!
//! Stepping back replays the trace's first `k` statements from scratch rather than undoing work:
//! traces are short and the interpreter is fast, so replay is simple, always exact, and keeps the
//! core free of any undo machinery. The page asks for everything through this type, so that a
//! step is parsed and run once however many panels redraw from it.

use std::collections::HashMap;

use serde_json::{json, Map, Value as Json};
use stridelab_core::strided::StridedIndex;
use stridelab_core::tensor::{StorageRef, Tensor};
use stridelab_core::trace::interp::runner::Run;
use stridelab_core::trace::lang::ast::{Program, StmtKind};
use stridelab_core::trace::lang::parser;
use stridelab_core::trace::report::{report_value, values_json, BridgeValues, ReportOptions, ValueList};
use stridelab_core::Error;

use crate::chain;
use crate::files::page_run;

/// The most values of one tensor or storage the page is sent: its values table shows at most
/// 1,024 of a tensor (`MAX_SHOWN` in panels.js) and it draws a storage as a grid of values up to
/// 1,024 cells (`DOM_LIMIT` in mapgrid.js). Values past these were sent and never shown, and they
/// were most of a step's message (a trace of 4,096-element tensors: 213 KB a step, 5 ms to parse).
pub const PAGE_VALUES: usize = 1024;

/// Storages longer than this are sent without their values: the page draws them aggregated on a
/// canvas from [`Session::flags`] and reads single values on hover through [`Session::cell`].
pub const INLINE_VALUES: usize = PAGE_VALUES;

/// The most items of any one list the page is sent (a tensor's values, its cells, a write's cells,
/// the bridge's positions): the page shows at most 1,024 values of a tensor and the first cells of
/// a write, so a longer list is cut and its length travels beside it as `<key>_total`. However
/// large a trace's tensors, a step's message to the page stays small (a 2^24-element tensor sent
/// whole was 119 MB of JSON for its step and 280 MB for its cells).
pub const PAGE_LIST: usize = 4096;

/// Cuts every list in `v` longer than [`PAGE_LIST`] to that length, recording its length as
/// `<key>_total` beside it.
fn trim_lists(v: &mut Json) {
    match v {
        Json::Object(m) => {
            let mut totals = Vec::new();
            for (k, x) in m.iter_mut() {
                if let Json::Array(a) = x {
                    if a.len() > PAGE_LIST {
                        totals.push((format!("{k}_total"), a.len()));
                        a.truncate(PAGE_LIST);
                    }
                }
                trim_lists(x);
            }
            for (k, n) in totals {
                m.insert(k, json!(n));
            }
        }
        Json::Array(a) => a.iter_mut().for_each(trim_lists),
        _ => {}
    }
}

/// Whether a report for the page lists the per-statement history.
enum Steps {
    Listed,
    Left,
}

/// The page's reports: the bridge's values only where they differ from PyTorch's (the page would
/// otherwise get every tensor's values twice), at most [`PAGE_VALUES`] values per tensor.
fn page_report(steps: Steps) -> ReportOptions {
    ReportOptions {
        steps: matches!(steps, Steps::Listed),
        graph: false,
        bridge_values: BridgeValues::Differing,
        values: ValueList::First(PAGE_VALUES),
    }
}

/// Bits of [`Session::flags`], one byte per storage cell.
pub const CELL_SELECTED: u8 = 1 << 0;
/// The selected tensor reaches this cell through more than one index (stride 0, overlap).
pub const CELL_REPEATED: u8 = 1 << 1;
/// The statement the viewer stands on wrote this cell.
pub const CELL_WRITTEN: u8 = 1 << 2;
/// The failing statement's overlap error names this cell.
pub const CELL_OVERLAP: u8 = 1 << 3;

pub struct Session {
    program: Option<Program>,
    /// The whole trace's report with its steps: the stepper's outline.
    outline: Json,
    at: usize,
    run: Run,
    /// Chains by (name, defining statement): stepping past unrelated statements reuses them.
    chains: HashMap<(String, usize), Json>,
}

impl Session {
    /// Parses and runs `src` whole, then stands on its last statement.
    pub fn new(src: &str) -> Session {
        let mut full = page_run().run_text(src);
        let outline = report_value(&mut full, page_report(Steps::Listed));
        let program = parser::parse(src).ok();
        let at = full.steps.len();
        Session { program, outline, at, run: full, chains: HashMap::new() }
    }

    /// The error of a source that does not parse (nothing of it ran), as the report writes
    /// errors; `None` when it parses. The page keeps the last run that parsed on screen while
    /// the editor holds such a source: half-typed lines are the common case.
    pub fn parse_error(&self) -> Option<Json> {
        self.program.is_none().then(|| self.outline["error"].clone())
    }

    /// [`Session::parse_error`] of `src`, without running it when it parses.
    pub fn parse_error_of(src: &str) -> Option<Json> {
        parser::parse(src).err()?;
        Session::new(src).parse_error()
    }

    /// Statements the viewer can step through (the failing one included).
    pub fn step_count(&self) -> usize {
        self.outline["steps"].as_array().map_or(0, Vec::len)
    }

    /// The steps (1-based, as [`Session::goto`] counts) at which the bridge's run parts from
    /// PyTorch's: the stepper marks them.
    pub fn bridge_divergences(&self) -> Vec<u32> {
        let steps = self.outline["steps"].as_array().map_or(&[][..], Vec::as_slice);
        (1..).zip(steps).filter(|(_, s)| s["bridge"]["diverges"] == true).map(|(k, _)| k).collect()
    }

    pub fn at(&self) -> usize {
        self.at
    }

    /// The full run's report: error, final tensors and every step.
    pub fn outline(&self) -> &Json {
        &self.outline
    }

    /// Stands after the first `k` statements (clamped to the trace's length).
    pub fn goto(&mut self, k: usize) {
        let k = k.min(self.step_count());
        if k == self.at {
            return;
        }
        let Some(p) = &self.program else { return };
        if p.is_flat() && k > self.at && self.run.error.is_none() {
            // Forward steps continue the run: the same statements in the same order reach the
            // same state as a replay, at the cost of the new statements only.
            self.run
                .run_program_with_bridge(&Program { stmts: p.stmts[self.at..k].to_vec(), imports: p.imports.clone() });
        } else {
            // A replay: the old run's storages go first, so stepping back never holds two runs.
            self.run = Run::new();
            self.run = if p.is_flat() {
                let mut run = page_run();
                run.run_program_with_bridge(&Program { stmts: p.stmts[..k].to_vec(), imports: p.imports.clone() });
                run
            } else {
                // With blocks, step k is the k-th statement executed: the run replays up to it.
                let mut run = page_run().stop_after(k);
                run.run_program_with_bridge(p);
                run
            };
        }
        self.at = k;
    }

    /// What the panels show at the current step: the report of the replayed prefix, its
    /// storages, and what the current statement did (lists cut to [`PAGE_LIST`]).
    pub fn state(&mut self) -> Json {
        let mut out = report_value(&mut self.run, page_report(Steps::Left));
        let mut storages = Map::new();
        for id in (0..self.run.engine.storage_count()).filter(|&id| !self.run.engine.is_freed(id)) {
            let s = self.run.engine.storage(id);
            let values = if s.data.len() <= INLINE_VALUES { values_json(&s.data) } else { Json::Null };
            storages.insert(
                id.to_string(),
                json!({"dtype": s.data.dtype().name(), "len": s.data.len(), "version": s.version, "values": values}),
            );
        }
        out["storages"] = Json::Object(storages);
        out["at"] = json!(self.at);
        out["steps"] = json!(self.step_count());
        out["step"] = match self.at.checked_sub(1) {
            Some(i) => self.outline["steps"][i].clone(),
            None => Json::Null,
        };
        out["error_storage"] = json!(self.error_storage());
        out["error_tensor"] = json!(self.error_tensor());
        trim_lists(&mut out);
        out
    }

    fn tensor(&self, name: &str) -> Option<Tensor> {
        self.run.tensors().into_iter().find(|(n, _)| *n == name).map(|(_, t)| t)
    }

    /// Where each element of `name` lives: its PyTorch storage cell and tinygrad's buffer offset
    /// (null where tinygrad's mask makes the element padding), for the first [`PAGE_LIST`]
    /// elements.
    pub fn tensor_cells(&self, name: &str) -> Json {
        let Some(t) = self.tensor(name) else {
            return Json::Null;
        };
        let storage = match t.storage() {
            StorageRef::Realized(s) => Some(s),
            StorageRef::Pending(_) => None,
        };
        // Walked, not listed: a 2^26-element tensor's cells as a list would be 512 MB and as JSON
        // more than wasm's memory.
        let l = t.layout();
        let cells: Vec<i64> = StridedIndex::new(l.sizes(), l.strides(), l.offset()).take(PAGE_LIST).collect();
        let tinygrad = t.tinygrad().first_offsets(PAGE_LIST);
        let mut out = json!({"storage": storage, "cells": cells, "tinygrad": tinygrad});
        if l.numel() > PAGE_LIST {
            out["cells_total"] = json!(l.numel());
            out["tinygrad_total"] = json!(l.numel());
        }
        out
    }

    /// One byte per cell of `name`'s storage (see the `CELL_*` bits); empty if the name is not
    /// a tensor.
    pub fn flags(&self, name: &str) -> Vec<u8> {
        let Some(t) = self.tensor(name) else {
            return Vec::new();
        };
        let StorageRef::Realized(s) = t.storage() else {
            return Vec::new();
        };
        let mut flags = vec![0u8; self.run.engine.storage(s).data.len()];
        let l = t.layout();
        for i in StridedIndex::new(l.sizes(), l.strides(), l.offset()) {
            if let Some(f) = usize::try_from(i).ok().and_then(|i| flags.get_mut(i)) {
                *f |= if *f & CELL_SELECTED != 0 { CELL_REPEATED } else { CELL_SELECTED };
            }
        }
        // The replayed prefix ends on the current statement, so its last step is this one.
        if let Some(step) = self.run.steps.last() {
            for w in step.writes.iter().filter(|w| w.storage == s) {
                mark(&mut flags, w.elements.iter(), CELL_WRITTEN);
            }
        }
        if let Some(e) = &self.run.error {
            if let Error::Overlap { elements, .. } = &e.error {
                if self.error_storage() == Some(s) {
                    mark(&mut flags, elements.iter().copied(), CELL_OVERLAP);
                }
            }
        }
        flags
    }

    /// The value of one storage cell, for hovering a storage too large to send whole.
    pub fn cell(&self, storage: usize, index: usize) -> Json {
        if storage >= self.run.engine.storage_count() {
            return Json::Null;
        }
        let data = &self.run.engine.storage(storage).data;
        if index >= data.len() {
            return Json::Null;
        }
        values_json(&data.gather(&[Some(index as i64)]))[0].clone()
    }

    /// The tensor the failing statement wrote or called on: the name written to (`a += ...`,
    /// `a[...] = ...`) or whose method ran (`a.add_(...)`, `y = a.view(...)`), where it names
    /// a tensor. The page selects it at the error.
    fn error_tensor(&self) -> Option<&str> {
        let e = self.run.error.as_ref()?;
        let stmt = self.program.as_ref()?.statement_at(e.line)?;
        let target = match &stmt.kind {
            StmtKind::AugAssign { target, .. } | StmtKind::SetItem { target, .. } => target,
            StmtKind::Expr(e) => e,
            StmtKind::Assign { value, .. } => value,
            _ => return None,
        };
        let name = chain::root_name(target)?;
        self.tensor(name).map(|_| name)
    }

    /// The storage of [`Self::error_tensor`], which an overlap error is about.
    fn error_storage(&self) -> Option<usize> {
        match self.tensor(self.error_tensor()?)?.storage() {
            StorageRef::Realized(s) => Some(s),
            StorageRef::Pending(_) => None,
        }
    }

    /// The selected tensor's view chain at the current step (see [`chain::chain`]).
    pub fn chain(&mut self, name: &str) -> Json {
        let Some(p) = &self.program else {
            return json!([]);
        };
        // The chain follows definitions among whole top-level statements.
        let upto = if p.is_flat() { self.at } else { self.run.steps.last().map_or(0, |s| p.top_level_before(s.line)) };
        let Some(def) = chain::definition(p, upto, name) else {
            return json!([]);
        };
        self.chains.entry((name.to_string(), def)).or_insert_with(|| chain::chain(p, upto, name)).clone()
    }
}

fn mark(flags: &mut [u8], elements: impl Iterator<Item = i64>, bit: u8) {
    for i in elements {
        if let Some(f) = usize::try_from(i).ok().and_then(|i| flags.get_mut(i)) {
            *f |= bit;
        }
    }
}
