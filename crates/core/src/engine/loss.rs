//! The losses of `torch.nn.functional` (`mse_loss`, `nll_loss`, `cross_entropy`,
//! `binary_cross_entropy[_with_logits]`): each computed from the engine's ops without
//! recording, then recorded as the one node PyTorch records (`MseLossBackward0`, ...) with
//! what PyTorch saves; the gradients are [`Engine::loss_vjp`].

use crate::autograd::{GradOp, Reduction};
use crate::dtype::DType;
use crate::engine::gather::Combine;
use crate::engine::nn::SoftmaxKind;
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::tensor::{Engine, Operand, Tensor};
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, ReduceOp, UnaryOp};

fn t(x: &Tensor) -> Operand {
    Operand::Tensor(x.clone())
}

fn f(x: f64) -> Operand {
    Operand::Scalar(Scalar::Float(x))
}

impl Reduction {
    /// `reduction=` as PyTorch spells it.
    pub fn parse(s: &str) -> Result<Reduction> {
        Ok(match s {
            "none" => Reduction::None,
            "mean" => Reduction::Mean,
            "sum" => Reduction::Sum,
            other => bail!(Value, "{other} is not a valid value for reduction"),
        })
    }
}

impl Engine {
    /// The elementwise loss reduced as `reduction` says.
    fn reduce_loss(&mut self, loss: &Tensor, reduction: Reduction) -> Result<Tensor> {
        let all: Vec<usize> = (0..loss.shape().len()).collect();
        match reduction {
            Reduction::None => Ok(loss.clone()),
            Reduction::Sum => self.reduce(ReduceOp::Sum, loss, &all, KeepDim::Drop),
            Reduction::Mean => self.mean(loss, &all, KeepDim::Drop),
        }
    }

    /// The gradient of the elementwise loss of `shape` from that of the reduced one.
    fn unreduce_loss(&mut self, g: &Tensor, shape: &[usize], reduction: Reduction) -> Result<Tensor> {
        let dims: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
        match reduction {
            Reduction::None => Ok(g.clone()),
            Reduction::Sum => self.expand(g, &dims),
            Reduction::Mean => {
                let n: usize = shape.iter().product();
                let e = self.expand(g, &dims)?;
                self.binary(BinaryOp::Div, &t(&e), &Operand::Scalar(Scalar::Int(n as i64)))
            }
        }
    }

    fn float_input(x: &Tensor, func: &str) -> Result<()> {
        if !x.dtype().is_float() {
            bail!(DType, "\"{func}\" not implemented for '{}'", x.dtype().torch_name());
        }
        Ok(())
    }

    /// `F.mse_loss(x, target, reduction=)`.
    pub fn mse_loss(&mut self, x: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
        let (x, target) = (self.resolve(x), self.resolve(target));
        let out = self.untracked(|e| {
            let d = e.binary(BinaryOp::Sub, &t(&x), &t(&target))?;
            let sq = e.binary(BinaryOp::Mul, &t(&d), &t(&d))?;
            e.reduce_loss(&sq, reduction)
        })?;
        let operands = vec![Some(x.clone()), Some(target.clone())];
        self.record(&out, GradOp::MseLoss { reduction }, &[Some(&x), Some(&target)], operands, &[0, 1]);
        Ok(out)
    }

