//! Advanced indexing in the trace language: the subscript items that make `a[items]` a copy
//! (index tensors, lists, bools) and `a[items] = v` an `index_put_`, and the names and
//! arguments of the index ops (`gather`, `scatter*`, `index_*`, `masked_*`, `put_`, `take`,
//! `nonzero`, `sort`, `topk`, `unique`, `bincount`, `F.one_hot`, one-argument `torch.where`).
//!
//! Only names and argument binding live here; the ops are [`crate::engine::indexing`]'s.

use crate::dtype::DType;
use crate::engine::data_shaped::TopK;
use crate::engine::indexing::{Combine, Index};
use crate::error::{bail, Result};
use crate::tensor::{Operand, OverlapRules, Tensor};
use crate::torch::layout::IndexItem;
use crate::trace::binding::elementwise::{operand, tensor_arg};
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::{Data, Scalar};

/// Tensor methods bound here (each also a `torch.` function taking the tensor first, except
/// the in-place ones PyTorch has only as methods).
pub(in crate::trace) const METHODS: &[&str] = &[
    "index_select",
    "masked_select",
    "masked_scatter",
    "masked_scatter_",
    "gather",
    "scatter",
    "scatter_",
    "scatter_add",
    "scatter_add_",
    "scatter_reduce",
    "scatter_reduce_",
    "index_fill",
    "index_fill_",
    "index_add",
    "index_add_",
    "index_copy",
    "index_copy_",
    "index_put",
    "index_put_",
    "put_",
    "put",
    "take",
    "take_along_dim",
    "nonzero",
    "argwhere",
    "sort",
    "argsort",
    "msort",
    "topk",
    "unique",
    "bincount",
];

/// Whether `torch.name` / `F.name` is bound here.
pub fn is_function(name: &str) -> bool {
    (METHODS.contains(&name) && !name.ends_with('_')) || name == "one_hot"
}

/// Whether `t.name(...)` is bound here.
pub fn is_method(name: &str) -> bool {
    METHODS.contains(&name)
}

/// The items with each 0-d integer tensor read as the int it holds (PyTorch indexes with it
/// as with an int: a view).
pub fn scalar_tensor_items(run: &mut RunContext, items: &[Value]) -> Result<Vec<Value>> {
    items
        .iter()
        .map(|v| match v {
            Value::Tensor(t) if t.shape().is_empty() && matches!(t.dtype(), DType::Int64 | DType::Int32) => {
                Ok(Value::Scalar(run.engine.values(t)?.get_scalar(0)))
            }
            Value::Tuple(v) => Ok(Value::Tuple(scalar_tensor_items(run, v)?)),
            other => Ok(other.clone()),
        })
        .collect()
}

/// Whether a subscript's items make it advanced indexing (a tensor other than a 0-d integer
/// one, a list, a bool).
pub fn is_advanced(items: &[Value]) -> bool {
    items.iter().any(|v| match v {
        Value::Tensor(t) => !(t.shape().is_empty() && matches!(t.dtype(), DType::Int64 | DType::Int32)),
        Value::List(_) | Value::Scalar(Scalar::Bool(_)) => true,
        Value::Tuple(v) => is_advanced(v),
        _ => false,
    })
}

/// A Python list used as an index: nested ints or bools as one int64 or bool tensor.
fn list_tensor(run: &mut RunContext, v: &[Value]) -> Result<Tensor> {
    fn walk(v: &Value, depth: usize, shape: &mut Vec<usize>, out: &mut Vec<Scalar>) -> Result<()> {
        match &*v.seq_ref() {
            Value::Tuple(items) => {
                if shape.len() == depth {
                    shape.push(items.len());
                } else if shape.get(depth) != Some(&items.len()) {
                    bail!(Shape, "expected sequence of length {} at dim {depth} (got {})", shape[depth], items.len());
                }
                items.iter().try_for_each(|x| walk(x, depth + 1, shape, out))
            }
            Value::Scalar(s @ (Scalar::Int(_) | Scalar::Bool(_))) => {
                out.push(*s);
                Ok(())
            }
            Value::Tensor(t) if t.numel() == 1 => bail!(Unsupported, "a list of tensors as an index is not supported"),
            other => bail!(Index, "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})", other.type_name()),
        }
    }
    let mut shape = Vec::new();
    let mut flat = Vec::new();
    walk(&Value::Tuple(v.to_vec()), 0, &mut shape, &mut flat)?;
    let all_bool = !flat.is_empty() && flat.iter().all(|s| matches!(s, Scalar::Bool(_)));
    let dtype = if all_bool { DType::Bool } else { DType::Int64 };
    run.engine.from_data(Data::from_scalars(dtype, &flat), &shape)
}

