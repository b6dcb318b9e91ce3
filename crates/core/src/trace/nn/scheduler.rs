//! `torch.optim.lr_scheduler`: `StepLR`, `MultiStepLR`, `ExponentialLR` and `CosineAnnealingLR`
//! in PyTorch's chainable form: each `step()` reads the optimizer's `param_groups[0]['lr']`,
//! computes the next rate from it as `get_lr()` does, and writes it back into that shared dict,
//! so the next `optimizer.step()` uses it and every name holding the dict sees it. The
//! constructor records `initial_lr` and takes the first step, as PyTorch's does.

use crate::error::{bail, Result};
use crate::trace::nn::optimizer::{Schedule, Scheduler};
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;
use std::cell::Cell;

pub fn is_scheduler(name: &str) -> bool {
    matches!(name, "StepLR" | "MultiStepLR" | "ExponentialLR" | "CosineAnnealingLR")
}

fn float(x: f64) -> Value {
    Value::Scalar(Scalar::Float(x))
}

/// The group's current learning rate.
fn lr_of(group: &Value) -> Result<f64> {
    match group {
        Value::Dict(d) => match d.get("lr") {
            Some(Value::Scalar(s)) => Ok(s.as_f64()),
            _ => bail!(Unsupported, "a learning-rate schedule needs a number as param_groups[0]['lr']"),
        },
        _ => bail!(Type, "the scheduler's optimizer has no param group"),
    }
}

/// `lr_scheduler.<name>(optimizer, ...)`.
pub fn construct(_run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    let group = match args.req(0, "optimizer")? {
        Value::Optimizer(o) => o.param_group.clone(),
        other => bail!(Type, "{} is not an Optimizer", other.type_name()),
    };
    let number = |v: Value, what: &str| -> Result<f64> { Ok(v.as_scalar(what)?.as_f64()) };
    let schedule = match name {
        "StepLR" => {
            let step_size = args.int(1, "step_size")?;
            let gamma = args.opt(2, "gamma").map(|v| number(v, "gamma")).transpose()?.unwrap_or(0.1);
            Schedule::Step { step_size, gamma }
        }
        "MultiStepLR" => {
            let milestones = args.req(1, "milestones")?.as_ints("milestones")?;
            let gamma = args.opt(2, "gamma").map(|v| number(v, "gamma")).transpose()?.unwrap_or(0.1);
            Schedule::MultiStep { milestones, gamma }
        }
        "ExponentialLR" => Schedule::Exponential { gamma: number(args.req(1, "gamma")?, "gamma")? },
        _ => {
            let t_max = args.int(1, "T_max")?;
            let eta_min = args.opt(2, "eta_min").map(|v| number(v, "eta_min")).transpose()?.unwrap_or(0.0);
            Schedule::Cosine { t_max, eta_min }
        }
    };
    let last_epoch = args.int_or(if name == "ExponentialLR" { 2 } else { 3 }, "last_epoch", -1)?;
    args.finish()?;
    if last_epoch != -1 {
        bail!(Unsupported, "{name}(last_epoch=...) is not supported");
    }
    // `group.setdefault('initial_lr', group['lr'])`: the first scheduler's base stays.
    let mut base_lr = lr_of(&group)?;
    if let Value::Dict(d) = &group {
        match d.get("initial_lr") {
            Some(Value::Scalar(v)) => base_lr = v.as_f64(),
            _ => d.insert("initial_lr", float(base_lr)),
        }
    }
    let s = Scheduler {
        schedule,
        group,
        base_lr,
        last_epoch: Cell::new(-1),
        step_count: Cell::new(0),
        last_lr: Cell::new(base_lr),
    };
    step(&s)?;
    Ok(Value::Scheduler(std::rc::Rc::new(s)))
}

/// `scheduler.step()`: the next epoch's rate, from the group's current one.
fn step(s: &Scheduler<Value>) -> Result<()> {
    s.step_count.set(s.step_count.get() + 1);
    let epoch = s.last_epoch.get() + 1;
    s.last_epoch.set(epoch);
    let lr = lr_of(&s.group)?;
    let next = match &s.schedule {
        Schedule::Step { step_size, gamma } => {
            if epoch == 0 || *step_size == 0 || epoch % step_size != 0 {
                lr
            } else {
                lr * gamma
            }
        }
        Schedule::MultiStep { milestones, gamma } => {
            let hits = milestones.iter().filter(|&&m| m == epoch).count() as i32;
            if hits == 0 {
                lr
            } else {
                lr * gamma.powi(hits)
            }
        }
        Schedule::Exponential { gamma } => {
            if epoch == 0 {
                lr
            } else {
                lr * gamma
            }
        }
        Schedule::Cosine { t_max, eta_min } => {
            let (t, e) = (*t_max as f64, epoch as f64);
            let pi = std::f64::consts::PI;
            if epoch == 0 {
                lr
            } else if s.step_count.get() == 1 && epoch > 0 {
                eta_min + (s.base_lr - eta_min) * (1.0 + (e * pi / t).cos()) / 2.0
            } else if (epoch - 1 - t_max).rem_euclid(2 * t_max) == 0 {
                lr + (s.base_lr - eta_min) * (1.0 - (pi / t).cos()) / 2.0
            } else {
                (1.0 + (pi * e / t).cos()) / (1.0 + (pi * (e - 1.0) / t).cos()) * (lr - eta_min) + eta_min
            }
        }
    };
    if let Value::Dict(d) = &s.group {
        d.insert("lr", float(next));
    }
    s.last_lr.set(next);
    Ok(())
}

/// `scheduler.step()`, `scheduler.get_last_lr()`.
pub fn method(s: &Scheduler<Value>, name: &str, args: Args) -> Result<Value> {
    args.finish()?;
    match name {
        "step" => {
            step(s)?;
            Ok(Value::None)
        }
        "get_last_lr" => Ok(Value::list(vec![float(s.last_lr.get())])),
        _ => bail!(Type, "'{}' object has no attribute '{name}'", s.title()),
    }
}

/// `scheduler.last_epoch`, `scheduler.base_lrs`.
pub fn attr(s: &Scheduler<Value>, name: &str) -> Result<Value> {
    match name {
        "last_epoch" => Ok(Value::Scalar(Scalar::Int(s.last_epoch.get()))),
        "base_lrs" => Ok(Value::list(vec![float(s.base_lr)])),
        _ => bail!(Type, "'{}' object has no attribute '{name}'", s.title()),
    }
}
