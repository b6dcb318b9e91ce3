//! Replaying a capture on the CPU: every buffer allocated once, then each kernel run either by
//! the reference interpreter (the definition of the op) or by a direct float32 kernel.
//!
//! The interpreter sums in f64 in a fixed order and builds a lazy graph per kernel, which makes
//! it exact and slow; a model on the page needs the opposite trade. The direct kernels compute
//! in f32 the way inference runtimes do: convolutions in [`super::conv`] (with a following Relu
//! and 2×2 max pool folded in), Gemm and MatMul through `matrixmultiply`'s packed GEMM, pools
//! and elementwise ops as plain loops over preallocated buffers. A kernel gets one only when
//! every buffer it touches is float32 and its attributes are a case written out here; anything
//! else (integer ops, 1-D and 3-D windows, MaxPool's argmax output, training-mode
//! BatchNormalization, broadcast-batch MatMul) stays on the interpreter, so a plan always runs
//! what the capture says. The tests hold both paths to the same ONNX references.

use crate::error::{bail, Error, Result};
use crate::model::ops::{axis, Lower, Window};
use crate::model::HostTensor;
use crate::onnx::Node;
use crate::tensor::{Engine, Tensor};
use crate::uop::data::Data;
use crate::DType;

use super::{conv, Capture, KernelTiming, Replay};

/// Which kernels a CPU replay runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuKernels {
    /// The interpreter for every kernel: the reference, summing in f64.
    Reference,
    /// Direct float32 kernels where one exists, the interpreter elsewhere.
    Fast,
}

/// A capture ready to run repeatedly on the CPU: buffers allocated, weights in place, each
/// kernel bound to the routine that runs it.
#[derive(Debug)]
pub struct CpuPlan {
    opset: i64,
    /// Every buffer's values, indexed by buffer id; weights are filled once.
    bufs: Vec<Data>,
    shapes: Vec<Vec<usize>>,
    inputs: Vec<(usize, String, DType)>,
    outputs: Vec<(usize, String)>,
    steps: Vec<Step>,
    /// A convolution's padded input or im2col columns, reused by every convolution.
    scratch: Vec<f32>,
}

#[derive(Debug)]
struct Step {
    name: String,
    reads: Vec<Option<usize>>,
    writes: Vec<usize>,
    run: Routine,
}

#[derive(Debug)]
enum Routine {
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
    Binary(BinaryOp, Broadcast),
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
        strides: Vec<usize>,
    },
    Concat {
        outer: usize,
        chunks: Vec<usize>,
    },
}

#[derive(Clone, Copy, Debug)]
enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
}

/// Two inputs broadcast to one output shape: per input, its stride along each output dim
/// (0 where it repeats).
#[derive(Debug)]
struct Broadcast {
    shape: Vec<usize>,
    a: Vec<usize>,
    b: Vec<usize>,
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
    /// The weights packed at plan time, when they are constants (else packed per run).
    pub packed: Vec<f32>,
}

/// `alpha * op(A) @ op(B) + beta * C` over a batch of matrices that share B.
#[derive(Debug)]
struct Gemm {
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
    /// Row and column strides of A and B as stored.
    a: (isize, isize),
    b: (isize, isize),
    /// Whether B has a matrix per batch entry (batched MatMul) or one for all.
    b_batched: bool,
    alpha: f32,
    /// C's strides along the output's rows and columns (0 where it repeats), and beta.
    c: Option<((usize, usize), f32)>,
}

/// A 2-D max or average pool over (N, C, H, W).
#[derive(Debug)]
struct Pool {
    planes: usize,
    hw: [usize; 2],
    k: [usize; 2],
    stride: [usize; 2],
    dilation: [usize; 2],
    pad: [usize; 2],
    out: [usize; 2],
    /// `None` for max; for average, the divisor of each output position.
    divisors: Option<Vec<f32>>,
}

