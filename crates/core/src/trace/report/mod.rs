//! The JSON a run reports: one schema for the CLI, the tests and the web page.
//!
//! The report is a typed, borrowed view of a finished [`Run`], serialized straight to text: a
//! trace with 1,000 writing steps lists millions of storage indices, too many to build as a
//! `serde_json::Value` tree first. `version` is bumped when a field changes meaning; new
//! fields may be added freely.

use crate::autograd::Edge;
use crate::cells::CellList;
use crate::engine::bridge::WritePath;
use crate::error::Error;
use crate::tensor::{Engine, Tensor};
use crate::torch::format::MemoryFormat;
use crate::trace::interp::runner::{Run, Step};
use crate::uop::buffer::Data;
use crate::uop::Graph;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

pub mod recording;
pub mod reference;
pub mod stream;

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Copy, Debug, Default)]
pub struct ReportOptions {
    /// Add the per-statement history (`steps`).
    pub steps: bool,
    /// Add the UOp graph as a node table (`graph`).
    pub graph: bool,
    /// Which of the bridge run's tensors carry their values.
    pub bridge_values: BridgeValues,
    /// How many of each tensor's values the report lists.
    pub values: ValueList,
}

/// How many of a tensor's values a report lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ValueList {
    /// All of them: what the CLI and every check read.
    #[default]
    Whole,
    /// The first `n` in row-major order, with `values_total` beside when there are more: the
    /// page shows the first 1,024, and a 2^26-element tensor's values as a JSON tree would not
    /// fit in wasm's memory.
    First(usize),
}

impl ValueList {
    /// How many items of any long list (values, written cells, positions) a report carries.
    fn cap(self) -> usize {
        match self {
            ValueList::Whole => usize::MAX,
            ValueList::First(n) => n,
        }
    }
}

/// A list of storage cells or positions cut to a report's [`ValueList`] (its `_total`
/// sibling says how many there are): a 2^26-element write listed whole is half a gigabyte of
/// numbers, and far more as a JSON tree.
struct Cells<'a>(CellSource<'a>, usize);

/// Where a [`Cells`] list's indices live.
enum CellSource<'a> {
    Slice(&'a [i64]),
    Runs(&'a CellList),
}

impl<'a> Cells<'a> {
    fn new(all: &'a [i64], list: ValueList) -> Self {
        Cells(CellSource::Slice(all), list.cap())
    }

    fn runs(all: &'a CellList, list: ValueList) -> Self {
        Cells(CellSource::Runs(all), list.cap())
    }

    fn len(&self) -> usize {
        match self.0 {
            CellSource::Slice(s) => s.len(),
            CellSource::Runs(r) => r.len(),
        }
    }

    /// The full count, when the list is cut.
    fn total(&self) -> Option<usize> {
        (self.len() > self.1).then_some(self.len())
    }
}

impl Serialize for Cells<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            CellSource::Slice(all) => s.collect_seq(all.iter().take(self.1)),
            CellSource::Runs(all) => s.collect_seq(all.iter().take(self.1)),
        }
    }
}

impl ValueList {
    /// `values` cut to this list's length, and the full count when it was cut.
    fn cut(self, values: &mut Values) -> Option<usize> {
        let total = values.0.len();
        match self {
            ValueList::First(n) if total > n => {
                let first: Vec<Option<i64>> = (0..n as i64).map(Some).collect();
                values.0 = values.0.gather(&first);
                Some(total)
            }
            _ => None,
        }
    }
}

/// How much of the bridge run's values a report carries. Every tensor's values are compared
/// with PyTorch's either way (`bridge.values_match_torch` on each tensor).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BridgeValues {
    /// Every tensor's: what the bridge check and the CLI read.
    #[default]
    All,
    /// Only where they differ from PyTorch's: a stepping page redraws every statement and
    /// would otherwise ship each tensor's values twice.
    Differing,
}