    /// `F.nll_loss(x, target, ignore_index=, reduction=)` over class indices: `x` is (C,) with a
    /// 0-d target or (N, C, ...) with a (N, ...) target.
    pub fn nll_loss(&mut self, x: &Tensor, target: &Tensor, reduction: Reduction, ignore_index: i64) -> Result<Tensor> {
        let (x, target) = (self.resolve(x), self.resolve(target));
        Self::float_input(&x, "nll_loss_out_frame")?;
        if !matches!(target.dtype(), DType::Int64 | DType::UInt8) {
            bail!(DType, "expected target dtype to be Long or Byte, but got {}", target.dtype().torch_name());
        }
        let xs = x.shape().to_vec();
        let ts = target.shape().to_vec();
        if xs.is_empty() {
            bail!(Shape, "input tensor should be 1D or 2D");
        }
        let cdim = usize::from(xs.len() >= 2);
        let classes = xs[cdim];
        let mut expect = xs.clone();
        expect.remove(cdim);
        if ts != expect {
            if xs.len() == 2 && ts.len() == 1 {
                bail!(Shape, "Expected input batch_size ({}) to match target batch_size ({}).", xs[0], ts[0]);
            }
            bail!(Shape, "Expected target size {expect:?}, got {ts:?}");
        }
        // PyTorch's nll_loss_nd: four dims are nll_loss2d's; three or more than four are viewed
        // as (N, C, 1, -1) with targets (N, 1, -1), and an unreduced loss viewed back.
        if xs.len() >= 3 && xs.len() != 4 {
            let (n, c) = (xs[0] as i64, xs[1] as i64);
            let x4 = self.contiguous(&x)?;
            let x4 = self.reshape(&x4, &[n, c, 1, -1])?;
            let t3 = self.contiguous(&target)?;
            let t3 = self.reshape(&t3, &[n, 1, -1])?;
            let out = self.nll_loss(&x4, &t3, reduction, ignore_index)?;
            if reduction != Reduction::None {
                return Ok(out);
            }
            let back: Vec<i64> = ts.iter().map(|&k| k as i64).collect();
            return self.reshape(&out, &back);
        }
        let values = self.values(&target)?;
        for i in 0..values.len() {
            let v = values.get_scalar(i).as_i64();
            if v != ignore_index && (v < 0 || v >= classes as i64) {
                bail!(Index, "Target {v} is out of bounds.");
            }
        }
        let out = self.untracked(|e| {
            let (at, valid) = e.nll_targets(&target, cdim, ignore_index)?;
            let zero = Operand::Scalar(Scalar::Int(0));
            // An ignored target's loss is +0 (PyTorch writes 0 there; -0 would print as -0.).
            let picked = e.gather(&x, cdim as i64, &at)?;
            let picked = e.squeeze(&picked, Some(&[cdim as i64]))?;
            let loss = e.unary(UnaryOp::Neg, &picked)?;
            let loss = e.where_(&t(&valid), &t(&loss), &zero)?;
            match reduction {
                Reduction::Mean => {
                    let all: Vec<usize> = (0..loss.shape().len()).collect();
                    let s = e.reduce(ReduceOp::Sum, &loss, &all, KeepDim::Drop)?;
                    let w = e.cast(&valid, x.dtype())?;
                    let w = e.reduce(ReduceOp::Sum, &w, &all, KeepDim::Drop)?;
                    e.binary(BinaryOp::Div, &t(&s), &t(&w))
                }
                _ => e.reduce_loss(&loss, reduction),
            }
        })?;
        let operands = vec![Some(x.clone()), Some(target.clone())];
        let op = GradOp::NllLoss { reduction, ignore_index, spatial: xs.len() == 4 };
        self.record(&out, op, &[Some(&x)], operands, &[0, 1]);
        Ok(out)
    }

    /// Each target's class as an index along `cdim` (kept, size 1; an ignored target reads
    /// class 0, which its mask then drops), and which targets count (`target`'s shape). The
    /// loss gathers one element per target and its gradient scatters one: never a comparison of
    /// every class with every target.
    fn nll_targets(&mut self, target: &Tensor, cdim: usize, ignore_index: i64) -> Result<(Tensor, Tensor)> {
        let ignored = self.binary(BinaryOp::CmpEq, &t(target), &Operand::Scalar(Scalar::Int(ignore_index)))?;
        let valid = self.unary(UnaryOp::Not, &ignored)?;
        let class = self.where_(&t(&ignored), &Operand::Scalar(Scalar::Int(0)), &t(target))?;
        Ok((self.unsqueeze(&class, cdim as i64)?, valid))
    }