impl Capture {
    /// Allocates every buffer and binds each scheduled kernel to the routine `kernels` picks.
    pub fn cpu_plan(&self, kernels: CpuKernels) -> Result<CpuPlan> {
        let m = self.manifest();
        let shapes: Vec<Vec<usize>> = m.buffers.iter().map(|b| b.shape.clone()).collect();
        let bufs = m
            .buffers
            .iter()
            .map(|b| match self.weight(b.id) {
                Some(w) => w.clone(),
                None => zeros(b.dtype, b.shape.iter().product()),
            })
            .collect();
        let mut steps = Vec::with_capacity(m.schedule.len());
        for &k in &m.schedule {
            let kernel = &m.kernels[k];
            // Load decoded every scheduled kernel; a miss is a broken invariant, said as such.
            let Some(node) = self.nodes.get(k).and_then(Option::as_ref) else {
                bail!(Decode, "capture kernel {:?} was not decoded at load", kernel.name)
            };
            let all_f32 = kernel.reads.iter().flatten().chain(&kernel.writes).all(|&i| {
                let b = &m.buffers[i];
                // Reshape's target shape is an int input that only the interpreter reads.
                b.dtype == DType::Float32 || (kernel.op == "Reshape" && Some(&Some(i)) == kernel.reads.get(1))
            });
            let mut fast = match kernels {
                CpuKernels::Fast if all_f32 => routine(node, m.model.opset, &kernel.reads, &kernel.writes, &shapes),
                _ => None,
            };
            if let (Some(Routine::Conv(c)), Some(Some(Data::F32(w)))) =
                (&mut fast, kernel.reads.get(1).map(|r| r.and_then(|i| self.weight(i))))
            {
                c.packed = conv::pack_weights(c, w);
            }
            steps.push(Step {
                name: kernel.name.clone(),
                reads: kernel.reads.clone(),
                writes: kernel.writes.clone(),
                run: fast.unwrap_or_else(|| Routine::Interpret(node.clone())),
            });
        }
        fuse_conv(&mut steps, &m.outputs);
        Ok(CpuPlan {
            opset: m.model.opset,
            bufs,
            shapes,
            inputs: m.inputs.iter().map(|&i| (i, m.buffers[i].name.clone(), m.buffers[i].dtype)).collect(),
            outputs: m.outputs.iter().map(|&i| (i, m.buffers[i].name.clone())).collect(),
            steps,
            scratch: Vec::new(),
        })
    }
}

/// Folds into a convolution the Relu after it, then a 2×2, stride-2 MaxPool after that, when
/// nothing else reads what they consume: one pass over the activations instead of three. The
/// step keeps every kernel's name.
fn fuse_conv(steps: &mut Vec<Step>, outputs: &[usize]) {
    let mut i = 0;
    while i + 1 < steps.len() {
        let out = steps[i].writes[0];
        let read_elsewhere = steps.iter().enumerate().any(|(j, s)| j != i + 1 && s.reads.contains(&Some(out)));
        let consumed = steps[i + 1].reads == [Some(out)] && !read_elsewhere && !outputs.contains(&out);
        let fold = match (&steps[i].run, &steps[i + 1].run) {
            (Routine::Conv(c), Routine::Relu) => consumed && !c.relu && !c.pool,
            (Routine::Conv(c), Routine::Pool(p)) => {
                let [oh, ow] = c.out;
                consumed
                    && !c.pool
                    && c.stride[1] == 1
                    && p.divisors.is_none()
                    && (p.k, p.stride, p.dilation, p.pad) == ([2, 2], [2, 2], [1, 1], [0, 0])
                    && p.out == [oh / 2, ow / 2]
            }
            _ => false,
        };
        if !fold {
            i += 1;
            continue;
        }
        let next = steps.remove(i + 1);
        if let Routine::Conv(c) = &mut steps[i].run {
            match next.run {
                Routine::Relu => c.relu = true,
                _ => c.pool = true,
            }
        }
        steps[i].name = format!("{}+{}", steps[i].name, next.name);
        steps[i].writes = next.writes;
    }
}

fn zeros(dtype: DType, n: usize) -> Data {
    match dtype {
        DType::Float32 => Data::F32(vec![0.0; n]),
        DType::Int32 => Data::I32(vec![0; n]),
        DType::UInt8 => Data::U8(vec![0; n]),
        DType::Bool => Data::Bool(vec![false; n]),
    }
}

impl CpuPlan {
    /// Each step's name (fused steps join their kernels' names with `+`) and whether it runs
    /// as a direct f32 kernel rather than on the interpreter.
    pub fn steps(&self) -> impl Iterator<Item = (&str, bool)> {
        self.steps.iter().map(|s| (s.name.as_str(), !matches!(s.run, Routine::Interpret(_))))
    }

    /// Runs the schedule on `inputs` (named as the capture names them); `clock` is read before
    /// and after each kernel.
    pub fn run(&mut self, inputs: &[(&str, HostTensor)], clock: &mut dyn FnMut() -> f64) -> Result<Replay> {
        for (id, name, dtype) in &self.inputs {
            let Some((_, h)) = inputs.iter().find(|(n, _)| n == name) else {
                bail!(Shape, "capture input {name:?} was not given")
            };
            if h.shape() != self.shapes[*id].as_slice() || h.dtype() != *dtype {
                bail!(
                    Shape,
                    "capture input {name:?} was captured as {dtype} {:?}, got {} {:?}",
                    self.shapes[*id],
                    h.dtype(),
                    h.shape()
                );
            }
            self.bufs[*id].clone_from(h.data());
        }
        let mut timings = Vec::with_capacity(self.steps.len());
        for i in 0..self.steps.len() {
            let start = clock();
            self.step(i)?;
            timings.push(KernelTiming { name: self.steps[i].name.clone(), elapsed: clock() - start });
        }
        let outputs = self
            .outputs
            .iter()
            .map(|(id, name)| Ok((name.clone(), HostTensor::new(self.shapes[*id].clone(), self.bufs[*id].clone())?)))
            .collect::<Result<_>>()?;
        Ok(Replay { outputs, timings })
    }