#[derive(Serialize)]
pub struct Report<'a> {
    version: u32,
    error: Option<ErrorReport<'a>>,
    /// Everything `print` wrote, in order (each step also carries its own part).
    #[serde(skip_serializing_if = "String::is_empty")]
    output: String,
    /// The first statement after which a tensor saved for backward had been changed in place
    /// (a backward through it would fail), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    stale_line: Option<usize>,
    tensors: Named<TensorReport>,
    /// The backward graph of the named tensors: every node reachable from their `grad_fn`s,
    /// with its saved tensors and their versions (empty when nothing requires grad).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    autograd_graph: Vec<NodeReport>,
    /// The trace run under tinygrad's PyTorch bridge ([`crate::engine::bridge`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    bridge: Option<BridgeRunReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    steps: Option<Vec<StepReport<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    graph: Option<&'a Graph>,
    /// Every kernel the statements became, in order, when they were run on a backend.
    #[serde(skip_serializing_if = "Option::is_none")]
    kernels: Option<Vec<serde_json::Value>>,
}

#[derive(Serialize)]
struct ErrorReport<'a> {
    line: usize,
    column: Option<usize>,
    kind: &'static str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    elements: Option<Cells<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    elements_total: Option<usize>,
}

/// Tensors by name, in the order the trace introduced them.
struct Named<T>(Vec<(String, T)>);

impl<T: Serialize> Serialize for Named<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[derive(Serialize)]
struct TensorReport {
    shape: Vec<usize>,
    dtype: &'static str,
    values: Values,
    /// The element count, where `values` lists only the first ([`ValueList::First`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    values_total: Option<usize>,
    torch: TorchReport,
    views: Vec<ViewReport>,
    index: String,
    valid: String,
    bridge: BridgeReport,
    /// Whether it requires grad, is a leaf, its `grad_fn` and its `.grad`.
    autograd: Option<AutogradReport>,
}

#[derive(Serialize)]
struct NodeReport {
    id: usize,
    /// PyTorch's class name (`SigmoidBackward0`).
    name: String,
    /// The trace line whose statement recorded it.
    line: usize,
    /// The names of the tensors whose `grad_fn` it is.
    outputs: Vec<String>,
    /// Where each input's gradient goes, in PyTorch's `next_functions` order: `{"node": id}`,
    /// `{"leaf": name}` (AccumulateGrad of a leaf; null name for one no name holds), or null.
    next: Vec<Option<EdgeReport>>,
    /// A backward without `retain_graph=True` freed what it saved.
    freed: bool,
    saved: Vec<SavedReport>,
}

#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum EdgeReport {
    Node(usize),
    Leaf(Option<String>),
}

#[derive(Serialize)]
struct SavedReport {
    /// The name bound to the saved tensor, if any.
    tensor: Option<String>,
    shape: Vec<usize>,
    storage: Option<usize>,
    /// The storage cells it covers (null past the page's inline limit).
    elements: Option<Vec<i64>>,
    saved_version: u64,
    version: u64,
    /// A write changed it since it was saved: a backward through this node fails.
    stale: bool,
}

/// Saved tensors with more elements than this are reported without their cells.
const SAVED_CELLS: usize = 4096;