    /// `F.cross_entropy(x, target)` with class-index targets: `nll_loss(log_softmax(x))`.
    pub fn cross_entropy(
        &mut self,
        x: &Tensor,
        target: &Tensor,
        reduction: Reduction,
        ignore_index: i64,
    ) -> Result<Tensor> {
        let x = self.resolve(x);
        if target.dtype().is_float() {
            bail!(Unsupported, "cross_entropy with class probabilities is not supported yet");
        }
        if x.shape().is_empty() {
            bail!(Shape, "Dimension specified as 1 but tensor has no dimensions");
        }
        let cdim = i64::from(x.shape().len() >= 2);
        let logp = self.softmax(&x, cdim, SoftmaxKind::LogSoftmax)?;
        self.nll_loss(&logp, target, reduction, ignore_index)
    }

    /// `F.binary_cross_entropy_with_logits(x, target, reduction=)`:
    /// `(1 - target) * x - log_sigmoid(x)`, as PyTorch writes it.
    pub fn bce_with_logits(&mut self, x: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
        let (x, target) = (self.resolve(x), self.resolve(target));
        self.same_size(&x, &target)?;
        let out = self.untracked(|e| {
            // log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))
            let m = e.binary(BinaryOp::Min, &t(&x), &f(0.0))?;
            let a = e.unary(UnaryOp::Abs, &x)?;
            let na = e.unary(UnaryOp::Neg, &a)?;
            let ex = e.unary(UnaryOp::Exp, &na)?;
            let l = e.unary(UnaryOp::Log1p, &ex)?;
            let ls = e.binary(BinaryOp::Sub, &t(&m), &t(&l))?;
            let one_minus = e.binary(BinaryOp::Sub, &f(1.0), &t(&target))?;
            let p = e.binary(BinaryOp::Mul, &t(&one_minus), &t(&x))?;
            let loss = e.binary(BinaryOp::Sub, &t(&p), &t(&ls))?;
            e.reduce_loss(&loss, reduction)
        })?;
        let operands = vec![Some(x.clone()), Some(target.clone())];
        self.record(&out, GradOp::BceWithLogits { reduction }, &[Some(&x), Some(&target)], operands, &[0, 1]);
        Ok(out)
    }

    /// `F.binary_cross_entropy(x, target, reduction=)`: logs clamped at -100, as PyTorch does;
    /// the input is read on the host first, as PyTorch's kernel checks it is a probability.
    pub fn bce(&mut self, x: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
        let (x, target) = (self.resolve(x), self.resolve(target));
        self.same_size(&x, &target)?;
        Self::float_input(&x, "binary_cross_entropy")?;
        let v = self.values(&x)?;
        if (0..v.len()).any(|i| !(0.0..=1.0).contains(&v.get_f64(i))) {
            bail!(Value, "all elements of input should be between 0 and 1");
        }
        let out = self.untracked(|e| {
            let lx = e.unary(UnaryOp::Log, &x)?;
            let lx = e.binary(BinaryOp::Max, &t(&lx), &f(-100.0))?;
            let om = e.binary(BinaryOp::Sub, &f(1.0), &t(&x))?;
            let lom = e.unary(UnaryOp::Log, &om)?;
            let lom = e.binary(BinaryOp::Max, &t(&lom), &f(-100.0))?;
            let tm1 = e.binary(BinaryOp::Sub, &t(&target), &f(1.0))?;
            let a = e.binary(BinaryOp::Mul, &t(&tm1), &t(&lom))?;
            let b = e.binary(BinaryOp::Mul, &t(&target), &t(&lx))?;
            let loss = e.binary(BinaryOp::Sub, &t(&a), &t(&b))?;
            e.reduce_loss(&loss, reduction)
        })?;
        let operands = vec![Some(x.clone()), Some(target.clone())];
        self.record(&out, GradOp::Bce { reduction }, &[Some(&x), Some(&target)], operands, &[0, 1]);
        Ok(out)
    }

    fn same_size(&self, x: &Tensor, target: &Tensor) -> Result<()> {
        if x.shape() != target.shape() {
            bail!(
                Value,
                "Target size (torch.Size({:?})) must be the same as input size (torch.Size({:?}))",
                target.shape(),
                x.shape()
            );
        }
        Ok(())
    }