    fn step(&mut self, i: usize) -> Result<()> {
        let step = &self.steps[i];
        if let Routine::Interpret(node) = &step.run {
            return interpret(node, self.opset, step, &mut self.bufs, &self.shapes);
        }
        let [w] = step.writes[..] else { bail!(Shape, "kernel {:?}: a direct kernel writes one buffer", step.name) };
        // Buffers are SSA values, so the output is never one of the inputs: take it out while
        // the inputs are borrowed.
        let mut out = std::mem::replace(&mut self.bufs[w], Data::F32(Vec::new()));
        let result = match &mut out {
            Data::F32(y) => {
                let x = |j: usize| -> Result<&[f32]> {
                    match step.reads.get(j).copied().flatten().map(|r| &self.bufs[r]) {
                        Some(Data::F32(v)) => Ok(v),
                        _ => bail!(Shape, "kernel {:?}: input {j} is not a float32 buffer", step.name),
                    }
                };
                execute(&step.run, &x, y, &mut self.scratch)
            }
            _ => Err(Error::Shape(format!("kernel {:?}: output is not a float32 buffer", step.name))),
        };
        self.bufs[w] = out;
        result
    }
}

/// One kernel on the interpreter: its inputs as engine tensors, the op lowered, the outputs
/// realized and copied back.
fn interpret(node: &Node, opset: i64, step: &Step, bufs: &mut [Data], shapes: &[Vec<usize>]) -> Result<()> {
    let mut engine = Engine::new();
    let mut args: Vec<Option<Tensor>> = Vec::with_capacity(step.reads.len());
    for r in &step.reads {
        args.push(match r {
            Some(i) => Some(engine.from_data(bufs[*i].clone(), &shapes[*i])?),
            None => None,
        });
    }
    let outs = Lower { engine: &mut engine, opset }.node(node, &args)?;
    if outs.len() < step.writes.len() {
        bail!(
            Shape,
            "capture kernel {:?} produced {} outputs, captured with {}",
            step.name,
            outs.len(),
            step.writes.len()
        );
    }
    for (&w, t) in step.writes.iter().zip(&outs) {
        if t.shape() != shapes[w].as_slice() {
            bail!(
                Shape,
                "capture kernel {:?} produced {:?} for buffer {w}, captured as {:?}",
                step.name,
                t.shape(),
                shapes[w]
            );
        }
        bufs[w] = engine.values(t)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Choosing a routine. Each returns `None` for a case it does not cover (the interpreter then
// runs the kernel and reports any error in the model itself).

fn routine(
    node: &Node,
    opset: i64,
    reads: &[Option<usize>],
    writes: &[usize],
    shapes: &[Vec<usize>],
) -> Option<Routine> {
    let [w] = writes else { return None };
    let out = &shapes[*w];
    let input = |j: usize| reads.get(j).copied().flatten();
    let shape = |j: usize| input(j).map(|i| shapes[i].as_slice());
    let r = match node.op_type() {
        "Relu" => Routine::Relu,
        "Clip" => {
            // Bounds are scalars; any other shape is the interpreter's to refuse.
            let scalar = |j: usize| shape(j).is_none_or(|s| s.iter().product::<usize>() == 1 && s.len() <= 1);
            (scalar(1) && scalar(2)).then_some(())?;
            Routine::Clip { lo: input(1).is_some(), hi: input(2).is_some() }
        }
        "Add" | "Sub" | "Mul" | "Div" => {
            let op = match node.op_type() {
                "Add" => BinaryOp::Add,
                "Sub" => BinaryOp::Sub,
                "Mul" => BinaryOp::Mul,
                _ => BinaryOp::Div,
            };
            Routine::Binary(op, Broadcast { shape: out.clone(), a: bcast(shape(0)?, out)?, b: bcast(shape(1)?, out)? })
        }
        "Flatten" | "Reshape" => Routine::Copy,
        "Transpose" => {
            let xs = shape(0)?;
            let perm: Vec<usize> = match node.ints("perm").ok()? {
                None => (0..xs.len()).rev().collect(),
                Some(p) => p.iter().map(|&a| axis(a, xs.len(), false)).collect::<Result<_>>().ok()?,
            };
            let rs = row_strides(xs);
            Routine::Transpose { out_shape: out.clone(), strides: perm.iter().map(|&p| rs[p]).collect() }
        }
        "Concat" => {
            let a = axis(node.int("axis").ok()?.unwrap_or(0), out.len(), false).ok()?;
            let inner: usize = out[a + 1..].iter().product();
            let chunks = (0..reads.len()).map(|j| shape(j).map(|s| s[a] * inner)).collect::<Option<Vec<_>>>()?;
            Routine::Concat { outer: out[..a].iter().product(), chunks }
        }
        "Softmax" => {
            let r = out.len();
            let (outer, len, inner) = if opset >= 13 {
                let a = axis(node.int_or("axis", -1).ok()?, r, false).ok()?;
                (out[..a].iter().product(), out[a], out[a + 1..].iter().product())
            } else {
                let a = axis(node.int_or("axis", 1).ok()?, r, true).ok()?;
                (out[..a].iter().product(), out[a..].iter().product(), 1)
            };
            Routine::Softmax { outer, len, inner }
        }
        "BatchNormalization" => {
            let training = if opset >= 14 { node.int_or("training_mode", 0).ok()? != 0 } else { false };
            if training || out.len() < 2 {
                return None;
            }
            let c = out[1];
            (1..5).all(|j| shape(j) == Some(&[c][..])).then_some(())?;
            Routine::BatchNorm {
                channels: c,
                inner: out[2..].iter().product(),
                eps: node.float_or("epsilon", 1e-5).ok()?,
            }
        }
        "GlobalAveragePool" => {
            let xs = shape(0)?;
            (xs.len() >= 3).then_some(())?;
            Routine::GlobalAverage { planes: xs[0] * xs[1], size: xs[2..].iter().product() }
        }
        "Gemm" => gemm(node, shape(0)?, shape(1)?, shape(2), out)?,
        "MatMul" => matmul(shape(0)?, shape(1)?, out)?,
        "Conv" => conv(node, shape(0)?, shape(1)?, input(2).is_some(), out)?,
        "MaxPool" | "AveragePool" => pool(node, shape(0)?, out)?,
        _ => return None,
    };
    Some(r)
}

/// Row-major strides of `shape`.
fn row_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// Strides that broadcast `shape` (aligned right) to `out`, or `None` if it does not.
fn bcast(shape: &[usize], out: &[usize]) -> Option<Vec<usize>> {
    let lead = out.len().checked_sub(shape.len())?;
    let rs = row_strides(shape);
    (0..out.len())
        .map(|d| match d.checked_sub(lead) {
            None => Some(0),
            Some(i) if shape[i] == out[d] => Some(rs[i]),
            Some(i) if shape[i] == 1 => Some(0),
            Some(_) => None,
        })
        .collect()
}

fn gemm(node: &Node, a: &[usize], b: &[usize], c: Option<&[usize]>, out: &[usize]) -> Option<Routine> {
    let ([ar, ac], [br, bc], [m, n]) = (pair(a)?, pair(b)?, pair(out)?);
    let ta = node.int_or("transA", 0).ok()? != 0;
    let tb = node.int_or("transB", 0).ok()? != 0;
    let (am, k) = if ta { (ac, ar) } else { (ar, ac) };
    let (bk, bn) = if tb { (bc, br) } else { (br, bc) };
    (am == m && bn == n && bk == k).then_some(())?;
    // A transposed operand is read down its stored columns.
    let strides = |cols: usize, t: bool| if t { (1, cols as isize) } else { (cols as isize, 1) };
    let c = match c {
        None => None,
        Some(cs) => {
            let s = bcast(cs, out)?;
            Some(((s[0], s[1]), node.float_or("beta", 1.0).ok()?))
        }
    };
    Some(Routine::Gemm(Gemm {
        batch: 1,
        m,
        k,
        n,
        a: strides(ac, ta),
        b: strides(bc, tb),
        b_batched: false,
        alpha: node.float_or("alpha", 1.0).ok()?,
        c,
    }))
}

/// MatMul of rank-2 or more operands whose batch dims are equal, or whose B is one matrix.
fn matmul(a: &[usize], b: &[usize], out: &[usize]) -> Option<Routine> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (m, k) = (a[a.len() - 2], a[a.len() - 1]);
    let (bk, n) = (b[b.len() - 2], b[b.len() - 1]);
    let batch_a = &a[..a.len() - 2];
    let batch_b = &b[..b.len() - 2];
    let b_batched = !batch_b.is_empty();
    if bk != k
        || (b_batched && batch_a != batch_b)
        || out[..out.len() - 2] != *batch_a
        || out[out.len() - 2..] != [m, n]
    {
        return None;
    }
    Some(Routine::Gemm(Gemm {
        batch: batch_a.iter().product(),
        m,
        k,
        n,
        a: (k as isize, 1),
        b: (n as isize, 1),
        b_batched,
        alpha: 1.0,
        c: None,
    }))
}

fn pair(v: &[usize]) -> Option<[usize; 2]> {
    <[usize; 2]>::try_from(v).ok()
}

fn conv(node: &Node, x: &[usize], w: &[usize], bias: bool, out: &[usize]) -> Option<Routine> {
    let ([n, c, h, wd], [oc, cg, kh, kw]) = (<[usize; 4]>::try_from(x).ok()?, <[usize; 4]>::try_from(w).ok()?);
    if let Some(k) = node.ints("kernel_shape").ok()? {
        (k.len() == 2 && k[0] as usize == kh && k[1] as usize == kw).then_some(())?;
    }
    let groups = usize::try_from(node.int_or("group", 1).ok()?).ok()?;
    (groups > 0 && c % groups == 0 && oc % groups == 0 && cg * groups == c).then_some(())?;
    let win = Window::read(node, &[h, wd], &[kh, kw], false).ok()?;
    let geom = Conv {
        n,
        c,
        hw: [h, wd],
        oc,
        k: [kh, kw],
        groups,
        stride: pair(&win.strides)?,
        dilation: pair(&win.dilations)?,
        pad: pair(&win.begin)?,
        out: pair(&win.out)?,
        bias,
        relu: false,
        pool: false,
        packed: Vec::new(),
    };
    (out == [n, oc, geom.out[0], geom.out[1]]).then_some(Routine::Conv(geom))
}

fn pool(node: &Node, x: &[usize], out: &[usize]) -> Option<Routine> {
    let [n, c, h, w] = <[usize; 4]>::try_from(x).ok()?;
    let k = pair(&Lower::pool_kernel(node).ok()?)?;
    let ceil = node.int_or("ceil_mode", 0).ok()? != 0;
    let win = Window::read(node, &[h, w], &k, ceil).ok()?;
    let o = pair(&win.out)?;
    (out == [n, c, o[0], o[1]]).then_some(())?;
    let pad = pair(&win.begin)?;
    let (stride, dilation) = (pair(&win.strides)?, pair(&win.dilations)?);
    let divisors = if node.op_type() == "AveragePool" {
        // The interpreter's divisor: the window's cells inside the input, or inside the input
        // plus the requested padding (never the ceil-mode overhang).
        let include_pad = node.int_or("count_include_pad", 0).ok()? != 0;
        let limit = |d: usize| if include_pad { pad[d] + [h, w][d] + win.end[d] } else { pad[d] + [h, w][d] };
        let low = |d: usize| if include_pad { 0 } else { pad[d] };
        let mut div = Vec::with_capacity(o[0] * o[1]);
        for oy in 0..o[0] {
            for ox in 0..o[1] {
                let inside = |d: usize, o: usize, j: usize| {
                    let p = o * stride[d] + j * dilation[d];
                    p >= low(d) && p < limit(d)
                };
                let rows = (0..k[0]).filter(|&j| inside(0, oy, j)).count();
                let cols = (0..k[1]).filter(|&j| inside(1, ox, j)).count();
                div.push((rows * cols) as f32);
            }
        }
        Some(div)
    } else {
        None
    };
    Some(Routine::Pool(Pool { planes: n * c, hw: [h, w], k, stride, dilation, pad, out: o, divisors }))
}

// ---------------------------------------------------------------------------------------------
// The kernels.

/// NaN-propagating max, as the interpreter's (PyTorch's) maximum, written as one compare and
/// select so that loops over it vectorise.
fn max_nan(a: f32, b: f32) -> f32 {
    if b > a || b.is_nan() {
        b
    } else {
        a
    }
}

fn execute<'a>(
    r: &Routine,
    x: &dyn Fn(usize) -> Result<&'a [f32]>,
    y: &mut [f32],
    scratch: &mut Vec<f32>,
) -> Result<()> {
    match r {
        Routine::Interpret(_) => bail!(Shape, "an interpreted kernel reached the direct kernels"),
        Routine::Relu => y.iter_mut().zip(x(0)?).for_each(|(y, &v)| *y = if v > 0.0 { v } else { 0.0 }),
        Routine::Clip { lo, hi } => {
            let lo = if *lo { x(1)?[0] } else { f32::NEG_INFINITY };
            let hi = if *hi { x(2)?[0] } else { f32::INFINITY };
            let min_nan = |a: f32, b: f32| if a.is_nan() || b.is_nan() { f32::NAN } else { a.min(b) };
            y.iter_mut().zip(x(0)?).for_each(|(y, &v)| *y = min_nan(max_nan(v, lo), hi));
        }
        Routine::Binary(op, bc) => binary(*op, bc, x(0)?, x(1)?, y),
        Routine::Copy => y.copy_from_slice(x(0)?),
        Routine::Transpose { out_shape, strides } => {
            let x = x(0)?;
            let mut i = 0;
            for_each_offset(out_shape, strides, &mut |off| {
                y[i] = x[off];
                i += 1;
            });
        }
        Routine::Concat { outer, chunks } => {
            let total: usize = chunks.iter().sum();
            let mut base = 0;
            for (j, &len) in chunks.iter().enumerate() {
                let src = x(j)?;
                for o in 0..*outer {
                    y[o * total + base..][..len].copy_from_slice(&src[o * len..][..len]);
                }
                base += len;
            }
        }
        Routine::Softmax { outer, len, inner } => softmax(x(0)?, y, *outer, *len, *inner),
        Routine::BatchNorm { channels, inner, eps } => {
            let (scale, bias, mean, var) = (x(1)?, x(2)?, x(3)?, x(4)?);
            for (i, (yc, xc)) in y.chunks_mut(*inner).zip(x(0)?.chunks(*inner)).enumerate() {
                let c = i % channels;
                let (m, sd) = (mean[c], (var[c] + eps).sqrt());
                yc.iter_mut().zip(xc).for_each(|(y, &v)| *y = scale[c] * (v - m) / sd + bias[c]);
            }
        }
        Routine::GlobalAverage { planes, size } => {
            let x = x(0)?;
            for p in 0..*planes {
                y[p] = x[p * size..][..*size].iter().sum::<f32>() / *size as f32;
            }
        }
        Routine::Gemm(g) => run_gemm(g, x(0)?, x(1)?, if g.c.is_some() { Some(x(2)?) } else { None }, y),
        Routine::Conv(c) => {
            let bias = if c.bias { Some(x(2)?) } else { None };
            if c.packed.is_empty() {
                let packed = conv::pack_weights(c, x(1)?);
                conv::run(c, x(0)?, &packed, bias, y, scratch);
            } else {
                conv::run(c, x(0)?, &c.packed, bias, y, scratch);
            }
        }
        Routine::Pool(p) => run_pool(p, x(0)?, y),
    }
    Ok(())
}

/// Calls `f` with the strided offset of every index of `shape`, row-major.
fn for_each_offset(shape: &[usize], strides: &[usize], f: &mut dyn FnMut(usize)) {
    if shape.contains(&0) {
        return;
    }
    let mut idx = vec![0; shape.len()];
    let mut off = 0;
    loop {
        f(off);
        let mut d = shape.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            off += strides[d];
            if idx[d] < shape[d] {
                break;
            }
            off -= strides[d] * shape[d];
            idx[d] = 0;
        }
    }
}

