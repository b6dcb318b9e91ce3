//! Iteration over values: what a `for` loop or a comprehension walks (`Iter`), every item of
//! an iterable (`sequence`), and the iterator objects of `iterator` over this layer's values
//! (the items left, realized or walked for what they keep alive).

use crate::error::{bail, Result};
use crate::trace::nn::layer::LayerKind;
use crate::trace::python::context::RunContext;
use crate::trace::python::iterator;
use crate::trace::python::value::{Function, Value, MAX_SEQUENCE};
use crate::uop::buffer::Scalar;

/// How many items `range(a, b, s)` has.
pub fn range_len(a: i64, b: i64, s: i64) -> usize {
    let n = if s > 0 { (b - a + s - 1).div_euclid(s) } else { (a - b - s - 1).div_euclid(-s) };
    usize::try_from(n.max(0)).unwrap_or(0)
}

/// The iterator types of `iterator` over this layer's values.
pub type Iter = iterator::Iter<Value, Function>;
pub type PyIter = iterator::PyIter<Value, Function>;
pub type SharedIter = iterator::Shared<Value, Function>;
pub type GenFrame = iterator::GenFrame<Value, Function>;
pub type Cursor = iterator::Cursor<Value, Function>;

impl PyIter {
    /// Calls `f` on every value the iterator keeps alive: the items left, a generator's names,
    /// function and the iterators its loops walk.
    pub fn reachable(&self, f: &mut dyn FnMut(&Value)) {
        match self {
            PyIter::Items { items, .. } => items.reachable(f),
            PyIter::Generator(g) => {
                f(&Value::Function(g.function.clone()));
                g.vars.values().for_each(&mut *f);
                for c in &g.cursors {
                    if let Cursor::For { items, .. } | Cursor::Delegate(items) = c {
                        f(&Value::Iterator(items.clone()));
                    }
                }
            }
            PyIter::Enumerate { inner, .. } => f(&Value::Iterator(inner.clone())),
            PyIter::Zip(parts) => parts.iter().for_each(|p| f(&Value::Iterator(p.clone()))),
            PyIter::Indexed { target, .. } => f(target),
        }
    }

    /// Calls `f` on every value the iterator holds, to change it in place (realize it), and
    /// collects the iterators it holds into `inner` (walked by the caller, without this one
    /// borrowed).
    pub fn realize_with(
        &mut self,
        f: &mut dyn FnMut(&mut Value) -> Result<()>,
        inner: &mut Vec<SharedIter>,
    ) -> Result<()> {
        match self {
            PyIter::Items { items, .. } => match &mut **items {
                Iter::Items(xs) => xs.as_mut_slice().iter_mut().try_for_each(f)?,
                Iter::Rows { t, .. } | Iter::ArrayRows { t, .. } => {
                    let mut v = Value::Tensor(t.clone());
                    f(&mut v)?;
                    if let Value::Tensor(r) = v {
                        *t = r;
                    }
                }
                Iter::Shared(it) => inner.push(it.clone()),
                Iter::Range { .. } => {}
            },
            PyIter::Generator(g) => {
                g.vars.values_mut().try_for_each(&mut *f)?;
                for c in &g.cursors {
                    if let Cursor::For { items, .. } | Cursor::Delegate(items) = c {
                        inner.push(items.clone());
                    }
                }
            }
            PyIter::Enumerate { inner: i, .. } => inner.push(i.clone()),
            PyIter::Zip(parts) => inner.extend(parts.iter().cloned()),
            PyIter::Indexed { target, .. } => f(target)?,
        }
        Ok(())
    }

    /// The next item of an iterator that runs no trace code (not a generator, nor an adaptor of
    /// one); `None` when it has ended. Generators advance in the runner.
    pub fn next_item(&mut self, ctx: &mut RunContext) -> Result<Option<Value>> {
        match self {
            PyIter::Items { items, .. } => items.next(ctx),
            other => bail!(Unsupported, "a {} cannot be consumed here; wrap it in list(...) first", other.type_name()),
        }
    }
}

