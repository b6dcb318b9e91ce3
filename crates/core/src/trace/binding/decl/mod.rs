//! One declaration per op: the torch ops declared as data, PyTorch's way.
//!
//! Each row of [`table::DECLS`] says, once, everything the product needs about an op: its
//! names and where PyTorch exposes them (`torch.X`, `Tensor.X`, `Tensor.X_`, `F.X`,
//! `torch.special.X`, aliases), its signature as `native_functions.yaml` writes it (binding,
//! defaults, keyword-only parameters and PyTorch's argument errors all come from it), its
//! gradient (the autograd node PyTorch names, or "not differentiable") and the handler that
//! computes it over the engine's typed API. The binding, the op reference, "did you mean" and
//! `stridelab ops` read the rows; a test checks that every row's names run.
//!
//! Rows here cover the ops added since the table was introduced; the older hand-kept lists
//! (`library.rs`, `elementwise.rs`, ...) are listed beside them by [`crate::trace::binding::suggest`].

mod forms;
mod handlers;
mod index_more;
mod linalg;
mod misc;
mod more_nn;
mod nn;
mod pointwise;
mod pool;
mod reduce;
mod row;
mod shape;
mod spatial;
pub use spatial::check_eps as check_batch_norm_eps;
mod special;
mod stats;
pub mod table;
mod util;

pub use row::{Decl, Format, Grad, Space};

use crate::error::{bail, Result};
use crate::tensor::{OverlapRules, Tensor};
use crate::torch::format::MemoryFormat;
use crate::trace::binding::signature::Bound;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};

/// The row a `torch.`/`F.` function name means (`special.X` for `torch.special.X`).
pub fn function_decl(name: &str) -> Option<&'static Decl> {
    if let Some(n) = name.strip_prefix("special.") {
        return table::DECLS.iter().find(|d| d.has(Space::Special) && d.named(n));
    }
    if let Some(n) = name.strip_prefix("linalg.") {
        return table::DECLS.iter().find(|d| d.has(Space::Linalg) && d.named(n));
    }
    table::DECLS.iter().find(|d| (d.has(Space::Torch) || d.has(Space::Functional)) && d.named(name))
}

/// The row a tensor method name means, and whether it is the in-place form.
pub fn method_decl(name: &str) -> Option<(&'static Decl, bool)> {
    if let Some(d) = table::DECLS.iter().find(|d| d.has(Space::Method) && d.named(name)) {
        return Some((d, false));
    }
    let base = name.strip_suffix('_')?;
    table::DECLS.iter().find(|d| d.has(Space::Inplace) && d.named(base)).map(|d| (d, true))
}

/// Whether `name` is an op of the table whose result has no gradient.
pub fn not_differentiable(name: &str) -> bool {
    let base = name.strip_prefix("special.").or_else(|| name.strip_prefix("linalg.")).unwrap_or(name);
    let base = base.strip_suffix('_').unwrap_or(base);
    table::DECLS.iter().any(|d| d.named(base) && d.grad == Grad::None)
}

/// `torch.name(...)`, with `out=` where `torch.name` takes it and `inplace=True` where the
/// signature has it.
pub fn call_function(run: &mut RunContext, decl: &Decl, name: &str, args: Args) -> Result<Value> {
    let shown = name.strip_prefix("special.").unwrap_or(name);
    let (pos, mut kw) = args.into_parts();
    let out_arg = match kw.iter().position(|(k, _)| k == "out") {
        Some(i) if decl.has(Space::Torch) || decl.has(Space::Special) || decl.has(Space::Linalg) => {
            Some(kw.remove(i).1)
        }
        _ => None,
    };
    let bound = Bound::bind(run.engine, shown, &decl.signature(), Args::new(shown, pos, kw))?;
    let inputs = tensors_of(&bound);
    let value = run_row(run, decl, &bound)?;
    name_node(run, decl, &inputs, &value);
    if bound.bool("inplace") {
        let target = bound.tensor(decl.signature().params[0].name.as_str())?;
        return write_into(run, &target, value, &inputs, shown);
    }
    match out_arg {
        None | Some(Value::None) => Ok(value),
        Some(Value::Tensor(out)) => {
            let grad_inputs: Vec<&Tensor> = inputs.iter().collect();
            if run.engine.grad_enabled() && grad_inputs.iter().any(|t| run.engine.autograd().requires_grad(t)) {
                return Err(crate::trace::binding::elementwise::out_under_autograd(shown));
            }
            let Value::Tensor(v) = &value else {
                bail!(Unsupported, "{shown}(out=...) of a result that is not a tensor")
            };
            if v.shape() != out.shape() {
                bail!(
                    Unsupported,
                    "{shown}(out=...) with an out of shape {:?} for a result of shape {:?} (PyTorch resizes it) is not supported",
                    out.shape(),
                    v.shape()
                );
            }
            write_into(run, &out, value, &inputs, shown)
        }
        Some(other) => bail!(Type, "{shown}(): argument 'out' must be Tensor, not {}", other.type_name()),
    }
}

