//! Python's own semantics on trace values: truth, iteration, `in` and `is`, comparisons and
//! arithmetic of strings and sequences, the builtins (`print`, `range`, `len`, `enumerate`,
//! `zip`, `min`, `max`, `sum`, `abs`, `round`, ...), `math`, and the methods of str, list and
//! tuple values. A tensor reaching a builtin goes to the op library where PyTorch's own function
//! applies, or is iterated as Python iterates it (its rows, as views).

pub mod array_str;
pub mod containers;
pub mod context;
pub mod copy;
pub mod exception;
mod format;
pub mod introspect;
mod iteration;
pub mod iterator;
pub mod math;
pub mod methods;
pub mod number;
mod percent;
pub mod sys;
mod tensor_str;
pub mod value;

pub use format::{float_repr, format, format_field, repr, repr_plain, str};
pub use iteration::{iterate, range_len, sequence, Cursor, GenFrame, Iter, PyIter, SharedIter};
pub use tensor_str::render as render_tensor;

use crate::error::{bail, Result};
use crate::tensor::Tensor;
use crate::trace::lang::ast::BinOp;
use crate::trace::nn::layer::LayerKind;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{deep_len, Args, Key, Value, MAX_SEQUENCE};
use crate::uop::buffer::Scalar;

/// Python's builtins the trace language has.
const BUILTINS: &[&str] = &[
    "print",
    "range",
    "len",
    "enumerate",
    "zip",
    "iter",
    "next",
    "list",
    "tuple",
    "dict",
    "min",
    "max",
    "sum",
    "abs",
    "round",
    "str",
    "repr",
    "sorted",
    "reversed",
    "any",
    "all",
    "float",
    "int",
    "bool",
    "isinstance",
    "divmod",
    "pow",
    "slice",
    "format",
    "super",
    "type",
    "id",
    "callable",
    "map",
    "filter",
    "object",
    "hasattr",
    "getattr",
    "staticmethod",
    "property",
];

/// A builtin by its bare name.
pub fn builtin(name: &str) -> Option<Value> {
    BUILTINS
        .iter()
        .find(|b| **b == name)
        .map(|b| Value::Builtin(b))
        .or_else(|| exception::class(name).map(Value::Builtin))
}

fn int(i: i64) -> Value {
    Value::Scalar(Scalar::Int(i))
}

fn boolean(b: bool) -> Value {
    Value::Scalar(Scalar::Bool(b))
}

/// The single value of a one-element tensor.
fn item(ctx: &mut RunContext, t: &Tensor) -> Result<Scalar> {
    Ok(ctx.engine.values(t)?.get_scalar(0))
}

/// Python's truth of a value (`if`, `while`, `and`, `not`, `bool()`).
pub fn truth(ctx: &mut RunContext, v: &Value) -> Result<bool> {
    Ok(match v {
        Value::Scalar(Scalar::Bool(b)) => *b,
        Value::Scalar(Scalar::Int(i)) => *i != 0,
        Value::Scalar(Scalar::Float(f)) => *f != 0.0,
        // A big int is never zero (zero is a 64-bit int).
        Value::BigInt(_) => true,
        Value::None => false,
        Value::Str(s) => !s.is_empty(),
        Value::Tuple(v) | Value::Size(v) => !v.is_empty(),
        Value::List(l) => !l.is_empty(),
        Value::Named(_, v) => !v.is_empty(),
        Value::Dict(d) => !d.is_empty(),
        Value::Range(a, b, s) => range_len(*a, *b, *s) > 0,
        Value::Array(t) if t.numel() != 1 => {
            bail!(Value, "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()")
        }
        Value::Array(t) => match item(ctx, t)? {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::Float(f) => f != 0.0,
        },
        Value::Tensor(t) => match t.numel() {
            0 => bail!(Shape, "Boolean value of Tensor with no values is ambiguous"),
            1 => match item(ctx, t)? {
                Scalar::Bool(b) => b,
                Scalar::Int(i) => i != 0,
                Scalar::Float(f) => f != 0.0,
            },
            _ => bail!(Shape, "Boolean value of Tensor with more than one value is ambiguous"),
        },
        _ => true,
    })
}

