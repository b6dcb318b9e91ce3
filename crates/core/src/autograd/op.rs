//! The differentiable ops a node can record, with what each backward needs beyond the tensors
//! it reads, and PyTorch's class name for each node. The formulas are `engine/grad.rs`.

use super::NodeId;
use crate::dtype::DType;
use crate::torch::layout::Layout;
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, ReduceOp, UnaryOp};

/// Which side of a binary op a Python scalar stood on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

/// One item of an advanced index as a node keeps it: index tensors are the node's operands.
#[derive(Clone, Debug)]
pub enum IndexSlot {
    Item(crate::torch::layout::IndexItem),
    Bool(bool),
    /// The node's operand at this position.
    Tensor(usize),
}

/// One differentiable op, with what its backward needs to know beyond the tensors it reads.
#[derive(Clone, Debug)]
pub enum GradOp {
    /// Operands `[a, b, out]` (None for a scalar side).
    Binary {
        op: BinaryOp,
        scalar: Option<(Scalar, Side)>,
    },
    /// Operands `[x, out]`.
    Unary(UnaryOp),
    /// Operands `[condition]`; inputs `[x, y]`.
    Where,
    /// `sum`/`amax`/`amin` over `axes` of an input of shape `input`; operands `[x, out]` for
    /// the extremes.
    Reduce {
        op: ReduceOp,
        axes: Vec<usize>,
        keepdim: bool,
        input: Vec<usize>,
        all: bool,
    },
    Mean {
        axes: Vec<usize>,
        keepdim: bool,
        input: Vec<usize>,
        all: bool,
    },
    /// Operands `[a, b]`; the node's name depends on the operands' dims.
    Matmul {
        name: &'static str,
    },
    /// `F.linear`; operands and inputs `[x, w, bias]`; `bias` names the node `AddmmBackward0`.
    Linear {
        bias: bool,
    },
    /// Operands `[out]`.
    Softmax {
        dim: usize,
        log: bool,
    },
    /// A view: the input's and the output's layouts over one storage.
    View {
        input: Layout,
        output: Layout,
    },
    /// A named view (`ViewBackward0`, `TBackward0`, ...; `AsStridedBackward0` when unnamed).
    NamedView {
        name: Option<&'static str>,
        input: Layout,
        output: Layout,
    },
    /// A movement PyTorch performs as a copy (`flip`, `pad`, a reshape that cannot be a view),
    /// undone on the gradient; `input` is the source's shape.
    Movement {
        name: Option<&'static str>,
        op: crate::uop::Op,
        input: Vec<usize>,
    },
    Clone,
    /// `to(dtype)`: the gradient is cast back.
    Cast {
        from: DType,
    },
    /// `cat` along `dim` of inputs with these sizes there.
    Cat {
        dim: usize,
        sizes: Vec<usize>,
    },
    Stack {
        dim: usize,
    },
    /// `fill_`/`zero_`: the old value gets no gradient.
    Fill,
    /// `copy_(src)`: inputs `[old, src]`; `src`'s shape and dtype.
    Copy {
        src_shape: Vec<usize>,
        src_dtype: DType,
    },
    /// `t[items]` with index tensors, of an input of shape `input`.
    Index {
        items: Vec<IndexSlot>,
        input: Vec<usize>,
    },
    /// `t[items] = v` / `index_put_`; inputs `[old, value]`.
    IndexPut {
        items: Vec<IndexSlot>,
        accumulate: bool,
        value_shape: Vec<usize>,
        /// `IndexPutBackward0`, or the fill PyTorch dispatches a scalar put to.
        name: &'static str,
    },
    /// An in-place op `func` on the view `view` of a base laid out as `base`.
    CopySlices {
        base: Layout,
        view: Layout,
        func: NodeId,
    },
}

impl GradOp {
    /// PyTorch's class name for the node.
    pub fn name(&self) -> String {
        match self {
            GradOp::Binary { op, scalar } => {
                let base = match op {
                    BinaryOp::Add => "Add",
                    BinaryOp::Sub if matches!(scalar, Some((_, Side::Left))) => "Rsub",
                    BinaryOp::Sub => "Sub",
                    BinaryOp::Mul => "Mul",
                    // `2 / x` is `x.reciprocal() * 2`.
                    BinaryOp::Div if matches!(scalar, Some((_, Side::Left))) => "Mul",
                    BinaryOp::Div => "Div",
                    BinaryOp::Pow => "Pow",
                    BinaryOp::Max => "Maximum",
                    BinaryOp::Min => "Minimum",
                    other => return format!("{other:?}Backward0"),
                };
                // A Python scalar is wrapped into a tensor, so `x * 2` is MulBackward0; the
                // scalar overloads name rsub and the pow variants.
                let n = match (op, scalar) {
                    (BinaryOp::Pow, None) => 1,
                    (BinaryOp::Pow, Some((_, Side::Right))) => 0,
                    (BinaryOp::Pow, Some((_, Side::Left))) => 2,
                    (BinaryOp::Sub, Some((_, Side::Left))) => 1,
                    _ => 0,
                };
                format!("{base}Backward{n}")
            }
            GradOp::Unary(op) => format!("{op:?}Backward0"),
            GradOp::Where => "WhereBackward0".into(),
            GradOp::Reduce { op: ReduceOp::Sum, all, .. } => if *all { "SumBackward0" } else { "SumBackward1" }.into(),
            GradOp::Reduce { op: ReduceOp::Max, all, .. } => if *all { "MaxBackward1" } else { "AmaxBackward0" }.into(),
            GradOp::Reduce { op: ReduceOp::Min, all, .. } => if *all { "MinBackward1" } else { "AminBackward0" }.into(),
            GradOp::Reduce { op: ReduceOp::Prod, all, .. } => {
                if *all { "ProdBackward0" } else { "ProdBackward1" }.into()
            }
            GradOp::Mean { all, .. } => if *all { "MeanBackward0" } else { "MeanBackward1" }.into(),
            GradOp::Matmul { name } => (*name).into(),
            GradOp::Linear { bias } => if *bias { "AddmmBackward0" } else { "MmBackward0" }.into(),
            GradOp::Softmax { log, .. } => if *log { "LogSoftmaxBackward0" } else { "SoftmaxBackward0" }.into(),
            GradOp::View { .. } => "AsStridedBackward0".into(),
            GradOp::NamedView { name, .. } => name.unwrap_or("AsStridedBackward0").into(),
            GradOp::Movement { name: Some(n), .. } => (*n).into(),
            GradOp::Movement { op, .. } => match op {
                crate::uop::Op::Flip(_) => "FlipBackward0",
                crate::uop::Op::Pad(_) => "ConstantPadNdBackward0",
                crate::uop::Op::Permute(_) => "PermuteBackward0",
                crate::uop::Op::Expand(_) => "ExpandBackward0",
                crate::uop::Op::Shrink(_) => "SliceBackward0",
                _ => "UnsafeViewBackward0",
            }
            .into(),
            GradOp::Clone => "CloneBackward0".into(),
            GradOp::Cast { .. } => "ToCopyBackward0".into(),
            GradOp::Cat { .. } => "CatBackward0".into(),
            GradOp::Stack { .. } => "StackBackward0".into(),
            GradOp::Fill => "FillBackward0".into(),
            GradOp::Copy { .. } => "CopyBackwards".into(),
            GradOp::CopySlices { .. } => "CopySlices".into(),
            GradOp::Index { .. } => "IndexBackward0".into(),
            GradOp::IndexPut { name, .. } => (*name).into(),
        }
    }
}