fn autograd_graph(engine: &mut Engine, named: &[(String, Tensor)]) -> Vec<NodeReport> {
    let roots: Vec<&Tensor> = named.iter().map(|(_, t)| t).collect();
    // Names by object (the first name bound to it) and by `grad_fn`, looked up per node.
    let mut by_object = std::collections::HashMap::new();
    let mut by_node: std::collections::HashMap<_, Vec<String>> = std::collections::HashMap::new();
    for (name, t) in named {
        by_object.entry(t.object).or_insert_with(|| name.clone());
        if let Some(g) = engine.autograd().grad_fn(t) {
            by_node.entry(g).or_default().push(name.clone());
        }
    }
    let name_of = |t: &Tensor| by_object.get(&t.object).cloned();
    let views = engine.graph_from(&roots);
    let mut out = Vec::with_capacity(views.len());
    for n in views {
        let outputs: Vec<String> = by_node.get(&n.id).cloned().unwrap_or_default();
        let next = n
            .next
            .iter()
            .map(|e| {
                e.map(|e| match e {
                    Edge::Node(m) => EdgeReport::Node(m.index()),
                    Edge::Leaf(o) => EdgeReport::Leaf(by_object.get(&o).cloned()),
                })
            })
            .collect();
        let mut saved = Vec::with_capacity(n.saved.len());
        for s in &n.saved {
            saved.push(SavedReport {
                tensor: name_of(&s.tensor),
                shape: s.tensor.shape().to_vec(),
                storage: engine.storage_id(&s.tensor).ok(),
                elements: (s.tensor.numel() <= SAVED_CELLS).then(|| s.tensor.layout().storage_indices()),
                saved_version: s.saved_version,
                version: s.version,
                stale: s.saved_version != s.version,
            });
        }
        out.push(NodeReport { id: n.id.index(), name: n.name, line: n.line, outputs, next, freed: n.freed, saved });
    }
    out
}

#[derive(Serialize)]
struct AutogradReport {
    requires_grad: bool,
    is_leaf: Option<bool>,
    grad_fn: Option<String>,
    grad: Option<Values>,
    grad_shape: Option<Vec<usize>>,
    /// What reading `grad_fn` raises, where PyTorch refuses it (and `is_leaf`, `grad_fn` are
    /// then null).
    #[serde(skip_serializing_if = "Option::is_none")]
    grad_fn_error: Option<String>,
}

#[derive(Serialize)]
struct TorchReport {
    strides: Vec<i64>,
    storage_offset: i64,
    storage: usize,
    is_view: bool,
    version: u64,
    /// `t.is_contiguous()`.
    is_contiguous: bool,
    /// The memory format the layout is dense in (`"contiguous"`, `"channels_last"`,
    /// `"channels_last_3d"`; the one `suggest_memory_format()` names when several fit, as for
    /// `(2, 1, 4, 4)`), or null when it is dense in none (see `torch::format`).
    memory_format: Option<&'static str>,
    /// `t.is_contiguous(memory_format=torch.channels_last)` for a 4-D tensor, else null (as the
    /// recorded fixtures have it).
    channels_last: Option<bool>,
    /// Which output of a multi-output op the tensor is (`q, k, v = x.chunk(3)`); absent for
    /// every other tensor.
    #[serde(skip_serializing_if = "Option::is_none")]
    output_of: Option<OutputOfReport>,
    /// Why the tensor is a copy where a view might be expected (advanced indexing); absent
    /// otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    copy_reason: Option<&'static str>,
}

#[derive(Serialize)]
struct OutputOfReport {
    op: &'static str,
    index: usize,
    count: usize,
    /// PyTorch's autograd node when every output is a view of that one node (its outputs
    /// refuse in-place writes under autograd); null when each output is a view of its own.
    multi_output_node: Option<&'static str>,
}

#[derive(Serialize)]
struct ViewReport {
    shape: Vec<usize>,
    strides: Vec<i64>,
    offset: i64,
    mask: Option<Vec<(usize, usize)>>,
}

/// A tinygrad view stack as the report lists it, outermost view first.
fn view_reports(tracker: &crate::shape::tracker::ShapeTracker) -> Vec<ViewReport> {
    tracker
        .views()
        .iter()
        .map(|v| ViewReport {
            shape: v.shape().to_vec(),
            strides: v.strides().to_vec(),
            offset: v.offset(),
            mask: v.mask().map(<[_]>::to_vec),
        })
        .collect()
}

