//! `torch.nn.utils`: `clip_grad_norm_` and `clip_grad_value_`, as PyTorch's `clip_grad.py` runs
//! them (without grad mode): the norm of the gradients' norms, then every gradient scaled in
//! place by `max_norm / (total + 1e-6)` clamped to 1, or clamped in place to ±`clip_value`.

use crate::error::{bail, Result};
use crate::tensor::Tensor;
use crate::trace::binding::elementwise::tensor_arg;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;

pub fn is_function(name: &str) -> bool {
    matches!(name, "clip_grad_norm_" | "clip_grad_value_")
}

/// The gradients of `parameters` (one tensor or an iterable of them) that are set.
fn grads(run: &mut RunContext, parameters: Value) -> Result<Vec<Tensor>> {
    let params = match parameters {
        Value::Tensor(t) => vec![t],
        other => crate::trace::python::sequence(run, other)?
            .into_iter()
            .map(|v| tensor_arg(v, "parameters"))
            .collect::<Result<Vec<_>>>()?,
    };
    Ok(params.iter().filter_map(|p| run.engine.grad(p)).collect())
}

fn float(x: f64) -> Value {
    Value::Scalar(Scalar::Float(x))
}

pub fn function(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    let parameters = args.req(0, "parameters")?;
    let was = run.engine.grad_enabled();
    run.engine.set_grad_enabled(false);
    let r = if name == "clip_grad_norm_" {
        let max_norm = args.req(1, "max_norm")?.as_scalar("max_norm")?.as_f64();
        let norm_type = args.opt(2, "norm_type").map(|v| v.as_scalar("norm_type")).transpose()?;
        let error_if_nonfinite = args.bool_or(3, "error_if_nonfinite", false)?;
        let _ = args.opt(4, "foreach");
        args.finish()?;
        clip_norm(run, parameters, max_norm, norm_type.map_or(2.0, Scalar::as_f64), error_if_nonfinite)
    } else {
        let clip = args.req(1, "clip_value")?.as_scalar("clip_value")?.as_f64();
        let _ = args.opt(2, "foreach");
        args.finish()?;
        clip_value(run, parameters, clip)
    };
    run.engine.set_grad_enabled(was);
    r
}

fn clip_norm(
    run: &mut RunContext,
    parameters: Value,
    max_norm: f64,
    p: f64,
    error_if_nonfinite: bool,
) -> Result<Value> {
    let grads = grads(run, parameters)?;
    if grads.is_empty() {
        return Ok(Value::Tensor(run.engine.full(&[], Scalar::Float(0.0), None)?));
    }
    let mut norms = Vec::with_capacity(grads.len());
    for g in &grads {
        let n = run.method(g.clone(), "norm", Args::new("norm", vec![float(p)], Vec::new()))?;
        norms.push(tensor_arg(n, "norm")?);
    }
    let stacked = run.engine.stack(&norms, 0)?;
    let total = run.method(stacked, "norm", Args::new("norm", vec![float(p)], Vec::new()))?;
    let total = tensor_arg(total, "norm")?;
    let value = run.engine.values(&total)?.get_f64(0);
    if error_if_nonfinite && !value.is_finite() {
        bail!(
            Value,
            "The total norm of order {} for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`",
            crate::trace::python::float_repr(p)
        );
    }
    let shifted = run.method(total.clone(), "add", Args::new("add", vec![float(1e-6)], Vec::new()))?;
    let coef = run.function("div", Args::new("div", vec![float(max_norm), shifted], Vec::new()))?;
    let kw = vec![("max".to_string(), float(1.0))];
    let coef = run.function("clamp", Args::new("clamp", vec![coef], kw))?;
    for g in grads {
        run.method(g, "mul_", Args::new("mul_", vec![coef.clone()], Vec::new()))?;
    }
    Ok(Value::Tensor(total))
}

fn clip_value(run: &mut RunContext, parameters: Value, clip: f64) -> Result<Value> {
    for g in grads(run, parameters)? {
        run.method(g.clone(), "clamp_min_", Args::new("clamp_min_", vec![float(-clip)], Vec::new()))?;
        run.method(g, "clamp_max_", Args::new("clamp_max_", vec![float(clip)], Vec::new()))?;
    }
    Ok(Value::None)
}
