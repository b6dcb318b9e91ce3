//! Python's numbers: ints of any size (an `i64` while the value fits, a big int past it),
//! floats, and their arithmetic, comparisons and conversions exactly as CPython computes them
//! (int/float comparisons are exact, `/` of ints is correctly rounded, `//` and `%` floor).
//!
//! Error kinds: Python's ZeroDivisionError and OverflowError have no kind of their own; both
//! are reported as `value` (a number of the right type whose value the operation refuses).

use std::cmp::Ordering;
use std::rc::Rc;

use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_traits::{FromPrimitive, One, ToPrimitive, Zero};

use crate::error::{bail, Result};
use crate::trace::lang::ast::BinOp;
use crate::trace::python::value::Value;
use crate::uop::buffer::Scalar;

/// The most bits an int may hold: a larger result is refused (kind `limit`) rather than built.
pub const MAX_INT_BITS: u64 = 1 << 22;
/// CPython's default limit on the decimal digits of an int written or read as text
/// (`sys.get_int_max_str_digits()`).
pub const MAX_STR_DIGITS: usize = 4300;

/// 2**63 as a float: the floats from -2**63 up to it convert to i64 exactly.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// A Python number as arithmetic reads it (a bool is the int 0 or 1).
#[derive(Clone, Debug)]
pub enum Num {
    Int(i64),
    Big(Rc<BigInt>),
    Float(f64),
}

impl Num {
    pub fn of(v: &Value) -> Option<Num> {
        match v {
            Value::Scalar(Scalar::Int(i)) => Some(Num::Int(*i)),
            Value::Scalar(Scalar::Bool(b)) => Some(Num::Int(i64::from(*b))),
            Value::Scalar(Scalar::Float(f)) => Some(Num::Float(*f)),
            Value::BigInt(b) => Some(Num::Big(b.clone())),
            _ => None,
        }
    }

    /// The int as a big int (a float's integral value for a float).
    fn big(&self) -> BigInt {
        match self {
            Num::Int(i) => BigInt::from(*i),
            Num::Big(b) => (**b).clone(),
            Num::Float(f) => BigInt::from_f64(f.trunc()).unwrap_or_default(),
        }
    }

    /// `float(x)`: OverflowError for an int beyond the float range.
    pub fn to_f64(&self) -> Result<f64> {
        match self {
            Num::Int(i) => Ok(*i as f64),
            Num::Big(b) => big_to_f64(b),
            Num::Float(f) => Ok(*f),
        }
    }

    pub fn is_float(&self) -> bool {
        matches!(self, Num::Float(_))
    }
}

/// An int value: a `Scalar::Int` when it fits 64 bits, else a big int.
pub fn int_value(b: BigInt) -> Value {
    match b.to_i64() {
        Some(i) => Value::Scalar(Scalar::Int(i)),
        None => Value::BigInt(Rc::new(b)),
    }
}

/// An int result, refused when it holds more than [`MAX_INT_BITS`] bits.
fn checked(b: BigInt) -> Result<Value> {
    if b.bits() > MAX_INT_BITS {
        bail!(Limit, "an int may hold at most {MAX_INT_BITS} bits");
    }
    Ok(int_value(b))
}

/// Whether `v` is a Python int (a bool included).
pub fn is_int(v: &Value) -> bool {
    matches!(v, Value::Scalar(Scalar::Int(_) | Scalar::Bool(_)) | Value::BigInt(_))
}

/// `float(n)` of a big int, correctly rounded; OverflowError beyond the float range.
pub fn big_to_f64(b: &BigInt) -> Result<f64> {
    match b.to_f64() {
        Some(f) if f.is_finite() => Ok(f),
        _ => bail!(Value, "int too large to convert to float"),
    }
}

