//! Replaying a capture on the CPU: every buffer allocated once, then each kernel run either by
//! the reference interpreter (the definition of the op) or by a direct float32 kernel.
//!
//! The interpreter sums in f64 in a fixed order and builds a lazy graph per kernel, which makes
//! it exact and slow; a model on the page needs the opposite trade. The direct kernels compute
//! in f32 the way inference runtimes do: convolutions in [`super::conv`] (with a following Relu
//! and 2×2 max pool folded in), Gemm and MatMul through the packed GEMM of [`crate::sgemm`]
//! ([`super::gemm`]), pools ([`super::pool`]) and elementwise ops ([`super::elementwise`]) as
//! plain loops over preallocated buffers. A kernel gets one only when every buffer it touches is
//! float32 and its attributes are a case written out in [`super::select`]; anything else (integer
//! ops, 1-D and 3-D windows, MaxPool's argmax output, training-mode BatchNormalization,
//! broadcast-batch MatMul) stays on the interpreter, so a plan always runs what the capture says.
//! The tests hold both paths to the same ONNX references.
//!
//! This module is the plan itself: buffer allocation, each kernel bound to its routine
//! ([`super::routine`]), the folding of a Relu and a max pool into the convolution before them,
//! and the run.

use std::collections::BTreeMap;

use crate::error::{bail, Error, Result};
use crate::model::ops::Lower;
use crate::model::HostTensor;
use crate::onnx::Node;
use crate::strided::row_major_strides;
use crate::tensor::{Engine, Tensor};
use crate::uop::buffer::Data;
use crate::DType;

use super::conv;
use super::elementwise;
use super::gemm::run_gemm;
use super::manifest::Manifest;
use super::pool::run_pool;
use super::routine::{BroadcastArith, Routine};
use super::select::{routine, Buffers};

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

/// One kernel's replay time, in the clock's units.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayTiming {
    pub name: String,
    pub elapsed: f64,
}

/// What a replay produced.
#[derive(Clone, Debug)]
pub struct Replay {
    pub outputs: Vec<(String, HostTensor)>,
    pub timings: Vec<ReplayTiming>,
}

/// What a plan is built from, whichever front end described it: a capture's manifest
/// ([`CpuPlan::new`]) or a model's lowered graph ([`super::model_plan`]).
pub(super) struct Spec<'a> {
    pub opset: i64,
    /// Every buffer's name, dtype and shape, indexed by buffer id.
    pub buffers: Vec<(String, DType, Vec<usize>)>,
    /// The values of weight and constant buffers.
    pub constants: BTreeMap<usize, Data>,
    /// The kernels in execution order.
    pub kernels: Vec<SpecKernel<'a>>,
    pub inputs: Vec<usize>,
    pub outputs: Vec<usize>,
}

/// One kernel of a [`Spec`]: the op and the buffers it reads (`None` for an omitted optional
/// input) and writes.
pub(super) struct SpecKernel<'a> {
    pub name: String,
    pub node: &'a Node,
    pub reads: Vec<Option<usize>>,
    pub writes: Vec<usize>,
}

impl CpuPlan {
    /// Allocates every buffer of the capture `m` (weights filled from `weights`) and binds each
    /// scheduled kernel, decoded at load as `nodes`, to the routine `kernels` picks.
    pub(super) fn new(
        m: &Manifest,
        weights: &BTreeMap<usize, Data>,
        nodes: &[Option<Node>],
        kernels: CpuKernels,
    ) -> Result<CpuPlan> {
        let mut steps = Vec::with_capacity(m.schedule.len());
        for &k in &m.schedule {
            let kernel = &m.kernels[k];
            // Load decoded every scheduled kernel; a miss is a broken invariant, said as such.
            let Some(node) = nodes.get(k).and_then(Option::as_ref) else {
                bail!(Decode, "capture kernel {:?} was not decoded at load", kernel.name)
            };
            steps.push(SpecKernel {
                name: kernel.name.clone(),
                node,
                reads: kernel.reads.clone(),
                writes: kernel.writes.clone(),
            });
        }
        let spec = Spec {
            opset: m.model.opset,
            buffers: m.buffers.iter().map(|b| (b.name.clone(), b.dtype, b.shape.clone())).collect(),
            constants: weights.clone(),
            kernels: steps,
            inputs: m.inputs.clone(),
            outputs: m.outputs.clone(),
        };
        CpuPlan::build(spec, kernels)
    }

