//! Python's operators on trace values: `-x`, `~x`, `a + b`, `a @ b`, `a += b` on tensors (the
//! engine's elementwise ops and matmul) and on plain numbers (Python's own arithmetic).

use crate::error::{bail, Result};
use crate::tensor::{Operand, Tensor};
use crate::trace::binding::elementwise::{self, operand, tensor_arg, write_binary, WriteForm};
use crate::trace::lang::ast::{BinOp, UnaryOp as AstUnary};
use crate::trace::python::context::RunContext;
use crate::trace::python::value::Value;
use crate::uop::alu::Operands;
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, UnaryOp};

fn int(i: i64) -> Value {
    Value::Scalar(Scalar::Int(i))
}

pub fn unary(run: &mut RunContext, op: AstUnary, v: Value) -> Result<Value> {
    match (op, v) {
        (AstUnary::Pos, v @ (Value::Scalar(_) | Value::Tensor(_))) => Ok(v),
        (AstUnary::Neg, Value::Scalar(Scalar::Int(i))) => Ok(int(i.wrapping_neg())),
        (AstUnary::Neg, Value::Scalar(Scalar::Float(f))) => Ok(Value::Scalar(Scalar::Float(-f))),
        (AstUnary::Neg, Value::Scalar(Scalar::Bool(b))) => Ok(int(-i64::from(b))),
        (AstUnary::Invert, Value::Scalar(Scalar::Int(i))) => Ok(int(!i)),
        (AstUnary::Invert, Value::Scalar(Scalar::Bool(b))) => Ok(int(!i64::from(b))),
        (AstUnary::Neg, Value::Tensor(t)) => Ok(Value::Tensor(run.engine.unary(UnaryOp::Neg, &t)?)),
        (AstUnary::Invert, Value::Tensor(t)) => Ok(Value::Tensor(run.engine.unary(UnaryOp::Not, &t)?)),
        (op, v) => bail!(Type, "bad operand type for unary {:?}: '{}'", op, v.type_name()),
    }
}

/// The elementwise op of a Python operator and its operand order; `None` for `@`.
fn ast_binary(op: BinOp) -> Option<(BinaryOp, Operands)> {
    use Operands::{InOrder, Swapped};
    Some(match op {
        BinOp::Add => (BinaryOp::Add, InOrder),
        BinOp::Sub => (BinaryOp::Sub, InOrder),
        BinOp::Mul => (BinaryOp::Mul, InOrder),
        BinOp::Div => (BinaryOp::Div, InOrder),
        BinOp::FloorDiv => (BinaryOp::FloorDiv, InOrder),
        BinOp::Mod => (BinaryOp::Mod, InOrder),
        BinOp::Pow => (BinaryOp::Pow, InOrder),
        BinOp::Eq => (BinaryOp::CmpEq, InOrder),
        BinOp::Ne => (BinaryOp::CmpNe, InOrder),
        BinOp::Lt => (BinaryOp::CmpLt, InOrder),
        BinOp::Le => (BinaryOp::CmpLe, InOrder),
        BinOp::Gt => (BinaryOp::CmpLt, Swapped),
        BinOp::Ge => (BinaryOp::CmpLe, Swapped),
        BinOp::And => (BinaryOp::And, InOrder),
        BinOp::Or => (BinaryOp::Or, InOrder),
        BinOp::Xor => (BinaryOp::Xor, InOrder),
        BinOp::MatMul | BinOp::In | BinOp::NotIn | BinOp::Is | BinOp::IsNot => return None,
    })
}