/// `int(x)` of a float: its integral part, exact (`int(1e20)` is 100000000000000000000).
pub fn float_to_int(x: f64) -> Result<Value> {
    if x.is_nan() {
        bail!(Value, "cannot convert float NaN to integer");
    }
    if x.is_infinite() {
        // Python's OverflowError.
        bail!(Value, "cannot convert float infinity to integer");
    }
    let t = x.trunc();
    if (-TWO_63..TWO_63).contains(&t) {
        return Ok(Value::Scalar(Scalar::Int(t as i64)));
    }
    Ok(int_value(BigInt::from_f64(t).unwrap_or_default()))
}

/// The decimal digits of an int, refused past CPython's [`MAX_STR_DIGITS`].
pub fn big_decimal(b: &BigInt) -> Result<String> {
    // 10**4300 has 14285 bits: more bits always means more digits than the limit.
    let too_long = || -> Result<String> {
        bail!(
            Value,
            "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion; \
             use sys.set_int_max_str_digits() to increase the limit"
        )
    };
    if b.bits() > 14_290 {
        return too_long();
    }
    let s = b.to_string();
    if s.trim_start_matches('-').len() > MAX_STR_DIGITS {
        return too_long();
    }
    Ok(s)
}

/// `int(text)` in base 10: sign, digits with single `_` between them, spaces around.
pub fn parse_int(text: &str) -> Result<Value> {
    let invalid = || -> Result<Value> { bail!(Value, "invalid literal for int() with base 10: '{text}'") };
    let t = text.trim();
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let b = body.as_bytes();
    if b.is_empty()
        || !b.iter().all(|c| c.is_ascii_digit() || *c == b'_')
        || b[0] == b'_'
        || b[b.len() - 1] == b'_'
        || body.contains("__")
    {
        return invalid();
    }
    let clean: String = t.chars().filter(|&c| c != '_').collect();
    if let Ok(i) = clean.parse::<i64>() {
        return Ok(Value::Scalar(Scalar::Int(i)));
    }
    let digits = clean.trim_start_matches(['+', '-']).len();
    if digits > MAX_STR_DIGITS {
        bail!(
            Value,
            "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion: value has {digits} digits; \
             use sys.set_int_max_str_digits() to increase the limit"
        );
    }
    match clean.parse::<BigInt>() {
        Ok(v) => Ok(int_value(v)),
        Err(_) => invalid(),
    }
}

/// Python's ordering of two numbers, exact between ints and floats; `None` with a NaN.
pub fn compare(a: &Num, b: &Num) -> Option<Ordering> {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(y)),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(y),
        (Num::Float(x), n) => int_float_cmp(n, *x).map(Ordering::reverse),
        (n, Num::Float(y)) => int_float_cmp(n, *y),
        _ => Some(a.big().cmp(&b.big())),
    }
}

/// An int against a float, exactly (`2**53 + 1 == float(2**53 + 1)` is False).
fn int_float_cmp(n: &Num, x: f64) -> Option<Ordering> {
    if x.is_nan() {
        return None;
    }
    if x.is_infinite() {
        return Some(if x > 0.0 { Ordering::Less } else { Ordering::Greater });
    }
    let fl = x.floor();
    let c = match n {
        Num::Int(i) if (-TWO_63..TWO_63).contains(&fl) => i.cmp(&(fl as i64)),
        _ => n.big().cmp(&BigInt::from_f64(fl)?),
    };
    // Equal to the floor of a float with a fraction: below the float.
    Some(if c == Ordering::Equal && fl != x { Ordering::Less } else { c })
}

fn boolean(b: bool) -> Value {
    Value::Scalar(Scalar::Bool(b))
}

fn float(f: f64) -> Value {
    Value::Scalar(Scalar::Float(f))
}

/// `-x`, `~x` and `abs(x)` of a number; `None` for a value that is not one.
pub fn negate(v: &Value) -> Option<Value> {
    Some(match Num::of(v)? {
        Num::Int(i) => match i.checked_neg() {
            Some(n) => Value::Scalar(Scalar::Int(n)),
            None => int_value(-BigInt::from(i)),
        },
        Num::Big(b) => int_value(-(*b).clone()),
        Num::Float(f) => float(-f),
    })
}

