//! ONNX's arithmetic beyond the op table's elementwise rows: variadic and type-keeping binary
//! ops, activations with parameters, reductions and normalizations, each written with the
//! engine's PyTorch ops.

use crate::engine::elementwise::Gelu;
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::onnx::Node;
use crate::tensor::{Operand, Tensor};
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, ReduceOp, UnaryOp};
use crate::DType;

use super::ops::{axis, opt, req, AxisRange, Lower};

/// The lowest and highest value of an integer (or bool) dtype.
fn int_bounds(d: DType) -> (i64, i64) {
    match d {
        DType::Bool => (0, 1),
        DType::UInt8 => (0, 255),
        DType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        _ => (i64::MIN, i64::MAX),
    }
}

fn t(x: &Tensor) -> Operand {
    Operand::Tensor(x.clone())
}

impl Lower<'_> {
    pub(super) fn math_op(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Vec<Tensor>> {
        let one = |t: Tensor| Ok(vec![t]);
        let x = || req(args, 0, "X");
        match node.op_type() {
            "Reciprocal" => one(self.engine.reciprocal(&x()?)?),
            "Pow" => {
                // ONNX's result keeps the base's type (PyTorch's would promote an int base).
                let (a, b) = (x()?, req(args, 1, "Y")?);
                let y = self.bin(BinaryOp::Pow, &a, &b)?;
                one(if y.dtype() == a.dtype() { y } else { self.engine.cast(&y, a.dtype())? })
            }
            "Mod" => {
                let op = if node.int_or("fmod", 0)? != 0 { BinaryOp::Fmod } else { BinaryOp::Mod };
                one(self.bin(op, &x()?, &req(args, 1, "B")?)?)
            }
            "Greater" | "GreaterOrEqual" => {
                let op = if node.op_type() == "Greater" { BinaryOp::CmpLt } else { BinaryOp::CmpLe };
                one(self.bin(op, &req(args, 1, "B")?, &x()?)?)
            }
            "Max" | "Min" | "Sum" | "Mean" => {
                let xs: Vec<Tensor> = args.iter().flatten().cloned().collect();
                let Some(first) = xs.first() else { bail!(Type, "{} needs at least one input", node.op_type()) };
                let op = match node.op_type() {
                    "Max" => BinaryOp::Max,
                    "Min" => BinaryOp::Min,
                    _ => BinaryOp::Add,
                };
                let mut acc = first.clone();
                for x in &xs[1..] {
                    acc = self.bin(op, &acc, x)?;
                }
                if node.op_type() == "Mean" && xs.len() > 1 {
                    acc = self.bin_scalar(BinaryOp::Div, &acc, xs.len() as f64)?;
                }
                one(acc)
            }
            "HardSigmoid" => {
                let alpha = f64::from(node.float_or("alpha", 0.2)?);
                let beta = f64::from(node.float_or("beta", 0.5)?);
                one(self.hard_sigmoid(&x()?, alpha, beta)?)
            }
            "HardSwish" => {
                let x = x()?;
                let s = self.hard_sigmoid(&x, 1.0 / 6.0, 0.5)?;
                one(self.bin(BinaryOp::Mul, &x, &s)?)
            }
            "LeakyRelu" => one(self.engine.leaky_relu(&x()?, f64::from(node.float_or("alpha", 0.01)?))?),
            "PRelu" => {
                // x where x >= 0, else slope * x (the slope broadcasts to x).
                let (x, slope) = (x()?, req(args, 1, "slope")?);
                let neg = self.bin_scalar(BinaryOp::CmpLt, &x, 0.0)?;
                let scaled = self.bin(BinaryOp::Mul, &x, &slope)?;
                one(self.engine.where_(&t(&neg), &t(&scaled), &t(&x))?)
            }
            "Selu" | "Celu" => {
                // Selu: gamma * (x > 0 ? x : alpha * (exp(x) - 1)); Celu: max(0, x) +
                // min(0, alpha * (exp(x / alpha) - 1)).
                let x = x()?;
                let selu = node.op_type() == "Selu";
                let alpha = f64::from(node.float_or("alpha", if selu { 1.673_263_2 } else { 1.0 })?);
                let inner = if selu { x.clone() } else { self.bin_scalar(BinaryOp::Div, &x, alpha)? };
                let e = self.engine.unary(UnaryOp::Expm1, &inner)?;
                let neg = self.bin_scalar(BinaryOp::Mul, &e, alpha)?;
                let pos = self.bin_scalar(BinaryOp::CmpLt, &x, 0.0)?;
                let y = self.engine.where_(&t(&pos), &t(&neg), &t(&x))?;
                one(if selu {
                    self.bin_scalar(BinaryOp::Mul, &y, f64::from(node.float_or("gamma", 1.050_701)?))?
                } else {
                    y
                })
            }
            "ThresholdedRelu" => {
                let x = x()?;
                let alpha = f64::from(node.float_or("alpha", 1.0)?);
                let keep = self.bin_scalar(BinaryOp::CmpLe, &x, alpha)?;
                one(self.engine.where_(&t(&keep), &Operand::Scalar(Scalar::Float(0.0)), &t(&x))?)
            }
            "Shrink" => {
                // x < -lambd: x + bias; x > lambd: x - bias; else 0.
                let x = x()?;
                let (bias, lambd) = (f64::from(node.float_or("bias", 0.0)?), f64::from(node.float_or("lambd", 0.5)?));
                let low = self.bin_scalar(BinaryOp::CmpLt, &x, -lambd)?;
                let hi = self.engine.binary(BinaryOp::CmpLt, &Operand::Scalar(Scalar::Float(lambd)), &t(&x))?;
                let up = self.bin_scalar(BinaryOp::Add, &x, bias)?;
                let down = self.bin_scalar(BinaryOp::Sub, &x, bias)?;
                let zero = Operand::Scalar(Scalar::Float(0.0));
                let inner = self.engine.where_(&t(&hi), &t(&down), &zero)?;
                let y = self.engine.where_(&t(&low), &t(&up), &t(&inner))?;
                one(if y.dtype() == x.dtype() { y } else { self.engine.cast(&y, x.dtype())? })
            }
            "Mish" => one(self.engine.mish(&x()?)?),
            "IsNaN" => {
                let x = x()?;
                one(self.bin(BinaryOp::CmpNe, &x, &x)?)
            }
            "IsInf" => {
                let x = x()?;
                let mut hits = Vec::new();
                for (attr, inf) in [("detect_positive", f64::INFINITY), ("detect_negative", f64::NEG_INFINITY)] {
                    if node.int_or(attr, 1)? != 0 {
                        let v = Operand::Scalar(Scalar::Float(inf));
                        hits.push(self.engine.binary(BinaryOp::CmpEq, &t(&x), &v)?);
                    }
                }
                let y = match hits.as_slice() {
                    [] => self.engine.full(x.shape(), Scalar::Bool(false), Some(DType::Bool))?,
                    [a] => a.clone(),
                    [a, b, ..] => self.bin(BinaryOp::Or, a, b)?,
                };
                one(y)
            }
            "Elu" => one(self.engine.elu(&x()?, f64::from(node.float_or("alpha", 1.0)?))?),
            "Gelu" => {
                let how = match node.string("approximate")?.unwrap_or("none") {
                    "none" => Gelu::Exact,
                    "tanh" => Gelu::Tanh,
                    other => bail!(Value, "Gelu approximate {other:?} is not one ONNX defines"),
                };
                one(self.engine.gelu(&x()?, how)?)
            }
            "Softplus" => {
                // ln(exp(x) + 1), written so that a large x stays x.
                one(self.engine.softplus(&x()?, 1.0, 20.0)?)
            }
            "Softsign" => {
                let x = x()?;
                let a = self.engine.unary(UnaryOp::Abs, &x)?;
                let d = self.bin_scalar(BinaryOp::Add, &a, 1.0)?;
                one(self.bin(BinaryOp::Div, &x, &d)?)
            }
            "GlobalMaxPool" => {
                let x = x()?;
                if x.shape().len() < 3 {
                    bail!(Shape, "input must be (N, C, spatial...), got {:?}", x.shape());
                }
                let axes: Vec<usize> = (2..x.shape().len()).collect();
                one(self.engine.reduce(ReduceOp::Max, &x, &axes, KeepDim::Keep)?)
            }
            "ReduceMean" | "ReduceSum" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL2" | "ReduceL1"
            | "ReduceSumSquare" | "ReduceLogSum" | "ReduceLogSumExp" => one(self.reduce_op(node, args)?),
            "LayerNormalization" => self.layer_norm(node, args),
            "InstanceNormalization" => {
                let x = x()?;
                let r = x.shape().len();
                if r < 3 {
                    bail!(Shape, "input must be (N, C, spatial...), got {:?}", x.shape());
                }
                let eps = f64::from(node.float_or("epsilon", 1e-5)?);
                let (w, b) =
                    (self.per_channel(&req(args, 1, "scale")?, &x)?, self.per_channel(&req(args, 2, "B")?, &x)?);
                let axes: Vec<usize> = (2..r).collect();
                one(self.engine.normalize(&x, &axes, eps, Some(&w), Some(&b))?)
            }
            "GroupNormalization" => one(self.group_norm(node, args)?),
            _ => self.spatial_op(node, args),
        }
    }

    /// `max(0, min(1, alpha * x + beta))`.
    fn hard_sigmoid(&mut self, x: &Tensor, alpha: f64, beta: f64) -> Result<Tensor> {
        let a = self.bin_scalar(BinaryOp::Mul, x, alpha)?;
        let b = self.bin_scalar(BinaryOp::Add, &a, beta)?;
        let lo = self.bin_scalar(BinaryOp::Max, &b, 0.0)?;
        self.bin_scalar(BinaryOp::Min, &lo, 1.0)
    }

    /// A per-channel parameter `(C)` shaped `(C, 1, ...)` to broadcast over `(N, C, spatial...)`.
    fn per_channel(&mut self, p: &Tensor, x: &Tensor) -> Result<Tensor> {
        let c = x.shape()[1];
        if p.shape() != [c] {
            bail!(Shape, "a per-channel parameter has shape {:?}, expected [{c}]", p.shape());
        }
        let mut shape = vec![c];
        shape.extend(std::iter::repeat_n(1, x.shape().len() - 2));
        self.reshape(p, &shape)
    }

    fn reduce_op(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Tensor> {
        let x = req(args, 0, "data")?;
        let r = x.shape().len();
        let keep = if node.int_or("keepdims", 1)? != 0 { KeepDim::Keep } else { KeepDim::Drop };
        let mut axes: Vec<usize> = match self.axes_arg(node, args, 1)? {
            Some(list) if !list.is_empty() => {
                let mut v = Vec::with_capacity(list.len());
                for a in list {
                    let a = axis(a, r, AxisRange::BelowRank)?;
                    if !v.contains(&a) {
                        v.push(a);
                    }
                }
                v
            }
            _ if node.int_or("noop_with_empty_axes", 0)? != 0 => return Ok(x),
            _ => (0..r).collect(),
        };
        axes.sort_unstable();
        if axes.iter().any(|&a| x.shape()[a] == 0)
            && matches!(node.op_type(), "ReduceMax" | "ReduceMin" | "ReduceLogSumExp")
        {
            // ONNX's empty max (and log-sum-exp) is the lowest value, its min the highest;
            // PyTorch raises.
            let mut shape = x.shape().to_vec();
            for &a in axes.iter().rev() {
                if keep == KeepDim::Keep {
                    shape[a] = 1;
                } else {
                    shape.remove(a);
                }
            }
            let dt = x.dtype();
            let hi = node.op_type() == "ReduceMin";
            let dt = if dt.is_float() || node.op_type() != "ReduceLogSumExp" { dt } else { DType::Float32 };
            let v = match (dt.is_float(), hi) {
                (true, true) => Scalar::Float(f64::INFINITY),
                (true, false) => Scalar::Float(f64::NEG_INFINITY),
                (false, _) => {
                    let (lo, top) = int_bounds(dt);
                    Scalar::Int(if hi { top } else { lo })
                }
            };
            return self.engine.full(&shape, v, Some(dt));
        }
        match node.op_type() {
            "ReduceMean" => self.engine.mean(&x, &axes, keep),
            "ReduceSum" => self.engine.reduce(ReduceOp::Sum, &x, &axes, keep),
            "ReduceMax" => self.engine.reduce(ReduceOp::Max, &x, &axes, keep),
            "ReduceMin" => self.engine.reduce(ReduceOp::Min, &x, &axes, keep),
            "ReduceProd" => self.engine.reduce(ReduceOp::Prod, &x, &axes, keep),
            "ReduceL1" => {
                let a = self.engine.unary(UnaryOp::Abs, &x)?;
                self.engine.reduce(ReduceOp::Sum, &a, &axes, keep)
            }
            "ReduceSumSquare" => {
                let sq = self.bin(BinaryOp::Mul, &x, &x)?;
                self.engine.reduce(ReduceOp::Sum, &sq, &axes, keep)
            }
            "ReduceLogSum" => {
                let s = self.engine.reduce(ReduceOp::Sum, &x, &axes, keep)?;
                self.engine.unary(UnaryOp::Log, &s)
            }
            "ReduceLogSumExp" => self.engine.logsumexp(&x, &axes, keep),
            _ => self.engine.vector_norm(&x, 2.0, &axes, keep),
        }
    }

    /// LayerNormalization over the axes from `axis` on; the optional Mean and InvStdDev
    /// outputs keep those axes as size 1.
    fn layer_norm(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Vec<Tensor>> {
        let x = req(args, 0, "X")?;
        let r = x.shape().len();
        let a = axis(node.int_or("axis", -1)?, r, AxisRange::BelowRank)?;
        let axes: Vec<usize> = (a..r).collect();
        let eps = f64::from(node.float_or("epsilon", 1e-5)?);
        let scale = req(args, 1, "Scale")?;
        let bias = opt(args, 2);
        let y = self.engine.normalize(&x, &axes, eps, Some(&scale), bias.as_ref())?;
        let mut out = vec![y];
        if node.outputs().iter().skip(1).any(|o| !o.is_empty()) {
            let mean = self.engine.mean(&x, &axes, KeepDim::Keep)?;
            let c = self.bin(BinaryOp::Sub, &x, &mean)?;
            let sq = self.bin(BinaryOp::Mul, &c, &c)?;
            let var = self.engine.mean(&sq, &axes, KeepDim::Keep)?;
            let ve = self.bin_scalar(BinaryOp::Add, &var, eps)?;
            let inv = self.engine.rsqrt(&ve)?;
            out.extend([mean, inv]);
        }
        Ok(out)
    }

    /// GroupNormalization: statistics per (sample, group), then a scale and bias per channel
    /// (opset 21) or per group (opset 18, where they have one entry per group).
    fn group_norm(&mut self, node: &Node, args: &[Option<Tensor>]) -> Result<Tensor> {
        let x = req(args, 0, "X")?;
        let shape = x.shape().to_vec();
        if shape.len() < 3 {
            bail!(Shape, "input must be (N, C, spatial...), got {shape:?}");
        }
        let (n, c) = (shape[0], shape[1]);
        let g = usize::try_from(node.int("num_groups")?.unwrap_or(0)).unwrap_or(0);
        if g == 0 || c % g != 0 {
            bail!(Shape, "num_groups {g} does not divide {c} channels");
        }
        let eps = f64::from(node.float_or("epsilon", 1e-5)?);
        let grouped = self.reshape(&x, &[n, g, x.numel() / (n * g).max(1)])?;
        let normed = self.engine.normalize(&grouped, &[2], eps, None, None)?;
        let y = self.reshape(&normed, &shape)?;
        let mut params = Vec::new();
        for (i, what) in [(1, "scale"), (2, "bias")] {
            let p = req(args, i, what)?;
            let p = if p.shape() == [g] && g != c {
                // One value per group: each repeated for the group's channels.
                let col = self.reshape(&p, &[g, 1])?;
                let rep = self.engine.expand(&col, &[g as i64, (c / g) as i64])?;
                self.reshape(&rep, &[c])?
            } else {
                p
            };
            params.push(self.per_channel(&p, &x)?);
        }
        let s = self.engine.binary(BinaryOp::Mul, &t(&y), &t(&params[0]))?;
        self.engine.binary(BinaryOp::Add, &t(&s), &t(&params[1]))
    }
}