pub fn binary(run: &mut RunContext, op: BinOp, a: Value, b: Value) -> Result<Value> {
    if matches!(op, BinOp::In | BinOp::NotIn | BinOp::Is | BinOp::IsNot) {
        bail!(Unsupported, "'{}' is evaluated by the runner, not as a tensor op", op.symbol());
    }
    let Some((bop, order)) = ast_binary(op) else {
        let a = tensor_arg(a, "matmul input")?;
        let b = tensor_arg(b, "matmul other")?;
        return Ok(Value::Tensor(run.engine.matmul(&a, &b)?));
    };
    match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => scalar_binary(op, x, y),
        (Value::Tuple(x), Value::Tuple(y)) if op == BinOp::Add => {
            if x.len().saturating_add(y.len()) > crate::trace::python::value::MAX_SEQUENCE {
                bail!(Limit, "a sequence may hold at most {} items", crate::trace::python::value::MAX_SEQUENCE);
            }
            Ok(Value::Tuple(x.into_iter().chain(y).collect()))
        }
        (a, b) => {
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

/// Python arithmetic on plain numbers.
fn scalar_binary(op: BinOp, x: Scalar, y: Scalar) -> Result<Value> {
    let float = matches!(x, Scalar::Float(_)) || matches!(y, Scalar::Float(_));
    if !float {
        if let Some(v) = int_binary(op, x.as_i64(), y.as_i64())? {
            return Ok(int(v));
        }
    }
    let (a, b) = (x.as_f64(), y.as_f64());
    let num = |f: f64| -> Value { Value::Scalar(if float { Scalar::Float(f) } else { Scalar::Int(f as i64) }) };
    let boolean = |v: bool| Ok(Value::Scalar(Scalar::Bool(v)));
    match op {
        BinOp::Add => Ok(num(a + b)),
        BinOp::Sub => Ok(num(a - b)),
        BinOp::Mul => Ok(num(a * b)),
        BinOp::Div => {
            if b == 0.0 {
                bail!(Shape, "division by zero");
            }
            Ok(Value::Scalar(Scalar::Float(a / b)))
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if b == 0.0 {
                bail!(Shape, "integer division or modulo by zero");
            }
            let q = (a / b).floor();
            Ok(num(if op == BinOp::FloorDiv { q } else { a - q * b }))
        }
        // An int to a negative int power is a float in Python (`2 ** -1` is 0.5).
        BinOp::Pow if b < 0.0 => Ok(Value::Scalar(Scalar::Float(a.powf(b)))),
        BinOp::Pow => Ok(num(a.powf(b))),
        BinOp::Eq => boolean(a == b),
        BinOp::Ne => boolean(a != b),
        BinOp::Lt => boolean(a < b),
        BinOp::Le => boolean(a <= b),
        BinOp::Gt => boolean(a > b),
        BinOp::Ge => boolean(a >= b),
        BinOp::And | BinOp::Or | BinOp::Xor => {
            if float {
                bail!(Type, "unsupported operand type(s) for bitwise op: 'float'");
            }
            let (i, j) = (a as i64, b as i64);
            Ok(int(match op {
                BinOp::And => i & j,
                BinOp::Or => i | j,
                _ => i ^ j,
            }))
        }
        BinOp::MatMul | BinOp::In | BinOp::NotIn | BinOp::Is | BinOp::IsNot => {
            bail!(Type, "unsupported operand type(s) for {}: 'int' and 'int'", op.symbol())
        }
    }
}

/// `t op= rhs` for a tensor `t`: PyTorch's in-place op (`+=` is `add_`).
pub fn inplace_binary(run: &mut RunContext, t: &Tensor, op: BinOp, rhs: Value) -> Result<Tensor> {
    let Some((bop, order)) = ast_binary(op) else {
        bail!(Unsupported, "In-place matmul is not supported. Use 'a = a @ b' instead of 'a @= b'.");
    };
    if order == Operands::Swapped || bop.is_comparison() {
        bail!(Type, "unsupported augmented assignment");
    }
    let other = operand(rhs, "right operand")?;
    run.engine.bridge_op(&format!("{}_", bop.name()));
    write_binary(run, t, WriteForm::InPlace, bop, &Operand::Tensor(t.clone()), &other)
}

/// Python's integer arithmetic on 64-bit two's-complement ints (what PyTorch makes of a Python
/// int: `2**63` wraps to int64's minimum); `None` for what integers do not compute (true
/// division, comparisons, negative powers), which the float path takes.
fn int_binary(op: BinOp, a: i64, b: i64) -> Result<Option<i64>> {
    Ok(Some(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::FloorDiv | BinOp::Mod => {
            if b == 0 {
                bail!(Shape, "integer division or modulo by zero");
            }
            // Python floors toward negative infinity: the remainder takes the divisor's sign.
            let (q, r) = (a.wrapping_div_euclid(b), a.wrapping_rem_euclid(b));
            let (q, r) = if r != 0 && b < 0 { (q.wrapping_sub(1), r.wrapping_add(b)) } else { (q, r) };
            if op == BinOp::FloorDiv {
                q
            } else {
                r
            }
        }
        BinOp::Pow if b >= 0 => a.wrapping_pow(u32::try_from(b).unwrap_or(u32::MAX)),
        _ => return Ok(None),
    }))
}