pub fn invert(v: &Value) -> Option<Value> {
    Some(match Num::of(v)? {
        Num::Int(i) => Value::Scalar(Scalar::Int(!i)),
        Num::Big(b) => int_value(-(&*b + BigInt::one())),
        Num::Float(_) => return None,
    })
}

pub fn abs(v: &Value) -> Option<Value> {
    Some(match Num::of(v)? {
        Num::Float(f) => float(f.abs()),
        n @ (Num::Int(_) | Num::Big(_)) => {
            if compare(&n, &Num::Int(0)) == Some(Ordering::Less) {
                return negate(v);
            }
            match n {
                Num::Big(b) => Value::BigInt(b),
                Num::Int(i) => Value::Scalar(Scalar::Int(i)),
                Num::Float(_) => return None,
            }
        }
    })
}

/// Python's binary operator on two numbers; `None` when either is not a number.
pub fn binary(op: BinOp, a: &Value, b: &Value) -> Result<Option<Value>> {
    let (Some(x), Some(y)) = (Num::of(a), Num::of(b)) else { return Ok(None) };
    let ord = || compare(&x, &y);
    let v = match op {
        BinOp::Eq => boolean(ord() == Some(Ordering::Equal)),
        BinOp::Ne => boolean(ord() != Some(Ordering::Equal)),
        BinOp::Lt => boolean(ord() == Some(Ordering::Less)),
        BinOp::Le => boolean(matches!(ord(), Some(Ordering::Less | Ordering::Equal))),
        BinOp::Gt => boolean(ord() == Some(Ordering::Greater)),
        BinOp::Ge => boolean(matches!(ord(), Some(Ordering::Greater | Ordering::Equal))),
        BinOp::MatMul
        | BinOp::In
        | BinOp::NotIn
        | BinOp::Is
        | BinOp::IsNot
        | BinOp::And
        | BinOp::Or
        | BinOp::Xor
        | BinOp::Shl
        | BinOp::Shr
            if x.is_float() || y.is_float() || op == BinOp::MatMul =>
        {
            bail!(Type, "unsupported operand type(s) for {}: '{}' and '{}'", op.symbol(), a.type_name(), b.type_name())
        }
        _ if x.is_float() || y.is_float() => float_binary(op, x.to_f64()?, y.to_f64()?)?,
        _ => {
            let bools = matches!((a, b), (Value::Scalar(Scalar::Bool(_)), Value::Scalar(Scalar::Bool(_))));
            int_binary(op, &x, &y, bools)?
        }
    };
    Ok(Some(v))
}

/// CPython's float arithmetic (`float_divmod` for `//` and `%`).
fn float_binary(op: BinOp, a: f64, b: f64) -> Result<Value> {
    Ok(float(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div => {
            if b == 0.0 {
                bail!(Value, "float division by zero");
            }
            a / b
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if b == 0.0 {
                bail!(Value, "{}", if op == BinOp::Mod { "float modulo" } else { "float floor division by zero" });
            }
            let (q, r) = float_divmod(a, b);
            if op == BinOp::Mod {
                r
            } else {
                q
            }
        }
        BinOp::Pow => return float_pow(a, b),
        _ => bail!(Type, "unsupported operand type(s) for {}: 'float' and 'float'", op.symbol()),
    }))
}

fn float_divmod(vx: f64, wx: f64) -> (f64, f64) {
    let mut m = vx % wx;
    let mut div = (vx - m) / wx;
    if m != 0.0 {
        if (wx < 0.0) != (m < 0.0) {
            m += wx;
            div -= 1.0;
        }
    } else {
        m = 0f64.copysign(wx);
    }
    let q = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        0f64.copysign(vx / wx)
    };
    (q, m)
}

