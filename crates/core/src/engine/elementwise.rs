//! Composite elementwise ops, each written once in terms of the primitives of the op table
//! (`uop::alu`): PyTorch defines them as formulas over other ops, and so do we, so they fuse,
//! run on every backend and need no kernel of their own.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::{Engine, Operand, Tensor};
use crate::torch::layout::Layout;
use crate::uop::buffer::{Data, Scalar};
use crate::uop::{BinaryOp, UnaryOp};

/// `F.gelu`'s `approximate=` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gelu {
    /// `0.5 x (1 + erf(x / sqrt 2))`.
    Exact,
    /// `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))`.
    Tanh,
}

fn t(x: &Tensor) -> Operand {
    Operand::Tensor(x.clone())
}

fn f(x: f64) -> Operand {
    Operand::Scalar(Scalar::Float(x))
}

impl Engine {
    /// Refuses integer and bool inputs the way PyTorch's float-only kernels do.
    fn float_only(&self, x: &Tensor, name: &str) -> Result<()> {
        if !x.dtype().is_float() {
            bail!(DType, "\"{name}\" not implemented for '{}'", x.dtype().torch_name());
        }
        Ok(())
    }

    /// `x * x`, in x's dtype.
    pub fn square(&mut self, x: &Tensor) -> Result<Tensor> {
        self.binary(BinaryOp::Mul, &t(x), &t(x))
    }

    /// `value` where `mask` holds, `x` elsewhere, in x's dtype (the mask broadcasts to x).
    pub fn masked_fill(&mut self, x: &Tensor, mask: &Tensor, value: &Operand) -> Result<Tensor> {
        if mask.dtype() != DType::Bool {
            bail!(DType, "masked_fill_ only supports boolean masks, but got mask with dtype {}", mask.dtype());
        }
        if let Operand::Scalar(s) = value {
            s.checked_for(x.dtype())?;
        }
        if let Operand::Tensor(v) = value {
            if !v.shape().is_empty() {
                bail!(
                    Shape,
                    "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                    v.shape().len()
                );
            }
        }
        // PyTorch clones the broadcast input contiguous, then fills it: the result is row-major
        // whatever the input's layout (the in-place form checks the shape before writing).
        let shape = Engine::broadcast_shapes(&[x.shape(), mask.shape()])?;
        let picked = self.where_as(&t(mask), value, &t(x), Layout::contiguous(&shape))?;
        self.cast(&picked, x.dtype())
    }

    /// `x == 0` as bool.
    pub fn logical_not(&mut self, x: &Tensor) -> Result<Tensor> {
        let b = self.cast(x, DType::Bool)?;
        self.unary(UnaryOp::Not, &b)
    }

    /// `1 / x`; integers compute in float32.
    pub fn reciprocal(&mut self, x: &Tensor) -> Result<Tensor> {
        self.binary(BinaryOp::Div, &Operand::Scalar(Scalar::Int(1)), &t(x))
    }

    /// `1 / sqrt(x)`.
    pub fn rsqrt(&mut self, x: &Tensor) -> Result<Tensor> {
        let s = self.unary(UnaryOp::Sqrt, x)?;
        self.reciprocal(&s)
    }

    /// `x - trunc(x)`: the fractional part with x's sign.
    pub fn frac(&mut self, x: &Tensor) -> Result<Tensor> {
        self.float_only(x, "frac_cpu")?;
        let tr = self.unary(UnaryOp::Trunc, x)?;
        self.binary(BinaryOp::Sub, &t(x), &t(&tr))
    }

    /// `x * sigmoid(x)`.
    pub fn silu(&mut self, x: &Tensor) -> Result<Tensor> {
        self.float_only(x, "silu")?;
        let s = self.unary(UnaryOp::Sigmoid, x)?;
        self.binary(BinaryOp::Mul, &t(x), &t(&s))
    }

    pub fn gelu(&mut self, x: &Tensor, approximate: Gelu) -> Result<Tensor> {
        self.float_only(x, "GeluKernelImpl")?;
        let inner = match approximate {
            Gelu::Exact => {
                let z = self.binary(BinaryOp::Mul, &t(x), &f(std::f64::consts::FRAC_1_SQRT_2))?;
                self.unary(UnaryOp::Erf, &z)?
            }
            Gelu::Tanh => {
                let x3 = self.square(x)?;
                let x3 = self.binary(BinaryOp::Mul, &t(&x3), &t(x))?;
                let c = self.binary(BinaryOp::Mul, &t(&x3), &f(0.044715))?;
                let s = self.binary(BinaryOp::Add, &t(x), &t(&c))?;
                let z = self.binary(BinaryOp::Mul, &t(&s), &f((2.0 / std::f64::consts::PI).sqrt()))?;
                self.unary(UnaryOp::Tanh, &z)?
            }
        };
        let one = self.binary(BinaryOp::Add, &t(&inner), &f(1.0))?;
        let half = self.binary(BinaryOp::Mul, &t(x), &f(0.5))?;
        self.binary(BinaryOp::Mul, &t(&half), &t(&one))
    }

