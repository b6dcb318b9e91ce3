//! PyTorch signatures as data, and binding a call's arguments against one.
//!
//! A signature is written as `native_functions.yaml` writes it, types first:
//! `(Tensor input, int[] normalized_shape, Tensor? weight=None, *, float eps=1e-05)`. Binding
//! fills the parameters from the positional arguments in order (never past `*`), then from the
//! keywords by name, takes each missing one's default, and checks every value against its
//! type: a 0-d tensor stands for a number where PyTorch takes one (`narrow(x, 1,
//! torch.tensor(2), 2)`), an int for a one-element int list. Every argument error is
//! PyTorch's `TypeError`, so an op's handler reads only values of the right type.

use crate::error::{bail, Result};
use crate::tensor::{Engine, Tensor};
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;

/// A parameter's type, as PyTorch's signatures spell them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Tensor,
    TensorList,
    Int,
    IntList,
    Float,
    Bool,
    Scalar,
    Str,
    Dtype,
    /// Anything (a Python value PyTorch reads itself).
    Any,
}

/// One parameter of a signature.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    /// `Tensor?`: None is allowed.
    pub optional: bool,
    /// The default's text (`None`, `1e-05`, `'mean'`), if the parameter has one.
    pub default: Option<String>,
    pub keyword_only: bool,
    /// `Tensor... operands`: every remaining positional argument (or one list of them).
    pub variadic: bool,
    /// `Any** kwargs`: every keyword no other parameter takes, as a dict.
    pub rest_keywords: bool,
}

/// A parsed signature.
#[derive(Clone, Debug)]
pub struct Signature {
    pub params: Vec<Param>,
}

impl Signature {
    /// Parses `(Tensor input, *, float eps=1e-05)`. Signatures are the table's constants, so a
    /// malformed one is a bug that the table's test finds.
    pub fn parse(text: &str) -> std::result::Result<Signature, String> {
        let inner = text
            .trim()
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .ok_or_else(|| format!("signature {text:?} is not parenthesized"))?;
        let mut params = Vec::new();
        let mut keyword_only = false;
        for part in split_top(inner) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            if part == "*" {
                keyword_only = true;
                continue;
            }
            let (decl, default) = match part.split_once('=') {
                Some((d, v)) => (d.trim(), Some(v.trim().to_string())),
                None => (part, None),
            };
            let (ty, name) = decl.rsplit_once(' ').ok_or_else(|| format!("parameter {part:?} has no type"))?;
            let (ty, rest_keywords) = match ty.strip_suffix("**") {
                Some(t) => (t, true),
                None => (ty, false),
            };
            let (ty, variadic) = match ty.strip_suffix("...") {
                Some(t) => (format!("{t}[]"), true),
                None => (ty.to_string(), false),
            };
            let ty = ty.as_str();
            let (ty, optional) = match ty.strip_suffix('?') {
                Some(t) => (t, true),
                None => (ty, false),
            };
            let ty = match ty {
                "Tensor" => Ty::Tensor,
                "Tensor[]" => Ty::TensorList,
                "int" => Ty::Int,
                "int[]" => Ty::IntList,
                "float" => Ty::Float,
                "bool" => Ty::Bool,
                "Scalar" => Ty::Scalar,
                "str" => Ty::Str,
                "ScalarType" => Ty::Dtype,
                "Any" | "Any[]" => Ty::Any,
                other => return Err(format!("unknown type {other:?} in {text:?}")),
            };
            params.push(Param { name: name.to_string(), ty, optional, default, keyword_only, variadic, rest_keywords });
        }
        Ok(Signature { params })
    }

    /// The parameter names in order, for the op reference.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.params.iter().map(|p| p.name.as_str())
    }
}