/// `a ** b` on floats, with CPython's errors.
fn float_pow(a: f64, b: f64) -> Result<Value> {
    if a == 0.0 && b < 0.0 {
        bail!(Value, "0.0 cannot be raised to a negative power");
    }
    if a < 0.0 && b.is_finite() && b.fract() != 0.0 {
        bail!(Unsupported, "complex numbers are not supported (a negative number to a fractional power)");
    }
    let r = a.powf(b);
    if r.is_infinite() && a.is_finite() && b.is_finite() {
        // Python's OverflowError.
        bail!(Value, "(34, 'Numerical result out of range')");
    }
    Ok(float(r))
}

/// Integer arithmetic: 64-bit while results fit, big ints past that; `bools` when both
/// operands are bools (`&`, `|`, `^` of bools are bools).
fn int_binary(op: BinOp, x: &Num, y: &Num, bools: bool) -> Result<Value> {
    let int = |i: i64| Value::Scalar(Scalar::Int(i));
    if matches!(op, BinOp::FloorDiv | BinOp::Mod) && matches!(y, Num::Int(0)) {
        if op == BinOp::Mod {
            bail!(Value, "integer modulo by zero");
        }
        bail!(Value, "integer division or modulo by zero");
    }
    if let (Num::Int(a), Num::Int(b)) = (x, y) {
        let (a, b) = (*a, *b);
        let fast = match op {
            BinOp::Add => a.checked_add(b),
            BinOp::Sub => a.checked_sub(b),
            BinOp::Mul => a.checked_mul(b),
            BinOp::FloorDiv | BinOp::Mod => a.checked_div_euclid(b).map(|_| {
                // Python floors toward negative infinity: the remainder takes the divisor's sign.
                let (q, r) = (a.div_euclid(b), a.rem_euclid(b));
                let (q, r) = if r != 0 && b < 0 { (q - 1, r + b) } else { (q, r) };
                if op == BinOp::FloorDiv {
                    q
                } else {
                    r
                }
            }),
            BinOp::Div if a.unsigned_abs() <= 1 << 53 && b.unsigned_abs() <= 1 << 53 => {
                if b == 0 {
                    bail!(Value, "division by zero");
                }
                return Ok(float(a as f64 / b as f64));
            }
            BinOp::Pow if b >= 0 => u32::try_from(b).ok().and_then(|e| a.checked_pow(e)),
            BinOp::And | BinOp::Or | BinOp::Xor => {
                let r = match op {
                    BinOp::And => a & b,
                    BinOp::Or => a | b,
                    _ => a ^ b,
                };
                return Ok(if bools { boolean(r != 0) } else { int(r) });
            }
            BinOp::Shl if (0..63).contains(&b) => a.checked_shl(b as u32).filter(|r| r >> b == a),
            BinOp::Shr if b >= 0 => Some(if b >= 64 { a >> 63 } else { a >> b }),
            _ => None,
        };
        if let Some(r) = fast {
            return Ok(int(r));
        }
    }
    let (a, b) = (x.big(), y.big());
    match op {
        BinOp::Add => checked(a + b),
        BinOp::Sub => checked(a - b),
        BinOp::Mul => {
            if a.bits() + b.bits() > MAX_INT_BITS + 1 {
                bail!(Limit, "an int may hold at most {MAX_INT_BITS} bits");
            }
            checked(a * b)
        }
        BinOp::FloorDiv => Ok(int_value(a.div_floor(&b))),
        BinOp::Mod => Ok(int_value(a.mod_floor(&b))),
        BinOp::Div => Ok(float(true_div(&a, &b)?)),
        BinOp::Pow => int_pow(&a, &b),
        BinOp::And => Ok(int_value(a & b)),
        BinOp::Or => Ok(int_value(a | b)),
        BinOp::Xor => Ok(int_value(a ^ b)),
        BinOp::Shl | BinOp::Shr => {
            if b.sign() == Sign::Minus {
                bail!(Value, "negative shift count");
            }
            let n = b.to_u64().unwrap_or(u64::MAX);
            if op == BinOp::Shr {
                return Ok(match usize::try_from(n) {
                    Ok(n) if n <= usize::MAX / 2 => int_value(a >> n),
                    _ => int(if a.sign() == Sign::Minus { -1 } else { 0 }),
                });
            }
            if a.is_zero() {
                return Ok(int(0));
            }
            if a.bits().saturating_add(n) > MAX_INT_BITS {
                bail!(Limit, "an int may hold at most {MAX_INT_BITS} bits");
            }
            checked(a << n as usize)
        }
        _ => bail!(Type, "unsupported operand type(s) for {}: 'int' and 'int'", op.symbol()),
    }
}