impl Iter {
    /// Calls `f` on every value the iterator still holds.
    pub fn reachable(&self, f: &mut dyn FnMut(&Value)) {
        match self {
            Iter::Range { .. } => {}
            Iter::Items(items) => items.as_slice().iter().for_each(f),
            Iter::Rows { t, .. } | Iter::ArrayRows { t, .. } => f(&Value::Tensor(t.clone())),
            Iter::Shared(it) => f(&Value::Iterator(it.clone())),
        }
    }

    pub fn next(&mut self, ctx: &mut RunContext) -> Result<Option<Value>> {
        Ok(match self {
            Iter::Shared(it) => return it.borrow_mut().next_item(ctx),
            Iter::Range { next, left, step } => {
                if *left == 0 {
                    return Ok(None);
                }
                let v = *next;
                *left -= 1;
                *next = next.wrapping_add(*step);
                Some(Value::Scalar(Scalar::Int(v)))
            }
            Iter::Items(it) => it.next(),
            Iter::Rows { t, i, n } => {
                if *i >= *n {
                    return Ok(None);
                }
                let row = ctx.engine.select(t, 0, *i as i64)?;
                *i += 1;
                Some(Value::Tensor(row))
            }
            Iter::ArrayRows { t, i, n } => {
                if *i >= *n {
                    return Ok(None);
                }
                let row = ctx.engine.select(t, 0, *i as i64)?;
                *i += 1;
                Some(Value::Array(row))
            }
        })
    }
}

/// Starts iterating over `v`.
pub fn iterate(ctx: &mut RunContext, v: Value) -> Result<Iter> {
    Ok(match v {
        Value::Range(a, b, s) => Iter::Range { next: a, left: range_len(a, b, s), step: s },
        Value::Tuple(v) | Value::Size(v) => Iter::Items(v.into_iter()),
        // The items as they are when the loop starts: a loop that grows the list it walks stops
        // at its first length (CPython follows the growth; every statement here walks what the
        // list reaches, so following it makes such a loop's cost grow with its cube).
        Value::List(l) => Iter::Items(l.into_items().into_iter()),
        Value::Named(_, v) => Iter::Items(v.into_iter().map(|(_, x)| x).collect::<Vec<_>>().into_iter()),
        Value::Dict(d) => Iter::Items(d.entries().into_iter().map(|(k, _)| k.value()).collect::<Vec<_>>().into_iter()),
        // A Sequential or ModuleList iterates over its children.
        Value::Layer(l) if matches!(l.kind, LayerKind::Sequential | LayerKind::ModuleList) => Iter::Items(
            l.children.borrow().iter().map(|(_, c)| Value::Layer(c.clone())).collect::<Vec<_>>().into_iter(),
        ),
        Value::Str(s) => Iter::Items(s.chars().map(|c| Value::Str(c.to_string())).collect::<Vec<_>>().into_iter()),
        Value::Tensor(t) => match t.shape().first() {
            Some(&n) => Iter::Rows { t, i: 0, n },
            None => bail!(Type, "iteration over a 0-d tensor"),
        },
        // A 1-d array's items are numbers, read now: nothing else may keep its storage alive.
        Value::Array(t) if t.shape().len() == 1 => {
            let data = ctx.engine.values(&t)?;
            Iter::Items((0..t.numel()).map(|i| Value::Scalar(data.get_scalar(i))).collect::<Vec<_>>().into_iter())
        }
        Value::Array(t) => match t.shape().first() {
            Some(&n) => Iter::ArrayRows { t, i: 0, n },
            None => bail!(Type, "iteration over a 0-d array"),
        },
        Value::Iterator(it) => Iter::Shared(it),
        other => bail!(Type, "'{}' object is not iterable", other.type_name()),
    })
}

/// Every item of an iterable (for unpacking and the builtins that take one).
pub fn sequence(ctx: &mut RunContext, v: Value) -> Result<Vec<Value>> {
    if let Some(v) = v.clone().into_items() {
        return Ok(v);
    }
    let mut it = iterate(ctx, v)?;
    let mut out = Vec::new();
    while let Some(x) = it.next(ctx)? {
        if out.len() >= MAX_SEQUENCE {
            bail!(Limit, "a sequence may hold at most {MAX_SEQUENCE} items");
        }
        out.push(x);
    }
    Ok(out)
}
