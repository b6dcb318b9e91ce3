//! Python's printf-style string formatting, `"%.4f" % x` and `"%(name)s" % d`, by CPython's
//! rules (`Objects/unicodeobject.c`, `PyUnicode_Format`): each conversion is written through the
//! format-spec language of `format()`, so the digits are those f-strings give.

use super::context::RunContext;
use super::format::{format, repr, str};
use super::value::Value;
use crate::error::{bail, Result};
use crate::uop::buffer::Scalar;

/// `text % values`.
pub fn percent(ctx: &mut RunContext, text: &str, values: &Value) -> Result<Value> {
    let (positional, mapping): (Vec<Value>, Option<Value>) = match values {
        Value::Tuple(items) => (items.clone(), None),
        v @ Value::Dict(_) => (vec![v.clone()], Some(v.clone())),
        other => (vec![other.clone()], None),
    };
    let single = !matches!(values, Value::Tuple(_));
    let mut next = 0usize;
    let mut take = || -> Result<Value> {
        match positional.get(next) {
            Some(v) => {
                next += 1;
                Ok(v.clone())
            }
            None => bail!(Type, "not enough arguments for format string"),
        }
    };
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut used_mapping = false;
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        if i >= chars.len() {
            bail!(Value, "incomplete format");
        }
        // `%(key)`
        let mut keyed: Option<Value> = None;
        if chars[i] == '(' {
            let close = match chars[i..].iter().position(|&c| c == ')') {
                Some(p) => i + p,
                None => bail!(Value, "incomplete format key"),
            };
            let key: String = chars[i + 1..close].iter().collect();
            let Some(Value::Dict(d)) = &mapping else { bail!(Type, "format requires a mapping") };
            keyed = Some(match d.get(&key) {
                Some(v) => v,
                None => bail!(Index, "KeyError: '{key}'"),
            });
            used_mapping = true;
            i = close + 1;
        }
        let mut flags = String::new();
        while i < chars.len() && matches!(chars[i], '-' | '+' | ' ' | '#' | '0') {
            flags.push(chars[i]);
            i += 1;
        }
        let width = number_field(&chars, &mut i, &mut take)?;
        let precision = if i < chars.len() && chars[i] == '.' {
            i += 1;
            let p = number_field(&chars, &mut i, &mut take)?;
            Some(if p.is_empty() { "0".into() } else { p })
        } else {
            None
        };
        while i < chars.len() && matches!(chars[i], 'h' | 'l' | 'L') {
            i += 1;
        }
        let Some(&ty) = chars.get(i) else { bail!(Value, "incomplete format") };
        i += 1;
        if ty == '%' {
            out.push('%');
            continue;
        }
        let value = match keyed.take() {
            Some(v) => v,
            None => take()?,
        };
        out.push_str(&convert(ctx, &value, ty, &flags, &width, precision.as_deref(), i - 1)?);
    }
    if !used_mapping && next < positional.len() && !(single && mapping.is_some() && next == 0) {
        bail!(Type, "not all arguments converted during string formatting");
    }
    Ok(Value::Str(out))
}

/// A width or precision at `chars[*i]`: digits, or `*` taking the next argument.
fn number_field(chars: &[char], i: &mut usize, take: &mut impl FnMut() -> Result<Value>) -> Result<String> {
    if chars.get(*i) == Some(&'*') {
        *i += 1;
        return Ok(take()?.as_int("*")?.to_string());
    }
    let start = *i;
    while *i < chars.len() && chars[*i].is_ascii_digit() {
        *i += 1;
    }
    Ok(chars[start..*i].iter().collect())
}