/// A list is treated as a tuple of items (PyTorch's deprecated rule) when it holds anything
/// but numbers: a sequence, a slice, None, `...` or a tensor.
fn sequence_as_tuple(v: &[Value]) -> bool {
    v.iter().any(|x| {
        matches!(
            x,
            Value::List(_) | Value::Tuple(_) | Value::Tensor(_) | Value::Slice(..) | Value::None | Value::Ellipsis
        )
    })
}

/// The subscript's items as the engine's index items.
fn index_items(run: &mut RunContext, items: &[Value]) -> Result<Vec<Index>> {
    let flat: Vec<Value> = match items {
        [Value::Tuple(v)] => v.clone(),
        [Value::List(l)] if sequence_as_tuple(&l.borrow()) => l.items(),
        _ => items.to_vec(),
    };
    flat.iter()
        .map(|v| {
            Ok(match v {
                Value::Scalar(Scalar::Int(i)) => Index::Item(IndexItem::Int(*i)),
                // PyTorch's unpacking of an index past 64 bits.
                Value::BigInt(_) => bail!(Value, "Overflow when unpacking long long"),
                Value::Scalar(Scalar::Bool(b)) => Index::Bool(*b),
                Value::Slice(a, b, c) => Index::Item(IndexItem::Slice { start: *a, stop: *b, step: *c }),
                Value::None => Index::Item(IndexItem::NewAxis),
                Value::Ellipsis => Index::Item(IndexItem::Ellipsis),
                Value::Tensor(t) if t.shape().is_empty() && matches!(t.dtype(), DType::Int64 | DType::Int32) => {
                    Index::Item(IndexItem::Int(run.engine.values(t)?.get_scalar(0).as_i64()))
                }
                Value::Tensor(t) => Index::Tensor(t.clone()),
                Value::List(l) => Index::Tensor(list_tensor(run, &l.items())?),
                other => bail!(
                    Index,
                    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})",
                    other.type_name()
                ),
            })
        })
        .collect()
}

/// `t[items]` with an advanced index: a copy.
pub fn getitem(run: &mut RunContext, t: &Tensor, items: &[Value]) -> Result<Value> {
    let items = index_items(run, items)?;
    Ok(Value::Tensor(run.engine.advanced_index(t, &items)?))
}

/// `t[items] = value` with an advanced index: `index_put_` into `t`'s storage.
pub fn setitem(run: &mut RunContext, t: &Tensor, items: &[Value], value: Value) -> Result<()> {
    // `x[False] = v` alone writes nothing and is no write (PyTorch returns early).
    if let [Value::Scalar(Scalar::Bool(false))] = items {
        return Ok(());
    }
    let items = index_items(run, items)?;
    let value = match value {
        Value::Scalar(s) => Operand::Scalar(s),
        Value::BigInt(b) => Operand::Scalar(crate::trace::python::value::big_operand(&b)?),
        Value::Tensor(v) => {
            // `a[idx] op= v` reads a copy, changes it in place and puts it back: the copy is
            // a temporary, and its write is no part of what the step shows.
            if v.copy_reason() == Some(crate::engine::indexing::ADVANCED_INDEX_COPY) {
                if let crate::tensor::StorageRef::Realized(s) = v.storage() {
                    run.forget_writes(s);
                }
            }
            // PyTorch drops the value's leading size-1 dims first (`slicePrefix1sSize`).
            let keep = v.shape().iter().position(|&n| n != 1).unwrap_or(v.shape().len());
            if keep > 0 {
                let rest: Vec<i64> = v.shape()[keep..].iter().map(|&n| n as i64).collect();
                Operand::Tensor(run.engine.view(&v, &rest)?)
            } else {
                Operand::Tensor(v)
            }
        }
        other => bail!(Type, "can't assign a {} to a Tensor", other.type_name()),
    };
    let w = run.engine.index_put(t, &items, &value, false)?;
    run.record_write(w);
    Ok(())
}

fn tensor(t: Tensor) -> Result<Value> {
    Ok(Value::Tensor(t))
}