#[derive(Serialize)]
struct BridgeReport {
    shape: Vec<usize>,
    strides: Vec<i64>,
    storage_offset: i64,
    /// Metadata: the bridge's shape, strides and offset equal PyTorch's.
    matches_torch: bool,
    /// Values: the bridge's own run ends with the same values under this name (`None` when
    /// the bridge run has no such tensor).
    values_match_torch: Option<bool>,
    /// The bridge diverges from PyTorch for this tensor: its values differ, or the bridge run
    /// has no such tensor (it failed first, or bound it only where PyTorch raised).
    diverges: bool,
}

/// The bridge's whole run of the trace: where it failed, and the tensors it ended with.
#[derive(Serialize)]
struct BridgeRunReport {
    error_line: Option<usize>,
    error: Option<String>,
    tensors: Named<BridgeTensorReport>,
}

#[derive(Serialize)]
struct BridgeTensorReport {
    shape: Vec<usize>,
    dtype: &'static str,
    strides: Vec<i64>,
    storage_offset: i64,
    /// Absent where the report leaves out values that match PyTorch's
    /// ([`BridgeValues::Differing`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    values: Option<Values>,
    /// The element count, where `values` lists only the first ([`ValueList::First`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    values_total: Option<usize>,
}

#[derive(Serialize)]
struct StepReport<'a> {
    line: usize,
    source: &'a str,
    defines: &'a [String],
    writes: Option<WriteReport<'a>>,
    tensors_changed: &'a [String],
    /// The loops the statement ran in, outermost first: `[line, iteration]` (1-based).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    iterations: &'a [(usize, usize)],
    /// What `print` wrote while the statement ran.
    #[serde(skip_serializing_if = "str::is_empty")]
    output: &'a str,
    /// The saved tensors this statement made stale: a backward through their nodes will fail.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    stale: &'a [String],
    /// What the engine noted about the statement (duplicate indices in a write, ...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<&'static str>,
    /// The kernels the statement became, when the run was given a backend.
    #[serde(skip_serializing_if = "Option::is_none")]
    kernels: Option<Vec<serde_json::Value>>,
    /// Why the statement has no kernels although it computed something, when that is so.
    #[serde(skip_serializing_if = "Option::is_none")]
    kernel_note: Option<String>,
    /// What the bridge's run did with the same statement, when the run has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    bridge: Option<BridgeStepReport<'a>>,
    /// The nodes a backward in the statement ran, in order, and the `.grad` cells written.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    backward: &'a [crate::trace::interp::runner::BackwardStep],
}

/// The same statement in the bridge's run, beside PyTorch's.
#[derive(Serialize)]
struct BridgeStepReport<'a> {
    /// The bridge's run stopped (it failed) before this statement.
    stopped: bool,
    /// The bridge fails at this statement, with this message.
    error: Option<&'a str>,
    /// Its write plan, when the statement writes in the bridge's run.
    write: Option<BridgePlanReport>,
    /// The tensors whose values the bridge's write changed.
    tensors_changed: &'a [String],
    /// Changed in PyTorch's run but not in the bridge's: aliases the bridge's write misses.
    missed: Vec<&'a str>,
    /// Changed in the bridge's run but not in PyTorch's: tensors the bridge writes through
    /// where PyTorch has a copy.
    extra: Vec<&'a str>,
    /// The two runs part here: one fails and the other does not, or their writes differ.
    diverges: bool,
}

#[derive(Serialize)]
struct BridgePlanReport {
    /// The canonical base's storage in the bridge's run, and its element count.
    storage: usize,
    base_len: usize,
    /// `"assign"` (the whole base in order) or `"scatter"` (flat index, clone, scatter,
    /// replace base).
    path: &'static str,
    /// How many base positions the index holds.
    count: usize,
    /// The positions, when they are not PyTorch's written storage elements for the statement.
    #[serde(skip_serializing_if = "Option::is_none")]
    positions: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    positions_total: Option<usize>,
    /// The target is a reshape of a non-contiguous view, kept in step with its base.
    through_mirror: bool,
}

