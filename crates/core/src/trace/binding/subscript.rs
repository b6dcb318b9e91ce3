//! Subscripts and writes: `a[items]` (basic indexing as a view; advanced indexing, a copy, is
//! `binding/indexing.rs`'s), `a[items] = v`, and the writes they and `fill_`/`zero_`/`copy_`
//! make, with PyTorch's overlap checks.

use crate::error::{bail, Result};
use crate::tensor::{Engine, Operand, OverlapRules, Tensor};
use crate::torch::layout::IndexItem;
use crate::trace::binding::indexing;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::Value;
use crate::uop::buffer::Scalar;

fn index_items(items: &[Value]) -> Result<Vec<IndexItem>> {
    items
        .iter()
        .map(|v| match v {
            Value::Scalar(Scalar::Int(i)) => Ok(IndexItem::Int(*i)),
            // PyTorch's unpacking of an index past 64 bits.
            Value::BigInt(_) => bail!(Value, "Overflow when unpacking long long"),
            Value::Scalar(Scalar::Bool(_)) => {
                bail!(Unsupported, "indexing with a bool is advanced indexing, which is not supported")
            }
            Value::Slice(a, b, c) => Ok(IndexItem::Slice { start: *a, stop: *b, step: *c }),
            Value::None => Ok(IndexItem::NewAxis),
            Value::Ellipsis => Ok(IndexItem::Ellipsis),
            Value::Tensor(_) | Value::List(_) => bail!(
                Unsupported,
                "advanced indexing (with tensors or lists) is not supported: only ints, slices, None and ..."
            ),
            other => bail!(
                Type,
                "only integers, slices (`:`), ellipsis (`...`) and None are valid indices (got {})",
                other.type_name()
            ),
        })
        .collect()
}

pub fn getitem(run: &mut RunContext, base: &Value, items: &[Value]) -> Result<Value> {
    let scalar_items;
    let items = if matches!(base, Value::Tensor(_)) {
        scalar_items = indexing::scalar_tensor_items(run, items)?;
        scalar_items.as_slice()
    } else {
        items
    };
    match base {
        Value::Tensor(t) if indexing::is_advanced(items) => indexing::getitem(run, t, items),
        Value::Tensor(t) => {
            // `a[(1, 2)]` is `a[1, 2]`.
            let flat: Vec<Value> = match items {
                [Value::Tuple(v)] => v.clone(),
                _ => items.to_vec(),
            };
            let items = index_items(&flat)?;
            Ok(Value::Tensor(run.engine.index(t, &items)?))
        }
        Value::Tuple(v) => sequence_item(v, items, "tuple").map(|x| x.unwrap_or_else(Value::Tuple)),
        Value::List(l) => sequence_item(&l.borrow(), items, "list").map(|x| x.unwrap_or_else(Value::list)),
        // A named tuple indexes and slices as the tuple of its fields.
        Value::Named(_, v) => {
            let fields: Vec<Value> = v.iter().map(|(_, x)| x.clone()).collect();
            sequence_item(&fields, items, "tuple").map(|x| x.unwrap_or_else(Value::Tuple))
        }
        other => bail!(Type, "'{}' object is not subscriptable", other.type_name()),
    }
}

/// Python's `items[start:stop:step]` on a tuple or list.
fn slice_items(v: &[Value], start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Result<Vec<Value>> {
    let n = v.len() as i64;
    let step = step.unwrap_or(1);
    if step == 0 {
        bail!(Type, "slice step cannot be zero");
    }
    // Python's `slice.indices`: bounds wrap once, then clamp to the walk's direction.
    let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let clamp = |x: i64| if x < 0 { (x + n).max(lo) } else { x.min(hi) };
    let start = start.map_or(if step > 0 { 0 } else { n - 1 }, clamp);
    let stop = stop.map_or(if step > 0 { n } else { -1 }, clamp);
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(v[i as usize].clone());
        i += step;
    }
    Ok(out)
}

pub fn setitem(run: &mut RunContext, base: &Value, items: &[Value], value: Value) -> Result<()> {
    let Value::Tensor(t) = base else { bail!(Type, "'{}' object does not support item assignment", base.type_name()) };
    let items = &indexing::scalar_tensor_items(run, items)?;
    if indexing::is_advanced(items) {
        return indexing::setitem(run, t, items, value);
    }
    let Value::Tensor(view) = getitem(run, base, items)? else { unreachable!("indexing a tensor gives a tensor") };
    match value {
        Value::Scalar(s) => fill(run, &view, Operand::Scalar(s), "fill_"),
        Value::BigInt(b) => {
            let s = crate::trace::python::value::big_operand(&b)?;
            fill(run, &view, Operand::Scalar(s), "fill_")
        }
        // PyTorch's `copy_to`: equal sizes copy as they are; a 0-d value fills; anything else
        // drops its leading size-1 dims and is expanded to the indexing result first.
        Value::Tensor(src) if src.shape() == view.shape() => copy_into(run, &view, &src, "setitem"),
        Value::Tensor(src) if src.shape().is_empty() => fill(run, &view, Operand::Tensor(src), "fill_"),
        Value::Tensor(src) => {
            let src = run.engine.setitem_source(&src, view.shape())?;
            copy_into(run, &view, &src, "setitem")
        }
        other => bail!(Type, "can't assign a {} to a Tensor", other.type_name()),
    }
    .map(|_| ())
}