/// One conversion through `format()`'s spec language.
fn convert(
    ctx: &mut RunContext,
    v: &Value,
    ty: char,
    flags: &str,
    width: &str,
    precision: Option<&str>,
    at: usize,
) -> Result<String> {
    let left = flags.contains('-');
    let sign = if flags.contains('+') {
        "+"
    } else if flags.contains(' ') {
        " "
    } else {
        ""
    };
    let alt = if flags.contains('#') { "#" } else { "" };
    let zero = if flags.contains('0') && !left { "0" } else { "" };
    let align = if left { "<" } else { ">" };
    let prec = precision.map(|p| format!(".{p}")).unwrap_or_default();
    match ty {
        's' | 'r' | 'a' => {
            let text = if ty == 's' { str(ctx, v)? } else { repr(ctx, v)? };
            let text: String = match precision {
                Some(p) => text.chars().take(p.parse().unwrap_or(usize::MAX)).collect(),
                None => text,
            };
            format(ctx, &Value::Str(text), &format!("{align}{width}"))
        }
        'x' | 'X' | 'o' if !integral(v) => {
            bail!(Type, "%{ty} format: an integer is required, not {}", v.type_name())
        }
        'd' | 'i' | 'u' | 'x' | 'X' | 'o' => {
            let n = number(ctx, v, ty)?;
            let n = match n {
                Value::Scalar(Scalar::Float(f)) if f.is_finite() => Value::Scalar(Scalar::Int(f.trunc() as i64)),
                Value::Scalar(Scalar::Float(f)) => {
                    bail!(Value, "cannot convert float {} to integer", if f.is_nan() { "NaN" } else { "infinity" })
                }
                Value::Scalar(Scalar::Bool(b)) => Value::Scalar(Scalar::Int(i64::from(b))),
                other => other,
            };
            let t = match ty {
                'x' | 'X' | 'o' => ty,
                _ => 'd',
            };
            // `%.3d` pads the digits with zeros, as CPython does.
            let text = format(ctx, &n, &format!("{sign}{alt}{t}"))?;
            let text = match precision.and_then(|p| p.parse::<usize>().ok()) {
                Some(p) => {
                    let (s, digits) = match text.strip_prefix(['-', '+', ' ']) {
                        Some(rest) => (&text[..1], rest.to_string()),
                        None => ("", text.clone()),
                    };
                    format!("{s}{digits:0>p$}")
                }
                None => text,
            };
            pad(ctx, text, align, zero, width)
        }
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
            let n = number(ctx, v, ty)?;
            let f = match n {
                Value::Scalar(s) => Value::Scalar(Scalar::Float(s.as_f64())),
                other => other,
            };
            let prec = if prec.is_empty() { ".6".to_string() } else { prec };
            let align = if left { "<" } else { "" };
            format(ctx, &f, &format!("{align}{sign}{alt}{zero}{width}{prec}{ty}"))
        }
        'c' => match v {
            Value::Str(s) if s.chars().count() == 1 => format(ctx, v, &format!("{align}{width}")),
            Value::Scalar(Scalar::Int(_) | Scalar::Bool(_)) => {
                let code = match v {
                    Value::Scalar(Scalar::Int(c)) => *c,
                    _ => i64::from(matches!(v, Value::Scalar(Scalar::Bool(true)))),
                };
                match u32::try_from(code).ok().and_then(char::from_u32) {
                    Some(c) => format(ctx, &Value::Str(c.to_string()), &format!("{align}{width}")),
                    None => bail!(Value, "%c arg not in range(0x110000)"),
                }
            }
            _ => bail!(Type, "%c requires int or char"),
        },
        other => bail!(Value, "unsupported format character '{other}' ({:#x}) at index {at}", other as u32),
    }
}

/// Whether `%x` and `%o` take `v`: Python ints and bools, and an integer tensor of one element.
fn integral(v: &Value) -> bool {
    match v {
        Value::Scalar(Scalar::Int(_) | Scalar::Bool(_)) | Value::BigInt(_) => true,
        Value::Tensor(t) => t.numel() == 1 && !t.dtype().is_float(),
        _ => false,
    }
}

/// Width padding of an integer conversion: zeros after the sign, or spaces.
fn pad(ctx: &mut RunContext, text: String, align: &str, zero: &str, width: &str) -> Result<String> {
    if zero.is_empty() {
        return format(ctx, &Value::Str(text), &format!("{align}{width}"));
    }
    let w: usize = width.parse().unwrap_or(0);
    let (sign, digits) = match text.strip_prefix(['-', '+', ' ']) {
        Some(rest) => (text[..1].to_string(), rest.to_string()),
        None => (String::new(), text.clone()),
    };
    let n = w.saturating_sub(sign.len());
    Ok(format!("{sign}{digits:0>n$}"))
}

/// A number for `%d`, `%f` and friends: Python numbers, and a one-element tensor's item.
fn number(ctx: &mut RunContext, v: &Value, ty: char) -> Result<Value> {
    match v {
        Value::Scalar(_) | Value::BigInt(_) => Ok(v.clone()),
        Value::Tensor(t) | Value::Array(t) if t.numel() == 1 => {
            let data = ctx.engine.values(t)?;
            Ok(Value::Scalar(data.get_scalar(0)))
        }
        other if matches!(ty, 'd' | 'i' | 'u') => {
            bail!(Type, "%{ty} format: a real number is required, not {}", other.type_name())
        }
        other if matches!(ty, 'x' | 'X' | 'o') => {
            bail!(Type, "%{ty} format: an integer is required, not {}", other.type_name())
        }
        other => bail!(Type, "must be real number, not {}", other.type_name()),
    }
}