/// Python's `==` where it is not a tensor op: numbers, strings, sequences, None, dtypes.
fn equal(ctx: &mut RunContext, a: &Value, b: &Value) -> Result<Option<bool>> {
    Ok(Some(match (a, b) {
        (Value::Tensor(_), _) | (_, Value::Tensor(_)) => return Ok(None),
        (Value::Scalar(_) | Value::BigInt(_), Value::Scalar(_) | Value::BigInt(_)) => {
            match (number::Num::of(a), number::Num::of(b)) {
                (Some(x), Some(y)) => number::compare(&x, &y) == Some(std::cmp::Ordering::Equal),
                _ => false,
            }
        }
        (Value::Str(x), Value::Str(y)) => x == y,
        // A device equals a device only (`t.device == "cpu"` is False, as PyTorch's).
        (Value::Device(x), Value::Device(y)) => x == y,
        (Value::NpDType(d), Value::Str(s)) | (Value::Str(s), Value::NpDType(d)) => array_str::numpy_name(*d) == s,
        (Value::Array(_), _) | (_, Value::Array(_)) => return Ok(None),
        (Value::List(x), Value::List(y)) if x.is(y) => true,
        (Value::List(x), Value::List(y)) => {
            let (x, y) = (x.items(), y.items());
            return equal(ctx, &Value::Tuple(x), &Value::Tuple(y));
        }
        (Value::Tuple(x) | Value::Size(x), Value::Tuple(y) | Value::Size(y)) => {
            if x.len() != y.len() {
                return Ok(Some(false));
            }
            for (p, q) in x.iter().zip(y) {
                if !p.is_same(q) && !equal_truth(ctx, p, q)? {
                    return Ok(Some(false));
                }
            }
            true
        }
        (Value::Range(a, b, s), Value::Range(c, d, t)) => (a, b, s) == (c, d, t),
        (Value::Slice(a, b, c), Value::Slice(d, e, f)) => (a, b, c) == (d, e, f),
        _ => a.is_same(b),
    }))
}

/// `bool(a == b)`, through the tensor op when one side is a tensor.
fn equal_truth(ctx: &mut RunContext, a: &Value, b: &Value) -> Result<bool> {
    match equal(ctx, a, b)? {
        Some(e) => Ok(e),
        None => {
            let v = ctx.binary(BinOp::Eq, a.clone(), b.clone())?;
            truth(ctx, &v)
        }
    }
}

/// `in`, `not in`, `is`, `is not`.
pub fn compare(ctx: &mut RunContext, op: BinOp, a: Value, b: Value) -> Result<Value> {
    let r = match op {
        BinOp::Is => a.is_same(&b),
        BinOp::IsNot => !a.is_same(&b),
        BinOp::In | BinOp::NotIn => {
            let found = match &b {
                Value::Str(s) => match &a {
                    Value::Str(x) => s.contains(x.as_str()),
                    other => bail!(Type, "'in <string>' requires string as left operand, not {}", other.type_name()),
                },
                Value::Range(_, _, _) if matches!(a, Value::BigInt(_)) => false,
                // A key is found by hash and equality: a tensor by identity, never elementwise.
                Value::Dict(d) => d.get_key(&Key::of(a.clone())?).is_some(),
                Value::Range(x, y, s) => {
                    let i = a.as_int("range membership")?;
                    let n = range_len(*x, *y, *s) as i64;
                    (i - x) % s == 0 && (0..n).contains(&((i - x) / s))
                }
                // Tensor.__contains__: (element == self).any().
                Value::Tensor(t) => {
                    let eq = ctx.binary(BinOp::Eq, b.clone(), a.clone())?;
                    let Value::Tensor(eq) = eq else { bail!(Type, "bad comparison") };
                    let _ = t;
                    let values = ctx.engine.values(&eq)?;
                    (0..values.len()).any(|i| values.get_f64(i) != 0.0)
                }
                other => {
                    let items = sequence(ctx, other.clone())?;
                    let mut found = false;
                    for x in &items {
                        if x.is_same(&a) || equal_truth(ctx, x, &a)? {
                            found = true;
                            break;
                        }
                    }
                    found
                }
            };
            found == (op == BinOp::In)
        }
        _ => bail!(Type, "'{}' is not an object comparison", op.symbol()),
    };
    Ok(boolean(r))
}

