//! Reverse-mode autograd with PyTorch's semantics: which tensors require grad, the backward
//! node (`grad_fn`) each differentiable op records with PyTorch's name, the tensors each node
//! saves (and the version of each when saved), `backward()` and `torch.autograd.grad`, `.grad`
//! accumulation on leaves, and autograd's alias errors (an in-place write on a leaf or on a view
//! of one, on an output of a multi-output view op, a saved tensor modified before backward, a
//! second backward through freed saved tensors).
//!
//! Nodes are recorded by the engine's differentiable ops (one node per public op: an op built
//! from other ops records itself only); gradients are computed with the engine's own ops, so
//! they are graph nodes that fuse and run on every backend. A saved tensor shares its storage
//! with the tensor it was saved from: a backward reads what is there now, as PyTorch does (so
//! `y.data.zero_()`, which bypasses the version counter, silently changes the gradient).
//!
//! Per-tensor state lives here, keyed by the Python object ([`ObjectId`]), so every name bound
//! to a tensor sees it; the engine's tensors carry no autograd fields. This module holds the
//! graph's types (generic over the tensor, so it imports nothing above it); recording, backward
//! and the formulas are the engine's (`engine/autograd.rs`, `engine/grad.rs`).

mod op;

pub use op::{GradOp, IndexSlot, NodeId, NormOf, Reduction, Route, SavedField, Side, Spread, SpreadOf, Window};

use crate::identity::{CounterId, ObjectId};
use crate::uop::StorageId;
use std::collections::HashMap;

/// What autograd needs to know of a tensor: which Python object it is.
pub trait Object {
    fn object(&self) -> ObjectId;
}

/// Where a gradient flows: into another node, or into a leaf's `.grad` (AccumulateGrad).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Edge {
    Node(NodeId),
    Leaf(ObjectId),
}

/// A tensor a node keeps for its backward, with its version when saved.
#[derive(Clone, Debug)]
pub struct Saved<T> {
    pub tensor: T,
    pub counter: CounterId,
    pub version: u64,
    /// The node operand it was saved from.
    pub operand: usize,
    /// For a saved result, the node that saved it: PyTorch's version error names it even
    /// after later in-place ops (for a saved input it names the input's node at the time).
    pub producer: Option<NodeId>,
}

#[derive(Clone, Debug)]
pub struct Node<T> {
    /// PyTorch's class name (`MulBackward0`, `CopySlices`, ...).
    pub name: String,
    pub op: GradOp,
    /// One edge per differentiable input (None where the input needs no gradient).
    pub next: Vec<Option<Edge>>,
    /// What the backward formula reads: inputs and outputs as the formula needs them.
    pub operands: Vec<Option<T>>,
    /// The subset PyTorch saves, whose versions backward checks.
    pub saved: Vec<Saved<T>>,
    /// The output's shape and dtype (the gradient flowing in has them).
    pub shape: Vec<usize>,
    /// Its saved tensors were freed by a backward without `retain_graph`.
    pub freed: bool,
    /// Whether a backward frees something it holds: saved tensors, or a Python scalar PyTorch
    /// wrapped into a saved tensor (`x * 2` saves the 2).
    pub holds_saved: bool,
    /// The trace line whose statement recorded it (0 until the statement ends).
    pub line: usize,
}

/// Autograd's state for one tensor object.
#[derive(Clone, Debug)]
pub struct Meta<T> {
    pub requires_grad: bool,
    pub grad_fn: Option<NodeId>,
    pub grad: Option<T>,
    pub retains_grad: bool,
    /// A view made under `no_grad` of a tensor that requires grad.
    pub no_grad_view: bool,
    /// For a differentiable view: the tensor whose history it shares (the nearest base that
    /// required grad when the view was made), as PyTorch's view metadata keeps it.
    pub diff_base: Option<T>,
    /// A view of an output of a multi-output view op (`unbind`, `split`, `chunk`), which
    /// PyTorch refuses to modify in place.
    pub multi_output: bool,
    /// A leaf that requires grad: the tensor itself, whose layout its `.grad` takes.
    pub leaf: Option<T>,
    /// For a view: the version of its storage family when its `grad_fn` was last set; an
    /// in-place write through the base or another view since makes PyTorch regenerate it.
    pub view_version: u64,
    /// An `nn.Parameter` (a layer's weight or bias): printed as "Parameter containing:".
    pub parameter: bool,
}