fn binary(op: BinaryOp, bc: &Broadcast, a: &[f32], b: &[f32], y: &mut [f32]) {
    // One monomorphised loop per op: a function pointer per element would not vectorise.
    match op {
        BinaryOp::Add => zip_with(bc, a, b, y, |a, b| a + b),
        BinaryOp::Sub => zip_with(bc, a, b, y, |a, b| a - b),
        BinaryOp::Mul => zip_with(bc, a, b, y, |a, b| a * b),
        BinaryOp::Div => zip_with(bc, a, b, y, |a, b| a / b),
    }
}

fn zip_with(bc: &Broadcast, a: &[f32], b: &[f32], y: &mut [f32], f: impl Fn(f32, f32) -> f32) {
    match (a.len() == y.len(), b.len() == y.len()) {
        (true, true) => return y.iter_mut().zip(a.iter().zip(b)).for_each(|(y, (&a, &b))| *y = f(a, b)),
        (true, false) if b.len() == 1 => return y.iter_mut().zip(a).for_each(|(y, &a)| *y = f(a, b[0])),
        (false, true) if a.len() == 1 => return y.iter_mut().zip(b).for_each(|(y, &b)| *y = f(a[0], b)),
        _ => {}
    }
    // Rows of the last dim, each with its two input offsets and strides.
    let r = bc.shape.len();
    let (len, sa, sb) = match r {
        0 => (1, 0, 0),
        _ => (bc.shape[r - 1], bc.a[r - 1], bc.b[r - 1]),
    };
    let outer = &bc.shape[..r.saturating_sub(1)];
    let mut offs_a = Vec::new();
    for_each_offset(outer, &bc.a[..outer.len()], &mut |o| offs_a.push(o));
    let mut row = 0;
    for_each_offset(outer, &bc.b[..outer.len()], &mut |ob| {
        let oa = offs_a[row];
        let out = &mut y[row * len..][..len];
        for (i, v) in out.iter_mut().enumerate() {
            *v = f(a[oa + i * sa], b[ob + i * sb]);
        }
        row += 1;
    });
}

