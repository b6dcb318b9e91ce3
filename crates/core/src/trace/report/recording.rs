//! Recordings: reports written by the Python recorder (`python/stridelab_record`) from a real
//! PyTorch run, read back as typed records, checked, and reported again with the product's
//! prediction of tinygrad's view beside PyTorch's recorded truth.
//!
//! A recording is the report's JSON (the same fields, names and meaning as a run's report for
//! the PyTorch side) plus a top-level `recorded` object; the fields only the product computes
//! (`views`, `index`, `valid`, `bridge`) are absent. Reading one fills `views`, `index` and
//! `valid` from each tensor's recorded shape, strides and offset (tinygrad's single-view
//! ShapeTracker) and marks them `"predicted": true`; `bridge` stays null. Nothing else is
//! computed: every PyTorch field is printed as recorded.

use super::{ReportOptions, ValueList};
use crate::error::Error;
use crate::shape::tracker::ShapeTracker;
use crate::shape::view::View;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

type Result<T> = std::result::Result<T, Error>;

/// Whether `bytes` (a `.json` file) is a recording: a JSON object with a top-level `recorded`.
pub fn is_recording(bytes: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        recorded: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Probe>(bytes).is_ok_and(|p| p.recorded.is_some())
}

/// A recording, parsed and checked.
#[derive(Debug, Deserialize)]
pub struct Recording {
    version: u32,
    recorded: Recorded,
    error: Option<RecordedError>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    output: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stale_line: Option<usize>,
    tensors: Named<RecordedTensor>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    autograd_graph: Vec<RecordedNode>,
    #[serde(default)]
    steps: Vec<RecordedStep>,
}