/// The run's autograd state.
#[derive(Clone, Debug)]
pub struct Autograd<T> {
    pub(crate) meta: HashMap<ObjectId, Meta<T>>,
    pub(crate) nodes: Vec<Node<T>>,
    /// How many times a backward freed nodes' saved tensors (what the nodes hold then shrank).
    pub(crate) frees: u64,
    /// Grad mode (`torch.no_grad()` turns it off).
    pub enabled: bool,
    /// Ops nested inside a recording op record nothing themselves.
    pub(crate) depth: u32,
    /// Nodes recorded since the statement began (their operands are realized when it ends).
    pub(crate) statement_start: usize,
    /// The node name the next view or movement copy records (set by the public view op).
    pub(crate) view_name: Option<&'static str>,
    /// Tensor hooks (`t.register_hook(fn)`), in registration order: each with what it is on
    /// (a non-leaf's `grad_fn` node, or a leaf) and its id; the function itself is the
    /// caller's, named by the id.
    pub(crate) hooks: Vec<(HookOn, HookId)>,
    pub(crate) next_hook: u32,
    /// A `torch.autograd.Function` was recorded: a backward may run the caller's code.
    pub(crate) functions: bool,
    /// Anomaly detection (`torch.autograd.set_detect_anomaly`).
    pub anomaly: Anomaly,
    /// The nodes an op's composition recorded where PyTorch records one node (`clamp`,
    /// `var_mean`, `batch_norm`, `unbind`'s outputs), each mapped to the group's first node.
    pub(crate) groups: HashMap<NodeId, NodeId>,
}

/// Anomaly detection's mode: off, or on with or without the NaN check of every gradient a
/// backward node returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anomaly {
    Off,
    On { check_nan: bool },
}

/// What a tensor hook runs on: the gradient flowing into a node (a non-leaf's `grad_fn`, as
/// PyTorch registers a pre-hook on it) or the gradient a leaf is about to accumulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookOn {
    Node(NodeId),
    Leaf(ObjectId),
}

/// One registered tensor hook (`t.register_hook(fn)`; removed by its handle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HookId(pub u32);

impl<T> Autograd<T> {
    /// Every tensor autograd may still read: its nodes' saved tensors and operands (a node a
    /// backward freed keeps neither), and each object's `.grad`, differentiable base and leaf.
    pub fn held_tensors(&self) -> impl Iterator<Item = &T> {
        self.held_by_nodes(0).chain(self.held_by_meta())
    }

    /// What nodes from the `from`th on hold: their operands and saved tensors (none once freed).
    pub(crate) fn held_by_nodes(&self, from: usize) -> impl Iterator<Item = &T> {
        let nodes = self.nodes.iter().skip(from).filter(|n| !(n.freed && n.holds_saved));
        nodes.flat_map(|n| n.operands.iter().flatten().chain(n.saved.iter().map(|s| &s.tensor)))
    }

    /// What tensors' autograd facts hold: gradients, differentiable bases, leaves.
    pub(crate) fn held_by_meta(&self) -> impl Iterator<Item = &T> {
        self.meta.values().flat_map(|m| m.grad.iter().chain(m.diff_base.iter()).chain(m.leaf.iter()))
    }
}

impl<T> Default for Autograd<T> {
    fn default() -> Self {
        Autograd {
            meta: HashMap::new(),
            nodes: Vec::new(),
            frees: 0,
            enabled: true,
            depth: 0,
            statement_start: 0,
            view_name: None,
            hooks: Vec::new(),
            next_hook: 0,
            functions: false,
            anomaly: Anomaly::Off,
            groups: HashMap::new(),
        }
    }
}

impl<T: Object + Clone> Autograd<T> {
    pub fn meta(&self, t: &T) -> Option<&Meta<T>> {
        self.meta.get(&t.object())
    }

