//! Spread and size statistics: `var` and `std` (PyTorch's `correction`) and
//! `linalg.vector_norm` of every order, each one autograd node whose backward is PyTorch's
//! (`var_backward`, `std_backward` and `norm_backward` in its FunctionsManual): `std` and the
//! 2-norm give a zero gradient where the result is zero, not the NaN the composition would.

use crate::autograd::{GradOp, NormOf, Spread, SpreadOf};
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

/// The number of elements a reduction over `axes` of `shape` combines.
fn count(shape: &[usize], axes: &[usize]) -> usize {
    axes.iter().map(|&d| shape[d]).product()
}

impl Engine {
    /// `var` or `std` over `axes` (normalised), dividing the squared deviations from the mean
    /// by `max(0, N - correction)` as PyTorch does (so one element with `correction=1` is NaN).
    pub fn spread(
        &mut self,
        a: &Tensor,
        axes: &[usize],
        correction: f64,
        keepdim: KeepDim,
        spread: Spread,
    ) -> Result<Tensor> {
        let a = self.resolve(a);
        if !a.dtype().is_float() {
            bail!(DType, "std and var only support floating point and complex dtypes");
        }
        let n = count(a.shape(), axes) as f64;
        let out = self.untracked(|e| {
            let s = e.reduce(ReduceOp::Sum, &a, axes, KeepDim::Keep)?;
            let mean = e.binary(BinaryOp::Div, &t(&s), &f(n))?;
            let d = e.binary(BinaryOp::Sub, &t(&a), &t(&mean))?;
            let sq = e.binary(BinaryOp::Mul, &t(&d), &t(&d))?;
            let ss = e.reduce(ReduceOp::Sum, &sq, axes, keepdim)?;
            let var = e.binary(BinaryOp::Div, &t(&ss), &f((n - correction).max(0.0)))?;
            match spread {
                Spread::Var => Ok(var),
                Spread::Std => e.unary(UnaryOp::Sqrt, &var),
            }
        })?;
        let op = GradOp::Spread(SpreadOf {
            spread,
            axes: axes.to_vec(),
            correction,
            keepdim: keepdim == KeepDim::Keep,
            input: a.shape().to_vec(),
        });
        // `var` saves its input; `std` its input and its result.
        let saved: &[usize] = match spread {
            Spread::Var => &[0],
            Spread::Std => &[0, 1],
        };
        self.record(&out, op, &[Some(&a)], vec![Some(a.clone()), Some(out.clone())], saved);
        Ok(out)
    }

    /// `torch.linalg.vector_norm(a, ord, axes, keepdim)`: `ord` 0 counts the non-zero elements,
    /// ±inf takes the largest or smallest magnitude, any other order is `sum(|a|^ord)^(1/ord)`.
    pub fn vector_norm(&mut self, a: &Tensor, ord: f64, axes: &[usize], keepdim: KeepDim) -> Result<Tensor> {
        let a = self.resolve(a);
        if !a.dtype().is_float() {
            bail!(
                DType,
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
                a.dtype().torch_name()
            );
        }
        if (ord < 0.0 || ord == f64::INFINITY) && a.numel() == 0 {
            let ord_text = ord.to_string();
            if axes.len() == a.shape().len() {
                bail!(
                    Index,
                    "linalg.vector_norm cannot compute the {ord_text} norm on an empty tensor because the operation does not have an identity"
                );
            }
            if let Some(d) = axes.iter().find(|&&d| a.shape()[d] == 0) {
                bail!(
                    Index,
                    "linalg.vector_norm cannot compute the {ord_text} norm on the dimension {d}because this dimension is empty and the operation does not have an identity"
                );
            }
        }
        let out = self.untracked(|e| {
            let abs = e.unary(UnaryOp::Abs, &a)?;
            if ord == 0.0 {
                let nz = e.binary(BinaryOp::CmpNe, &t(&a), &f(0.0))?;
                let nz = e.cast(&nz, a.dtype())?;
                return e.reduce(ReduceOp::Sum, &nz, axes, keepdim);
            }
            if ord == f64::INFINITY {
                return e.reduce(ReduceOp::Max, &abs, axes, keepdim);
            }
            if ord == f64::NEG_INFINITY {
                return e.reduce(ReduceOp::Min, &abs, axes, keepdim);
            }
            if ord == 1.0 {
                return e.reduce(ReduceOp::Sum, &abs, axes, keepdim);
            }
            if ord == 2.0 {
                let sq = e.binary(BinaryOp::Mul, &t(&a), &t(&a))?;
                let s = e.reduce(ReduceOp::Sum, &sq, axes, keepdim)?;
                return e.unary(UnaryOp::Sqrt, &s);
            }
            let p = e.binary(BinaryOp::Pow, &t(&abs), &f(ord))?;
            let s = e.reduce(ReduceOp::Sum, &p, axes, keepdim)?;
            e.binary(BinaryOp::Pow, &t(&s), &f(1.0 / ord))
        })?;
        let op = GradOp::Norm(NormOf {
            ord,
            axes: axes.to_vec(),
            keepdim: keepdim == KeepDim::Keep,
            input: a.shape().to_vec(),
        });
        self.record(&out, op, &[Some(&a)], vec![Some(a.clone()), Some(out.clone())], &[0, 1]);
        Ok(out)
    }