fn softmax(x: &[f32], y: &mut [f32], outer: usize, len: usize, inner: usize) {
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| o * len * inner + j * inner + i;
            let m = (0..len).map(|j| x[at(j)]).fold(f32::NEG_INFINITY, max_nan);
            let mut sum = 0.0;
            for j in 0..len {
                let e = (x[at(j)] - m).exp();
                y[at(j)] = e;
                sum += e;
            }
            for j in 0..len {
                y[at(j)] /= sum;
            }
        }
    }
}

/// `c[m×n] = alpha · a[m×k] · b[k×n] + beta · c`, each matrix given by its slice and its row
/// and column strides; `c` is row-major with row stride `ldc`.
#[allow(clippy::too_many_arguments)]
fn sgemm(
    (m, k, n): (usize, usize, usize),
    alpha: f32,
    a: &[f32],
    (rsa, csa): (isize, isize),
    b: &[f32],
    (rsb, csb): (isize, isize),
    beta: f32,
    c: &mut [f32],
    ldc: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    let last = |rows: usize, cols: usize, (rs, cs): (isize, isize)| {
        (rows.saturating_sub(1) as isize * rs + cols.saturating_sub(1) as isize * cs) as usize
    };
    assert!(k == 0 || (last(m, k, (rsa, csa)) < a.len() && last(k, n, (rsb, csb)) < b.len()));
    assert!((m - 1) * ldc + n <= c.len());
    // SAFETY: the asserts above keep every element the strides reach inside `a`, `b` and `c`,
    // and `c` is borrowed mutably, so it aliases neither input.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            alpha,
            a.as_ptr(),
            rsa,
            csa,
            b.as_ptr(),
            rsb,
            csb,
            beta,
            c.as_mut_ptr(),
            ldc as isize,
            1,
        );
    }
}