#[derive(Serialize)]
struct WriteReport<'a> {
    storage: usize,
    elements: Cells<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    elements_total: Option<usize>,
    /// Every storage the statement wrote, when it wrote more than one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    all: Vec<WriteRef<'a>>,
}

#[derive(Serialize)]
struct WriteRef<'a> {
    storage: usize,
    elements: Cells<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    elements_total: Option<usize>,
}

/// Element values: integers for int and bool tensors, the shortest decimal that round-trips
/// its f32 for floats (0.1f32 prints as 0.1), and "nan" / "inf" / "-inf", which JSON cannot
/// carry as numbers.
pub struct Values(pub Data);

impl Serialize for Values {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.0.len();
        if n >= stream::SPLIT_MIN {
            if let Some(out) = stream::current() {
                // Under `stream::write_json` (whose serializer writes straight to `out`): serde
                // writes the brackets, the elements are formatted apart in between.
                let seq = s.serialize_seq(Some(n))?;
                stream::write_elements(&out, &self.0).map_err(serde::ser::Error::custom)?;
                return seq.end();
            }
        }
        let mut seq = s.serialize_seq(Some(n))?;
        fn float<S: SerializeSeq, F: Serialize + Copy>(
            seq: &mut S,
            x: F,
            finite: bool,
            nan: bool,
            positive: bool,
        ) -> Result<(), S::Error> {
            if finite {
                seq.serialize_element(&x)
            } else {
                seq.serialize_element(if nan {
                    "nan"
                } else if positive {
                    "inf"
                } else {
                    "-inf"
                })
            }
        }
        match &self.0 {
            Data::F32(v) => v.iter().try_for_each(|&x| float(&mut seq, x, x.is_finite(), x.is_nan(), x > 0.0))?,
            Data::F64(v) => v.iter().try_for_each(|&x| float(&mut seq, x, x.is_finite(), x.is_nan(), x > 0.0))?,
            Data::F16(v) => {
                v.iter().map(|x| x.to_f32()).try_for_each(|x| float(&mut seq, x, x.is_finite(), x.is_nan(), x > 0.0))?
            }
            Data::BF16(v) => {
                v.iter().map(|x| x.to_f32()).try_for_each(|x| float(&mut seq, x, x.is_finite(), x.is_nan(), x > 0.0))?
            }
            Data::I64(v) => v.iter().try_for_each(|x| seq.serialize_element(x))?,
            Data::I32(v) => v.iter().try_for_each(|x| seq.serialize_element(x))?,
            Data::I16(v) => v.iter().try_for_each(|x| seq.serialize_element(x))?,
            Data::I8(v) => v.iter().try_for_each(|x| seq.serialize_element(x))?,
            Data::U8(v) => v.iter().try_for_each(|x| seq.serialize_element(x))?,
            Data::Bool(v) => v.iter().try_for_each(|&x| seq.serialize_element(&u8::from(x)))?,
        }
        seq.end()
    }
}

/// Runs `src` and reports it as a JSON value (tests and small tools; the CLI streams).
pub fn run_json(src: &str, opts: ReportOptions) -> serde_json::Value {
    let mut run = Run::run_source(src);
    let rep = report(&mut run, opts);
    serde_json::to_value(&rep).unwrap_or(serde_json::Value::Null)
}

/// The report as a JSON value, for callers that edit or index it (the web adapter).
pub fn report_value(run: &mut Run, opts: ReportOptions) -> serde_json::Value {
    serde_json::to_value(report(run, opts)).unwrap_or(serde_json::Value::Null)
}

/// Element values as JSON, with the report's number rules.
pub fn values_json(d: &Data) -> serde_json::Value {
    serde_json::to_value(Values(d.clone())).unwrap_or(serde_json::Value::Null)
}

