//! Python's `math` module: its constants and functions with CPython's domain errors.

use super::*;

/// `math.name(...)`.
pub fn math(ctx: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    let float = |x: f64| Ok(Value::Scalar(Scalar::Float(x)));
    let domain = || -> Result<Value> { bail!(Value, "math domain error") };
    let one = |ctx: &mut RunContext, args: &mut Args| -> Result<f64> {
        let v = args.req(0, "x")?;
        number(ctx, &v, "must be real number")
    };
    let v = match name {
        "floor" | "ceil" | "trunc" => {
            // An int is its own floor, whatever its size.
            if let Some(v) = args.peek(0).filter(|v| number::is_int(v)) {
                let v = number::round_int(v, 0)?;
                args.req(0, "x")?;
                args.finish()?;
                return Ok(v);
            }
            let x = one(ctx, &mut args)?;
            number::float_to_int(match name {
                "floor" => x.floor(),
                "ceil" => x.ceil(),
                _ => x.trunc(),
            })
        }
        "sqrt" => {
            let x = one(ctx, &mut args)?;
            if x < 0.0 {
                domain()
            } else {
                float(x.sqrt())
            }
        }
        "log" | "log2" | "log10" if matches!(args.peek(0), Some(Value::BigInt(_))) => {
            // Past the float range, through the int's own bits (`math.log(2**1100)`).
            let Some(Value::BigInt(b)) = args.req(0, "x").ok() else { return domain() };
            if b.sign() == num_bigint::Sign::Minus {
                return domain();
            }
            match name {
                "log2" => float(number::int_log(&b, f64::log2)),
                "log10" => float(number::int_log(&b, f64::log10)),
                _ => {
                    let num = number::int_log(&b, f64::ln);
                    match args.opt(1, "base") {
                        None => float(num),
                        Some(base) => {
                            let den = match &base {
                                Value::BigInt(c) if c.sign() != num_bigint::Sign::Minus => number::int_log(c, f64::ln),
                                v => number(ctx, v, "base")?.ln(),
                            };
                            if den.is_nan() || den == 0.0 || number(ctx, &base, "base").is_ok_and(|x| x <= 0.0) {
                                return if den == 0.0 { bail!(Value, "float division by zero") } else { domain() };
                            }
                            float(num / den)
                        }
                    }
                }
            }
        }
        "log" => {
            let x = one(ctx, &mut args)?;
            let base = match args.opt(1, "base") {
                Some(b) => Some(number(ctx, &b, "base")?),
                None => None,
            };
            if x <= 0.0 || base.is_some_and(|b| b <= 0.0 || b == 1.0) {
                domain()
            } else {
                float(base.map_or(x.ln(), |b| x.ln() / b.ln()))
            }
        }
        "log2" | "log10" | "log1p" => {
            let x = one(ctx, &mut args)?;
            let (ok, r) = match name {
                "log2" => (x > 0.0, x.log2()),
                "log10" => (x > 0.0, x.log10()),
                _ => (x > -1.0, x.ln_1p()),
            };
            if ok {
                float(r)
            } else {
                domain()
            }
        }
        "exp" | "expm1" | "sin" | "cos" | "tan" | "atan" | "sinh" | "cosh" | "tanh" | "fabs" | "degrees"
        | "radians" | "asin" | "acos" => {
            let x = one(ctx, &mut args)?;
            if matches!(name, "asin" | "acos") && !(-1.0..=1.0).contains(&x) {
                return domain();
            }
            if matches!(name, "exp" | "expm1" | "sinh" | "cosh") && x.is_finite() && x.exp().is_infinite() {
                // Python's OverflowError.
                bail!(Value, "math range error");
            }
            float(match name {
                "exp" => x.exp(),
                "expm1" => x.exp_m1(),
                "sin" => x.sin(),
                "cos" => x.cos(),
                "tan" => x.tan(),
                "atan" => x.atan(),
                "asin" => x.asin(),
                "acos" => x.acos(),
                "sinh" => x.sinh(),
                "cosh" => x.cosh(),
                "tanh" => x.tanh(),
                "fabs" => x.abs(),
                "degrees" => x.to_degrees(),
                _ => x.to_radians(),
            })
        }
        "isnan" | "isinf" | "isfinite" => {
            let x = one(ctx, &mut args)?;
            Ok(boolean(match name {
                "isnan" => x.is_nan(),
                "isinf" => x.is_infinite(),
                _ => x.is_finite(),
            }))
        }
        "pow" | "atan2" | "hypot" | "copysign" | "fmod" => {
            let x = one(ctx, &mut args)?;
            let y = args.req(1, "y")?;
            let y = number(ctx, &y, "must be real number")?;
            float(match name {
                "pow" => x.powf(y),
                "atan2" => x.atan2(y),
                "hypot" => x.hypot(y),
                "copysign" => x.copysign(y),
                _ => {
                    if y == 0.0 {
                        return domain();
                    }
                    x % y
                }
            })
        }
        "prod" | "fsum" => {
            let v = args.req(0, "iterable")?;
            let start = if name == "prod" { args.opt(1, "start").unwrap_or(int(1)) } else { int(0) };
            args.finish()?;
            let mut acc = start;
            for x in sequence(ctx, v)? {
                acc = binary(ctx, if name == "prod" { BinOp::Mul } else { BinOp::Add }, acc, x)?;
            }
            if name == "fsum" {
                let x = number(ctx, &acc, "fsum")?;
                return float(x);
            }
            return Ok(acc);
        }
        "gcd" => {
            let (a, b) = (args.req(0, "a")?, args.req(1, "b")?);
            number::gcd(&a, &b)
        }
        "comb" | "perm" => {
            let n = args.req(0, "n")?;
            let k = args.req(1, "k")?;
            number::comb_perm(&n, &k, name == "comb")
        }
        "isqrt" => {
            let n = args.req(0, "n")?;
            number::isqrt(&n)
        }
        "factorial" => {
            let n = match args.req(0, "n")? {
                // Python's OverflowError.
                Value::BigInt(_) => bail!(Value, "factorial() argument should not exceed {}", i64::MAX),
                v => v.as_int("n")?,
            };
            number::factorial(n)
        }
        _ => bail!(Unsupported, "math.{name} is not supported"),
    }?;
    args.finish()?;
    Ok(v)
}
