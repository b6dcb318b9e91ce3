//! Python's operators on trace values: `-x`, `~x`, `a + b`, `a @ b`, `a += b` on tensors (the
//! engine's elementwise ops and matmul) and on plain numbers (Python's own arithmetic).

use crate::error::{bail, Result};
use crate::tensor::{Operand, Tensor};
use crate::trace::binding::elementwise::{self, operand, tensor_arg, write_binary, WriteForm};
use crate::trace::lang::ast::{BinOp, UnaryOp as AstUnary};
use crate::trace::python::context::RunContext;
use crate::trace::python::number;
use crate::trace::python::value::Value;
use crate::uop::alu::Operands;
use crate::uop::buffer::Scalar;
use crate::uop::UnaryOp;

fn int(i: i64) -> Value {
    Value::Scalar(Scalar::Int(i))
}

pub fn unary(run: &mut RunContext, op: AstUnary, v: Value) -> Result<Value> {
    usable(run, &[&v])?;
    match (op, v) {
        (AstUnary::Pos, Value::Scalar(Scalar::Bool(b))) => Ok(int(i64::from(b))),
        (AstUnary::Pos, v @ (Value::Scalar(_) | Value::BigInt(_) | Value::Tensor(_))) => Ok(v),
        (AstUnary::Neg, v @ (Value::Scalar(_) | Value::BigInt(_))) => match number::negate(&v) {
            Some(r) => Ok(r),
            None => bail!(Type, "bad operand type for unary -: '{}'", v.type_name()),
        },
        (AstUnary::Invert, v @ (Value::Scalar(_) | Value::BigInt(_))) => match number::invert(&v) {
            Some(r) => Ok(r),
            None => bail!(Type, "bad operand type for unary ~: '{}'", v.type_name()),
        },
        (op, Value::Array(t)) => crate::trace::binding::numpy::unary(run, op, t),
        (AstUnary::Neg, Value::Tensor(t)) => Ok(Value::Tensor(run.engine.unary(UnaryOp::Neg, &t)?)),
        (AstUnary::Invert, Value::Tensor(t)) => Ok(Value::Tensor(run.engine.unary(UnaryOp::Not, &t)?)),
        (op, v) => bail!(Type, "bad operand type for unary {:?}: '{}'", op, v.type_name()),
    }
}

pub fn binary(run: &mut RunContext, op: BinOp, a: Value, b: Value) -> Result<Value> {
    if matches!(op, BinOp::In | BinOp::NotIn | BinOp::Is | BinOp::IsNot) {
        bail!(Unsupported, "'{}' is evaluated by the runner, not as a tensor op", op.symbol());
    }
    // An array meets a tensor as a tensor over its storage; arrays alone follow numpy.
    let (a, b) = match (a, b) {
        (Value::Array(x), t @ Value::Tensor(_)) => (Value::Tensor(run.engine.data_alias(&x)?), t),
        (t @ Value::Tensor(_), Value::Array(y)) => (t, Value::Tensor(run.engine.data_alias(&y)?)),
        (a @ Value::Array(_), b) | (a, b @ Value::Array(_)) => {
            return crate::trace::binding::numpy::binary(run, op, a, b)
        }
        pair => pair,
    };
    if let Some(v) = number::binary(op, &a, &b)? {
        return Ok(v);
    }
    usable(run, &[&a, &b])?;
    if matches!(op, BinOp::Shl | BinOp::Shr) {
        bail!(
            Unsupported,
            "'{}' is supported on Python ints only (got '{}' and '{}')",
            op.symbol(),
            a.type_name(),
            b.type_name()
        );
    }
    let Some((bop, order)) = elementwise::python_operator(op) else {
        let a = tensor_arg(a, "matmul input")?;
        let b = tensor_arg(b, "matmul other")?;
        return Ok(Value::Tensor(run.engine.matmul(&a, &b)?));
    };
    match (a, b) {
        (Value::Tuple(x), Value::Tuple(y)) if op == BinOp::Add => {
            if x.len().saturating_add(y.len()) > crate::trace::python::value::MAX_SEQUENCE {
                bail!(Limit, "a sequence may hold at most {} items", crate::trace::python::value::MAX_SEQUENCE);
            }
            Ok(Value::Tuple(x.into_iter().chain(y).collect()))
        }
        (a, b) => {
            let (fa, fb) = (float_tensor(&a), float_tensor(&b));
            let (a, b) = (unsigned(a, fb), unsigned(b, fa));
            let a = operand(a, "left operand")?;
            let b = operand(b, "right operand")?;
            let (x, y) = match order {
                Operands::InOrder => (a, b),
                Operands::Swapped => (b, a),
            };
            Ok(Value::Tensor(elementwise::binary(run, bop, &x, &y)?))
        }
    }
}

/// `t op= rhs` for a tensor `t`: PyTorch's in-place op (`+=` is `add_`).
pub fn inplace_binary(run: &mut RunContext, t: &Tensor, op: BinOp, rhs: Value) -> Result<Tensor> {
    let Some((bop, order)) = elementwise::python_operator(op) else {
        bail!(Unsupported, "In-place matmul is not supported. Use 'a = a @ b' instead of 'a @= b'.");
    };
    if order == Operands::Swapped || bop.is_comparison() {
        bail!(Type, "unsupported augmented assignment");
    }
    usable(run, &[&rhs])?;
    let other = operand(unsigned(rhs, t.dtype().is_float()), "right operand")?;
    run.engine.bridge_op(&format!("{}_", bop.name()));
    write_binary(run, t, WriteForm::InPlace, bop, &Operand::Tensor(t.clone()), &other)
}

/// PyTorch's refusal to use, with grad mode on, a view whose history it cannot regenerate
/// (an output of `split`/`unbind` after its base was written in place), as an operator's
/// operand as much as a function's.
fn usable(run: &RunContext, operands: &[&Value]) -> Result<()> {
    if !run.engine.grad_enabled() {
        return Ok(());
    }
    for v in operands {
        if let Value::Tensor(t) = v {
            if let Some(e) = run.engine.stale_view_error(t) {
                return Err(e);
            }
        }
    }
    Ok(())
}

fn float_tensor(v: &Value) -> bool {
    matches!(v, Value::Tensor(t) if t.dtype().is_float())
}

/// An int from 2**63 to 2**64 meets a float tensor as its value (PyTorch's unsigned read of
/// it); an integer tensor takes it wrapped (`value::big_operand`).
fn unsigned(v: Value, float: bool) -> Value {
    match v {
        Value::BigInt(n) if float && n.bits() == 64 && n.sign() == num_bigint::Sign::Plus => {
            Value::Scalar(Scalar::Float(num_traits::ToPrimitive::to_f64(&*n).unwrap_or(f64::NAN)))
        }
        v => v,
    }
}