/// A named tuple `(values, indices)`. Its tensors are realized now: the runner realizes the
/// names a statement binds, not the tensors inside a tuple bound to one name.
fn named(run: &mut RunContext, op: &str, values: Tensor, indices: Tensor) -> Result<Value> {
    let (values, indices) = (run.engine.realize(&values)?, run.engine.realize(&indices)?);
    Ok(Value::named(op, vec![("values", Value::Tensor(values)), ("indices", Value::Tensor(indices))]))
}

/// A plain tuple of tensors, realized for the same reason.
fn tuple(run: &mut RunContext, ts: Vec<Tensor>) -> Result<Value> {
    let ts: Result<Vec<Value>> = ts.iter().map(|t| run.engine.realize(t).map(Value::Tensor)).collect();
    Ok(Value::Tuple(ts?))
}

/// `torch.name(args)`: the tensor first, then as the method.
pub fn function(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    if name == "one_hot" {
        let t = tensor_arg(args.req(0, "input")?, "one_hot(): argument 'input'")?;
        let n = args.int_or(1, "num_classes", -1)?;
        args.finish()?;
        return tensor(run.engine.one_hot(&t, n)?);
    }
    if name == "where" {
        let c = tensor_arg(args.req(0, "condition")?, "where(): argument 'condition'")?;
        args.finish()?;
        return nonzero_tuple(run, &c);
    }
    let t = tensor_arg(args.req(0, "input")?, &format!("{name}(): argument 'input'"))?;
    method(run, t, name, args.shifted())
}

/// Whether `torch.where(...)` is the one-argument form bound here.
pub fn is_where_tuple(args: &Args) -> bool {
    args.len_pos() == 1 && args.peek(1).is_none()
}

/// `nonzero(as_tuple=True)` and `torch.where(cond)`: the nonzero result unbound along dim 1
/// (views of its one storage, as PyTorch's `nonzero_numpy`).
fn nonzero_tuple(run: &mut RunContext, t: &Tensor) -> Result<Value> {
    let t = if t.shape().is_empty() { run.engine.unsqueeze(t, 0)? } else { t.clone() };
    let nz = run.engine.nonzero(&t)?;
    let nz = run.engine.realize(&nz)?;
    let parts = run.engine.unbind(&nz, 1)?;
    tuple(run, parts)
}

fn index_arg(args: &mut Args, i: usize, name: &str, op: &str) -> Result<Tensor> {
    tensor_arg(args.req(i, name)?, &format!("{op}(): argument '{name}'"))
}

fn reduce_arg(args: &mut Args, name: &str) -> Result<Option<String>> {
    match args.kw_only(name) {
        None | Some(Value::None) => Ok(None),
        Some(Value::Str(s)) => Ok(Some(s)),
        Some(v) => bail!(Type, "argument '{name}' must be str, not {}", v.type_name()),
    }
}