/// A binary operator: Python's own meaning on strings and sequences, the op library's on
/// numbers and tensors.
pub fn binary(ctx: &mut RunContext, op: BinOp, a: Value, b: Value) -> Result<Value> {
    // A named tuple compares as the tuple of its fields (`sys.version_info >= (3, 8)`).
    let plain = |v: Value| match v {
        Value::Named(_, fields)
            if matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) =>
        {
            Value::Tuple(fields.into_iter().map(|(_, v)| v).collect())
        }
        v => v,
    };
    let (a, b) = (plain(a), plain(b));
    let deep = |items: &[Value]| items.iter().map(deep_len).fold(0usize, usize::saturating_add);
    let repeat = |items: &[Value], n: i64| -> Result<Vec<Value>> {
        let n = usize::try_from(n).unwrap_or(0);
        if items.len().saturating_mul(n) > MAX_SEQUENCE {
            bail!(Limit, "a sequence may hold at most {MAX_SEQUENCE} items");
        }
        if n > 1 && deep(items).saturating_mul(n) > MAX_SEQUENCE {
            bail!(Limit, "a sequence may hold at most {MAX_SEQUENCE} values, nested ones counted");
        }
        Ok(items.iter().cloned().cycle().take(items.len() * n).collect())
    };
    // A sum of two sequences is bounded like a repetition: `t = t + t` forty times is refused,
    // not built.
    let joined = |x: usize, y: usize| -> Result<()> {
        if x.saturating_add(y) > MAX_SEQUENCE {
            bail!(Limit, "a sequence may hold at most {MAX_SEQUENCE} items");
        }
        Ok(())
    };
    match (op, &a, &b) {
        (BinOp::Add, Value::Str(x), Value::Str(y)) => {
            joined(x.len(), y.len())?;
            return Ok(Value::Str(format!("{x}{y}")));
        }
        (BinOp::Mul, Value::Str(x), Value::Scalar(Scalar::Int(n)))
        | (BinOp::Mul, Value::Scalar(Scalar::Int(n)), Value::Str(x)) => {
            let n = usize::try_from(*n).unwrap_or(0);
            if x.len().saturating_mul(n) > MAX_SEQUENCE {
                bail!(Limit, "a string may hold at most {MAX_SEQUENCE} characters");
            }
            return Ok(Value::Str(x.repeat(n)));
        }
        (BinOp::Add, Value::List(x), Value::List(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            joined(x.len(), y.len())?;
            joined(deep(&x), deep(&y))?;
            return Ok(Value::list(x.iter().chain(y.iter()).cloned().collect()));
        }
        (BinOp::Add, Value::Size(x), Value::Tuple(y) | Value::Size(y)) => {
            joined(x.len(), y.len())?;
            return Ok(Value::Size(x.iter().chain(y).cloned().collect()));
        }
        (BinOp::Add, Value::Tuple(x), Value::Size(y) | Value::Tuple(y)) => {
            joined(x.len(), y.len())?;
            joined(deep(x), deep(y))?;
            return Ok(Value::Tuple(x.iter().chain(y).cloned().collect()));
        }
        (BinOp::Mul, Value::List(x), Value::Scalar(Scalar::Int(n))) => {
            let items = repeat(&x.borrow(), *n)?;
            return Ok(Value::list(items));
        }
        (BinOp::Mul, Value::Tuple(x), Value::Scalar(Scalar::Int(n))) => return Ok(Value::Tuple(repeat(x, *n)?)),
        (BinOp::Eq | BinOp::Ne, _, _) => {
            if let Some(e) = equal(ctx, &a, &b)? {
                return Ok(boolean(e == (op == BinOp::Eq)));
            }
        }
        (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, Value::Str(x), Value::Str(y)) => {
            let r = match op {
                BinOp::Lt => x < y,
                BinOp::Le => x <= y,
                BinOp::Gt => x > y,
                _ => x >= y,
            };
            return Ok(boolean(r));
        }
        (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, Value::List(x), Value::List(y)) => {
            let (x, y) = (x.items(), y.items());
            return order_sequences(ctx, op, &x, &y);
        }
        (
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge,
            Value::Tuple(x) | Value::Size(x),
            Value::Tuple(y) | Value::Size(y),
        ) => return order_sequences(ctx, op, x, y),
        (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, _, _) if !orderable(&a) || !orderable(&b) => {
            bail!(
                Type,
                "'{}' not supported between instances of '{}' and '{}'",
                op.symbol(),
                a.type_name(),
                b.type_name()
            )
        }
        (BinOp::Mul, Value::Str(_) | Value::List(_) | Value::Tuple(_), Value::BigInt(n))
        | (BinOp::Mul, Value::BigInt(n), Value::Str(_) | Value::List(_) | Value::Tuple(_)) => {
            if n.sign() == num_bigint::Sign::Minus {
                return Ok(match (&a, &b) {
                    (Value::Str(_), _) | (_, Value::Str(_)) => Value::Str(String::new()),
                    (Value::List(_), _) | (_, Value::List(_)) => Value::list(Vec::new()),
                    _ => Value::Tuple(Vec::new()),
                });
            }
            // Python's OverflowError.
            bail!(Value, "cannot fit 'int' into an index-sized integer");
        }
        (BinOp::Mod, Value::Str(s), _) => return percent::percent(ctx, s, &b),
        _ => {}
    }
    ctx.binary(op, a, b)
}