    /// `log(1 + exp(beta x)) / beta`, and `x` itself where `beta x > threshold`.
    pub fn softplus(&mut self, x: &Tensor, beta: f64, threshold: f64) -> Result<Tensor> {
        self.float_only(x, "softplus")?;
        let bx = self.binary(BinaryOp::Mul, &t(x), &f(beta))?;
        let e = self.unary(UnaryOp::Exp, &bx)?;
        let l = self.unary(UnaryOp::Log1p, &e)?;
        let soft = self.binary(BinaryOp::Div, &t(&l), &f(beta))?;
        let linear = self.binary(BinaryOp::CmpLt, &f(threshold), &t(&bx))?;
        self.where_(&t(&linear), &t(x), &t(&soft))
    }

    /// `x` where positive, `alpha (exp(x) - 1)` elsewhere.
    pub fn elu(&mut self, x: &Tensor, alpha: f64) -> Result<Tensor> {
        self.float_only(x, "elu")?;
        let m = self.unary(UnaryOp::Expm1, x)?;
        let neg = self.binary(BinaryOp::Mul, &t(&m), &f(alpha))?;
        let pos = self.binary(BinaryOp::CmpLt, &f(0.0), &t(x))?;
        self.where_(&t(&pos), &t(x), &t(&neg))
    }

    /// `x` where positive, `slope x` elsewhere.
    pub fn leaky_relu(&mut self, x: &Tensor, slope: f64) -> Result<Tensor> {
        self.float_only(x, "leaky_relu")?;
        let neg = self.binary(BinaryOp::Mul, &t(x), &f(slope))?;
        let pos = self.binary(BinaryOp::CmpLt, &f(0.0), &t(x))?;
        self.where_(&t(&pos), &t(x), &t(&neg))
    }

    /// `x` clamped to `[lo, hi]` (NaN stays NaN).
    pub fn hardtanh(&mut self, x: &Tensor, lo: f64, hi: f64) -> Result<Tensor> {
        // Integer tensors clamp to integer bounds and stay integer.
        let bound = |v: f64| if x.dtype().is_float() { f(v) } else { Operand::Scalar(Scalar::Int(v as i64)) };
        let a = self.binary(BinaryOp::Max, &t(x), &bound(lo))?;
        self.binary(BinaryOp::Min, &t(&a), &bound(hi))
    }

    /// `log(sigmoid(x))`, as `min(x, 0) - log1p(exp(-|x|))` (no overflow either way).
    pub fn logsigmoid(&mut self, x: &Tensor) -> Result<Tensor> {
        self.float_only(x, "log_sigmoid_forward")?;
        let m = self.binary(BinaryOp::Min, &t(x), &f(0.0))?;
        let a = self.unary(UnaryOp::Abs, x)?;
        let na = self.unary(UnaryOp::Neg, &a)?;
        let e = self.unary(UnaryOp::Exp, &na)?;
        let l = self.unary(UnaryOp::Log1p, &e)?;
        self.binary(BinaryOp::Sub, &t(&m), &t(&l))
    }

    /// `x tanh(softplus(x))`.
    pub fn mish(&mut self, x: &Tensor) -> Result<Tensor> {
        let sp = self.softplus(x, 1.0, 20.0)?;
        let th = self.unary(UnaryOp::Tanh, &sp)?;
        self.binary(BinaryOp::Mul, &t(x), &t(&th))
    }

    /// `min(max(x + 3, 0), 6) / 6`.
    pub fn hardsigmoid(&mut self, x: &Tensor) -> Result<Tensor> {
        self.float_only(x, "hardsigmoid")?;
        let s = self.binary(BinaryOp::Add, &t(x), &f(3.0))?;
        let c = self.hardtanh(&s, 0.0, 6.0)?;
        self.binary(BinaryOp::Div, &t(&c), &f(6.0))
    }

    /// `x min(max(x + 3, 0), 6) / 6`.
    pub fn hardswish(&mut self, x: &Tensor) -> Result<Tensor> {
        self.float_only(x, "hardswish")?;
        let s = self.binary(BinaryOp::Add, &t(x), &f(3.0))?;
        let c = self.hardtanh(&s, 0.0, 6.0)?;
        let p = self.binary(BinaryOp::Mul, &t(x), &t(&c))?;
        self.binary(BinaryOp::Div, &t(&p), &f(6.0))
    }

