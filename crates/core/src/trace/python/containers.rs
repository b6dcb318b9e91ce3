//! Subscripts of Python's containers: reading (`size[i]`, `s[a:b]`, `d[k]`, `range(n)[i]`),
//! and changing lists and dicts in place (item assignment and deletion, with the cycle check
//! every change makes).

use super::*;

/// `v[items] = value` for a dict or a list, in place: every holder of it sees the change.
pub fn setitem(v: Value, items: &[Value], value: Value) -> Result<Value> {
    match (v, items) {
        (Value::Dict(d), _) => {
            let key = subscript_key(items)?;
            refuse_cycle(d.address(), &value)?;
            if let Key::Other(k) = &key {
                refuse_cycle(d.address(), k)?;
            }
            d.insert(key, value);
            Ok(Value::Dict(d))
        }
        (Value::List(l), [Value::Scalar(Scalar::Int(i))]) => {
            refuse_cycle(l.address(), &value)?;
            let n = l.len() as i64;
            let at = if *i < 0 { i + n } else { *i };
            if at < 0 || at >= n {
                bail!(Index, "list assignment index out of range");
            }
            l.set(at as usize, value);
            Ok(Value::List(l))
        }
        (Value::List(_), _) => bail!(Type, "list indices must be integers"),
        (other, _) => bail!(Type, "'{}' object does not support item assignment", other.type_name()),
    }
}

/// `del v[items]` for a list (an index or a slice) or a dict (a key), in place.
pub fn delitem(v: Value, items: &[Value]) -> Result<()> {
    match (v, items) {
        (Value::Dict(d), _) => {
            let key = subscript_key(items)?;
            match d.remove(&key) {
                Some(_) => Ok(()),
                None => Err(key_error(&key)),
            }
        }
        (Value::List(l), [Value::Scalar(Scalar::Int(i))]) => {
            let n = l.len() as i64;
            let at = if *i < 0 { i + n } else { *i };
            if !(0..n).contains(&at) {
                bail!(Index, "list assignment index out of range");
            }
            l.remove(at as usize);
            Ok(())
        }
        (Value::List(l), [Value::Slice(start, stop, step)]) => {
            let keep = slice_positions(l.len() as i64, *start, *stop, *step)?;
            let items: Vec<Value> =
                l.items().into_iter().enumerate().filter(|(k, _)| !keep.contains(k)).map(|(_, x)| x).collect();
            l.replace(items);
            Ok(())
        }
        (Value::List(_), [other]) => bail!(Type, "list indices must be integers or slices, not {}", other.type_name()),
        (other, _) => bail!(Type, "'{}' object doesn't support item deletion", other.type_name()),
    }
}

/// The key `d[items]` names: the one item, or the tuple of several (`d[1, 2]` is `d[(1, 2)]`).
fn subscript_key(items: &[Value]) -> Result<Key> {
    match items {
        [one] => Key::of(one.clone()),
        many => Key::of(Value::Tuple(many.to_vec())),
    }
}

/// Python's `KeyError` for a missing key (its message is the key's repr).
pub fn key_error(key: &Key) -> crate::error::Error {
    crate::error::Error::Index(format!("KeyError: {}", repr_plain(&key.value())))
}

/// Refuses to put into a list or dict (at `target`, its address) a value that holds it
/// (`xs.append(xs)`): Python prints such a value as `[[...]]`; here every walk over values
/// would follow it forever.
pub fn refuse_cycle(target: usize, v: &Value) -> Result<()> {
    // Each list and dict is looked into once, its items borrowed, not copied.
    fn holds(v: &Value, target: usize, seen: &mut std::collections::HashSet<usize>) -> bool {
        match v {
            Value::List(m) if m.address() == target => true,
            Value::Dict(m) if m.address() == target => true,
            // An untracked container holds no list or dict.
            Value::List(m) if !m.tracked() || !seen.insert(m.address()) => false,
            Value::Dict(m) if !m.tracked() || !seen.insert(m.address()) => false,
            Value::List(m) => m.borrow().iter().any(|x| holds(x, target, seen)),
            Value::Dict(m) => m.borrow().iter().any(|(_, x)| holds(x, target, seen)),
            Value::Tuple(items) | Value::Size(items) => items.iter().any(|x| holds(x, target, seen)),
            Value::Named(_, fields) => fields.iter().any(|(_, x)| holds(x, target, seen)),
            _ => false,
        }
    }
    if holds(v, target, &mut std::collections::HashSet::new()) {
        bail!(Unsupported, "a list or dict that contains itself is not supported");
    }
    Ok(())
}

/// `v[items]` for a torch.Size, a str or a range.
pub fn getitem(v: Value, items: &[Value]) -> Result<Value> {
    if let Value::Dict(d) = &v {
        let key = subscript_key(items)?;
        return d.get_key(&key).ok_or_else(|| key_error(&key));
    }
    let [i] = items else { bail!(Type, "{} indices must be integers or slices", v.type_name()) };
    let seq: Vec<Value> = match &v {
        Value::Size(x) => x.clone(),
        Value::Str(s) => s.chars().map(|c| Value::Str(c.to_string())).collect(),
        Value::Range(a, b, s) => {
            let n = range_len(*a, *b, *s);
            if n > MAX_SEQUENCE {
                bail!(Limit, "a range may be indexed only when it has at most {MAX_SEQUENCE} items");
            }
            (0..n as i64).map(|k| int(a + k * s)).collect()
        }
        other => bail!(Type, "'{}' object is not subscriptable", other.type_name()),
    };
    let n = seq.len() as i64;
    match i {
        Value::Slice(start, stop, step) => {
            let out: Vec<Value> =
                slice_positions(n, *start, *stop, *step)?.into_iter().map(|k| seq[k].clone()).collect();
            Ok(match v {
                Value::Size(_) => Value::Size(out),
                Value::Str(_) => Value::Str(
                    out.iter().filter_map(|c| if let Value::Str(s) = c { Some(s.as_str()) } else { None }).collect(),
                ),
                _ => Value::list(out),
            })
        }
        Value::BigInt(_) => bail!(Index, "cannot fit 'int' into an index-sized integer"),
        i => {
            let k = i.as_int(&format!("{} index", v.type_name()))?;
            let j = if k < 0 { k + n } else { k };
            if !(0..n).contains(&j) {
                bail!(Index, "{} index out of range", v.type_name());
            }
            Ok(seq[j as usize].clone())
        }
    }
}

/// The positions `seq[start:stop:step]` takes from a sequence of `n` items, as Python's
/// `slice.indices` gives them.
pub fn slice_positions(n: i64, start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Result<Vec<usize>> {
    let step = step.unwrap_or(1);
    if step == 0 {
        bail!(Value, "slice step cannot be zero");
    }
    let norm = |x: i64| if x < 0 { x + n } else { x };
    let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let s = start.map_or(if step > 0 { 0 } else { n - 1 }, |x| norm(x).clamp(lo, hi));
    let e = stop.map_or(if step > 0 { n } else { -1 }, |x| norm(x).clamp(lo, hi));
    let mut out = Vec::new();
    let mut k = s;
    while (step > 0 && k < e) || (step < 0 && k > e) {
        out.push(k as usize);
        k += step;
    }
    Ok(out)
}