/// Splits on commas outside brackets.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// A default's value: `None`, `True`, `False`, numbers (`inf`), quoted strings, and tuples of
/// those.
fn literal(text: &str) -> Value {
    let t = text.trim();
    match t {
        "None" => return Value::None,
        "True" => return Value::Scalar(Scalar::Bool(true)),
        "False" => return Value::Scalar(Scalar::Bool(false)),
        "inf" => return Value::Scalar(Scalar::Float(f64::INFINITY)),
        "-inf" => return Value::Scalar(Scalar::Float(f64::NEG_INFINITY)),
        _ => {}
    }
    if let Some(inner) = t.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
        return Value::Tuple(split_top(inner).into_iter().filter(|p| !p.trim().is_empty()).map(literal).collect());
    }
    if let Some(s) = t.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        return Value::Str(s.to_string());
    }
    if let Ok(i) = t.parse::<i64>() {
        return Value::Scalar(Scalar::Int(i));
    }
    match t.parse::<f64>() {
        Ok(f) => Value::Scalar(Scalar::Float(f)),
        Err(_) => Value::Str(t.to_string()),
    }
}

/// A call's arguments bound to a signature's parameters, each of its declared type.
pub struct Bound {
    func: String,
    values: Vec<(String, Value)>,
}

impl Bound {
    /// Binds `args` (the receiver, if any, already first) to `sig`, reading 0-d tensors that
    /// stand for numbers through `engine`.
    pub fn bind(engine: &mut Engine, func: &str, sig: &Signature, args: Args) -> Result<Bound> {
        let (pos, mut kw) = args.into_parts();
        let positional = sig.params.iter().filter(|p| !p.keyword_only).count();
        let variadic = sig.params.iter().any(|p| p.variadic);
        if pos.len() > positional && !variadic {
            bail!(
                Type,
                "{func}() takes {positional} positional argument{} but {} were given",
                if positional == 1 { "" } else { "s" },
                pos.len()
            );
        }
        // A keyword no parameter takes is refused before anything is missing, as Python does.
        if !sig.params.iter().any(|p| p.rest_keywords) {
            if let Some((k, _)) = kw.iter().find(|(k, _)| !sig.params.iter().any(|p| p.name == *k)) {
                bail!(Type, "{func}() got an unexpected keyword argument '{k}'");
            }
        }
        let mut pos = pos.into_iter();
        let mut values = Vec::with_capacity(sig.params.len());
        for (i, p) in sig.params.iter().enumerate() {
            if p.rest_keywords {
                let rest = std::mem::take(&mut kw);
                values.push((p.name.clone(), Value::dict(crate::trace::python::value::DictKind::Plain, rest)));
                continue;
            }
            let given = if p.keyword_only {
                None
            } else if p.variadic {
                let rest: Vec<Value> = pos.by_ref().collect();
                // `meshgrid(xs)` and `meshgrid(x, y)` alike: one list of tensors is the list.
                match <[Value; 1]>::try_from(rest) {
                    Ok([one @ (Value::Tuple(_) | Value::List(_))]) if p.ty == Ty::TensorList => Some(one),
                    Ok([one]) => Some(Value::Tuple(vec![one])),
                    Err(rest) => Some(Value::Tuple(rest)),
                }
            } else {
                pos.next()
            };
            let by_name = kw.iter().position(|(k, _)| *k == p.name).map(|j| kw.remove(j).1);
            let v = match (given, by_name, &p.default) {
                (None, None, None) if p.variadic => Value::Tuple(Vec::new()),
                (Some(_), Some(_), _) => bail!(Type, "{func}() got multiple values for argument '{}'", p.name),
                (Some(v), None, _) | (None, Some(v), _) => v,
                (None, None, Some(d)) => literal(d),
                (None, None, None) => {
                    bail!(Type, "{func}() missing 1 required positional argument: \"{}\" (position {})", p.name, i + 1)
                }
            };
            let v = check(engine, func, p, v)?;
            values.push((p.name.clone(), v));
        }
        if let Some((k, _)) = kw.first() {
            bail!(Type, "{func}() got an unexpected keyword argument '{k}'");
        }
        Ok(Bound { func: func.to_string(), values })
    }