/// Who recorded it, with what, and where a limit cut it.
#[derive(Debug, Deserialize, Serialize)]
pub struct Recorded {
    pub recorder: String,
    pub torch: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    #[serde(default)]
    pub script: Option<String>,
    /// The script's text as written (recorders since 0.2 keep it up to 256 KiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default)]
    pub limits: Option<RecordedLimits>,
    /// Where a limit stopped the recording (the program ran on to its end unrecorded).
    #[serde(default)]
    pub cut: Option<Cut>,
    #[serde(default)]
    pub steps_recorded: usize,
    /// Anything else the recorder wrote (`exit_code`, a generator's case name), kept as is.
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct RecordedLimits {
    pub steps: u64,
    pub bytes: u64,
    pub values: u64,
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct Cut {
    /// `steps`, `bytes`, or `recorder` (the recorder itself failed and stopped).
    pub limit: String,
    pub line: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub note: String,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct RecordedError {
    pub line: usize,
    pub column: Option<usize>,
    /// The product's error kind where the recorder could classify PyTorch's error, else
    /// `runtime`.
    pub kind: String,
    /// PyTorch's (or Python's) exact message.
    pub message: String,
    /// The exception's class (`RuntimeError`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
    /// The file of the failing line, when it is not the recorded script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// One element value as the report writes it: an integer (int and bool tensors), a float,
/// `"nan"` / `"inf"` / `"-inf"`, or `[real, imaginary]` for a complex element.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Value {
    Int(i64),
    UInt(u64),
    Float(f64),
    NonFinite(NonFinite),
    Complex([Box<Value>; 2]),
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub enum NonFinite {
    #[serde(rename = "nan")]
    Nan,
    #[serde(rename = "inf")]
    Inf,
    #[serde(rename = "-inf")]
    NegInf,
}

impl Value {
    /// The value as a float (NaN for a complex element).
    pub fn as_f64(&self) -> f64 {
        match self {
            Value::Int(i) => *i as f64,
            Value::UInt(u) => *u as f64,
            Value::Float(f) => *f,
            Value::NonFinite(NonFinite::Nan) | Value::Complex(_) => f64::NAN,
            Value::NonFinite(NonFinite::Inf) => f64::INFINITY,
            Value::NonFinite(NonFinite::NegInf) => f64::NEG_INFINITY,
        }
    }
}

#[derive(Debug, Deserialize, Serialize)]
pub struct RecordedTensor {
    pub shape: Vec<usize>,
    pub dtype: String,
    pub values: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values_total: Option<usize>,
    pub torch: RecordedTorch,
    #[serde(default)]
    pub autograd: Option<RecordedAutograd>,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct RecordedTorch {
    pub strides: Vec<i64>,
    pub storage_offset: i64,
    pub storage: usize,
    pub is_view: bool,
    pub version: u64,
    pub is_contiguous: bool,
    pub memory_format: Option<String>,
    pub channels_last: Option<bool>,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct RecordedAutograd {
    pub requires_grad: bool,
    pub is_leaf: Option<bool>,
    pub grad_fn: Option<String>,
    pub grad: Option<Vec<Value>>,
    pub grad_shape: Option<Vec<usize>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grad_fn_error: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct RecordedNode {
    pub id: usize,
    pub name: String,
    pub line: usize,
    pub outputs: Vec<String>,
    pub next: Vec<Option<RecordedEdge>>,
    pub freed: bool,
    pub saved: Vec<RecordedSaved>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordedEdge {
    Node(usize),
    Leaf(Option<String>),
}

#[derive(Debug, Deserialize, Serialize)]
pub struct RecordedSaved {
    pub tensor: Option<String>,
    pub shape: Vec<usize>,
    pub storage: Option<usize>,
    pub elements: Option<Vec<i64>>,
    pub saved_version: u64,
    pub version: u64,
    pub stale: bool,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct RecordedStep {
    pub line: usize,
    pub source: String,
    pub defines: Vec<String>,
    pub writes: Option<RecordedWrite>,
    pub tensors_changed: Vec<String>,
    /// The file of the line, when it is not the recorded script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The function the line is in, when it is not the module's top level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
    /// The tensors the line defined or changed, as they were after it (serialized by the
    /// report's step, with the predictions).
    #[serde(default, skip_serializing)]
    pub tensors: Named<RecordedTensor>,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct RecordedWrite {
    pub storage: usize,
    /// The storage cells whose value changed (the first of them, when `elements_total` says
    /// there are more).
    pub elements: Vec<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elements_total: Option<usize>,
    /// Why the cells are not listed (a storage too large to compare).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub all: Vec<RecordedWrite>,
}

/// Records by name, in the order the recording lists them (a JSON object read in order).
#[derive(Debug)]
pub struct Named<T>(pub Vec<(String, T)>);

impl<T> Default for Named<T> {
    fn default() -> Self {
        Named(Vec::new())
    }
}

impl<T: Serialize> Serialize for Named<T> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Named<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct InOrder<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for InOrder<T> {
            type Value = Named<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of records by name")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Named<T>, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some((k, v)) = map.next_entry::<String, T>()? {
                    out.push((k, v));
                }
                Ok(Named(out))
            }
        }
        d.deserialize_map(InOrder(std::marker::PhantomData))
    }
}

impl Recording {
    /// Parses and checks a recording; a malformed one is a `decode` error naming what is wrong.
    pub fn from_json(bytes: &[u8]) -> Result<Recording> {
        let rec: Recording = serde_json::from_slice(bytes).map_err(|e| Error::Decode(format!("recording: {e}")))?;
        rec.check()?;
        Ok(rec)
    }

    pub fn recorded(&self) -> &Recorded {
        &self.recorded
    }

    pub fn error(&self) -> Option<&RecordedError> {
        self.error.as_ref()
    }

    pub fn tensors(&self) -> &[(String, RecordedTensor)] {
        &self.tensors.0
    }

    pub fn steps(&self) -> &[RecordedStep] {
        &self.steps
    }

    pub fn autograd_graph(&self) -> &[RecordedNode] {
        &self.autograd_graph
    }

    pub fn stale_line(&self) -> Option<usize> {
        self.stale_line
    }

    pub fn output(&self) -> &str {
        &self.output
    }

    fn check(&self) -> Result<()> {
        let bad = |what: String| Err(Error::Decode(format!("recording: {what}")));
        if self.version != super::SCHEMA_VERSION {
            return bad(format!("report version {} (this reader takes {})", self.version, super::SCHEMA_VERSION));
        }
        for (name, t) in &self.tensors.0 {
            check_tensor(&format!("tensors.{name}"), t).or_else(bad)?;
        }
        for (i, s) in self.steps.iter().enumerate() {
            if s.line == 0 {
                return bad(format!("steps[{i}]: line 0"));
            }
            for (name, t) in &s.tensors.0 {
                check_tensor(&format!("steps[{i}].tensors.{name}"), t).or_else(bad)?;
            }
        }
        let ids: Vec<usize> = self.autograd_graph.iter().map(|n| n.id).collect();
        for n in &self.autograd_graph {
            for e in n.next.iter().flatten() {
                if let RecordedEdge::Node(id) = e {
                    if !ids.contains(id) {
                        return bad(format!("autograd_graph: node {} points to node {id}, which is not listed", n.id));
                    }
                }
            }
        }
        Ok(())
    }

    /// The report of the recording: the recording itself, tinygrad's predicted view beside
    /// each tensor, `steps` only when `opts.steps` asks, values cut as `opts.values` says.
    pub fn report(&self, opts: ReportOptions) -> RecordingReport<'_> {
        let list = opts.values;
        RecordingReport {
            version: self.version,
            recorded: &self.recorded,
            error: self.error.as_ref(),
            output: &self.output,
            stale_line: self.stale_line,
            tensors: Named(self.tensors.0.iter().map(|(n, t)| (n.clone(), predicted(t, list))).collect()),
            autograd_graph: &self.autograd_graph,
            steps: opts.steps.then(|| {
                self.steps
                    .iter()
                    .map(|s| StepOut {
                        step: s,
                        tensors: Named(s.tensors.0.iter().map(|(n, t)| (n.clone(), predicted(t, list))).collect()),
                    })
                    .collect()
            }),
        }
    }
}

/// What a recorded tensor must satisfy for its layout to be read: one stride per dim, a
/// non-negative offset, a value per element (or the first ones and their count).
fn check_tensor(at: &str, t: &RecordedTensor) -> std::result::Result<(), String> {
    if t.torch.strides.len() != t.shape.len() {
        return Err(format!("{at}: {} strides for shape {:?}", t.torch.strides.len(), t.shape));
    }
    if t.torch.storage_offset < 0 {
        return Err(format!("{at}: negative storage_offset {}", t.torch.storage_offset));
    }
    let numel = t.shape.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n));
    let Some(numel) = numel else {
        return Err(format!("{at}: shape {:?} has more elements than an index holds", t.shape));
    };
    match t.values_total {
        None if t.values.len() != numel => {
            Err(format!("{at}: {} values for shape {:?} ({numel} elements)", t.values.len(), t.shape))
        }
        Some(total) if total != numel || t.values.len() > total => Err(format!(
            "{at}: values_total {total} with {} values for shape {:?} ({numel} elements)",
            t.values.len(),
            t.shape
        )),
        _ => Ok(()),
    }
}

/// The report of a recording ([`Recording::report`]).
#[derive(Serialize)]
pub struct RecordingReport<'a> {
    version: u32,
    recorded: &'a Recorded,
    error: Option<&'a RecordedError>,
    #[serde(skip_serializing_if = "str::is_empty")]
    output: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    stale_line: Option<usize>,
    tensors: Named<PredictedTensor<'a>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    autograd_graph: &'a [RecordedNode],
    #[serde(skip_serializing_if = "Option::is_none")]
    steps: Option<Vec<StepOut<'a>>>,
}

#[derive(Serialize)]
struct StepOut<'a> {
    #[serde(flatten)]
    step: &'a RecordedStep,
    /// Replaces the step's own `tensors` (flattened above), with the predictions added.
    tensors: Named<PredictedTensor<'a>>,
}

/// A recorded tensor as the report gives it: PyTorch's recorded fields, and tinygrad's view of
/// the same layout predicted by the product.
#[derive(Serialize)]
pub struct PredictedTensor<'a> {
    shape: &'a [usize],
    dtype: &'a str,
    values: &'a [Value],
    #[serde(skip_serializing_if = "Option::is_none")]
    values_total: Option<usize>,
    torch: &'a RecordedTorch,
    views: Vec<super::ViewReport>,
    index: String,
    valid: String,
    /// `views`, `index` and `valid` are the product's prediction from the recorded layout, not
    /// something PyTorch recorded.
    predicted: bool,
    /// Only a run of the product has the bridge's view.
    bridge: Option<()>,
    autograd: Option<&'a RecordedAutograd>,
}

impl RecordedTensor {
    /// tinygrad's single-view ShapeTracker over the recorded shape, strides and offset: the
    /// product's prediction of how tinygrad would index the same storage.
    pub fn tracker(&self) -> ShapeTracker {
        ShapeTracker::from_view(View::new(&self.shape, Some(&self.torch.strides), self.torch.storage_offset, None))
    }
}

/// `t` as a report gives it (see [`PredictedTensor`]), its values cut as `list` says: what the
/// report's `tensors` and each step's hold, and what the page shows of a recording at a step.
pub fn predicted(t: &RecordedTensor, list: ValueList) -> PredictedTensor<'_> {
    let tracker = t.tracker();
    let views = super::view_reports(&tracker);
    let (index, valid) = tracker.index_text();
    let cap = list.cap();
    let values = &t.values[..t.values.len().min(cap)];
    let values_total = t.values_total.or((values.len() < t.values.len()).then_some(t.values.len()));
    PredictedTensor {
        shape: &t.shape,
        dtype: &t.dtype,
        values,
        values_total,
        torch: &t.torch,
        views,
        index,
        valid,
        predicted: true,
        bridge: None,
        autograd: t.autograd.as_ref(),
    }
}
