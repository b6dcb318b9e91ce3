//! Assignment targets: a name, a (nested) tuple of names, a starred name inside one, as `for`
//! loops, comprehensions, unpacking assignments and `x = yield v` bind them, with CPython's
//! errors when the counts do not match.

use super::*;
use crate::trace::lang::ast::Target;

impl Run {
    /// Binds a `for` target or what `x = yield v` receives; the names bound.
    pub(in crate::trace) fn bind_target(&mut self, target: &Target, v: Value) -> Result<Vec<String>> {
        match target {
            Target::Name(n) => {
                self.bind(n, v);
                Ok(vec![n.clone()])
            }
            Target::Tuple(ts) => {
                let v = self.sequence(v)?;
                let items = match ts.iter().position(|t| matches!(t, Target::Star(_))) {
                    Some(star) => unpack_starred(v, star, ts.len() - 1)?,
                    None => unpack(Value::Tuple(v), ts.len())?,
                };
                let mut names = Vec::new();
                for (t, v) in ts.iter().zip(items) {
                    names.extend(self.bind_target(t, v)?);
                }
                Ok(names)
            }
            Target::Star(n) => {
                self.bind(n, v);
                Ok(vec![n.clone()])
            }
        }
    }
}

/// Python's unpacking of `a, b = value`.
pub(in crate::trace) fn unpack(v: Value, n: usize) -> Result<Vec<Value>> {
    let items = match v {
        Value::Tuple(v) | Value::Size(v) => v,
        Value::List(l) => l.into_items(),
        Value::Named(_, v) => v.into_iter().map(|(_, x)| x).collect(),
        other => bail!(Type, "cannot unpack non-iterable {} object", other.type_name()),
    };
    if items.len() != n {
        // CPython's ValueErrors, in its words.
        if items.len() < n {
            bail!(Value, "not enough values to unpack (expected {n}, got {})", items.len());
        }
        bail!(Value, "too many values to unpack (expected {n})");
    }
    Ok(items)
}

/// `a, *rest, b = items`: the items with those the starred target takes (at `star`, after
/// `others` targets in all) gathered into one list, in CPython's words when too few.
fn unpack_starred(mut items: Vec<Value>, star: usize, others: usize) -> Result<Vec<Value>> {
    if items.len() < others {
        bail!(Value, "not enough values to unpack (expected at least {others}, got {})", items.len());
    }
    let after = others - star;
    let tail = items.split_off(items.len() - after);
    let middle = items.split_off(star);
    items.push(Value::list(middle));
    items.extend(tail);
    Ok(items)
}