    /// PyTorch's `lerp`: `a + w (b - a)` for `|w| < 0.5`, `b - (b - a)(1 - w)` otherwise, which
    /// is exact at both ends.
    pub fn lerp(&mut self, a: &Tensor, b: &Tensor, w: &Operand) -> Result<Tensor> {
        self.float_only(a, "lerp_kernel_scalar")?;
        let d = self.binary(BinaryOp::Sub, &t(b), &t(a))?;
        let wd = self.binary(BinaryOp::Mul, w, &t(&d))?;
        let low = self.binary(BinaryOp::Add, &t(a), &t(&wd))?;
        let om = self.binary(BinaryOp::Sub, &f(1.0), w)?;
        let dm = self.binary(BinaryOp::Mul, &t(&d), &t(&om))?;
        let high = self.binary(BinaryOp::Sub, &t(b), &t(&dm))?;
        let aw = match w {
            Operand::Tensor(w) => Operand::Tensor(self.unary(UnaryOp::Abs, w)?),
            Operand::Scalar(s) => f(s.as_f64().abs()),
        };
        let small = self.binary(BinaryOp::CmpLt, &aw, &f(0.5))?;
        self.where_(&t(&small), &t(&low), &t(&high))
    }

    /// `x + value a b`.
    pub fn addcmul(&mut self, x: &Tensor, a: &Tensor, b: &Tensor, value: Scalar) -> Result<Tensor> {
        let p = self.binary(BinaryOp::Mul, &t(a), &t(b))?;
        let p = self.scaled(&p, value)?;
        self.binary(BinaryOp::Add, &t(x), &t(&p))
    }

    /// `x + value a / b`; PyTorch refuses integer division here.
    pub fn addcdiv(&mut self, x: &Tensor, a: &Tensor, b: &Tensor, value: Scalar) -> Result<Tensor> {
        if !a.dtype().is_float() && !b.dtype().is_float() {
            bail!(
                DType,
                "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes."
            );
        }
        let q = self.binary(BinaryOp::Div, &t(a), &t(b))?;
        let q = self.scaled(&q, value)?;
        self.binary(BinaryOp::Add, &t(x), &t(&q))
    }

    /// `value x`, skipping the multiply when `value` is 1 (as PyTorch's kernels do).
    fn scaled(&mut self, x: &Tensor, value: Scalar) -> Result<Tensor> {
        if value.as_f64() == 1.0 {
            return Ok(x.clone());
        }
        self.binary(BinaryOp::Mul, &Operand::Scalar(value), &t(x))
    }

    /// `torch.linspace`: `steps` points from `start` to `end`, the first half counted up from
    /// `start` and the second down from `end`, as PyTorch's kernel does.
    pub fn linspace(&mut self, start: f64, end: f64, steps: usize, dtype: DType) -> Result<Tensor> {
        crate::limits::check_numel(&[steps])?;
        let values = linspace_values(start, end, steps, dtype);
        self.tensor_of_values(values, dtype, steps)
    }

    /// `torch.logspace`: `base ** linspace(start, end, steps)`.
    pub fn logspace(&mut self, start: f64, end: f64, steps: usize, base: f64, dtype: DType) -> Result<Tensor> {
        crate::limits::check_numel(&[steps])?;
        let exponents = if dtype == DType::Float64 { DType::Float64 } else { DType::Float32 };
        let values = linspace_values(start, end, steps, exponents).into_iter().map(|e| base.powf(e)).collect();
        self.tensor_of_values(values, dtype, steps)
    }

    fn tensor_of_values(&mut self, values: Vec<f64>, dtype: DType, n: usize) -> Result<Tensor> {
        let data = if dtype == DType::Float64 {
            Data::F64(values)
        } else if dtype.is_float() {
            Data::F32(values.into_iter().map(|v| v as f32).collect()).cast(dtype)
        } else {
            // Integer results truncate the float values (PyTorch computes them in float too).
            Data::F32(values.into_iter().map(|v| v.trunc() as f32).collect()).cast(dtype)
        };
        self.from_data(data, &[n])
    }
}

/// The points of `linspace`, in float32 arithmetic for a float32 result as PyTorch computes them
/// (in float64 for a float64 or integer one).
fn linspace_values(start: f64, end: f64, steps: usize, dtype: DType) -> Vec<f64> {
    if steps == 0 {
        return Vec::new();
    }
    if steps == 1 {
        return vec![start];
    }
    let half = steps / 2;
    if dtype.is_float() && dtype != DType::Float64 {
        let (s, e) = (start as f32, end as f32);
        let step = (e - s) / (steps - 1) as f32;
        (0..steps)
            .map(|i| f64::from(if i < half { s + step * i as f32 } else { e - step * (steps - 1 - i) as f32 }))
            .collect()
    } else {
        let step = (end - start) / (steps - 1) as f64;
        (0..steps)
            .map(|i| if i < half { start + step * i as f64 } else { end - step * (steps - 1 - i) as f64 })
            .collect()
    }
}