    /// `t.requires_grad`: its own flag, or, for a view, its base's (a view made before its
    /// base required grad requires grad once the base does, as PyTorch's view metadata reads
    /// it; its gradient still goes nowhere until its history is regenerated).
    pub fn requires_grad(&self, t: &T) -> bool {
        self.meta.get(&t.object()).is_some_and(|m| {
            m.requires_grad
                || m.diff_base.as_ref().is_some_and(|b| self.meta.get(&b.object()).is_some_and(|bm| bm.requires_grad))
        })
    }

    pub fn grad_fn(&self, t: &T) -> Option<NodeId> {
        self.meta.get(&t.object()).and_then(|m| m.grad_fn)
    }

    pub fn node(&self, id: NodeId) -> &Node<T> {
        &self.nodes[id.0 as usize]
    }

    /// `t.is_leaf`: no recorded history.
    pub fn is_leaf(&self, t: &T) -> bool {
        self.grad_fn(t).is_none()
    }

    /// The edge a gradient for `t` takes.
    pub(crate) fn edge(&self, t: &T) -> Option<Edge> {
        let m = self.meta.get(&t.object())?;
        if !m.requires_grad {
            return None;
        }
        Some(match m.grad_fn {
            Some(n) => Edge::Node(n),
            None => Edge::Leaf(t.object()),
        })
    }

    pub(crate) fn meta_mut(&mut self, t: &T) -> &mut Meta<T> {
        self.meta_mut_by(t.object())
    }

    /// Names the node the next view or movement copy records (`TBackward0`, ...).
    pub(crate) fn name_view(&mut self, name: &'static str) {
        if self.depth == 0 {
            self.view_name = Some(name);
        }
    }

    pub(crate) fn take_view_name(&mut self) -> Option<&'static str> {
        self.view_name.take()
    }
}

impl<T> Default for Meta<T> {
    fn default() -> Self {
        Meta {
            requires_grad: false,
            grad_fn: None,
            grad: None,
            retains_grad: false,
            no_grad_view: false,
            diff_base: None,
            multi_output: false,
            leaf: None,
            view_version: 0,
            parameter: false,
        }
    }
}

impl<T> Autograd<T> {
    /// The id the next node pushed will have.
    pub(crate) fn next_id(&self) -> NodeId {
        // A run records at most a few million nodes (statements and limits bound it).
        NodeId(u32::try_from(self.nodes.len()).unwrap_or(u32::MAX))
    }

    pub(crate) fn meta_mut_by(&mut self, o: ObjectId) -> &mut Meta<T> {
        self.meta.entry(o).or_default()
    }
}

/// The op a node class is named after, as PyTorch's `Node::forward_op_name` gives it in its
/// messages: `AddBackward0` → `Add`, `ProdBackward1` → `Prod1`; a node class of autograd's own
/// C++ (`CopySlices`, `AccumulateGrad`) by its demangled name.
pub fn op_name(node: &str) -> String {
    if matches!(node, "CopySlices" | "AccumulateGrad") {
        return format!("torch::autograd::{node}");
    }
    match node.rfind("Backward") {
        Some(i) if node[i + 8..].bytes().all(|b| b.is_ascii_digit()) => match &node[i + 8..] {
            "" | "0" => node[..i].to_string(),
            n => format!("{}{n}", &node[..i]),
        },
        _ => node.to_string(),
    }
}

/// One node a backward ran, in the order it ran, and where its gradients went; the leaves'
/// AccumulateGrad entries come last, each with the `.grad` cells it wrote.
#[derive(Clone, Debug)]
pub struct BackwardEntry {
    /// PyTorch's class name (`AccumulateGrad` for a leaf's).
    pub node: String,
    /// The trace line that recorded the node (0 for AccumulateGrad).
    pub line: usize,
    /// The shape of the gradient flowing in.
    pub grad_shape: Vec<usize>,
    /// Where its gradients went, in `next_functions` order.
    pub into: Vec<GradTarget>,
    /// The `.grad` cells an AccumulateGrad wrote: storage and storage indices (a fresh
    /// `.grad`: all of its storage).
    pub write: Option<(StorageId, crate::cells::CellList)>,
}

/// Where a backward node sent a gradient.
#[derive(Clone, Debug)]
pub enum GradTarget {
    Node(String),
    Leaf(ObjectId),
}
