//! Methods of Python's own values (str, list, tuple, dict, `torch.Size`), `str.format`
//! included.

use super::*;
use crate::trace::python::value::{Dict, Key, List};

/// Methods of values that are not tensors (`", ".join(names)`, `s.upper()`, `shape.numel()`).
pub fn method(ctx: &mut RunContext, recv: Value, name: &str, mut args: Args) -> Result<Value> {
    match (&recv, name) {
        (Value::Dict(d), "keys" | "values" | "items") => {
            args.finish()?;
            Ok(Value::list(
                d.borrow()
                    .iter()
                    .map(|(k, v)| match name {
                        "keys" => k.value(),
                        "values" => v.clone(),
                        _ => Value::Tuple(vec![k.value(), v.clone()]),
                    })
                    .collect(),
            ))
        }
        (Value::Dict(d), "get") => {
            let key = args.req(0, "key")?;
            let default = args.opt(1, "default").unwrap_or(Value::None);
            args.finish()?;
            Ok(d.get_key(&Key::of(key)?).unwrap_or(default))
        }
        (Value::Dict(d), "copy") => {
            args.finish()?;
            Ok(Value::Dict(Dict::new(d.kind(), d.entries())))
        }
        (Value::Dict(d), "update") => {
            let (pos, kw) = args.into_parts();
            let other = call(ctx, "dict", Args::new("dict", pos, kw))?;
            if let Value::Dict(other) = other {
                for (k, v) in other.entries() {
                    super::containers::refuse_cycle(d.address(), &v)?;
                    d.insert(k, v);
                }
            }
            Ok(Value::None)
        }
        (Value::Dict(d), "pop" | "setdefault") => {
            let key = args.req(0, "key")?;
            let default = args.opt(1, "default");
            args.finish()?;
            let key = Key::of(key)?;
            if name == "setdefault" {
                if let Some(v) = d.get_key(&key) {
                    return Ok(v);
                }
                let v = default.unwrap_or(Value::None);
                super::containers::refuse_cycle(d.address(), &v)?;
                d.insert(key, v.clone());
                return Ok(v);
            }
            match (d.remove(&key), default) {
                (Some(v), _) | (None, Some(v)) => Ok(v),
                (None, None) => Err(super::containers::key_error(&key)),
            }
        }
        (Value::Str(s), "join") => {
            let items = sequence(ctx, args.req(0, "iterable")?)?;
            args.finish()?;
            let mut parts = Vec::with_capacity(items.len());
            for (i, x) in items.into_iter().enumerate() {
                match x {
                    Value::Str(t) => parts.push(t),
                    other => bail!(Type, "sequence item {i}: expected str instance, {} found", other.type_name()),
                }
            }
            Ok(Value::Str(parts.join(s)))
        }
        (Value::Str(s), "upper" | "lower" | "strip" | "lstrip" | "rstrip" | "title") => {
            args.finish()?;
            Ok(Value::Str(match name {
                "upper" => s.to_uppercase(),
                "lower" => s.to_lowercase(),
                "strip" => s.trim().to_string(),
                "lstrip" => s.trim_start().to_string(),
                "rstrip" => s.trim_end().to_string(),
                _ => s
                    .split(' ')
                    .map(|w| {
                        let mut c = w.chars();
                        c.next()
                            .map_or(String::new(), |f| f.to_uppercase().chain(c.flat_map(char::to_lowercase)).collect())
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
            }))
        }
        (Value::Str(s), "startswith" | "endswith" | "replace" | "split" | "count") => {
            let a = match args.opt(0, "arg") {
                Some(Value::Str(a)) => Some(a),
                None | Some(Value::None) => None,
                Some(other) => bail!(Type, "must be str, not {}", other.type_name()),
            };
            let out = match (name, a) {
                ("startswith", Some(a)) => boolean(s.starts_with(&a)),
                ("endswith", Some(a)) => boolean(s.ends_with(&a)),
                ("count", Some(a)) => int(s.matches(&a).count() as i64),
                ("replace", Some(a)) => {
                    let b = match args.req(1, "new")? {
                        Value::Str(b) => b,
                        other => bail!(Type, "replace() argument 2 must be str, not {}", other.type_name()),
                    };
                    Value::Str(s.replace(&a, &b))
                }
                ("split", Some(a)) => Value::list(s.split(&a).map(|p| Value::Str(p.to_string())).collect()),
                ("split", None) => Value::list(s.split_whitespace().map(|p| Value::Str(p.to_string())).collect()),
                _ => bail!(Type, "{name}() takes at least 1 argument (0 given)"),
            };
            args.finish()?;
            Ok(out)
        }
        (Value::Str(s), "format") => {
            let (pos, kw) = args.into_parts();
            str_format(ctx, s, &pos, &kw)
        }
        (Value::Size(v), "numel") => {
            args.finish()?;
            let mut n: i64 = 1;
            for x in v {
                n = n.saturating_mul(x.as_int("size")?);
            }
            Ok(int(n))
        }
        (Value::Tuple(_) | Value::List(_) | Value::Size(_), "index" | "count") => {
            let x = args.req(0, "value")?;
            args.finish()?;
            let v = recv.items().unwrap_or_default();
            let mut hits = Vec::new();
            for (i, y) in v.iter().enumerate() {
                if y.is_same(&x) || equal_truth(ctx, y, &x)? {
                    hits.push(i);
                }
            }
            match (name, hits.first()) {
                ("count", _) => Ok(int(hits.len() as i64)),
                (_, Some(&i)) => Ok(int(i as i64)),
                _ => bail!(Value, "{} is not in {}", repr(ctx, &x)?, recv.type_name()),
            }
        }
        (Value::List(l), "copy") => {
            args.finish()?;
            Ok(Value::list(l.items()))
        }
        (Value::List(l), "append" | "extend" | "insert" | "pop" | "clear" | "remove" | "reverse") => {
            list_method(ctx, l, name, args)
        }
        (Value::Scalar(Scalar::Float(f)), "is_integer") => {
            args.finish()?;
            Ok(boolean(f.is_finite() && f.fract() == 0.0))
        }
        _ => bail!(Type, "'{}' object has no attribute '{name}'", recv.type_name()),
    }
}

/// `"...{}...{0}...{name:spec}".format(...)`.
fn str_format(ctx: &mut RunContext, s: &str, pos: &[Value], kw: &[(String, Value)]) -> Result<Value> {
    let mut out = String::new();
    let mut auto = 0usize;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let mut field = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(x) => field.push(x),
                        None => bail!(Value, "Single '{{' encountered in format string"),
                    }
                }
                let (key, spec) = field.split_once(':').unwrap_or((field.as_str(), ""));
                let (key, conv) = match key.split_once('!') {
                    Some((k, c)) => (k, c.chars().next()),
                    None => (key, None),
                };
                let at = if key.is_empty() {
                    auto += 1;
                    Some(auto - 1)
                } else {
                    key.parse::<usize>().ok()
                };
                let v = match at {
                    Some(i) => pos.get(i),
                    None => kw.iter().find(|(k, _)| k == key).map(|(_, v)| v),
                };
                let Some(v) = v else {
                    match at {
                        Some(i) => bail!(Index, "Replacement index {i} out of range for positional args tuple"),
                        None => bail!(Index, "KeyError: {}", crate::trace::python::format::str_repr(key)),
                    }
                };
                out.push_str(&format_field(ctx, v, conv, spec)?);
            }
            '}' => bail!(Value, "Single '}}' encountered in format string"),
            c => out.push(c),
        }
    }
    Ok(Value::Str(out))
}