/// Whether `<` and its kin may compare `v` with a number or a tensor.
fn orderable(v: &Value) -> bool {
    matches!(v, Value::Tensor(_) | Value::Array(_) | Value::Scalar(_) | Value::BigInt(_))
}

/// Python's order of two sequences: by the first items that differ, else by length.
fn order_sequences(ctx: &mut RunContext, op: BinOp, x: &[Value], y: &[Value]) -> Result<Value> {
    for (p, q) in x.iter().zip(y) {
        if !p.is_same(q) && !equal_truth(ctx, p, q)? {
            return binary(ctx, op, p.clone(), q.clone());
        }
    }
    let (m, n) = (x.len(), y.len());
    Ok(boolean(match op {
        BinOp::Lt => m < n,
        BinOp::Le => m <= n,
        BinOp::Gt => m > n,
        _ => m >= n,
    }))
}

/// `d[key] = value` on a dict's entries: a new key goes last, an existing one keeps its place.
pub fn dict_insert(entries: &mut Vec<(String, Value)>, key: String, value: Value) {
    match entries.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => entries.push((key, value)),
    }
}

/// A number from a Python value for `math` (a one-element tensor gives its item).
fn number(ctx: &mut RunContext, v: &Value, what: &str) -> Result<f64> {
    match v {
        Value::Scalar(s) => Ok(s.as_f64()),
        Value::BigInt(b) => number::big_to_f64(b),
        Value::Tensor(t) if t.numel() == 1 => Ok(item(ctx, t)?.as_f64()),
        Value::Tensor(_) => bail!(Type, "only one element tensors can be converted to Python scalars"),
        other => bail!(Type, "{what} must be a real number, not {}", other.type_name()),
    }
}

/// The text `print(*args, sep=' ', end='\n')` writes.
pub fn print_text(ctx: &mut RunContext, args: Args) -> Result<String> {
    let (pos, kw) = args.into_parts();
    let mut sep = " ".to_string();
    let mut end = "\n".to_string();
    for (k, v) in kw {
        let text = |v: Value| match v {
            Value::Str(s) => Ok(s),
            Value::None => Ok(String::new()),
            other => bail!(Type, "{k} must be None or a string, not {}", other.type_name()),
        };
        match k.as_str() {
            "sep" => sep = text(v)?,
            "end" => end = text(v)?,
            "flush" => {}
            _ => bail!(Type, "print() got an unexpected keyword argument '{k}'"),
        }
    }
    let mut parts = Vec::with_capacity(pos.len());
    for v in &pos {
        parts.push(str(ctx, v)?);
    }
    Ok(format!("{}{end}", parts.join(&sep)))
}

/// Whether `a < b` in Python's ordering (numbers, strings, one-element tensors).
pub fn less(ctx: &mut RunContext, a: &Value, b: &Value) -> Result<bool> {
    let v = binary(ctx, BinOp::Lt, a.clone(), b.clone())?;
    truth(ctx, &v)
}