    /// Allocates every buffer of `spec` and binds each kernel to the routine `kernels` picks.
    /// A kernel that reads only constants runs once, here, and its outputs become constants.
    pub(super) fn build(spec: Spec, kernels: CpuKernels) -> Result<CpuPlan> {
        let Spec { opset, buffers, mut constants, kernels: specs, inputs, outputs } = spec;
        let shapes: Vec<Vec<usize>> = buffers.iter().map(|(_, _, s)| s.clone()).collect();
        let dtypes: Vec<DType> = buffers.iter().map(|(_, d, _)| *d).collect();
        // Buffers whose values are fixed before any run: weights, constants and (below) what
        // is computed from them alone.
        let mut fixed: Vec<bool> = (0..buffers.len()).map(|i| constants.contains_key(&i)).collect();
        let mut bufs: Vec<Data> = buffers
            .iter()
            .enumerate()
            .map(|(id, (_, dt, shape))| match constants.remove(&id) {
                Some(w) => w,
                None => Data::zeros(*dt, shape.iter().product()),
            })
            .collect();
        let names: Vec<String> = buffers.into_iter().map(|(n, _, _)| n).collect();
        let buffers = Buffers { shapes: &shapes, dtypes: &dtypes };
        let mut steps = Vec::with_capacity(specs.len());
        for k in specs {
            // Random ops draw anew each run; an output buffer is the run's to fill.
            let random =
                k.node.op_type().starts_with("Random") || matches!(k.node.op_type(), "Bernoulli" | "Multinomial");
            let constant =
                !random && k.reads.iter().flatten().all(|&r| fixed[r]) && !k.writes.iter().any(|w| outputs.contains(w));
            let fast = match kernels {
                CpuKernels::Fast => routine(k.node, opset, &k.reads, &k.writes, buffers),
                CpuKernels::Reference => None,
            };
            let step = Step {
                name: k.name,
                reads: k.reads,
                writes: k.writes,
                run: fast.unwrap_or_else(|| Routine::Interpret(k.node.clone())),
            };
            if constant {
                let mut once = CpuPlan::shell(opset, std::mem::take(&mut bufs), shapes.clone(), vec![step]);
                once.step(0)?;
                bufs = once.bufs;
                for &w in &once.steps[0].writes {
                    fixed[w] = true;
                }
            } else {
                steps.push(step);
            }
        }
        fuse_conv(&mut steps, &outputs);
        fuse_bias(&mut steps, &outputs);
        // Each convolution's kernel is chosen for its final (folded) form, and constant weights
        // are packed for it once.
        for step in &mut steps {
            if let Routine::Conv(c) = &mut step.run {
                c.kernel = conv::kernel_for(c);
                if let Some(Data::F32(w)) = step.reads.get(1).copied().flatten().filter(|&i| fixed[i]).map(|i| &bufs[i])
                {
                    c.packed = conv::pack_weights(c, w);
                }
            }
        }
        let mut plan = CpuPlan::shell(opset, bufs, shapes, steps);
        plan.inputs = inputs.iter().map(|&i| (i, names[i].clone(), dtypes[i])).collect();
        plan.outputs = outputs.iter().map(|&i| (i, names[i].clone())).collect();
        Ok(plan)
    }

    fn shell(opset: i64, bufs: Vec<Data>, shapes: Vec<Vec<usize>>, steps: Vec<Step>) -> CpuPlan {
        CpuPlan { opset, bufs, shapes, inputs: Vec::new(), outputs: Vec::new(), steps, scratch: Vec::new() }
    }
}