/// `t.name(args)`.
pub fn method(run: &mut RunContext, t: Tensor, name: &str, mut args: Args) -> Result<Value> {
    let t = run.engine.resolve(&t);
    let inplace = name.ends_with('_');
    let base = name.trim_end_matches('_');
    match base {
        "index_select" => {
            let dim = args.int(0, "dim")?;
            let index = index_arg(&mut args, 1, "index", name)?;
            args.finish()?;
            tensor(run.engine.index_select(&t, dim, &index)?)
        }
        "masked_select" => {
            let mask = index_arg(&mut args, 0, "mask", name)?;
            args.finish()?;
            tensor(run.engine.masked_select(&t, &mask)?)
        }
        "masked_scatter" => {
            let mask = index_arg(&mut args, 0, "mask", name)?;
            let source = index_arg(&mut args, 1, "source", name)?;
            args.finish()?;
            if inplace && run.engine.inplace_tracked(&t, &[&mask, &source]) {
                let value = run.engine.masked_scatter(&t, &mask, &source)?;
                write_tracked(run, &t, &[mask, source], value, name)
            } else if inplace {
                let w = run.engine.masked_scatter_(&t, &mask, &source)?;
                run.record_write(w);
                tensor(run.engine.resolve(&t))
            } else {
                tensor(run.engine.masked_scatter(&t, &mask, &source)?)
            }
        }
        "gather" | "take_along_dim" => {
            let (dim, index) = if base == "gather" {
                let dim = args.int(0, "dim")?;
                (Some(dim), index_arg(&mut args, 1, "index", name)?)
            } else {
                let index = index_arg(&mut args, 0, "indices", name)?;
                (args.opt_int(1, "dim")?, index)
            };
            let _ = args.kw_only("sparse_grad");
            args.finish()?;
            match (base, dim) {
                ("gather", Some(d)) => tensor(run.engine.gather(&t, d, &index)?),
                (_, None) => {
                    let flat = run.engine.reshape(&t, &[-1])?;
                    let idx = run.engine.reshape(&index, &[-1])?;
                    let idx = wrap_negative(run, &idx, t.numel())?;
                    tensor(run.engine.gather(&flat, 0, &idx)?)
                }
                (_, Some(d)) => {
                    // take_along_dim broadcasts the two apart from `dim`.
                    let nd = t.shape().len();
                    let dd = crate::strided::wrap_dim(d, nd.max(1))?;
                    if index.shape().len() != nd {
                        bail!(Shape, "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} dimensions for input, and {} dimensions for indices", nd, index.shape().len());
                    }
                    let mut ts = t.shape().to_vec();
                    let mut is = index.shape().to_vec();
                    ts[dd] = 1;
                    is[dd] = 1;
                    let b = crate::tensor::Engine::broadcast_shapes(&[&ts, &is])?;
                    let mut tb: Vec<i64> = b.iter().map(|&n| n as i64).collect();
                    let mut ib = tb.clone();
                    tb[dd] = t.shape()[dd] as i64;
                    ib[dd] = index.shape()[dd] as i64;
                    let te = run.engine.expand(&t, &tb)?;
                    // Unlike gather, take_along_dim counts negative positions from the end.
                    let index = wrap_negative(run, &index, t.shape()[dd])?;
                    let ie = run.engine.expand(&index, &ib)?;
                    tensor(run.engine.gather(&te, d, &ie)?)
                }
            }
        }
        "scatter" | "scatter_add" | "scatter_reduce" => {
            let dim = args.int(0, "dim")?;
            let index = index_arg(&mut args, 1, "index", name)?;
            let (src, combine, include_self) = match base {
                "scatter" => {
                    let src = match args.opt(2, "src").or_else(|| args.kw_only("value")) {
                        Some(v) => operand(v, "src")?,
                        None => bail!(Type, "{name}() missing required argument 'src'"),
                    };
                    let combine = match reduce_arg(&mut args, "reduce")? {
                        None => Combine::Replace,
                        Some(r) if r == "add" || r == "multiply" => Combine::from_name(&r).unwrap_or(Combine::Replace),
                        Some(r) => bail!(Shape, "reduce argument must be either add or multiply. Got {r}"),
                    };
                    (src, combine, true)
                }
                "scatter_add" => (operand(args.req(2, "src")?, "src")?, Combine::Sum, true),
                _ => {
                    let src = operand(args.req(2, "src")?, "src")?;
                    let reduce = match args.opt(3, "reduce") {
                        Some(Value::Str(s)) => s,
                        _ => bail!(Type, "{name}() missing required argument 'reduce'"),
                    };
                    let Some(c) = Combine::from_name(&reduce).filter(|_| reduce != "add" && reduce != "multiply")
                    else {
                        bail!(Shape, "reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
                    };
                    let include_self = args.bool_or(4, "include_self", true)?;
                    (src, c, include_self)
                }
            };
            args.finish()?;
            if base != "scatter" && matches!(src, Operand::Scalar(_)) {
                bail!(Type, "{name}(): argument 'src' must be Tensor, not number");
            }
            let src_t: Vec<Tensor> = match &src {
                Operand::Tensor(x) => vec![x.clone()],
                Operand::Scalar(_) => vec![],
            };
            let tracked = inplace && run.engine.inplace_tracked(&t, &src_t.iter().chain([&index]).collect::<Vec<_>>());
            if tracked {
                let value = run.engine.scatter(&t, dim, &index, &src, combine, include_self, base)?;
                let inputs: Vec<Tensor> = src_t.into_iter().chain([index]).collect();
                write_tracked(run, &t, &inputs, value, name)
            } else if inplace {
                let w = run.engine.scatter_(&t, dim, &index, &src, combine, include_self, name)?;
                run.record_write(w);
                tensor(run.engine.resolve(&t))
            } else {
                tensor(run.engine.scatter(&t, dim, &index, &src, combine, include_self, name)?)
            }
        }
        "index_fill" | "index_add" | "index_copy" => {
            let dim = args.int(0, "dim")?;
            let index = index_arg(&mut args, 1, "index", name)?;
            let (source, combine) = match base {
                "index_fill" => {
                    let v = operand(args.req(2, "value")?, "value")?;
                    if let Operand::Scalar(s) = &v {
                        s.checked_for(t.dtype())?;
                    }
                    if let Operand::Tensor(x) = &v {
                        if !x.shape().is_empty() {
                            bail!(Shape, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).", x.shape().len());
                        }
                    }
                    (v, Combine::Replace)
                }
                "index_copy" => (Operand::Tensor(index_arg(&mut args, 2, "source", name)?), Combine::Replace),
                _ => {
                    let src = index_arg(&mut args, 2, "source", name)?;
                    let src = match args.opt(3, "alpha") {
                        None => Operand::Tensor(src),
                        Some(a) => {
                            let a = a.as_scalar("alpha")?;
                            let scaled = run.engine.binary(
                                crate::uop::BinaryOp::Mul,
                                &Operand::Tensor(src.clone()),
                                &Operand::Scalar(a),
                            )?;
                            let scaled = run.engine.cast(&scaled, src.dtype())?;
                            Operand::Tensor(scaled)
                        }
                    };
                    (src, Combine::Sum)
                }
            };
            args.finish()?;
            let src_t: Vec<Tensor> = match &source {
                Operand::Tensor(x) => vec![x.clone()],
                Operand::Scalar(_) => vec![],
            };
            let tracked = inplace && run.engine.inplace_tracked(&t, &src_t.iter().chain([&index]).collect::<Vec<_>>());
            if tracked {
                let value = run.engine.index_dim(&t, dim, &index, &source, combine, base)?;
                let inputs: Vec<Tensor> = src_t.into_iter().chain([index]).collect();
                write_tracked(run, &t, &inputs, value, name)
            } else if inplace {
                let w = run.engine.index_dim_(&t, dim, &index, &source, combine, name)?;
                run.record_write(w);
                tensor(run.engine.resolve(&t))
            } else {
                tensor(run.engine.index_dim(&t, dim, &index, &source, combine, name)?)
            }
        }
        "index_put" => {
            let indices = args.req(0, "indices")?;
            let values = tensor_arg(args.req(1, "values")?, "index_put(): argument 'values'")?;
            let accumulate = args.bool_or(2, "accumulate", false)?;
            args.finish()?;
            let Some(list) = indices.items() else {
                bail!(Type, "index_put(): argument 'indices' must be tuple of Tensors")
            };
            let mut items = Vec::new();
            for v in list.iter() {
                match v {
                    Value::Tensor(x) => items.push(Index::Tensor(x.clone())),
                    Value::None => items.push(Index::Item(IndexItem::Slice { start: None, stop: None, step: None })),
                    other => bail!(
                        Type,
                        "index_put(): argument 'indices' must be tuple of Tensors, not {}",
                        other.type_name()
                    ),
                }
            }
            let tracked = run.engine.inplace_tracked(&t, &[&values]);
            let values = Operand::Tensor(values);
            if !inplace && !tracked {
                return tensor(run.engine.index_put_functional(&t, &items, &values, accumulate)?);
            }
            // With autograd, the functional form is the in-place one on a recorded clone.
            let t = if inplace { t } else { run.engine.copy(&t)? };
            let w = run.engine.index_put(&t, &items, &values, accumulate)?;
            let t = run.engine.resolve(&t);
            if !inplace {
                // The functional op's own write is not the user's: no record, version 0.
                return tensor(run.engine.with_fresh_counter(&t));
            }
            run.record_write(w);
            tensor(t)
        }
        "put" => {
            let index = index_arg(&mut args, 0, "index", name)?;
            let source = index_arg(&mut args, 1, "source", name)?;
            let accumulate = args.bool_or(2, "accumulate", false)?;
            args.finish()?;
            if !inplace {
                return tensor(run.engine.put(&t, &index, &source, accumulate)?);
            }
            if run.engine.inplace_tracked(&t, &[&index, &source]) {
                let value = run.engine.put(&t, &index, &source, accumulate)?;
                return write_tracked(run, &t, &[index, source], value, name);
            }
            let w = run.engine.put_(&t, &index, &source, accumulate)?;
            run.record_write(w);
            tensor(run.engine.resolve(&t))
        }
        "take" => {
            let index = index_arg(&mut args, 0, "index", name)?;
            args.finish()?;
            tensor(run.engine.take(&t, &index)?)
        }
        "nonzero" => {
            let as_tuple = args.bool_or(0, "as_tuple", false)?;
            args.finish()?;
            if as_tuple {
                nonzero_tuple(run, &t)
            } else {
                tensor(run.engine.nonzero(&t)?)
            }
        }
        "argwhere" => {
            args.finish()?;
            tensor(run.engine.nonzero(&t)?)
        }
        "sort" | "argsort" | "msort" => {
            let (dim, descending) = if base == "msort" {
                (0, false)
            } else if matches!(args.peek(0), Some(Value::Scalar(Scalar::Bool(_)))) {
                // `sort(stable, dim, descending)` is the keyword form; a bool first is `stable`.
                let _ = args.opt(0, "stable");
                (args.int_or(1, "dim", -1)?, args.bool_or(2, "descending", false)?)
            } else {
                (args.int_or(0, "dim", -1)?, args.bool_or(1, "descending", false)?)
            };
            let _ = args.kw_only("stable");
            args.finish()?;
            let (values, indices) = run.engine.sort(&t, dim, descending)?;
            match base {
                "argsort" => tensor(indices),
                "msort" => tensor(values),
                _ => named(run, "sort", values, indices),
            }
        }
        "topk" => {
            let k = args.int(0, "k")?;
            let dim = args.int_or(1, "dim", -1)?;
            let largest = args.bool_or(2, "largest", true)?;
            let sorted = args.bool_or(3, "sorted", true)?;
            args.finish()?;
            let (values, indices) = run.engine.topk(&t, k, dim, TopK { largest, sorted })?;
            named(run, "topk", values, indices)
        }
        "unique" => {
            let _sorted = args.bool_or(0, "sorted", true)?;
            let inverse = args.bool_or(1, "return_inverse", false)?;
            let counts = args.bool_or(2, "return_counts", false)?;
            if let Some(d) = args.opt(3, "dim") {
                if !matches!(d, Value::None) {
                    bail!(Unsupported, "unique(dim=...) is not supported");
                }
            }
            args.finish()?;
            let (u, inv, cnt) = run.engine.unique(&t)?;
            let mut out = vec![u];
            if inverse {
                out.push(inv);
            }
            if counts {
                out.push(cnt);
            }
            if out.len() == 1 {
                tensor(out.remove(0))
            } else {
                tuple(run, out)
            }
        }
        "bincount" => {
            let weights = match args.opt(0, "weights") {
                None | Some(Value::None) => None,
                Some(v) => Some(tensor_arg(v, "bincount(): argument 'weights'")?),
            };
            let minlength = args.int_or(1, "minlength", 0)?;
            args.finish()?;
            tensor(run.engine.bincount(&t, weights.as_ref(), minlength)?)
        }
        _ => Err(crate::error::Error::unknown_op(format!("Tensor.{name}()"), name)),
    }
}

/// An in-place index op on a tensor autograd tracks: the out-of-place op, which records its
/// node, written back into the target, whose history it becomes (PyTorch names the node after
/// the op, `ScatterBackward0` for `scatter_`). An op without a gradient is refused.
fn write_tracked(run: &mut RunContext, t: &Tensor, inputs: &[Tensor], value: Tensor, name: &str) -> Result<Value> {
    if run.engine.autograd().grad_fn(&value).is_none() {
        bail!(Unsupported, "autograd through {name}() is not supported yet: the write would have no gradient history");
    }
    Ok(Value::Tensor(crate::trace::binding::elementwise::write_value(run, t, &value, inputs, OverlapRules::ALL)?))
}

/// `index` with each negative position `i` read as `i + n` (take_along_dim's convention).
fn wrap_negative(run: &mut RunContext, index: &Tensor, n: usize) -> Result<Tensor> {
    use crate::uop::buffer::Scalar;
    use crate::uop::BinaryOp;
    let zero = Operand::Scalar(Scalar::Int(0));
    let negative = run.engine.binary(BinaryOp::CmpLt, &Operand::Tensor(index.clone()), &zero)?;
    let shifted =
        run.engine.binary(BinaryOp::Add, &Operand::Tensor(index.clone()), &Operand::Scalar(Scalar::Int(n as i64)))?;
    let wrapped =
        run.engine.where_(&Operand::Tensor(negative), &Operand::Tensor(shifted), &Operand::Tensor(index.clone()))?;
    run.engine.cast(&wrapped, index.dtype())
}