/// Calls one of Python's builtins (`print` is the runner's, which owns the output).
pub fn call(ctx: &mut RunContext, name: &'static str, mut args: Args) -> Result<Value> {
    let tensor_first = matches!(args.peek(0), Some(Value::Tensor(_)));
    match name {
        "range" => {
            for i in 0..3 {
                if let Some(Value::BigInt(_)) = args.peek(i) {
                    bail!(Unsupported, "range() bounds beyond 64 bits are not supported");
                }
            }
            let a = args.int(0, "start")?;
            let b = args.opt_int(1, "stop")?;
            let s = args.opt_int(2, "step")?.unwrap_or(1);
            args.finish()?;
            if s == 0 {
                bail!(Value, "range() arg 3 must not be zero");
            }
            Ok(match b {
                Some(b) => Value::Range(a, b, s),
                None => Value::Range(0, a, s),
            })
        }
        "len" => {
            let v = args.req(0, "obj")?;
            args.finish()?;
            match v {
                Value::Str(s) => Ok(int(s.chars().count() as i64)),
                Value::Size(v) => Ok(int(v.len() as i64)),
                Value::Named(_, v) => Ok(int(v.len() as i64)),
                Value::Dict(d) => Ok(int(d.len() as i64)),
                Value::Layer(l) if matches!(l.kind, LayerKind::Sequential | LayerKind::ModuleList) => {
                    Ok(int(l.children.borrow().len() as i64))
                }
                Value::Range(a, b, s) => Ok(int(range_len(a, b, s) as i64)),
                Value::Array(t) => match t.shape().first() {
                    Some(&n) => Ok(int(n as i64)),
                    None => bail!(Type, "len() of unsized object"),
                },
                Value::Storage(t, view) => {
                    let itemsize = match view {
                        value::StorageView::Untyped => 1,
                        value::StorageView::Typed => t.dtype().itemsize(),
                    };
                    Ok(int((ctx.engine.storage_nbytes(&t)? / itemsize.max(1)) as i64))
                }
                v => ctx.function("len", Args::new("len", vec![v], vec![])),
            }
        }
        "enumerate" => {
            let v = args.req(0, "iterable")?;
            let start = args.int_or(1, "start", 0)?;
            args.finish()?;
            let items = sequence(ctx, v)?;
            Ok(Value::list(
                items.into_iter().enumerate().map(|(i, x)| Value::Tuple(vec![int(start + i as i64), x])).collect(),
            ))
        }
        "zip" => {
            let (pos, kw) = args.into_parts();
            if let Some((k, _)) = kw.first() {
                bail!(Type, "zip() got an unexpected keyword argument '{k}'");
            }
            let mut seqs = Vec::with_capacity(pos.len());
            for v in pos {
                seqs.push(sequence(ctx, v)?);
            }
            let n = seqs.iter().map(Vec::len).min().unwrap_or(0);
            Ok(Value::list((0..n).map(|i| Value::Tuple(seqs.iter().map(|s| s[i].clone()).collect())).collect()))
        }
        "list" | "tuple" => {
            let v = args.opt(0, "iterable");
            args.finish()?;
            let items = match v {
                Some(v) => sequence(ctx, v)?,
                None => Vec::new(),
            };
            Ok(if name == "list" { Value::list(items) } else { Value::Tuple(items) })
        }
        "copy.deepcopy" | "copy.copy" => {
            let v = args.req(0, "x")?;
            let _ = args.opt(1, "memo");
            args.finish()?;
            if name == "copy.deepcopy" {
                copy::deepcopy(ctx, &v)
            } else {
                copy::shallow(ctx, &v)
            }
        }
        "dict" | "OrderedDict" => {
            // `dict(mapping_or_pairs, **kw)`: the later binding of a key winning.
            let (pos, kw) = args.into_parts();
            if pos.len() > 1 {
                bail!(Type, "dict expected at most 1 argument, got {}", pos.len());
            }
            let kind = if name == "OrderedDict" { value::DictKind::Ordered } else { value::DictKind::Plain };
            let dict = value::Dict::new(kind, Vec::new());
            match pos.into_iter().next() {
                None => {}
                Some(Value::Dict(d)) => d.entries().into_iter().for_each(|(k, v)| dict.insert(k, v)),
                Some(v) => {
                    for (i, pair) in sequence(ctx, v)?.into_iter().enumerate() {
                        match pair.items().as_deref() {
                            Some([k, v]) => dict.insert(Key::of(k.clone())?, v.clone()),
                            Some(items) => bail!(
                                Value,
                                "dictionary update sequence element #{i} has length {}; 2 is required",
                                items.len()
                            ),
                            None => bail!(Type, "cannot convert dictionary update sequence element #{i} to a sequence"),
                        }
                    }
                }
            }
            kw.into_iter().for_each(|(k, v)| dict.insert(k, v));
            Ok(Value::Dict(dict))
        }
        "sorted" | "reversed" => {
            let v = args.req(0, "iterable")?;
            let reverse = if name == "sorted" { args.bool_or(usize::MAX, "reverse", false)? } else { true };
            args.finish()?;
            let mut items = sequence(ctx, v)?;
            if name == "sorted" {
                // Insertion sort through Python's `<` (stable, as Python's sort is).
                for i in 1..items.len() {
                    let mut j = i;
                    while j > 0 && less(ctx, &items[j], &items[j - 1])? {
                        items.swap(j, j - 1);
                        j -= 1;
                    }
                }
            }
            if reverse {
                items.reverse();
            }
            Ok(Value::list(items))
        }
        // On a tensor the bare name is PyTorch's function, as traces have always read it
        // (`sum(a)` is `torch.sum(a)`); on Python values it is Python's builtin.
        "min" | "max" | "sum" if tensor_first => ctx.function(name, args),
        "min" | "max" => {
            let default = args.kw_only("default");
            let (pos, kw) = args.into_parts();
            if let Some((k, _)) = kw.first() {
                bail!(Type, "{name}() got an unexpected keyword argument '{k}'");
            }
            let items = match pos.len() {
                0 => bail!(Type, "{name} expected at least 1 argument, got 0"),
                1 => sequence(ctx, pos.into_iter().next().unwrap_or(Value::None))?,
                _ => pos,
            };
            let mut best: Option<Value> = None;
            for x in items {
                best = Some(match best {
                    None => x,
                    Some(b) => {
                        let better = if name == "max" { less(ctx, &b, &x)? } else { less(ctx, &x, &b)? };
                        if better {
                            x
                        } else {
                            b
                        }
                    }
                });
            }
            match best.or(default) {
                Some(v) => Ok(v),
                None => bail!(Value, "{name}() iterable argument is empty"),
            }
        }
        "sum" => {
            let v = args.req(0, "iterable")?;
            let mut acc = args.opt(1, "start").unwrap_or(int(0));
            args.finish()?;
            for x in sequence(ctx, v)? {
                acc = binary(ctx, BinOp::Add, acc, x)?;
            }
            Ok(acc)
        }
        "abs" => {
            let v = args.req(0, "x")?;
            args.finish()?;
            match v {
                v @ (Value::Scalar(_) | Value::BigInt(_)) => Ok(number::abs(&v).unwrap_or(v)),
                v => ctx.function("abs", Args::new("abs", vec![v], vec![])),
            }
        }
        "round" => {
            let v = args.req(0, "number")?;
            let nd = match args.opt(1, "ndigits") {
                None | Some(Value::None) => None,
                // A huge ndigits keeps an int as it is and rounds a float to itself.
                Some(Value::BigInt(b)) => Some(if b.sign() == num_bigint::Sign::Minus { i64::MIN } else { i64::MAX }),
                Some(v) => Some(v.as_int("ndigits")?),
            };
            args.finish()?;
            match (v, nd) {
                (Value::Scalar(Scalar::Float(f)), None) => number::float_to_int(f.round_ties_even()),
                (Value::Scalar(Scalar::Float(f)), Some(n)) => {
                    // Rounding the exact binary value to n decimals, as Python does.
                    let n = n.clamp(-300, 300);
                    let r = if n >= 0 {
                        format!("{f:.*}", n as usize).parse::<f64>().unwrap_or(f)
                    } else {
                        let p = 10f64.powi((-n) as i32);
                        (f / p).round_ties_even() * p
                    };
                    Ok(Value::Scalar(Scalar::Float(r)))
                }
                (v @ (Value::Scalar(Scalar::Int(_) | Scalar::Bool(_)) | Value::BigInt(_)), nd) => {
                    number::round_int(&v, nd.unwrap_or(0))
                }
                (v @ Value::Tensor(_), nd) => {
                    let kw = nd.map(|n| vec![("decimals".to_string(), int(n))]).unwrap_or_default();
                    ctx.function("round", Args::new("round", vec![v], kw))
                }
                (v, _) => bail!(Type, "type {} doesn't define __round__ method", v.type_name()),
            }
        }
        "str" | "repr" => {
            let v = args.opt(0, "object").unwrap_or(Value::Str(String::new()));
            args.finish()?;
            Ok(Value::Str(if name == "str" { str(ctx, &v)? } else { repr(ctx, &v)? }))
        }
        // A numpy array of one element converts as its number.
        "float" | "int" if matches!(args.peek(0), Some(Value::Array(_))) => {
            let (mut pos, kw) = args.into_parts();
            if let Some(Value::Array(t)) = pos.first().cloned() {
                if t.numel() != 1 {
                    bail!(Type, "only length-1 arrays can be converted to Python scalars");
                }
                pos[0] = Value::Tensor(t);
            }
            ctx.function(name, Args::new(name, pos, kw))
        }
        "float" | "int" => match args.peek(0) {
            Some(Value::Str(s)) => {
                let text = s.trim().to_string();
                args.req(0, "x")?;
                args.finish()?;
                parse_number(name, &text)
            }
            _ => ctx.function(name, args),
        },
        "bool" => {
            let v = args.opt(0, "x");
            args.finish()?;
            match v {
                None => Ok(boolean(false)),
                Some(v) => Ok(boolean(truth(ctx, &v)?)),
            }
        }
        "any" | "all" if tensor_first => ctx.function(name, args),
        "any" | "all" => {
            let v = args.req(0, "iterable")?;
            args.finish()?;
            let want = name == "any";
            for x in sequence(ctx, v)? {
                if truth(ctx, &x)? == want {
                    return Ok(boolean(want));
                }
            }
            Ok(boolean(!want))
        }
        "divmod" => {
            let a = args.req(0, "a")?;
            let b = args.req(1, "b")?;
            args.finish()?;
            let q = binary(ctx, BinOp::FloorDiv, a.clone(), b.clone())?;
            let r = binary(ctx, BinOp::Mod, a, b)?;
            Ok(Value::Tuple(vec![q, r]))
        }
        "format" => {
            let v = args.req(0, "value")?;
            let spec = match args.opt(1, "format_spec") {
                None => String::new(),
                Some(Value::Str(s)) => s,
                Some(other) => bail!(Type, "format() argument 2 must be str, not {}", other.type_name()),
            };
            args.finish()?;
            Ok(Value::Str(format(ctx, &v, &spec)?))
        }
        "slice" => {
            let part = |v: Option<Value>| -> Result<Option<i64>> {
                match v {
                    None | Some(Value::None) => Ok(None),
                    Some(v) => v.as_int("slice indices").map(Some),
                }
            };
            let (a, b, c) = (args.opt(0, "start"), args.opt(1, "stop"), args.opt(2, "step"));
            args.finish()?;
            Ok(match (a, b, c) {
                (stop, None, None) => Value::Slice(None, part(stop)?, None),
                (a, b, c) => Value::Slice(part(a)?, part(b)?, part(c)?),
            })
        }
        "pow" => {
            let a = args.req(0, "base")?;
            let b = args.req(1, "exp")?;
            let m = args.opt(2, "mod");
            args.finish()?;
            match m {
                None | Some(Value::None) => binary(ctx, BinOp::Pow, a, b),
                Some(m) => number::pow_mod(&a, &b, &m),
            }
        }
        _ => bail!(Unsupported, "{name}() is not supported"),
    }
}

fn parse_number(name: &str, text: &str) -> Result<Value> {
    let clean = text.replace('_', "");
    if name == "int" {
        return number::parse_int(text);
    }
    let lower = clean.to_ascii_lowercase();
    let v = match lower.trim_start_matches(['+', '-']) {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => clean.parse::<f64>().ok(),
    };
    match v {
        Some(x) if lower.starts_with('-') && !x.is_sign_negative() => Ok(Value::Scalar(Scalar::Float(-x))),
        Some(x) => Ok(Value::Scalar(Scalar::Float(x))),
        None => bail!(Value, "could not convert string to float: '{text}'"),
    }
}
