//! What a step of a CPU plan runs: the interpreter, or a direct f32 kernel with the geometry
//! it was chosen for. [`super::select`] picks one per kernel, [`super::cpu`] runs the plan, and
//! the kernels (`conv`, `gemm`, `pool`, `elementwise`) read their arguments from here.

use crate::onnx::Node;

/// What one step runs.
#[derive(Debug)]
pub(super) enum Routine {
    Interpret(Node),
    Conv(Conv),
    Gemm(Gemm),
    Pool(Pool),
    Relu,
    /// Clip with its bounds read from the kernel's optional inputs 1 and 2.
    Clip {
        lo: bool,
        hi: bool,
    },
    Binary(BroadcastArith, Broadcast),
    Softmax {
        outer: usize,
        len: usize,
        inner: usize,
    },
    /// Inference BatchNormalization over (N, C, rest).
    BatchNorm {
        channels: usize,
        inner: usize,
        eps: f32,
    },
    GlobalAverage {
        planes: usize,
        size: usize,
    },
    /// Reshape and Flatten: the same values under another shape.
    Copy,
    Transpose {
        out_shape: Vec<usize>,
        strides: Vec<i64>,
    },
    Concat {
        outer: usize,
        chunks: Vec<usize>,
    },
    /// Split into the kernel's outputs: each of the `outer` rows of the input is every
    /// output's row of `chunks[j]` values in turn (Concat's inverse).
    Split {
        outer: usize,
        chunks: Vec<usize>,
    },
    Unary(UnaryF32),
    /// LayerNormalization of rows of `len` values, with scale (and bias, if given) of `len`.
    LayerNorm {
        len: usize,
        eps: f32,
        bias: bool,
    },
    /// Gather of input 0 (seen as `outer` × `len` × `inner`) at the int32 or int64 indices
    /// of input 1.
    Gather {
        outer: usize,
        len: usize,
        inner: usize,
    },
    /// Where: input 0 (bool) picks input 1 or input 2, all three broadcast to one shape
    /// (`cond`: the condition's strides; `values`: the two values').
    Where {
        cond: Vec<i64>,
        values: Broadcast,
    },
}

/// The unary ops a direct kernel runs, each in f32 (see [`super::elementwise::unary`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum UnaryF32 {
    Abs,
    Neg,
    Sqrt,
    Reciprocal,
    Exp,
    Log,
    Tanh,
    Sigmoid,
    Erf,
}

/// The ONNX arithmetic ops a direct kernel runs over a [`Broadcast`] (the graph's own
/// `uop::BinaryOp` has every binary op; these are the ones written out for f32).
#[derive(Clone, Copy, Debug)]
pub(super) enum BroadcastArith {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

/// Two inputs broadcast to one output shape: per input, its stride along each output dim
/// (0 where it repeats).
#[derive(Debug)]
pub(super) struct Broadcast {
    pub(super) shape: Vec<usize>,
    pub(super) a: Vec<i64>,
    pub(super) b: Vec<i64>,
}

/// A 2-D convolution (N, C, H, W) over groups (run by [`super::conv`]).
#[derive(Debug)]
pub(super) struct Conv {
    pub n: usize,
    pub c: usize,
    pub hw: [usize; 2],
    pub oc: usize,
    pub k: [usize; 2],
    pub groups: usize,
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
    pub pad: [usize; 2],
    pub out: [usize; 2],
    pub bias: bool,
    /// A Relu that followed the convolution, applied as it stores.
    pub relu: bool,
    /// A 2×2, stride-2 MaxPool that followed (after the Relu, if any), applied as it stores:
    /// the output is then the pooled (N, OC, OH/2, OW/2).
    pub pool: bool,
    /// Which kernel runs it; chosen at plan time, after the folds.
    pub kernel: ConvKernel,
    /// The weights packed for `kernel` at plan time, when they are constants (else packed per
    /// run).
    pub packed: Vec<f32>,
}

/// How the CPU plan runs a convolution (see [`super::conv`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ConvKernel {
    /// The register tile over weights packed in channel blocks, reading the padded input.
    Tile,
    /// Blocks of im2col columns through the packed GEMM, weights as they are stored; never
    /// with a folded pool.
    Gemm,
}

/// `alpha * op(A) @ op(B) + beta * C` over a batch of matrices that share B.
#[derive(Debug)]
pub(super) struct Gemm {
    pub(super) batch: usize,
    pub(super) m: usize,
    pub(super) k: usize,
    pub(super) n: usize,
    /// Row and column strides of A and B as stored.
    pub(super) a: (isize, isize),
    pub(super) b: (isize, isize),
    /// Whether B has a matrix per batch entry (batched MatMul) or one for all.
    pub(super) b_batched: bool,
    pub(super) alpha: f32,
    /// C's strides along the output's rows and columns (0 where it repeats), and beta.
    pub(super) c: Option<((usize, usize), f32)>,
}

/// A 2-D max or average pool over (N, C, H, W).
#[derive(Debug)]
pub(super) struct Pool {
    pub(super) planes: usize,
    pub(super) hw: [usize; 2],
    pub(super) k: [usize; 2],
    pub(super) stride: [usize; 2],
    pub(super) dilation: [usize; 2],
    pub(super) pad: [usize; 2],
    pub(super) out: [usize; 2],
    /// `None` for max; for average, the divisor of each output position.
    pub(super) divisors: Option<Vec<f32>>,
}