/// The report of a finished run. Realizes what the tensors still need, hence `&mut`.
pub fn report(run: &mut Run, opts: ReportOptions) -> Report<'_> {
    let mut bridge = run.bridge.as_deref_mut().map(bridge_run_report);
    let named: Vec<(String, Tensor)> = run.tensors();
    let graph = autograd_graph(&mut run.engine, &named);
    let mut tensors = Vec::with_capacity(named.len());
    // Each name's place among the bridge's tensors (the first, as a search would find it): a
    // model of 40,000 parameters is not 40,000 searches of 40,000 names.
    let mut bridge_at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, (n, _)) in bridge.iter().flat_map(|b| b.tensors.0.iter()).enumerate() {
        bridge_at.entry(n.clone()).or_insert(i);
    }
    for (name, t) in named {
        // A tensor whose values cannot be computed was dropped by the runner already; a
        // failure here would be an engine bug, so it is skipped rather than reported as data.
        if let Some(mut r) = tensor_report(&mut run.engine, &t) {
            if let Some(b) = &mut bridge {
                let bt = bridge_at.get(&name).and_then(|&i| b.tensors.0.get_mut(i)).map(|(_, bt)| bt);
                let same = bt.as_ref().map(|bt| {
                    bt.shape == r.shape && bt.values.as_ref().is_some_and(|v| v.0.same_elements(&r.values.0))
                });
                if let Some(bt) = bt {
                    match (same, opts.bridge_values, &mut bt.values) {
                        (Some(true), BridgeValues::Differing, v) => *v = None,
                        (_, _, Some(v)) => bt.values_total = opts.values.cut(v),
                        _ => {}
                    }
                }
                r.bridge.values_match_torch = same;
                r.bridge.diverges = same != Some(true);
            }
            r.values_total = opts.values.cut(&mut r.values);
            tensors.push((name, r));
        }
    }
    // The bridge's tensors PyTorch's run has no values for are cut too.
    for (_, bt) in bridge.iter_mut().flat_map(|b| b.tensors.0.iter_mut()) {
        if let (Some(v), None) = (&mut bt.values, bt.values_total) {
            bt.values_total = opts.values.cut(v);
        }
    }
    let run: &Run = run;
    let error = run.error.as_ref().map(|e| ErrorReport {
        line: e.line,
        column: e.column,
        kind: e.error.kind(),
        message: e.error.message(),
        elements: match &e.error {
            Error::Overlap { elements, .. } => Some(Cells::new(elements, opts.values)),
            _ => None,
        },
        elements_total: match &e.error {
            Error::Overlap { elements, .. } => Cells::new(elements, opts.values).total(),
            _ => None,
        },
    });
    Report {
        version: SCHEMA_VERSION,
        error,
        output: run.steps.iter().map(|s| s.output.as_str()).collect(),
        stale_line: run.steps.iter().find(|s| !s.stale.is_empty()).map(|s| s.line),
        tensors: Named(tensors),
        autograd_graph: graph,
        bridge,
        steps: opts.steps.then(|| {
            run.steps
                .iter()
                .enumerate()
                .map(|(i, s)| StepReport {
                    bridge: bridge_step_report(run, i, opts.values),
                    ..step_report(s, &run.engine, opts.values)
                })
                .collect()
        }),
        graph: opts.graph.then(|| run.engine.graph()),
        kernels: None,
    }
}

impl Report<'_> {
    /// Adds what each step's kernels were on a backend (their records, and the note saying
    /// why a step that computed something has none): to each step, when the report lists
    /// steps, and all of them in order at the end.
    pub fn add_kernels(&mut self, per_step: Vec<(Vec<serde_json::Value>, Option<String>)>) {
        let mut all = Vec::new();
        let mut steps = self.steps.as_mut().map(|s| s.iter_mut());
        for (kernels, note) in per_step {
            all.extend(kernels.iter().cloned());
            if let Some(step) = steps.as_mut().and_then(Iterator::next) {
                step.kernels = Some(kernels);
                step.kernel_note = note;
            }
        }
        self.kernels = Some(all);
    }
}

