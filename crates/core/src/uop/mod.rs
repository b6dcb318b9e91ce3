//! The lazy UOp graph: what a trace computes, before anything runs.
//!
//! Tensors are handles (`UOpId`) into one append-only [`Graph`]. Every node carries its dtype and
//! shape, so later stages (the scheduler, the WGSL renderer, the UI) never re-infer them. The
//! [`Op`] enum is closed and grouped like tinygrad's: sources, movement, elementwise, reduce,
//! materialisation and the store that writes through a view. The reference interpreter in
//! [`interp`] is the definition of what each op means; every backend must agree with it.

pub mod alu;
mod arith;
pub mod buffer;
mod fused;
mod gemm;
pub mod half;
pub mod interp;
mod movement;
pub mod sequential;

use crate::dtype::DType;
use crate::shape::tracker::ShapeTracker;
pub use alu::{BinaryOp, UnaryOp};

/// The reference `erf` in float64 (the definition the CPU plan's f32 one is held to).
#[cfg(test)]
pub(crate) fn erf_f64(x: f64) -> f64 {
    arith::float::erf(x)
}

/// The reference `erfc` in float64 (for the front ends' host-evaluated special functions).
pub(crate) fn erfc_f64(x: f64) -> f64 {
    arith::float::erfc(x)
}
use buffer::Scalar;
use serde::Serialize;

/// Identity of a storage (PyTorch's untyped storage; tinygrad's buffer).
pub type StorageId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct UOpId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ReduceOp {
    Sum,
    Max,
    Min,
    Prod,
}

impl ReduceOp {
    /// The binary op that folds an element (or a partial result) into the accumulator.
    pub fn combine(self) -> BinaryOp {
        match self {
            ReduceOp::Sum => BinaryOp::Add,
            ReduceOp::Max => BinaryOp::Max,
            ReduceOp::Min => BinaryOp::Min,
            ReduceOp::Prod => BinaryOp::Mul,
        }
    }

    /// The value an empty reduction gives and every accumulator starts from (in f64; the
    /// dtype's own extreme for max and min).
    pub fn identity(self) -> f64 {
        match self {
            ReduceOp::Sum => 0.0,
            ReduceOp::Prod => 1.0,
            ReduceOp::Max => f64::NEG_INFINITY,
            ReduceOp::Min => f64::INFINITY,
        }
    }
}

/// The closed set of operations. Groups: sources (`Buffer`, `Const`), movement (six tinygrad
/// ops plus `View`, a whole ShapeTracker as tinygrad 0.10.3's VIEW), elementwise (`Unary`,
/// `Binary`, `Where`, `Cast`), `Reduce`, `Gather` (an indexed load), `Contiguous` (materialise
/// into a fresh buffer) and `Store` (write a value through a view into a buffer).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "op", content = "arg")]
pub enum Op {
    /// A whole storage, as a flat buffer of shape `[len]`.
    Buffer(StorageId),
    /// A scalar broadcast to the node's shape.
    Const(Scalar),
    Reshape(Vec<usize>),
    Permute(Vec<usize>),
    Expand(Vec<usize>),
    Pad(Vec<(usize, usize)>),
    Shrink(Vec<(usize, usize)>),
    Flip(Vec<bool>),
    /// A view of the source's (contiguous) output; how PyTorch layouts enter the graph.
    View(ShapeTracker),
    Unary(UnaryOp),
    Binary(BinaryOp),
    Where,
    Cast(DType),
    /// Reduces the listed axes to size 1 (the node's shape keeps them as 1s).
    Reduce(ReduceOp, Vec<usize>),
    /// An indexed load: `src[0]` read at the positions `src[1]` holds along the axis, every
    /// other coordinate kept: `out[c] = src0[c with c[axis] = src1[c]]`. `src[1]` is int32 of
    /// the node's shape, `src[0]` the same shape but for the axis; positions were checked on
    /// the host, so the cost is one read per output element.
    Gather(usize),
    Contiguous,
    /// A whole storage's bytes read as another dtype (a dtype view: `x.view(torch.int32)`); the
    /// source is a flat buffer, the node a flat buffer of the new dtype.
    Bitcast(DType),
    /// Writes `src[1]` through the view into the buffer `src[0]`; the node's value is the buffer.
    Store(ShapeTracker),
}

impl Op {
    pub fn is_movement(&self) -> bool {
        matches!(
            self,
            Op::Reshape(_) | Op::Permute(_) | Op::Expand(_) | Op::Pad(_) | Op::Shrink(_) | Op::Flip(_) | Op::View(_)
        )
    }