    /// The gradients of a loss node's inputs from the gradient `g` of the loss.
    pub(crate) fn loss_vjp(
        &mut self,
        op: &GradOp,
        operands: &[Option<Tensor>],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        let get = |i: usize| operands.get(i).cloned().flatten();
        let (Some(x), Some(target)) = (get(0), get(1)) else { return Ok(vec![None, None]) };
        Ok(match *op {
            GradOp::MseLoss { reduction } => {
                let d = self.binary(BinaryOp::Sub, &t(&x), &t(&target))?;
                let shape = d.shape().to_vec();
                let gg = self.unreduce_loss(g, &shape, reduction)?;
                let two = self.binary(BinaryOp::Mul, &t(&d), &f(2.0))?;
                let gx = self.binary(BinaryOp::Mul, &t(&two), &t(&gg))?;
                let gt = self.unary(UnaryOp::Neg, &gx)?;
                let gx = self.sum_to(&gx, x.shape())?;
                let gt = self.sum_to(&gt, target.shape())?;
                vec![Some(gx), Some(gt)]
            }
            GradOp::NllLoss { reduction, ignore_index, .. } => {
                let cdim = usize::from(x.shape().len() >= 2);
                let (at, valid) = self.nll_targets(&target, cdim, ignore_index)?;
                let per = match reduction {
                    Reduction::None => self.unsqueeze(g, cdim as i64)?,
                    Reduction::Sum => g.clone(),
                    Reduction::Mean => {
                        let all: Vec<usize> = (0..valid.shape().len()).collect();
                        let w = self.cast(&valid, x.dtype())?;
                        let w = self.reduce(ReduceOp::Sum, &w, &all, KeepDim::Drop)?;
                        self.binary(BinaryOp::Div, &t(g), &t(&w))?
                    }
                };
                // Only the targeted classes get a gradient (a select, not a product: with every
                // target ignored the mean's 0/0 must not reach x's gradient, which is zero).
                let neg = self.unary(UnaryOp::Neg, &per)?;
                let counted = self.unsqueeze(&valid, cdim as i64)?;
                let picked = self.where_(&t(&counted), &t(&neg), &Operand::Scalar(Scalar::Float(0.0)))?;
                // `counted` has the index's shape, so the select has it too.
                let picked = self.cast(&picked, x.dtype())?;
                let zeros = self.full_like(&x, Scalar::Float(0.0), x.dtype())?;
                let gx = self.scatter(&zeros, cdim as i64, &at, &t(&picked), Combine::Replace, true, "scatter")?;
                vec![Some(gx)]
            }
            GradOp::BceWithLogits { reduction } => {
                let gg = self.unreduce_loss(g, x.shape(), reduction)?;
                let sg = self.unary(UnaryOp::Sigmoid, &x)?;
                let d = self.binary(BinaryOp::Sub, &t(&sg), &t(&target))?;
                let gx = self.binary(BinaryOp::Mul, &t(&d), &t(&gg))?;
                let gt = self.binary(BinaryOp::Mul, &t(&x), &t(&gg))?;
                vec![Some(gx), Some(self.unary(UnaryOp::Neg, &gt)?)]
            }
            GradOp::Bce { reduction } => {
                let gg = self.unreduce_loss(g, x.shape(), reduction)?;
                let om = self.binary(BinaryOp::Sub, &f(1.0), &t(&x))?;
                let den = self.binary(BinaryOp::Mul, &t(&om), &t(&x))?;
                let den = self.binary(BinaryOp::Max, &t(&den), &f(1e-12))?;
                let d = self.binary(BinaryOp::Sub, &t(&x), &t(&target))?;
                let q = self.binary(BinaryOp::Div, &t(&d), &t(&den))?;
                let gx = self.binary(BinaryOp::Mul, &t(&q), &t(&gg))?;
                let lom = self.unary(UnaryOp::Log, &om)?;
                let lx = self.unary(UnaryOp::Log, &x)?;
                let dt = self.binary(BinaryOp::Sub, &t(&lom), &t(&lx))?;
                let gt = self.binary(BinaryOp::Mul, &t(&dt), &t(&gg))?;
                vec![Some(gx), Some(gt)]
            }
            _ => bail!(Unsupported, "not a loss node"),
        })
    }
}
