//! Replaying a capture on the CPU: every buffer allocated once, then each kernel run either by
//! the reference interpreter (the definition of the op) or by a direct float32 kernel.
//!
//! The interpreter sums in f64 in a fixed order and builds a lazy graph per kernel, which makes
//! it exact and slow; a model on the page needs the opposite trade. The direct kernels compute
//! in f32 the way inference runtimes do: convolutions in [`super::conv`] (with a following Relu
//! and 2×2 max pool folded in), Gemm and MatMul through `matrixmultiply`'s packed GEMM
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
use crate::tensor::{Engine, Tensor};
use crate::uop::buffer::Data;
use crate::DType;

use super::conv;
use super::elementwise;
use super::gemm::run_gemm;
use super::manifest::Manifest;
use super::pool::run_pool;
use super::routine::Routine;
use super::select::routine;

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

impl CpuPlan {
    /// Allocates every buffer of the capture `m` (weights filled from `weights`) and binds each
    /// scheduled kernel, decoded at load as `nodes`, to the routine `kernels` picks.
    pub(super) fn new(
        m: &Manifest,
        weights: &BTreeMap<usize, Data>,
        nodes: &[Option<Node>],
        kernels: CpuKernels,
    ) -> Result<CpuPlan> {
        let shapes: Vec<Vec<usize>> = m.buffers.iter().map(|b| b.shape.clone()).collect();
        let bufs = m
            .buffers
            .iter()
            .map(|b| match weights.get(&b.id) {
                Some(w) => w.clone(),
                None => Data::zeros(b.dtype, b.shape.iter().product()),
            })
            .collect();
        let mut steps = Vec::with_capacity(m.schedule.len());
        for &k in &m.schedule {
            let kernel = &m.kernels[k];
            // Load decoded every scheduled kernel; a miss is a broken invariant, said as such.
            let Some(node) = nodes.get(k).and_then(Option::as_ref) else {
                bail!(Decode, "capture kernel {:?} was not decoded at load", kernel.name)
            };
            let all_f32 = kernel.reads.iter().flatten().chain(&kernel.writes).all(|&i| {
                let b = &m.buffers[i];
                // Reshape's target shape is an int input that only the interpreter reads.
                b.dtype == DType::Float32 || (kernel.op == "Reshape" && Some(&Some(i)) == kernel.reads.get(1))
            });
            let fast = match kernels {
                CpuKernels::Fast if all_f32 => routine(node, m.model.opset, &kernel.reads, &kernel.writes, &shapes),
                _ => None,
            };
            steps.push(Step {
                name: kernel.name.clone(),
                reads: kernel.reads.clone(),
                writes: kernel.writes.clone(),
                run: fast.unwrap_or_else(|| Routine::Interpret(node.clone())),
            });
        }
        fuse_conv(&mut steps, &m.outputs);
        // Each convolution's kernel is chosen for its final (folded) form, and constant weights
        // are packed for it once.
        for step in &mut steps {
            if let Routine::Conv(c) = &mut step.run {
                c.kernel = conv::kernel_for(c);
                if let Some(Data::F32(w)) = step.reads.get(1).copied().flatten().and_then(|i| weights.get(&i)) {
                    c.packed = conv::pack_weights(c, w);
                }
            }
        }
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

/// Runs one direct kernel: `x(j)` is input `j`, `y` the output, `scratch` a convolution's
/// reusable working memory.
fn execute<'a>(
    r: &Routine,
    x: &dyn Fn(usize) -> Result<&'a [f32]>,
    y: &mut [f32],
    scratch: &mut Vec<f32>,
) -> Result<()> {
    match r {
        Routine::Interpret(_) => bail!(Shape, "an interpreted kernel reached the direct kernels"),
        Routine::Relu => elementwise::relu(x(0)?, y),
        Routine::Clip { lo, hi } => {
            let lo = if *lo { x(1)?[0] } else { f32::NEG_INFINITY };
            let hi = if *hi { x(2)?[0] } else { f32::INFINITY };
            elementwise::clip(x(0)?, lo, hi, y);
        }
        Routine::Binary(op, bc) => elementwise::binary(*op, bc, x(0)?, x(1)?, y),
        Routine::Copy => y.copy_from_slice(x(0)?),
        Routine::Transpose { out_shape, strides } => elementwise::transpose(x(0)?, out_shape, strides, y),
        Routine::Concat { outer, chunks } => {
            let xs = (0..chunks.len()).map(x).collect::<Result<Vec<_>>>()?;
            elementwise::concat(&xs, *outer, chunks, y);
        }
        Routine::Softmax { outer, len, inner } => elementwise::softmax(x(0)?, y, *outer, *len, *inner),
        Routine::BatchNorm { channels, inner, eps } => {
            let params = [x(1)?, x(2)?, x(3)?, x(4)?];
            elementwise::batch_norm(x(0)?, params, *channels, *inner, *eps, y);
        }
        Routine::GlobalAverage { planes, size } => elementwise::global_average(x(0)?, *planes, *size, y),
        Routine::Gemm(g) => run_gemm(g, x(0)?, x(1)?, if g.c.is_some() { Some(x(2)?) } else { None }, y),
        Routine::Conv(c) => {
            let bias = if c.bias { Some(x(2)?) } else { None };
            conv::run(c, x(0)?, x(1)?, bias, y, scratch);
        }
        Routine::Pool(p) => run_pool(p, x(0)?, y),
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
}