    pub fn is_elementwise(&self) -> bool {
        matches!(self, Op::Unary(_) | Op::Binary(_) | Op::Where | Op::Cast(_))
    }

    pub fn name(&self) -> &'static str {
        match self {
            Op::Buffer(_) => "BUFFER",
            Op::Const(_) => "CONST",
            Op::Reshape(_) => "RESHAPE",
            Op::Permute(_) => "PERMUTE",
            Op::Expand(_) => "EXPAND",
            Op::Pad(_) => "PAD",
            Op::Shrink(_) => "SHRINK",
            Op::Flip(_) => "FLIP",
            Op::View(_) => "VIEW",
            Op::Unary(_) => "UNARY",
            Op::Binary(_) => "BINARY",
            Op::Where => "WHERE",
            Op::Cast(_) => "CAST",
            Op::Reduce(..) => "REDUCE",
            Op::Gather(_) => "GATHER",
            Op::Contiguous => "CONTIGUOUS",
            Op::Bitcast(_) => "BITCAST",
            Op::Store(_) => "STORE",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UOp {
    pub id: UOpId,
    #[serde(flatten)]
    pub op: Op,
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub src: Vec<UOpId>,
}

/// An append-only node table; ids are indices, so sources always precede their users.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Graph {
    nodes: Vec<UOp>,
}

impl Graph {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn nodes(&self) -> &[UOp] {
        &self.nodes
    }

    pub fn node(&self, id: UOpId) -> &UOp {
        &self.nodes[id.0 as usize]
    }

    /// Appends a node whose shape and dtype the caller has already checked.
    pub fn push(&mut self, op: Op, dtype: DType, shape: Vec<usize>, src: Vec<UOpId>) -> UOpId {
        debug_assert!(src.iter().all(|s| (s.0 as usize) < self.nodes.len()));
        let id = UOpId(u32::try_from(self.nodes.len()).unwrap_or(u32::MAX));
        self.nodes.push(UOp { id, op, dtype, shape, src });
        id
    }

    /// Every node reachable from `roots`, sources first.
    pub fn toposort(&self, roots: &[UOpId]) -> Vec<UOpId> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<UOpId> = roots.to_vec();
        while let Some(id) = stack.pop() {
            let i = id.0 as usize;
            if seen[i] {
                continue;
            }
            seen[i] = true;
            stack.extend(&self.nodes[i].src);
        }
        // Ids are creation order, which is already a topological order.
        (0..self.nodes.len()).filter(|&i| seen[i]).map(|i| UOpId(i as u32)).collect()
    }

    /// The storages a subgraph reads (its `Buffer` leaves), sorted. Visits only the nodes the
    /// root reaches (no pass over the whole table: it runs once per realized bridge value).
    pub fn buffers_read(&self, root: UOpId) -> Vec<StorageId> {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![root];
        let mut out = Vec::new();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            let node = self.node(id);
            if let Op::Buffer(s) = node.op {
                out.push(s);
            }
            stack.extend(&node.src);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// A readable listing of the subgraph under `roots`, one node per line.
    pub fn render(&self, roots: &[UOpId]) -> String {
        let mut out = String::new();
        for id in self.toposort(roots) {
            let n = self.node(id);
            let arg = match &n.op {
                Op::Buffer(s) => format!("storage {s}"),
                Op::Const(c) => format!("{:?}", c),
                Op::Reshape(a) | Op::Expand(a) => format!("{a:?}"),
                Op::Permute(a) => format!("{a:?}"),
                Op::Pad(a) | Op::Shrink(a) => format!("{a:?}"),
                Op::Flip(a) => format!("{a:?}"),
                Op::View(st) | Op::Store(st) => {
                    let (idx, valid) = st.index_text();
                    format!("idx={idx} valid={valid}")
                }
                Op::Unary(u) => format!("{u:?}"),
                Op::Binary(b) => format!("{b:?}"),
                Op::Cast(d) => d.to_string(),
                Op::Reduce(r, ax) => format!("{r:?} axes={ax:?}"),
                Op::Gather(axis) => format!("axis={axis}"),
                Op::Where | Op::Contiguous => String::new(),
                Op::Bitcast(d) => d.to_string(),
            };
            let src: Vec<String> = n.src.iter().map(|s| format!("%{}", s.0)).collect();
            out.push_str(&format!(
                "%{} = {} {} {:?} ({}) {}\n",
                id.0,
                n.op.name(),
                n.dtype,
                n.shape,
                src.join(", "),
                arg
            ));
        }
        out
    }
}