/// Writes an op's result into `target` (an in-place form or `out=`).
fn write_into(run: &mut RunContext, target: &Tensor, value: Value, inputs: &[Tensor], name: &str) -> Result<Value> {
    let Value::Tensor(value) = value else { bail!(Type, "{name}() has no in-place form") };
    // PyTorch checks the result's dtype against the target's before the shapes.
    crate::trace::binding::elementwise::check_cast(value.dtype(), target.dtype())?;
    if value.shape() != target.shape() {
        bail!(Shape, "output with shape {:?} doesn't match the broadcast shape {:?}", target.shape(), value.shape());
    }
    let written = crate::trace::binding::elementwise::write_value(run, target, &value, inputs, OverlapRules::ALL)?;
    Ok(Value::Tensor(written))
}

/// `t.name(...)`, or `t.name_(...)` in place.
pub fn call_method(
    run: &mut RunContext,
    t: &Tensor,
    decl: &Decl,
    name: &str,
    inplace: bool,
    args: Args,
) -> Result<Value> {
    let (pos, kw) = args.into_parts();
    let mut all = Vec::with_capacity(pos.len() + 1);
    all.push(Value::Tensor(t.clone()));
    all.extend(pos);
    let bound = Bound::bind(run.engine, name, &decl.signature(), Args::new(name, all, kw))?;
    let inputs = tensors_of(&bound);
    let out = run_row(run, decl, &bound)?;
    name_node(run, decl, &inputs, &out);
    if !inplace && !bound.bool("inplace") {
        return Ok(out);
    }
    write_into(run, t, out, &inputs, name)
}

/// The row's handler, its result laid out as the row's [`Format`] says.
fn run_row(run: &mut RunContext, decl: &Decl, bound: &Bound) -> Result<Value> {
    let out = (decl.run)(run, bound)?;
    let format = match decl.format {
        Format::AsComputed => return Ok(out),
        Format::Contiguous => MemoryFormat::Contiguous,
        Format::Suggested => {
            let first = tensors_of(bound).into_iter().next();
            first.map_or(MemoryFormat::Contiguous, |x| x.layout().result_format())
        }
    };
    match out {
        Value::Tensor(r) => Ok(Value::Tensor(run.engine.in_format(&r, format)?)),
        // Values and indices (`return_indices=True`) alike.
        Value::Tuple(items) => items
            .into_iter()
            .map(|x| match x {
                Value::Tensor(r) => run.engine.in_format(&r, format).map(Value::Tensor),
                other => Ok(other),
            })
            .collect::<Result<_>>()
            .map(Value::Tuple),
        other => Ok(other),
    }
}

fn tensors_of(b: &Bound) -> Vec<Tensor> {
    let mut out = Vec::new();
    for v in b.values() {
        match v {
            Value::Tensor(t) => out.push(t.clone()),
            Value::Tuple(_) | Value::List(_) => {
                let items = v.items().unwrap_or_default();
                out.extend(items.iter().filter_map(|x| if let Value::Tensor(t) = x { Some(t.clone()) } else { None }))
            }
            _ => {}
        }
    }
    out
}

/// Gives a result the node PyTorch names for the op (the composition recorded its own).
fn name_node(run: &mut RunContext, decl: &Decl, inputs: &[Tensor], out: &Value) {
    let Grad::Node(node) = decl.grad else { return };
    if let Value::Tensor(r) = out {
        if !inputs.iter().any(|t| t.same_object(r)) {
            run.engine.rename_grad_fn(r, node);
            let ins: Vec<&Tensor> = inputs.iter().collect();
            run.engine.group_as_one_node(&[r], &ins);
        }
    }
}

/// Every name the table runs, in-place forms and `special.` names included.
pub fn names() -> Vec<String> {
    let mut out = Vec::new();
    for d in table::DECLS {
        for n in std::iter::once(&d.name).chain(d.aliases) {
            if d.has(Space::Torch) || d.has(Space::Method) || d.has(Space::Functional) {
                out.push(n.to_string());
            }
            if d.has(Space::Linalg) {
                out.push(format!("linalg.{n}"));
            }
            if d.has(Space::Inplace) {
                out.push(format!("{n}_"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::signature::Signature;
    use super::table::DECLS;

    #[test]
    fn every_signature_parses_and_no_name_is_declared_twice() {
        let mut seen = std::collections::HashSet::new();
        for d in DECLS {
            let sig = Signature::parse(d.sig).unwrap_or_else(|e| panic!("{}: {e}", d.name));
            assert!(!sig.params.is_empty(), "{}", d.name);
            for s in d.spellings() {
                assert!(seen.insert(s.clone()), "{s} declared twice");
            }
        }
    }
}
