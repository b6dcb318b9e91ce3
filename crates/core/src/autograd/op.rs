//! The differentiable ops a node can record, with what each backward needs beyond the tensors
//! it reads, and PyTorch's class name for each node. The formulas are `engine/grad.rs`.

use crate::dtype::DType;
use crate::torch::layout::Layout;
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, ReduceOp, UnaryOp};

/// A node of the graph: its index in the order nodes were recorded (an op such as
/// `CopySlices` names another node by it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(super) u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

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

/// Which spread statistic `var`/`std` compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    Var,
    Std,
}

/// `var`/`std` over `axes` of an input of shape `input`, dividing by `N - correction`.
#[derive(Clone, Debug)]
pub struct SpreadOf {
    pub spread: Spread,
    pub axes: Vec<usize>,
    pub correction: f64,
    pub keepdim: bool,
    pub input: Vec<usize>,
}

/// `linalg.vector_norm` of order `ord` over `axes` of an input of shape `input`.
#[derive(Clone, Debug)]
pub struct NormOf {
    pub ord: f64,
    pub axes: Vec<usize>,
    pub keepdim: bool,
    pub input: Vec<usize>,
}

/// How an [`GradOp::IndexMap`] input's map routes the gradient.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The map has the output's shape: 1 + the flat position of the input element each output
    /// element holds, or 0; gradients of outputs from one element add up.
    FromOutput,
    /// The map has the input's shape: 1 + the flat output position each input element went
    /// to, or 0; each input element reads one output gradient.
    ToOutput,
    /// The input's gradient is the output's, unchanged (the target of an adding scatter:
    /// `scatter_add`, `index_add`, `put(accumulate=True)`, whose formula returns `grad`).
    Same,
}

/// How a loss reduces its elements (`reduction=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    None,
    Mean,
    Sum,
}