/// Folds into a MatMul (or a Gemm without C) the Add of a bias row after it, when nothing else
/// reads the product: the GEMM starts from the bias instead of a second pass adding it.
fn fuse_bias(steps: &mut Vec<Step>, outputs: &[usize]) {
    let mut i = 0;
    while i + 1 < steps.len() {
        let out = steps[i].writes[0];
        let read_elsewhere = steps.iter().enumerate().any(|(j, s)| j != i + 1 && s.reads.contains(&Some(out)));
        // The Add's other operand, and its strides along the product's rows and columns: it
        // must repeat down the rows and over the batch.
        let bias = match (&steps[i].run, &steps[i + 1].run, steps[i + 1].reads.as_slice()) {
            (Routine::Gemm(g), Routine::Binary(BroadcastArith::Add, bc), &[Some(a), Some(b)])
                if g.c.is_none() && g.alpha == 1.0 && !read_elsewhere && !outputs.contains(&out) && a != b =>
            {
                let (other, strides, mine) = if a == out {
                    (b, &bc.b, &bc.a)
                } else if b == out {
                    (a, &bc.a, &bc.b)
                } else {
                    (usize::MAX, &bc.a, &bc.b)
                };
                // The sum has the product's shape (the Add broadcasts only the bias).
                let same =
                    *mine == row_major_strides(&bc.shape) && bc.shape.iter().product::<usize>() == g.batch * g.m * g.n;
                match strides.split_last() {
                    Some((&col, lead)) if other != usize::MAX && same && lead.iter().all(|&s| s == 0) && col <= 1 => {
                        Some((other, col as usize))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let Some((other, col)) = bias else {
            i += 1;
            continue;
        };
        let next = steps.remove(i + 1);
        if let Routine::Gemm(g) = &mut steps[i].run {
            g.c = Some(((0, col), 1.0));
        }
        steps[i].reads.truncate(2);
        steps[i].reads.push(Some(other));
        steps[i].name = format!("{}+{}", steps[i].name, next.name);
        steps[i].writes = next.writes;
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
            timings.push(ReplayTiming { name: self.steps[i].name.clone(), elapsed: clock() - start });
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
        // Buffers are SSA values, so no output is one of the inputs: take the outputs out
        // while the inputs are borrowed.
        let mut outs: Vec<Data> =
            step.writes.iter().map(|&w| std::mem::replace(&mut self.bufs[w], Data::F32(Vec::new()))).collect();
        let mut ys: Vec<&mut [f32]> = outs
            .iter_mut()
            .filter_map(|d| match d {
                Data::F32(y) => Some(y.as_mut_slice()),
                _ => None,
            })
            .collect();
        let result = if ys.len() == step.writes.len() {
            let bufs = &self.bufs;
            let x = |j: usize| -> Result<&Data> {
                match step.reads.get(j).copied().flatten() {
                    Some(r) => Ok(&bufs[r]),
                    None => bail!(Shape, "kernel {:?}: input {j} is missing", step.name),
                }
            };
            execute(&step.run, &x, &mut ys, &mut self.scratch)
        } else {
            Err(Error::Shape(format!("kernel {:?}: an output is not a float32 buffer", step.name)))
        };
        for (&w, d) in step.writes.iter().zip(outs) {
            self.bufs[w] = d;
        }
        result.map_err(|e| match e {
            Error::Shape(m) if !m.starts_with("kernel") => Error::Shape(format!("kernel {:?}: {m}", step.name)),
            e => e,
        })
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
    let outs = Lower::new(&mut engine, opset).node(node, &args)?;
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

/// Runs one direct kernel: `x(j)` is input `j`, `ys` the outputs (float32), `scratch` a
/// convolution's reusable working memory.
fn execute<'a>(
    r: &Routine,
    x: &dyn Fn(usize) -> Result<&'a Data>,
    ys: &mut [&mut [f32]],
    scratch: &mut Vec<f32>,
) -> Result<()> {
    let f = |j: usize| -> Result<&'a [f32]> {
        match x(j)? {
            Data::F32(v) => Ok(v),
            d => bail!(Shape, "input {j} is {}, not float32", d.dtype()),
        }
    };
    match r {
        Routine::Split { outer, chunks } => {
            elementwise::split(f(0)?, *outer, chunks, ys);
            return Ok(());
        }
        Routine::LayerNorm { len, eps, bias } => {
            let b = if *bias { Some(f(2)?) } else { None };
            let Some((y, stats)) = ys.split_first_mut() else { bail!(Shape, "LayerNormalization writes nothing") };
            elementwise::layer_norm(f(0)?, f(1)?, b, *len, *eps, y, stats);
            return Ok(());
        }
        _ => {}
    }
    let [y] = ys else { bail!(Shape, "this direct kernel writes one buffer") };
    let y = &mut **y;
    match r {
        Routine::Interpret(_) | Routine::Split { .. } | Routine::LayerNorm { .. } => {
            bail!(Shape, "an interpreted or many-output kernel reached the one-output kernels")
        }
        Routine::Relu => elementwise::relu(f(0)?, y),
        Routine::Clip { lo, hi } => {
            let lo = if *lo { f(1)?[0] } else { f32::NEG_INFINITY };
            let hi = if *hi { f(2)?[0] } else { f32::INFINITY };
            elementwise::clip(f(0)?, lo, hi, y);
        }
        Routine::Unary(op) => elementwise::unary(*op, f(0)?, y),
        Routine::Binary(op, bc) => elementwise::binary(*op, bc, f(0)?, f(1)?, y),
        Routine::Where { cond, values } => {
            let Data::Bool(c) = x(0)? else { bail!(Shape, "Where's condition is not bool") };
            elementwise::select(c, cond, values, f(1)?, f(2)?, y);
        }
        Routine::Copy => y.copy_from_slice(f(0)?),
        Routine::Transpose { out_shape, strides } => elementwise::transpose(f(0)?, out_shape, strides, y),
        Routine::Concat { outer, chunks } => {
            let xs = (0..chunks.len()).map(f).collect::<Result<Vec<_>>>()?;
            elementwise::concat(&xs, *outer, chunks, y);
        }
        Routine::Gather { outer, len, inner } => {
            let geom = [*outer, *len, *inner];
            match x(1)? {
                Data::I64(i) => elementwise::gather(f(0)?, i.iter().copied(), geom, y)?,
                Data::I32(i) => elementwise::gather(f(0)?, i.iter().map(|&v| i64::from(v)), geom, y)?,
                d => bail!(Shape, "Gather's indices are {}, not int32 or int64", d.dtype()),
            }
        }
        Routine::Softmax { outer, len, inner } => elementwise::softmax(f(0)?, y, *outer, *len, *inner),
        Routine::BatchNorm { channels, inner, eps } => {
            let params = [f(1)?, f(2)?, f(3)?, f(4)?];
            elementwise::batch_norm(f(0)?, params, *channels, *inner, *eps, y);
        }
        Routine::GlobalAverage { planes, size } => elementwise::global_average(f(0)?, *planes, *size, y),
        Routine::Gemm(g) => run_gemm(g, f(0)?, f(1)?, if g.c.is_some() { Some(f(2)?) } else { None }, y),
        Routine::Conv(c) => {
            let bias = if c.bias { Some(f(2)?) } else { None };
            conv::run(c, f(0)?, f(1)?, bias, y, scratch);
        }
        Routine::Pool(p) => run_pool(p, f(0)?, y),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    // A panic is how a test reports failure.
    #![allow(clippy::unwrap_used)]

    use std::collections::BTreeMap;

    use super::*;
    use crate::capture::select::pool;
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
            let want = Lower::new(&mut engine, 19).node(&node, &[Some(xt)]).unwrap().remove(0);
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

    /// One node by its direct kernel and by the interpreter's lowering, on the same inputs
    /// (`None` for an omitted optional one).
    fn direct_matches_the_interpreter(node: &Node, inputs: &[Option<(Data, Vec<usize>)>]) {
        let what = format!("{} {:?}", node.op_type(), node.attributes());
        let mut engine = Engine::new();
        let args: Vec<Option<Tensor>> =
            inputs.iter().map(|i| i.as_ref().map(|(d, s)| engine.from_data(d.clone(), s).unwrap())).collect();
        let want = Lower::new(&mut engine, 18).node(node, &args).unwrap();
        let want: Vec<(Vec<usize>, Vec<f64>)> =
            want.iter().map(|t| (t.shape().to_vec(), engine.values(t).unwrap().to_f64_vec())).collect();
        // Buffers: the inputs, then the outputs.
        let mut shapes: Vec<Vec<usize>> = inputs.iter().flatten().map(|(_, s)| s.clone()).collect();
        let mut dtypes: Vec<DType> = inputs.iter().flatten().map(|(d, _)| d.dtype()).collect();
        let mut next = 0;
        let reads: Vec<Option<usize>> = inputs
            .iter()
            .map(|i| {
                i.as_ref().map(|_| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        let writes: Vec<usize> = (shapes.len()..shapes.len() + want.len()).collect();
        shapes.extend(want.iter().map(|(s, _)| s.clone()));
        dtypes.extend(want.iter().map(|_| DType::Float32));
        let bufs = Buffers { shapes: &shapes, dtypes: &dtypes };
        let Some(run) = routine(node, 18, &reads, &writes, bufs) else { panic!("{what}: no direct kernel") };
        let data: Vec<&Data> = inputs.iter().flatten().map(|(d, _)| d).collect();
        let x = |j: usize| -> Result<&Data> { Ok(data[reads[j].unwrap()]) };
        let mut outs: Vec<Vec<f32>> = want.iter().map(|(_, v)| vec![f32::NAN; v.len()]).collect();
        let mut ys: Vec<&mut [f32]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
        execute(&run, &x, &mut ys, &mut Vec::new()).unwrap();
        for (o, (got, (_, want))) in outs.iter().zip(&want).enumerate() {
            for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
                let ok = (f64::from(g) - w).abs() <= 2e-6 * (1.0 + w.abs())
                    || (g.is_nan() && w.is_nan())
                    || f64::from(g) == w;
                assert!(ok, "{what}: output {o} element {i}: {g} vs {w}");
            }
        }
    }

    fn floats(shape: &[usize], seed: usize) -> Option<(Data, Vec<usize>)> {
        let n: usize = shape.iter().product();
        let v = (0..n).map(|i| (((i + seed) * 37 % 101) as f32 - 50.0) / 13.0).collect();
        Some((Data::F32(v), shape.to_vec()))
    }

    fn node(op: &str, inputs: usize, outputs: usize, attrs: &[(&str, Attribute)]) -> Node {
        let attrs = attrs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        let names = |p: &str, n: usize| (0..n).map(|i| format!("{p}{i}")).collect();
        Node::new("n", op, names("x", inputs), names("y", outputs), attrs)
    }

    /// The unary ops, Pow, LayerNormalization, Gather, Where, Split, Softmax and Transpose agree
    /// with the interpreter, broadcasts, negative indices and masked positions included.
    #[test]
    fn movement_and_elementwise_kernels_match_the_interpreter() {
        for op in ["Abs", "Neg", "Sqrt", "Reciprocal", "Exp", "Log", "Tanh", "Sigmoid", "Erf"] {
            let x = floats(&[3, 5, 7], 1).map(|(d, s)| {
                let v: Vec<f32> = d
                    .to_f64_vec()
                    .iter()
                    .map(|&v| if op == "Sqrt" || op == "Log" { v.abs() as f32 } else { v as f32 })
                    .collect();
                (Data::F32(v), s)
            });
            direct_matches_the_interpreter(&node(op, 1, 1, &[]), &[x]);
        }
        for e in [2.0f32, 0.5, 3.0] {
            let x = floats(&[4, 6], 2)
                .map(|(d, s)| (Data::F32(d.to_f64_vec().iter().map(|&v| v.abs() as f32).collect()), s));
            direct_matches_the_interpreter(&node("Pow", 2, 1, &[]), &[x, Some((Data::F32(vec![e]), vec![]))]);
        }
        for (shape, axis, bias) in [(vec![2, 3, 8], -1, true), (vec![2, 3, 8], 1, false), (vec![5, 16], 0, true)] {
            let a = if axis < 0 { shape.len() - 1 } else { axis as usize };
            let norm = shape[a..].to_vec();
            let n = node(
                "LayerNormalization",
                3,
                1,
                &[("axis", Attribute::Int(axis)), ("epsilon", Attribute::Float(1e-3))],
            );
            direct_matches_the_interpreter(
                &n,
                &[floats(&shape, 3), floats(&norm, 4), if bias { floats(&norm, 5) } else { None }],
            );
        }
        let idx = |v: Vec<i64>, s: Vec<usize>| Some((Data::I64(v), s));
        let gather = |axis: i64| node("Gather", 2, 1, &[("axis", Attribute::Int(axis))]);
        direct_matches_the_interpreter(&gather(0), &[floats(&[10, 4], 6), idx(vec![3, -1, 0, 9, 3, 2], vec![2, 3])]);
        direct_matches_the_interpreter(&gather(1), &[floats(&[2, 5, 3], 7), idx(vec![4, -5], vec![2])]);
        direct_matches_the_interpreter(&gather(-1), &[floats(&[2, 5, 3], 8), idx(vec![2], vec![])]);
        let i32s = Some((Data::I32(vec![1, 0, 1]), vec![3]));
        direct_matches_the_interpreter(&gather(0), &[floats(&[2, 3], 9), i32s]);
        let cond: Vec<bool> = (0..12).map(|i| i % 3 != 1).collect();
        let mask = Some((Data::Bool(cond.clone()), vec![1, 3, 4]));
        direct_matches_the_interpreter(
            &node("Where", 3, 1, &[]),
            &[mask, Some((Data::F32(vec![-1e9]), vec![])), floats(&[2, 3, 4], 10)],
        );
        let column = Some((Data::Bool(cond[..3].to_vec()), vec![3, 1]));
        direct_matches_the_interpreter(&node("Where", 3, 1, &[]), &[column, floats(&[3, 4], 11), floats(&[4], 12)]);
        let split = |axis: i64, outs: usize| node("Split", 2, outs, &[("axis", Attribute::Int(axis))]);
        let sizes = |v: Vec<i64>| Some((Data::I64(v.clone()), vec![v.len()]));
        direct_matches_the_interpreter(&split(-1, 3), &[floats(&[2, 3, 9], 13), sizes(vec![3, 3, 3])]);
        direct_matches_the_interpreter(&split(1, 2), &[floats(&[2, 5, 3], 14), sizes(vec![1, 4])]);
        // Softmax rows of 19 (eight lanes and a remainder) with masked (-inf) positions, a row
        // with a NaN, and a middle axis.
        let mut scores = floats(&[3, 19], 16).map(|(d, s)| (d.to_f64_vec(), s)).unwrap();
        (0..19).filter(|j| j % 4 == 1).for_each(|j| scores.0[j] = f64::NEG_INFINITY);
        scores.0[19 + 7] = f64::NAN;
        let scores = Some((Data::F32(scores.0.iter().map(|&v| v as f32).collect()), scores.1));
        direct_matches_the_interpreter(&node("Softmax", 1, 1, &[("axis", Attribute::Int(-1))]), &[scores]);
        direct_matches_the_interpreter(
            &node("Softmax", 1, 1, &[("axis", Attribute::Int(1))]),
            &[floats(&[2, 9, 3], 17)],
        );
        for perm in [vec![0, 2, 1, 3], vec![3, 1, 2, 0], vec![0, 1, 2, 3]] {
            direct_matches_the_interpreter(
                &node("Transpose", 1, 1, &[("perm", Attribute::Ints(perm))]),
                &[floats(&[2, 3, 4, 5], 15)],
            );
        }
    }

    /// Softmax's exp against the exact value over [-100, 0] and near zero, with -inf (a masked
    /// position) and NaN.
    #[test]
    fn softmax_exp_is_within_two_ulp() {
        let xs = (0..=1_000_000).map(|i| -(i as f32) * 1e-4).chain((0..200).map(|i| -1e-30 * 1.5f32.powi(i)));
        for x in xs.chain([-87.0, -87.29, -87.31, -100.0]) {
            let (got, want) = (elementwise::exp_nonpositive(x), f64::from(x).exp() as f32);
            // Both positive normal floats: their bit patterns count ulps apart.
            let ok = if x < -87.3 { got == 0.0 } else { got.to_bits().abs_diff(want.to_bits()) <= 2 };
            assert!(ok, "exp({x}) = {got}, want {want}");
        }
        assert_eq!(elementwise::exp_nonpositive(f32::NEG_INFINITY), 0.0);
        assert_eq!(elementwise::exp_nonpositive(0.0), 1.0);
        assert_eq!(elementwise::exp_nonpositive(-0.0), 1.0);
        assert!(elementwise::exp_nonpositive(f32::NAN).is_nan());
    }

    /// The f32 erf against the reference's f64 one, over [-6, 6] and near zero.
    #[test]
    fn erf_is_within_float_precision() {
        let xs = (-60_000..=60_000).map(|i| i as f32 / 10_000.0).chain((1..200).map(|i| 1e-30 * 1.5f32.powi(i)));
        for x in xs {
            let (got, want) = (f64::from(elementwise::erf(x)), crate::uop::erf_f64(f64::from(x)));
            let err = (got - want).abs();
            // Near zero the reference is its exact series, and the f32 one holds relative
            // precision.
            let ok = err <= 5e-7 && (x.abs() >= 0.5 || err <= 1e-6 * want.abs());
            assert!(ok, "erf({x}) = {got}, want {want}");
        }
    }
}