fn run_gemm(g: &Gemm, a: &[f32], b: &[f32], c: Option<&[f32]>, y: &mut [f32]) {
    let (mk, kn, mn) = (g.m * g.k, g.k * g.n, g.m * g.n);
    let beta = match (c, g.c) {
        (Some(c), Some(((sr, sc), beta))) => {
            for i in 0..g.m {
                for j in 0..g.n {
                    y[i * g.n + j] = beta * c[i * sr + j * sc];
                }
            }
            1.0
        }
        _ => 0.0,
    };
    for t in 0..g.batch {
        let bt = if g.b_batched { &b[t * kn..][..kn] } else { b };
        sgemm((g.m, g.k, g.n), g.alpha, &a[t * mk..][..mk], g.a, bt, g.b, beta, &mut y[t * mn..][..mn], g.n);
    }
}

fn run_pool(p: &Pool, x: &[f32], y: &mut [f32]) {
    let [h, w] = p.hw;
    let [oh, ow] = p.out;
    let avg = p.divisors.is_some();
    let start = if avg { 0.0 } else { f32::NEG_INFINITY };
    // Whether every window lies inside the input along a dim: then its loop needs no checks.
    let inside = |d: usize, n: usize| p.pad[d] == 0 && (p.out[d] - 1) * p.stride[d] + (p.k[d] - 1) * p.dilation[d] < n;
    let interior = oh > 0 && ow > 0 && inside(0, h) && inside(1, w);
    let mut cols = vec![start; w];
    for plane in 0..p.planes {
        let src = &x[plane * h * w..][..h * w];
        let dst = &mut y[plane * oh * ow..][..oh * ow];
        for oy in 0..oh {
            let out = &mut dst[oy * ow..][..ow];
            if interior {
                // Down the window's rows first, whole input rows at a time (contiguous, so it
                // vectorises), then across each output cell's columns.
                cols.fill(start);
                for ky in 0..p.k[0] {
                    let row = &src[(oy * p.stride[0] + ky * p.dilation[0]) * w..][..w];
                    if avg {
                        cols.iter_mut().zip(row).for_each(|(c, &v)| *c += v);
                    } else {
                        cols.iter_mut().zip(row).for_each(|(c, &v)| *c = max_nan(*c, v));
                    }
                }
                if p.k[1] == 2 && p.stride[1] == 2 && p.dilation[1] == 1 {
                    // The common 2-wide, stride-2 window: pairs, which vectorise.
                    let (pairs, _) = cols.as_chunks::<2>();
                    if avg {
                        out.iter_mut().zip(pairs).for_each(|(v, c)| *v = c[0] + c[1]);
                    } else {
                        out.iter_mut().zip(pairs).for_each(|(v, c)| *v = max_nan(c[0], c[1]));
                    }
                } else {
                    for (ox, v) in out.iter_mut().enumerate() {
                        let at = |kx: usize| cols[ox * p.stride[1] + kx * p.dilation[1]];
                        *v = if avg {
                            (0..p.k[1]).map(at).sum()
                        } else {
                            (0..p.k[1]).map(at).fold(f32::NEG_INFINITY, max_nan)
                        };
                    }
                }
            } else {
                out.fill(start);
                for ky in 0..p.k[0] {
                    let iy = (oy * p.stride[0] + ky * p.dilation[0]).wrapping_sub(p.pad[0]);
                    if iy >= h {
                        continue;
                    }
                    let row = &src[iy * w..][..w];
                    for kx in 0..p.k[1] {
                        for (ox, v) in out.iter_mut().enumerate() {
                            let ix = (ox * p.stride[1] + kx * p.dilation[1]).wrapping_sub(p.pad[1]);
                            if ix < w {
                                *v = if avg { *v + row[ix] } else { max_nan(*v, row[ix]) };
                            }
                        }
                    }
                }
            }
            if let Some(d) = &p.divisors {
                out.iter_mut().zip(&d[oy * ow..][..ow]).for_each(|(v, &d)| *v /= d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    // A panic is how a test reports failure.
    #![allow(clippy::unwrap_used)]

    use std::collections::BTreeMap;

    use super::*;
    use crate::onnx::Attribute;

    /// (op, kernel, strides, pads [top, left, bottom, right], dilations, ceil_mode,
    /// count_include_pad): the pair path (2-wide, stride 2), windows reaching into padding,
    /// asymmetric pads, dilation, ceil mode.
    #[allow(clippy::type_complexity)]
    const POOLS: [(&str, [i64; 2], [i64; 2], [i64; 4], [i64; 2], i64, i64); 8] = [
        ("MaxPool", [2, 2], [2, 2], [0, 0, 0, 0], [1, 1], 0, 0),
        ("AveragePool", [2, 2], [2, 2], [0, 0, 0, 0], [1, 1], 0, 0),
        ("MaxPool", [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 0, 0),
        ("AveragePool", [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 0, 1),
        ("AveragePool", [3, 2], [2, 1], [1, 0, 0, 1], [1, 1], 0, 0),
        ("MaxPool", [3, 3], [2, 2], [0, 0, 0, 0], [2, 2], 0, 0),
        ("AveragePool", [2, 3], [2, 2], [1, 1, 1, 1], [1, 2], 0, 1),
        ("MaxPool", [3, 3], [2, 2], [0, 0, 0, 0], [1, 1], 1, 0),
    ];

    /// Each pool, on a (2, 3, 7, 9) input, by the direct kernel and by the interpreter's lowering.
    #[test]
    fn pools_match_the_interpreter() {
        let xs = [2usize, 3, 7, 9];
        let x: Vec<f32> = (0..xs.iter().product()).map(|i: usize| ((i * 37 % 101) as f32 - 50.0) / 7.0).collect();
        for (op, k, s, p, d, ceil, include) in POOLS {
            let mut attrs = BTreeMap::new();
            attrs.insert("kernel_shape".to_string(), Attribute::Ints(k.to_vec()));
            attrs.insert("strides".to_string(), Attribute::Ints(s.to_vec()));
            attrs.insert("pads".to_string(), Attribute::Ints(p.to_vec()));
            attrs.insert("dilations".to_string(), Attribute::Ints(d.to_vec()));
            attrs.insert("ceil_mode".to_string(), Attribute::Int(ceil));
            if op == "AveragePool" {
                attrs.insert("count_include_pad".to_string(), Attribute::Int(include));
            }
            let node = Node::new("p", op, vec!["x".into()], vec!["y".into()], attrs);
            let mut engine = Engine::new();
            let xt = engine.from_data(Data::F32(x.clone()), &xs).unwrap();
            let want = Lower { engine: &mut engine, opset: 19 }.node(&node, &[Some(xt)]).unwrap().remove(0);
            let what = format!("{op} k{k:?} s{s:?} p{p:?} d{d:?} ceil {ceil} include {include}");
            let Some(Routine::Pool(pool)) = pool(&node, &xs, want.shape()) else { panic!("{what}: no direct kernel") };
            let want = engine.values(&want).unwrap().to_f64_vec();
            let mut y = vec![f32::NAN; want.len()];
            run_pool(&pool, &x, &mut y);
            for (i, (&g, &w)) in y.iter().zip(&want).enumerate() {
                assert!((f64::from(g) - w).abs() <= 1e-5 * (1.0 + w.abs()), "{what}: element {i}: {g} vs {w}");
            }
        }
    }
}