/// `a ** b` of ints: an int for `b >= 0`, a float for a negative `b` (as CPython, through
/// float's power).
fn int_pow(a: &BigInt, b: &BigInt) -> Result<Value> {
    if b.sign() == Sign::Minus {
        if a.is_zero() {
            bail!(Value, "0.0 cannot be raised to a negative power");
        }
        let e = b.to_f64().unwrap_or(f64::NEG_INFINITY);
        return float_pow(big_to_f64(a)?, e);
    }
    if a.is_zero() || a.is_one() || b.is_zero() {
        return Ok(int_value(if b.is_zero() { BigInt::one() } else { a.clone() }));
    }
    if *a == BigInt::from(-1) {
        return Ok(int_value(if b.is_even() { BigInt::one() } else { a.clone() }));
    }
    let e = match b.to_u32() {
        Some(e) if (a.bits() - 1).saturating_mul(u64::from(e)) <= MAX_INT_BITS => e,
        _ => bail!(Limit, "an int may hold at most {MAX_INT_BITS} bits"),
    };
    checked(num_traits::Pow::pow(a, e))
}

/// `pow(a, b, m)` of ints.
pub fn pow_mod(a: &Value, b: &Value, m: &Value) -> Result<Value> {
    let (Some(x), Some(y), Some(z)) = (Num::of(a), Num::of(b), Num::of(m)) else {
        bail!(
            Type,
            "unsupported operand type(s) for pow(): '{}', '{}', '{}'",
            a.type_name(),
            b.type_name(),
            m.type_name()
        )
    };
    if x.is_float() || y.is_float() || z.is_float() {
        bail!(Type, "pow() 3rd argument not allowed unless all arguments are integers");
    }
    let (x, y, z) = (x.big(), y.big(), z.big());
    if z.is_zero() {
        bail!(Value, "pow() 3rd argument cannot be 0");
    }
    if y.sign() == Sign::Minus {
        bail!(Unsupported, "pow() with a negative exponent and a modulus is not supported");
    }
    Ok(int_value(x.modpow(&y, &z)))
}

/// `a / b` of ints, correctly rounded as CPython's `long_true_divide`.
pub fn true_div(a: &BigInt, b: &BigInt) -> Result<f64> {
    if b.is_zero() {
        bail!(Value, "division by zero");
    }
    let negative = (a.sign() == Sign::Minus) != (b.sign() == Sign::Minus);
    let signed = |x: f64| if negative { -x } else { x };
    let (a, b) = (a.magnitude(), b.magnitude());
    if a.is_zero() {
        return Ok(signed(0.0));
    }
    let too_large = || -> Result<f64> { bail!(Value, "integer division result too large for a float") };
    // a / b lies in [2^e, 2^(e+1)).
    let e0 = a.bits() as i64 - b.bits() as i64;
    let at_least = if e0 >= 0 { *a >= b << e0 as usize } else { a << (-e0) as usize >= *b };
    let e = if at_least { e0 } else { e0 - 1 };
    if e > 1023 {
        return too_large();
    }
    // The result's unit in the last place (subnormals have fewer digits), then two more bits.
    let ulp = (e - 52).max(-1074);
    let s = 2 - ulp;
    let (num, den) = if s >= 0 { (a << s as usize, b.clone()) } else { (a.clone(), b << (-s) as usize) };
    let (q, r) = num.div_rem(&den);
    let q = q.to_u64().unwrap_or(0);
    let (low, mut m) = (q & 3, q >> 2);
    if low > 2 || (low == 2 && (!r.is_zero() || m & 1 == 1)) {
        m += 1;
    }
    let pow2 = |k: i64| f64::from_bits(((k + 1023) as u64) << 52);
    let x = if ulp < -1022 { m as f64 * pow2(-1022) * pow2(ulp + 1022) } else { m as f64 * pow2(ulp) };
    if x.is_infinite() {
        return too_large();
    }
    Ok(signed(x))
}