    pub fn func(&self) -> &str {
        &self.func
    }

    /// The bound values in parameter order.
    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.values.iter().map(|(_, v)| v)
    }

    /// The bound value (the parameter exists: the table's test checks handlers against
    /// their signatures).
    pub fn value(&self, name: &str) -> Value {
        self.values.iter().find(|(n, _)| n == name).map_or(Value::None, |(_, v)| v.clone())
    }

    pub fn is_none(&self, name: &str) -> bool {
        matches!(self.value(name), Value::None)
    }

    pub fn tensor(&self, name: &str) -> Result<Tensor> {
        match self.value(name) {
            Value::Tensor(t) => Ok(t),
            other => bail!(Type, "{}(): argument '{name}' must be Tensor, not {}", self.func, other.type_name()),
        }
    }

    pub fn opt_tensor(&self, name: &str) -> Option<Tensor> {
        match self.value(name) {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }

    pub fn tensors(&self, name: &str) -> Vec<Tensor> {
        match self.value(name).seq() {
            Value::Tuple(items) => items
                .into_iter()
                .filter_map(|v| match v {
                    Value::Tensor(t) => Some(t),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    pub fn int(&self, name: &str) -> i64 {
        match self.value(name) {
            Value::Scalar(s) => s.as_f64() as i64,
            _ => 0,
        }
    }

    pub fn opt_int(&self, name: &str) -> Option<i64> {
        match self.value(name) {
            Value::Scalar(s) => Some(s.as_f64() as i64),
            _ => None,
        }
    }

    pub fn ints(&self, name: &str) -> Option<Vec<i64>> {
        match self.value(name).seq() {
            Value::Tuple(items) | Value::Size(items) => {
                Some(items.iter().filter_map(|v| v.as_int(name).ok()).collect())
            }
            _ => None,
        }
    }

    pub fn float(&self, name: &str) -> f64 {
        self.opt_float(name).unwrap_or(0.0)
    }

    pub fn opt_float(&self, name: &str) -> Option<f64> {
        match self.value(name) {
            Value::Scalar(s) => Some(s.as_f64()),
            _ => None,
        }
    }

    pub fn scalar(&self, name: &str) -> Option<Scalar> {
        match self.value(name) {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    pub fn bool(&self, name: &str) -> bool {
        matches!(self.value(name), Value::Scalar(Scalar::Bool(true)))
    }

    pub fn str(&self, name: &str) -> Option<String> {
        match self.value(name) {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn dtype(&self, name: &str) -> Option<crate::dtype::DType> {
        match self.value(name) {
            Value::DType(d) => Some(d),
            _ => None,
        }
    }
}

/// `v` as parameter `p` takes it, or PyTorch's TypeError.
fn check(engine: &mut Engine, func: &str, p: &Param, v: Value) -> Result<Value> {
    if matches!(v, Value::None) && (p.optional || p.default.as_deref() == Some("None") || p.ty == Ty::Any) {
        return Ok(Value::None);
    }
    let wrong = |v: &Value| -> Result<Value> {
        let want = match p.ty {
            Ty::Tensor => "Tensor",
            Ty::TensorList => "tuple of Tensors",
            Ty::Int => "int",
            Ty::IntList => "tuple of ints",
            Ty::Float => "float",
            Ty::Bool => "bool",
            Ty::Scalar => "Number",
            Ty::Str => "str",
            Ty::Dtype => "torch.dtype",
            Ty::Any => "object",
        };
        bail!(Type, "{func}(): argument '{}' must be {want}, not {}", p.name, v.type_name())
    };
    let number = |engine: &mut Engine, v: &Value| -> Result<Option<Scalar>> {
        Ok(match v {
            Value::Scalar(s) => Some(*s),
            Value::Tensor(t) if t.shape().is_empty() => {
                let d = engine.values(t)?;
                Some(if t.dtype().is_float() {
                    Scalar::Float(d.get_f64(0))
                } else if t.dtype() == crate::dtype::DType::Bool {
                    Scalar::Bool(d.get_f64(0) != 0.0)
                } else {
                    Scalar::Int(d.get_f64(0) as i64)
                })
            }
            _ => None,
        })
    };
    if let Value::BigInt(b) = &v {
        // PyTorch's unpacking of an int that does not fit 64 bits.
        return match p.ty {
            Ty::Float => Ok(Value::Scalar(Scalar::Float(crate::trace::python::number::big_to_f64(b)?))),
            Ty::Int | Ty::IntList => bail!(Value, "Overflow when unpacking long long"),
            Ty::Scalar => Ok(Value::Scalar(crate::trace::python::value::big_operand(b)?)),
            Ty::Any => Ok(v),
            _ => wrong(&v),
        };
    }
    match p.ty {
        Ty::Any => Ok(v),
        Ty::Tensor => match v {
            Value::Tensor(_) => Ok(v),
            other => wrong(&other),
        },
        Ty::TensorList => match v.seq() {
            Value::Tuple(items) => match items.iter().position(|x| !matches!(x, Value::Tensor(_))) {
                None => Ok(Value::Tuple(items)),
                Some(i) => {
                    bail!(Type, "expected Tensor as element {i} in argument 0, but got {}", items[i].type_name())
                }
            },
            other => wrong(&other),
        },
        Ty::Int => match number(engine, &v)? {
            Some(Scalar::Int(i)) => Ok(Value::Scalar(Scalar::Int(i))),
            Some(Scalar::Bool(b)) => Ok(Value::Scalar(Scalar::Int(i64::from(b)))),
            _ => wrong(&v),
        },
        Ty::IntList => match &*v.seq_ref() {
            Value::Scalar(Scalar::Int(i)) => Ok(Value::Tuple(vec![Value::Scalar(Scalar::Int(*i))])),
            Value::Tuple(items) | Value::Size(items) => {
                let mut out = Vec::with_capacity(items.len());
                for x in items {
                    if let Value::BigInt(_) = x {
                        bail!(Value, "Overflow when unpacking long long");
                    }
                    match number(engine, x)? {
                        Some(Scalar::Int(i)) => out.push(Value::Scalar(Scalar::Int(i))),
                        _ => return wrong(&v),
                    }
                }
                Ok(Value::Tuple(out))
            }
            other => wrong(other),
        },
        Ty::Float => match number(engine, &v)? {
            Some(s) => Ok(Value::Scalar(Scalar::Float(s.as_f64()))),
            None => wrong(&v),
        },
        Ty::Scalar => match number(engine, &v)? {
            Some(s) => Ok(Value::Scalar(s)),
            None => wrong(&v),
        },
        Ty::Bool => match &v {
            Value::Scalar(Scalar::Bool(_)) => Ok(v),
            Value::Scalar(Scalar::Int(i)) => Ok(Value::Scalar(Scalar::Bool(*i != 0))),
            other => wrong(other),
        },
        Ty::Str => match v {
            Value::Str(_) => Ok(v),
            other => wrong(&other),
        },
        Ty::Dtype => match v {
            Value::DType(_) => Ok(v),
            other => wrong(&other),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_types_defaults_and_keyword_only() {
        let s = Signature::parse("(Tensor input, int[] shape, Tensor? weight=None, *, float eps=1e-05, str r='mean')")
            .expect("valid");
        let names: Vec<&str> = s.names().collect();
        assert_eq!(names, ["input", "shape", "weight", "eps", "r"]);
        assert!(s.params[2].optional && !s.params[2].keyword_only);
        assert!(s.params[3].keyword_only);
        assert!(matches!(literal("1e-05"), Value::Scalar(Scalar::Float(f)) if f == 1e-5));
        assert!(matches!(literal("'mean'"), Value::Str(s) if s == "mean"));
        assert!(matches!(literal("(1, 2)"), Value::Tuple(v) if v.len() == 2));
        assert!(Signature::parse("(Tensr x)").is_err());
    }
}