/// The methods that change a list in place, seen through every name that holds it.
fn list_method(ctx: &mut RunContext, l: &List, name: &str, args: Args) -> Result<Value> {
    let (pos, kw) = args.into_parts();
    if let Some((k, _)) = kw.first() {
        bail!(Type, "list.{name}() takes no keyword arguments (got '{k}')");
    }
    let arity = |n: usize| -> Result<()> {
        if pos.len() != n {
            let s = if n == 1 { "" } else { "s" };
            bail!(Type, "list.{name}() takes exactly {n} argument{s} ({} given)", pos.len());
        }
        Ok(())
    };
    let room = |more: usize| -> Result<()> {
        if l.len().saturating_add(more) > MAX_SEQUENCE {
            bail!(Limit, "a list may hold at most {MAX_SEQUENCE} items");
        }
        Ok(())
    };
    match name {
        "append" => {
            arity(1)?;
            room(1)?;
            super::containers::refuse_cycle(l.address(), &pos[0])?;
            l.push(pos[0].clone());
        }
        "extend" => {
            arity(1)?;
            // The items first: `xs.extend(xs)` reads the list before it grows.
            let items = sequence(ctx, pos[0].clone())?;
            room(items.len())?;
            for x in &items {
                super::containers::refuse_cycle(l.address(), x)?;
            }
            l.extend(items);
        }
        "insert" => {
            arity(2)?;
            room(1)?;
            super::containers::refuse_cycle(l.address(), &pos[1])?;
            let n = l.len() as i64;
            let i = pos[0].as_int("index")?;
            let i = if i < 0 { (i + n).max(0) } else { i.min(n) };
            l.insert(i as usize, pos[1].clone());
        }
        "pop" => {
            let n = l.len() as i64;
            let i = match pos.as_slice() {
                [] => n - 1,
                [i] => i.as_int("index")?,
                _ => bail!(Type, "pop expected at most 1 argument, got {}", pos.len()),
            };
            let j = if i < 0 { i + n } else { i };
            if n == 0 {
                bail!(Index, "pop from empty list");
            }
            if !(0..n).contains(&j) {
                bail!(Index, "pop index out of range");
            }
            return Ok(l.remove(j as usize));
        }
        "clear" => {
            arity(0)?;
            l.clear();
        }
        "reverse" => {
            arity(0)?;
            let mut items = l.items();
            items.reverse();
            l.replace(items);
        }
        _ => {
            arity(1)?;
            let items = l.items();
            let mut at = None;
            for (i, y) in items.iter().enumerate() {
                if y.is_same(&pos[0]) || equal_truth(ctx, y, &pos[0])? {
                    at = Some(i);
                    break;
                }
            }
            match at {
                Some(i) => {
                    l.remove(i);
                }
                None => bail!(Value, "list.remove(x): x not in list"),
            }
        }
    }
    Ok(Value::None)
}