// ------------------------------------------------------------------------------- writes

/// `fill_`/`zero_`/`a[i] = scalar`: any dtype is cast; overlap as PyTorch checks it for fills.
pub(in crate::trace) fn fill(run: &mut RunContext, target: &Tensor, v: Operand, op: &str) -> Result<Tensor> {
    let target = run.engine.realize(target)?;
    let inputs: Vec<Tensor> = match &v {
        Operand::Tensor(t) => vec![t.clone()],
        Operand::Scalar(s) => {
            s.checked_for(target.dtype())?;
            vec![]
        }
    };
    // Filling with a scalar checks nothing; with a 0-d tensor PyTorch refuses a target that
    // repeats elements but accepts any overlap with the value.
    let rules = match &v {
        Operand::Scalar(_) => overlap_rules(op),
        Operand::Tensor(_) => OverlapRules { internal: true, partial: false },
    };
    run.engine.check_write_overlap(&target, &inputs, rules)?;
    let input_refs: Vec<&Tensor> = inputs.iter().collect();
    let old = run.engine.begin_tracked_unread(&target, &input_refs)?;
    let node = run.engine.value_node(&v, target.dtype(), target.shape())?;
    let w = run.engine.write(&target, node)?;
    run.record_write(w);
    let target = run.engine.resolve(&target);
    if let Some(old) = old {
        let src = match &v {
            Operand::Tensor(t) => Some(t),
            Operand::Scalar(_) => None,
        };
        let op = match src {
            Some(t) => crate::autograd::GradOp::Copy { src_shape: t.shape().to_vec(), src_dtype: t.dtype() },
            None => {
                crate::autograd::GradOp::Fill { node: if op == "zero_" { "ZeroBackward0" } else { "FillBackward0" } }
            }
        };
        run.engine.finish_inplace(&target, op, old, &[src]);
    }
    Ok(target)
}

/// `copy_` and `a[i] = tensor`: broadcast the source, cast any dtype.
pub(in crate::trace) fn copy_into(run: &mut RunContext, target: &Tensor, src: &Tensor, op: &str) -> Result<Tensor> {
    let target = run.engine.realize(target)?;
    let src = run.engine.realize(src)?;
    // `copy_` returns early when source and target are the same data (same storage and layout).
    let same_data =
        src.storage() == target.storage() && src.layout() == target.layout() && src.dtype() == target.dtype();
    if !same_data {
        run.engine.check_write_overlap(&target, std::slice::from_ref(&src), overlap_rules(op))?;
    }
    let src = &src;
    // TensorIterator broadcasts the output first: "tensor a" is the target.
    let shape = Engine::broadcast_shapes(&[target.shape(), src.shape()])?;
    if shape != target.shape() {
        bail!(Shape, "output with shape {:?} doesn't match the broadcast shape {:?}", target.shape(), shape);
    }
    if op == "copy_" {
        run.engine.bridge_check_copy(&target, src.shape())?;
    }
    let old = run.engine.begin_tracked_unread(&target, &[src])?;
    let node = run.engine.value_node(&Operand::Tensor(src.clone()), target.dtype(), target.shape())?;
    let w = run.engine.write(&target, node)?;
    run.record_write(w);
    let target = run.engine.resolve(&target);
    if let Some(old) = old {
        let op = crate::autograd::GradOp::Copy { src_shape: src.shape().to_vec(), src_dtype: src.dtype() };
        run.engine.finish_inplace(&target, op, old, &[Some(src)]);
    }
    Ok(target)
}

/// Which overlap checks PyTorch 2.x makes for each writing op (see `torch::overlap`).
fn overlap_rules(op: &str) -> OverlapRules {
    match op {
        "fill_" | "zero_" => OverlapRules::NONE,
        _ => OverlapRules::ALL,
    }
}

/// `v[i]` of a tuple's or a list's items (`Ok(item)`), or `v[a:b:c]` (`Err(items)`, for the
/// caller to wrap as its own kind).
fn sequence_item(v: &[Value], items: &[Value], kind: &str) -> Result<std::result::Result<Value, Vec<Value>>> {
    if let [Value::Slice(start, stop, step)] = items {
        return slice_items(v, *start, *stop, *step).map(Err);
    }
    let [i] = items else { bail!(Type, "{kind} indices must be integers or slices, not tuple") };
    if let Value::BigInt(_) = i {
        bail!(Index, "cannot fit 'int' into an index-sized integer");
    }
    let i = match i {
        Value::Scalar(Scalar::Int(i)) => *i,
        Value::Scalar(Scalar::Bool(b)) => i64::from(*b),
        other => bail!(Type, "{kind} indices must be integers or slices, not {}", other.type_name()),
    };
    let n = v.len() as i64;
    let j = if i < 0 { i + n } else { i };
    if !(0..n).contains(&j) {
        bail!(Index, "{kind} index out of range");
    }
    Ok(Ok(v[j as usize].clone()))
}
