//! Changing lists and dicts in place: item assignment and deletion, and the cycle check every
//! change makes.

use super::*;

/// `v[items] = value` for a dict or a list, in place: every holder of it sees the change.
pub fn setitem(v: Value, items: &[Value], value: Value) -> Result<Value> {
    match (v, items) {
        (Value::Dict(d), [Value::Str(k)]) => {
            refuse_cycle(d.address(), &value)?;
            d.insert(k.clone(), value);
            Ok(Value::Dict(d))
        }
        (Value::Dict(..), [other]) => {
            bail!(Unsupported, "dict keys other than strings are not supported (got {})", other.type_name())
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
        (Value::Dict(d), [Value::Str(k)]) => match d.remove(k) {
            Some(_) => Ok(()),
            None => bail!(Index, "KeyError: {}", format::str_repr(k)),
        },
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

/// Refuses to put into a list or dict (at `target`, its address) a value that holds it
/// (`xs.append(xs)`): Python prints such a value as `[[...]]`; here every walk over values
/// would follow it forever.
pub fn refuse_cycle(target: usize, v: &Value) -> Result<()> {
    fn holds(v: &Value, target: usize, seen: &mut Vec<usize>) -> bool {
        let inner: Vec<Value> = match v {
            Value::List(m) if m.address() == target => return true,
            Value::Dict(m) if m.address() == target => return true,
            // An untracked container holds no list or dict.
            Value::List(m) if !m.tracked() => return false,
            Value::Dict(m) if !m.tracked() => return false,
            Value::List(m) if !seen.contains(&m.address()) => {
                seen.push(m.address());
                m.items()
            }
            Value::Dict(m) if !seen.contains(&m.address()) => {
                seen.push(m.address());
                m.entries().into_iter().map(|(_, x)| x).collect()
            }
            Value::Tuple(items) | Value::Size(items) => return items.iter().any(|x| holds(x, target, seen)),
            Value::Named(_, fields) => return fields.iter().any(|(_, x)| holds(x, target, seen)),
            _ => return false,
        };
        inner.iter().any(|x| holds(x, target, seen))
    }
    if holds(v, target, &mut Vec::new()) {
        bail!(Unsupported, "a list or dict that contains itself is not supported");
    }
    Ok(())
}