/// The bridge run's tensors: its metadata model and the values its own execution ended with.
fn bridge_run_report(run: &mut Run) -> BridgeRunReport {
    let named: Vec<(String, Tensor)> = run.tensors();
    let all: Vec<Tensor> = named.iter().map(|(_, t)| t.clone()).collect();
    let recorded = run.engine.bridge_recorded_values(&all);
    let mut tensors = Vec::with_capacity(named.len());
    for ((name, t), values) in named.into_iter().zip(recorded) {
        let Ok(values) = values else { continue };
        let b = t.bridge();
        tensors.push((
            name,
            BridgeTensorReport {
                shape: t.shape().to_vec(),
                dtype: t.dtype().name(),
                strides: b.strides.clone(),
                storage_offset: b.offset,
                values: Some(Values(values)),
                values_total: None,
            },
        ));
    }
    BridgeRunReport {
        error_line: run.error.as_ref().map(|e| e.line),
        error: run.error.as_ref().map(|e| e.error.message().to_string()),
        tensors: Named(tensors),
    }
}

fn step_report<'a>(s: &'a Step, engine: &Engine, list: ValueList) -> StepReport<'a> {
    let writes = s.writes.first().map(|w| WriteReport {
        storage: w.storage,
        elements_total: Cells::runs(&w.elements, list).total(),
        elements: Cells::runs(&w.elements, list),
        all: if s.writes.len() > 1 {
            s.writes
                .iter()
                .map(|w| WriteRef {
                    storage: w.storage,
                    elements_total: Cells::runs(&w.elements, list).total(),
                    elements: Cells::runs(&w.elements, list),
                })
                .collect()
        } else {
            vec![]
        },
    });
    let notes = engine.notes_within(s.events.clone());
    StepReport {
        line: s.line,
        source: &s.source,
        defines: &s.defines,
        writes,
        tensors_changed: &s.tensors_changed,
        iterations: &s.iterations,
        output: &s.output,
        stale: &s.stale,
        backward: &s.backward,
        notes,
        kernels: None,
        kernel_note: None,
        bridge: None,
    }
}

/// Step `i` of PyTorch's run beside the bridge run's step for the same statement.
fn bridge_step_report<'a>(run: &'a Run, i: usize, list: ValueList) -> Option<BridgeStepReport<'a>> {
    let bridge = run.bridge.as_deref()?;
    let torch = &run.steps[i];
    let torch_fails = run.error.is_some() && i + 1 == run.steps.len();
    let Some(b) = bridge.steps.get(i).filter(|b| b.line == torch.line) else {
        return Some(BridgeStepReport {
            stopped: true,
            error: None,
            write: None,
            tensors_changed: &[],
            missed: vec![],
            extra: vec![],
            diverges: true,
        });
    };
    let error = bridge.error.as_ref().filter(|_| i + 1 == bridge.steps.len()).map(|e| e.error.message());
    let write = b.plan.as_ref().map(|plan| {
        // PyTorch's cells are sorted and distinct; the plan's are in element order. The same
        // storage and the same distinct cells need no second list (the order matters only
        // where positions repeat, and then the counts differ).
        let same_cells = torch.writes.first().is_some_and(|t| {
            t.storage == plan.base
                && t.elements.len() == plan.positions.len()
                && (plan.positions == t.elements || plan.positions.clone().into_sorted_unique() == t.elements)
        });
        BridgePlanReport {
            storage: plan.base,
            base_len: plan.base_len,
            path: match plan.path() {
                WritePath::Assign => "assign",
                WritePath::Scatter => "scatter",
            },
            count: plan.positions.len(),
            through_mirror: plan.through_mirror,
            positions: (!same_cells).then(|| plan.positions.iter().take(list.cap()).collect()),
            positions_total: (!same_cells).then(|| Cells::runs(&plan.positions, list).total()).flatten(),
        }
    });
    let missing = |from: &'a [String], to: &[String]| -> Vec<&'a str> {
        from.iter().filter(|n| !to.contains(n)).map(String::as_str).collect()
    };
    let missed = missing(&torch.tensors_changed, &b.tensors_changed);
    let extra = missing(&b.tensors_changed, &torch.tensors_changed);
    let written = |s: &Step| s.writes.iter().map(|w| w.elements.len()).sum::<usize>();
    let diverges =
        torch_fails != error.is_some() || !missed.is_empty() || !extra.is_empty() || written(torch) != written(b);
    Some(BridgeStepReport {
        stopped: false,
        error,
        write,
        tensors_changed: &b.tensors_changed,
        missed,
        extra,
        diverges,
    })
}