/// The window geometry of a 2-D convolution or pooling as a node keeps it (height, width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
    pub ceil_mode: bool,
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
    /// `logsumexp` over `axes` of an input of shape `input`; operands `[x, out]`.
    Logsumexp {
        axes: Vec<usize>,
        keepdim: bool,
        input: Vec<usize>,
    },
    /// `var`/`std`; operands `[x, out]` (`var` saves only `x`).
    Spread(SpreadOf),
    /// A value chosen among all elements (`median()`): the gradient is shared evenly among the
    /// elements equal to it (or NaN, when it is NaN); operands `[x, out]`.
    EvenlyDistributed {
        name: &'static str,
    },
    /// Call `call` of a `torch.autograd.Function` the trace defined (class `class`): its
    /// backward is the trace's own code, which the engine's caller runs; operands are what
    /// `ctx.save_for_backward` saved.
    Custom {
        class: String,
        call: usize,
    },
    /// `linalg.vector_norm`; operands `[x, out]`.
    Norm(NormOf),
    /// `cumprod` along `dim` of an input of dtype `from`; operands `[x, out]`.
    Cumprod {
        dim: usize,
        from: DType,
    },
    /// `cumsum` along `dim` of an input of dtype `from`.
    Cumsum {
        dim: usize,
        from: DType,
    },
    /// `F.conv2d`; operands and inputs `[x, w, bias]`.
    Conv2d {
        win: Window,
        groups: usize,
    },
    /// `F.max_pool2d` / `F.avg_pool2d`; operands `[x]` (the max's indices are found again
    /// from the input, which is what PyTorch's saved indices point into).
    Pool2d {
        win: Window,
        /// `None` for max; for avg `(count_include_pad, divisor_override)`.
        avg: Option<(bool, Option<i64>)>,
    },
    /// `F.mse_loss`; operands and inputs `[x, target]`.
    MseLoss {
        reduction: Reduction,
    },
    /// `F.nll_loss` over class dim 1 (or 0 for one sample); operands `[x, target]`, inputs `[x]`.
    NllLoss {
        reduction: Reduction,
        ignore_index: i64,
        /// `NllLoss2DBackward0`: an input of more than two dims, seen as (N, C, H, W).
        spatial: bool,
    },
    /// `F.binary_cross_entropy_with_logits`; operands and inputs `[x, target]`.
    BceWithLogits {
        reduction: Reduction,
    },
    /// `F.binary_cross_entropy`; operands and inputs `[x, target]`.
    Bce {
        reduction: Reduction,
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
    /// An overwrite whose result never reads the old value: `fill_` (`FillBackward0`), `zero_`
    /// (`ZeroBackward0`) and the in-place draws (`NormalBackward0`, `BernoulliBackward1`, ...),
    /// named by `node`. Every input's gradient is zeros (the old value's and a `bernoulli_`
    /// probability tensor's).
    Fill {
        node: &'static str,
    },
    /// `copy_(src)`: inputs `[old, src]`; `src`'s shape and dtype.
    Copy {
        src_shape: Vec<usize>,
        src_dtype: DType,
    },
    /// An op whose output elements are input elements moved, repeated or dropped (`roll`,
    /// `repeat`, `tril`, `gather`, `sort`'s values, the scatter ops, ...): per input, its shape
    /// and how its map (the operand at the same position) routes the gradient.
    IndexMap {
        name: &'static str,
        inputs: Vec<(Route, Vec<usize>)>,
    },
    /// `t.index_select(dim, index)` of an input of shape `input`; operands `[index]` (saved).
    IndexSelect {
        dim: i64,
        input: Vec<usize>,
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

/// How a node shows one of the values its backward saves, as PyTorch's `grad_fn._saved_<name>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SavedField {
    /// The node operand of that index, when the node saved it (`None` in Python otherwise).
    Operand(usize),
    /// A Python scalar the op was called with, wrapped as PyTorch wraps it: a 0-dim tensor
    /// (`x * 2` saves `other`) or the number itself (`x ** 2`'s `exponent`).
    Scalar { value: Scalar, wrapped: bool },
}

impl GradOp {
    /// `grad_fn._saved_<field>`: which value of the node PyTorch's derivatives declare under that
    /// name, for the ops whose names are known (products, quotients, powers, matrix products,
    /// and any op's saved input `self` and output `result`). `saved` says which operands the
    /// node saved, for ops that declare only what they save.
    pub fn saved_field(&self, field: &str, saved: impl Fn(usize) -> bool) -> Option<SavedField> {
        let names: &[(&str, usize)] = match self {
            GradOp::Binary { op: BinaryOp::Pow, .. } => &[("self", 0), ("exponent", 1), ("result", 2)],
            GradOp::Binary { op: BinaryOp::Mul | BinaryOp::Div, .. } => &[("self", 0), ("other", 1)],
            GradOp::Matmul { name: "DotBackward0" } => &[("self", 0), ("tensor", 1)],
            GradOp::Matmul { name: "MvBackward0" } => &[("self", 0), ("vec", 1)],
            GradOp::Matmul { name: "MmBackward0" } => &[("self", 0), ("mat2", 1)],
            GradOp::Unary(_) | GradOp::EvenlyDistributed { .. } => &[("self", 0), ("result", 1)],
            _ => &[("self", 0)],
        };
        let &(_, index) = names.iter().find(|(n, _)| *n == field)?;
        if let GradOp::Binary { op, scalar: Some((value, side)) } = self {
            let at = if *side == Side::Left { 0 } else { 1 };
            if index == at {
                return Some(SavedField::Scalar { value: *value, wrapped: *op != BinaryOp::Pow });
            }
        }
        // Unary ops declare only what their formula saves (`exp` its result, `log` its input).
        let declared = !matches!(self, GradOp::Unary(_)) || saved(index);
        declared.then_some(SavedField::Operand(index))
    }

    /// Whether the backward formula reads the operands only through ops that record, so
    /// that under `create_graph` its gradient keeps the operands' history. The exceptions
    /// build on kernels of their own (convolution, pooling, products, running products, the in-place
    /// op under a `CopySlices`).
    pub fn formula_records_operands(&self) -> bool {
        !matches!(
            self,
            GradOp::Conv2d { .. }
                | GradOp::Pool2d { .. }
                | GradOp::Reduce { op: ReduceOp::Prod, .. }
                | GradOp::Cumprod { .. }
                | GradOp::CopySlices { .. }
        )
    }

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
                    BinaryOp::Fmod => "Fmod",
                    BinaryOp::Mod => "Remainder",
                    BinaryOp::Copysign => "Copysign",
                    other => return format!("{other:?}Backward0"),
                };
                // A Python scalar is wrapped into a tensor, so `x * 2` is MulBackward0; the
                // scalar overloads name rsub and the pow variants.
                let n = match (op, scalar) {
                    (BinaryOp::Pow, None) => 1,
                    (BinaryOp::Pow, Some((_, Side::Right))) => 0,
                    (BinaryOp::Pow, Some((_, Side::Left))) => 2,
                    (BinaryOp::Sub, Some((_, Side::Left))) => 1,
                    (BinaryOp::Fmod | BinaryOp::Mod, None) => 1,
                    (BinaryOp::Copysign, Some(_)) => 1,
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
            GradOp::Logsumexp { .. } => "LogsumexpBackward0".into(),
            GradOp::Spread(SpreadOf { spread: Spread::Var, .. }) => "VarBackward0".into(),
            GradOp::Spread(SpreadOf { spread: Spread::Std, .. }) => "StdBackward0".into(),
            GradOp::Norm(_) => "LinalgVectorNormBackward0".into(),
            GradOp::Cumsum { .. } => "CumsumBackward0".into(),
            GradOp::Cumprod { .. } => "CumprodBackward0".into(),
            GradOp::Conv2d { .. } => "ConvolutionBackward0".into(),
            GradOp::Pool2d { avg: None, .. } => "MaxPool2DWithIndicesBackward0".into(),
            GradOp::Pool2d { .. } => "AvgPool2DBackward0".into(),
            GradOp::MseLoss { .. } => "MseLossBackward0".into(),
            GradOp::NllLoss { spatial, .. } => if *spatial { "NllLoss2DBackward0" } else { "NllLossBackward0" }.into(),
            GradOp::BceWithLogits { .. } => "BinaryCrossEntropyWithLogitsBackward0".into(),
            GradOp::Bce { .. } => "BinaryCrossEntropyBackward0".into(),
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
            GradOp::Fill { node } => (*node).into(),
            GradOp::Copy { .. } => "CopyBackwards".into(),
            GradOp::CopySlices { .. } => "CopySlices".into(),
            GradOp::Index { .. } => "IndexBackward0".into(),
            GradOp::IndexSelect { .. } => "IndexSelectBackward0".into(),
            GradOp::IndexMap { name, .. } => (*name).into(),
            GradOp::EvenlyDistributed { name } => (*name).into(),
            GradOp::Custom { class, .. } => format!("{class}Backward"),
            GradOp::IndexPut { name, .. } => (*name).into(),
        }
    }
}