/// `round(n, ndigits)` of an int: to a multiple of `10**-ndigits`, half to even.
pub fn round_int(v: &Value, ndigits: i64) -> Result<Value> {
    let Some(n) = Num::of(v) else { bail!(Type, "round() of {}", v.type_name()) };
    let n = n.big();
    if ndigits >= 0 {
        return Ok(int_value(n));
    }
    // 10**k beyond twice the value rounds everything to 0.
    let k = ndigits.unsigned_abs();
    if k > n.bits() / 3 + 2 {
        return Ok(Value::Scalar(Scalar::Int(0)));
    }
    let p = num_traits::Pow::pow(BigInt::from(10), k as u32);
    let (mut q, r) = n.div_mod_floor(&p);
    let twice = r * 2;
    if twice > p || (twice == p && q.is_odd()) {
        q += 1;
    }
    Ok(int_value(q * p))
}

/// `f(n)` for one of `math`'s logs of a positive int, as CPython's `loghelper`: through the
/// float when the int converts, else from its bits (`n = m * 2**e`, `f(m) + f(2) * e`), so
/// `math.log(2**1100)` is finite.
pub fn int_log(b: &BigInt, f: fn(f64) -> f64) -> f64 {
    if let Ok(x) = big_to_f64(b) {
        return f(x);
    }
    let e = b.bits();
    let top = (b >> (e - 64) as usize).to_f64().unwrap_or(f64::NAN);
    f(top / 18_446_744_073_709_551_616.0) + f(2.0) * e as f64
}

/// `math.factorial(n)`.
pub fn factorial(n: i64) -> Result<Value> {
    if n < 0 {
        bail!(Value, "factorial() not defined for negative values");
    }
    let mut acc = BigInt::one();
    for k in 2..=n {
        acc *= k;
        if acc.bits() > MAX_INT_BITS {
            bail!(Limit, "an int may hold at most {MAX_INT_BITS} bits");
        }
    }
    Ok(int_value(acc))
}

/// `math.comb(n, k)` and `math.perm(n, k)`.
pub fn comb_perm(n: &Value, k: &Value, comb: bool) -> Result<Value> {
    let arg = |v: &Value| -> Result<BigInt> {
        match Num::of(v) {
            Some(x @ (Num::Int(_) | Num::Big(_))) => Ok(x.big()),
            _ => bail!(Type, "'{}' object cannot be interpreted as an integer", v.type_name()),
        }
    };
    let (n, k) = (arg(n)?, arg(k)?);
    if n.sign() == Sign::Minus {
        bail!(Value, "n must be a non-negative integer");
    }
    if k.sign() == Sign::Minus {
        bail!(Value, "k must be a non-negative integer");
    }
    if k > n {
        return Ok(Value::Scalar(Scalar::Int(0)));
    }
    let k = if comb { k.clone().min(&n - &k) } else { k };
    let Some(k) = k.to_u64() else { bail!(Limit, "an int may hold at most {MAX_INT_BITS} bits") };
    let mut acc = BigInt::one();
    for i in 0..k {
        acc *= &n - i;
        if comb {
            acc /= i + 1;
        }
        if acc.bits() > MAX_INT_BITS {
            bail!(Limit, "an int may hold at most {MAX_INT_BITS} bits");
        }
    }
    Ok(int_value(acc))
}

/// `math.gcd(a, b)` of ints of any size.
pub fn gcd(a: &Value, b: &Value) -> Result<Value> {
    let arg = |v: &Value| -> Result<BigInt> {
        match Num::of(v) {
            Some(x @ (Num::Int(_) | Num::Big(_))) => Ok(x.big()),
            _ => bail!(Type, "'{}' object cannot be interpreted as an integer", v.type_name()),
        }
    };
    Ok(int_value(arg(a)?.gcd(&arg(b)?)))
}