    /// The gradient of `var`/`std` (PyTorch's `var_backward`, and `std_backward`, which is it
    /// for `g / (2 std)`, zero where the std is zero).
    pub(crate) fn spread_backward(&mut self, x: &Tensor, out: &Tensor, g: &Tensor, op: &SpreadOf) -> Result<Tensor> {
        let SpreadOf { spread, axes, correction, keepdim, input } = op;
        let g = match spread {
            Spread::Var => g.clone(),
            Spread::Std => {
                let twice = self.binary(BinaryOp::Mul, &t(out), &f(2.0))?;
                let q = self.binary(BinaryOp::Div, &t(g), &t(&twice))?;
                let zero = self.binary(BinaryOp::CmpEq, &t(out), &f(0.0))?;
                self.where_(&t(&zero), &f(0.0), &t(&q))?
            }
        };
        let g = self.unreduce(&g, axes, *keepdim, input)?;
        let n = count(input, axes) as f64;
        let mean = self.mean(x, axes, KeepDim::Keep)?;
        let d = self.binary(BinaryOp::Sub, &t(x), &t(&mean))?;
        let scaled = self.binary(BinaryOp::Mul, &t(&g), &f(2.0 / (n - correction)))?;
        self.binary(BinaryOp::Mul, &t(&scaled), &t(&d))
    }

    /// The gradient of `linalg.vector_norm` of a non-zero order (PyTorch's `norm_backward`: zero
    /// where the norm is zero, shared among ties for ±inf).
    pub(crate) fn norm_backward(&mut self, x: &Tensor, out: &Tensor, g: &Tensor, op: &NormOf) -> Result<Tensor> {
        let NormOf { ord, axes, keepdim, input } = op;
        let ord = *ord;
        let g = self.unreduce(g, axes, *keepdim, input)?;
        let norm = self.unreduce(out, axes, *keepdim, input)?;
        let sign = self.unary(UnaryOp::Sign, x)?;
        // `g / norm^(ord-1)`, zero where the norm is zero.
        let scale = |e: &mut Engine, power: f64| -> Result<Tensor> {
            let den = if power == 1.0 { norm.clone() } else { e.binary(BinaryOp::Pow, &t(&norm), &f(power))? };
            let q = e.binary(BinaryOp::Div, &t(&g), &t(&den))?;
            let zero = e.binary(BinaryOp::CmpEq, &t(&norm), &f(0.0))?;
            e.where_(&t(&zero), &f(0.0), &t(&q))
        };
        if ord == 1.0 {
            return self.binary(BinaryOp::Mul, &t(&sign), &t(&g));
        }
        if ord == 2.0 {
            let s = scale(self, 1.0)?;
            return self.binary(BinaryOp::Mul, &t(x), &t(&s));
        }
        let abs = self.unary(UnaryOp::Abs, x)?;
        if ord.is_infinite() {
            // The elements at the extreme (or NaN) share the gradient equally.
            let hit = self.binary(BinaryOp::CmpEq, &t(&abs), &t(&norm))?;
            let nan = self.binary(BinaryOp::CmpNe, &t(&abs), &t(&abs))?;
            let hit = self.cast(&hit, x.dtype())?;
            let nan = self.cast(&nan, x.dtype())?;
            let mask = self.binary(BinaryOp::Max, &t(&hit), &t(&nan))?;
            let ties = self.reduce(ReduceOp::Sum, &mask, axes, KeepDim::Keep)?;
            let share = self.binary(BinaryOp::Div, &t(&g), &t(&ties))?;
            let share = self.binary(BinaryOp::Mul, &t(&share), &t(&mask))?;
            return self.binary(BinaryOp::Mul, &t(&sign), &t(&share));
        }
        let pow = self.binary(BinaryOp::Pow, &t(&abs), &f(ord - if ord < 2.0 { 1.0 } else { 2.0 }))?;
        if ord < 1.0 {
            let is_zero = self.binary(BinaryOp::CmpEq, &t(x), &f(0.0))?;
            let pow = self.where_(&t(&is_zero), &f(0.0), &t(&pow))?;
            let scaled = self.binary(BinaryOp::Mul, &t(&sign), &t(&pow))?;
            let gs = self.binary(BinaryOp::Mul, &t(&scaled), &t(&g))?;
            let np = self.binary(BinaryOp::Pow, &t(&norm), &f(1.0 - ord))?;
            return self.binary(BinaryOp::Mul, &t(&gs), &t(&np));
        }
        let scaled = if ord < 2.0 {
            self.binary(BinaryOp::Mul, &t(&sign), &t(&pow))?
        } else {
            self.binary(BinaryOp::Mul, &t(x), &t(&pow))?
        };
        let s = scale(self, ord - 1.0)?;
        self.binary(BinaryOp::Mul, &t(&scaled), &t(&s))
    }
}
