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
            let x = one(ctx, &mut args)?;
            if !x.is_finite() {
                bail!(Value, "cannot convert float {} to integer", float_repr(x));
            }
            let r = match name {
                "floor" => x.floor(),
                "ceil" => x.ceil(),
                _ => x.trunc(),
            };
            Ok(int(r as i64))
        }
        "sqrt" => {
            let x = one(ctx, &mut args)?;
            if x < 0.0 {
                domain()
            } else {
                float(x.sqrt())
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
            let (mut a, mut b) = (args.int(0, "a")?.unsigned_abs(), args.int(1, "b")?.unsigned_abs());
            while b != 0 {
                (a, b) = (b, a % b);
            }
            Ok(int(i64::try_from(a).unwrap_or(i64::MAX)))
        }
        "factorial" => {
            let n = args.int(0, "n")?;
            if n < 0 {
                bail!(Value, "factorial() not defined for negative values");
            }
            let mut acc: i64 = 1;
            for k in 2..=n {
                acc = match acc.checked_mul(k) {
                    Some(a) => a,
                    None => bail!(Limit, "factorial({n}) does not fit in 64 bits"),
                };
            }
            Ok(int(acc))
        }
        _ => bail!(Unsupported, "math.{name} is not supported"),
    }?;
    args.finish()?;
    Ok(v)
}