/// `math.isqrt(n)`.
pub fn isqrt(v: &Value) -> Result<Value> {
    match Num::of(v) {
        Some(x @ (Num::Int(_) | Num::Big(_))) => {
            let n = x.big();
            if n.sign() == Sign::Minus {
                bail!(Value, "isqrt() argument must be nonnegative");
            }
            Ok(int_value(n.sqrt()))
        }
        _ => bail!(Type, "'{}' object cannot be interpreted as an integer", v.type_name()),
    }
}

/// The digits of `|n|` in base 16, 8 or 2 (`format(n, 'x')`).
pub fn radix_digits(v: &Value, radix: u32) -> Option<(bool, String)> {
    match Num::of(v)? {
        Num::Int(i) => {
            let m = i.unsigned_abs();
            let s = match radix {
                16 => format!("{m:x}"),
                8 => format!("{m:o}"),
                _ => format!("{m:b}"),
            };
            Some((i < 0, s))
        }
        Num::Big(b) => Some((b.sign() == Sign::Minus, b.magnitude().to_str_radix(radix))),
        Num::Float(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(s: &str) -> BigInt {
        s.parse().unwrap_or_default()
    }

    #[test]
    fn true_division_is_correctly_rounded() {
        // Expected values from CPython.
        let two = |k: usize| BigInt::one() << k;
        assert_eq!(true_div(&two(1024), &BigInt::from(2)).ok(), Some(8.98846567431158e307));
        assert_eq!(true_div(&BigInt::one(), &two(1074)).ok(), Some(5e-324));
        assert_eq!(true_div(&BigInt::one(), &two(1075)).ok(), Some(0.0));
        assert_eq!(true_div(&BigInt::from(3), &two(1075)).ok(), Some(1e-323));
        assert_eq!(
            true_div(&big("1000000000000000000000000000000"), &BigInt::from(7)).ok(),
            Some(1.4285714285714285e29)
        );
        assert_eq!(true_div(&(two(53) + 1), &BigInt::one()).ok(), Some(9007199254740992.0));
        assert!(true_div(&two(1100), &BigInt::from(3)).is_err());
        assert_eq!(true_div(&BigInt::zero(), &BigInt::from(-5)).map(f64::is_sign_negative).ok(), Some(true));
    }

    #[test]
    fn int_float_comparisons_are_exact() {
        let n = Num::Big(Rc::new((BigInt::one() << 53usize) + 1));
        assert_eq!(compare(&n, &Num::Float(9007199254740992.0)), Some(Ordering::Greater));
        assert_eq!(compare(&Num::Int(i64::MAX), &Num::Float(TWO_63)), Some(Ordering::Less));
        assert_eq!(compare(&Num::Int(3), &Num::Float(3.5)), Some(Ordering::Less));
        assert_eq!(compare(&Num::Int(-3), &Num::Float(-3.5)), Some(Ordering::Greater));
        assert_eq!(compare(&Num::Int(1), &Num::Float(f64::NAN)), None);
    }

    #[test]
    fn shifts_floor_and_round_half_even() {
        let v = int_binary(BinOp::Shr, &Num::Big(Rc::new(-(BigInt::one() << 70usize))), &Num::Int(3), false);
        assert_eq!(v.ok().map(|v| format!("{v:?}")), Some(format!("{:?}", int_value(big("-147573952589676412928")))));
        let r = |n: i64, d: i64| match round_int(&Value::Scalar(Scalar::Int(n)), d) {
            Ok(Value::Scalar(Scalar::Int(i))) => i,
            _ => i64::MIN,
        };
        assert_eq!((r(15, -1), r(25, -1), r(75, -1), r(-15, -1), r(5, -1), r(15, -100)), (20, 20, 80, -20, 0, 0));
    }
}