fn autograd_report(engine: &mut Engine, t: &Tensor) -> Option<AutogradReport> {
    if let Some(e) = engine.stale_view_error(t) {
        let requires_grad = engine.autograd().requires_grad(t);
        return Some(AutogradReport {
            requires_grad,
            is_leaf: None,
            grad_fn: None,
            grad: None,
            grad_shape: None,
            grad_fn_error: Some(e.message().to_string()),
        });
    }
    engine.refresh_view(t);
    let ag = engine.autograd();
    let requires_grad = ag.requires_grad(t);
    let grad = engine.grad(t);
    let grad_fn = engine.grad_fn_name(t).map(str::to_string);
    let is_leaf = grad_fn.is_none();
    let (grad, grad_shape) = match grad {
        Some(g) => (engine.values(&g).ok().map(Values), Some(g.shape().to_vec())),
        None => (None, None),
    };
    Some(AutogradReport { requires_grad, is_leaf: Some(is_leaf), grad_fn, grad, grad_shape, grad_fn_error: None })
}

fn tensor_report(engine: &mut Engine, t: &Tensor) -> Option<TensorReport> {
    let values = engine.values(t).ok()?;
    let storage = engine.storage_id(t).ok()?;
    // What tinygrad needs: its tracker with the last views merged where one view can say it.
    let tg = t.tinygrad().simplify();
    let views = view_reports(&tg);
    let (index, valid) = tg.index_text();
    let b = t.bridge();
    let l = t.layout();
    let strides_match =
        l.sizes().iter().zip(l.strides().iter().zip(&b.strides)).all(|(&n, (&s, &bs))| n <= 1 || s == bs);
    let matches_torch = b.shape == l.sizes() && strides_match && (l.numel() == 0 || b.offset == l.offset());
    Some(TensorReport {
        shape: t.shape().to_vec(),
        dtype: t.dtype().name(),
        values: Values(values),
        values_total: None,
        autograd: autograd_report(engine, t),
        torch: TorchReport {
            strides: l.strides().to_vec(),
            storage_offset: l.offset(),
            storage,
            is_view: t.is_view(),
            version: engine.version(t),
            is_contiguous: l.is_contiguous(),
            memory_format: l.memory_format().map(MemoryFormat::report_name),
            channels_last: (l.ndim() == 4).then(|| l.is_contiguous_as(MemoryFormat::ChannelsLast)),
            output_of: t.output_of().map(|o| OutputOfReport {
                op: o.op,
                index: o.index,
                count: o.count,
                multi_output_node: o.multi_output_node,
            }),
            copy_reason: t.copy_reason(),
        },
        views,
        index,
        valid,
        bridge: BridgeReport {
            shape: b.shape.clone(),
            strides: b.strides.clone(),
            storage_offset: b.offset,
            matches_torch,
            values_match_torch: None,
            diverges: false,
        },
    })
}

/// `stridelab ops --json` and the page's op reference: every name the trace language runs
/// ([`crate::trace::report::reference::entries`]), each with its spellings, signature and autograd node.
pub fn ops_json() -> serde_json::Value {
    serde_json::Value::Array(
        crate::trace::report::reference::entries()
            .into_iter()
            .map(|e| {
                serde_json::json!({
                    "name": e.name,
                    "forms": e.forms,
                    "signature": e.signature,
                    "grad": e.grad,
                })
            })
            .collect(),
    )
}
