//! `torch.nn.init`: the initialisers as `torch/nn/init.py` writes them, each an in-place draw
//! or fill without grad mode (so a parameter's version moves and no node is recorded), with
//! PyTorch's fan and gain arithmetic in float64 in its order of operations.

use crate::error::{bail, Result};
use crate::tensor::Tensor;
use crate::trace::binding::elementwise::tensor_arg;
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;

const FUNCTIONS: &[&str] = &[
    "uniform_",
    "normal_",
    "constant_",
    "zeros_",
    "ones_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "calculate_gain",
];

pub fn is_function(name: &str) -> bool {
    FUNCTIONS.contains(&name)
}

fn float(x: f64) -> Value {
    Value::Scalar(Scalar::Float(x))
}

fn number(args: &mut Args, i: usize, name: &str, default: f64) -> Result<f64> {
    Ok(match args.opt(i, name) {
        Some(v) => v.as_scalar(name)?.as_f64(),
        None => default,
    })
}

/// `calculate_gain(nonlinearity, param)`.
fn gain(nonlinearity: &str, param: Option<f64>) -> Result<f64> {
    Ok(match nonlinearity {
        "linear" | "conv1d" | "conv2d" | "conv3d" | "conv_transpose1d" | "conv_transpose2d" | "conv_transpose3d"
        | "sigmoid" => 1.0,
        "tanh" => 5.0 / 3.0,
        "relu" => 2f64.sqrt(),
        "leaky_relu" => {
            let slope = param.unwrap_or(0.01);
            (2.0 / (1.0 + slope * slope)).sqrt()
        }
        "selu" => 3.0 / 4.0,
        other => bail!(Value, "Unsupported nonlinearity {other}"),
    })
}

/// `_calculate_fan_in_and_fan_out`.
fn fans(t: &Tensor) -> Result<(f64, f64)> {
    let s = t.shape();
    if s.len() < 2 {
        bail!(Value, "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
    }
    let receptive: usize = s[2..].iter().product();
    Ok(((s[1] * receptive) as f64, (s[0] * receptive) as f64))
}

/// `_calculate_correct_fan(tensor, mode)`.
fn fan(t: &Tensor, mode: &str) -> Result<f64> {
    let (fan_in, fan_out) = fans(t)?;
    match mode {
        "fan_in" => Ok(fan_in),
        "fan_out" => Ok(fan_out),
        other => bail!(Value, "Mode {other} not supported, please use one of fan_in, fan_out"),
    }
}

fn text(args: &mut Args, i: usize, name: &str, default: &str) -> Result<String> {
    match args.opt(i, name) {
        None => Ok(default.to_string()),
        Some(Value::Str(s)) => Ok(s),
        Some(other) => bail!(Type, "{name} must be a string, not {}", other.type_name()),
    }
}

/// `t.<method>(args)` without grad mode: the in-place op the initialiser ends in.
fn in_place(run: &mut RunContext, t: Tensor, method: &str, pos: Vec<Value>) -> Result<Value> {
    let was = run.engine.grad_enabled();
    run.engine.set_grad_enabled(false);
    let r = run.method(t, method, Args::new(method, pos, Vec::new()));
    run.engine.set_grad_enabled(was);
    r
}

/// `nn.init.<name>(tensor, ...)`.
pub fn function(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    if name == "calculate_gain" {
        let nonlinearity = text(&mut args, 0, "nonlinearity", "")?;
        let param = args.opt(1, "param").filter(|v| !matches!(v, Value::None));
        args.finish()?;
        let param = param.map(|v| v.as_scalar("param")).transpose()?.map(Scalar::as_f64);
        return Ok(float(gain(&nonlinearity, param)?));
    }
    let t = tensor_arg(args.req(0, "tensor")?, &format!("{name}(): argument 'tensor'"))?;
    let (method, pos) = match name {
        "uniform_" => {
            let a = number(&mut args, 1, "a", 0.0)?;
            let b = number(&mut args, 2, "b", 1.0)?;
            ("uniform_", vec![float(a), float(b)])
        }
        "normal_" => {
            let mean = number(&mut args, 1, "mean", 0.0)?;
            let std = number(&mut args, 2, "std", 1.0)?;
            ("normal_", vec![float(mean), float(std)])
        }
        "constant_" => ("fill_", vec![args.req(1, "val")?]),
        "zeros_" => ("zero_", Vec::new()),
        "ones_" => ("fill_", vec![float(1.0)]),
        "xavier_uniform_" | "xavier_normal_" => {
            let g = number(&mut args, 1, "gain", 1.0)?;
            let (fan_in, fan_out) = fans(&t)?;
            let std = g * (2.0 / (fan_in + fan_out)).sqrt();
            if name == "xavier_uniform_" {
                let a = 3f64.sqrt() * std;
                ("uniform_", vec![float(-a), float(a)])
            } else {
                ("normal_", vec![float(0.0), float(std)])
            }
        }
        _ => {
            let a = number(&mut args, 1, "a", 0.0)?;
            let mode = text(&mut args, 2, "mode", "fan_in")?;
            let nonlinearity = text(&mut args, 3, "nonlinearity", "leaky_relu")?;
            if t.numel() == 0 {
                bail!(Value, "Initializing zero-element tensors is a no-op");
            }
            let std = gain(&nonlinearity, Some(a))? / fan(&t, &mode)?.sqrt();
            if name == "kaiming_uniform_" {
                let bound = 3f64.sqrt() * std;
                ("uniform_", vec![float(-bound), float(bound)])
            } else {
                ("normal_", vec![float(0.0), float(std)])
            }
        }
    };
    let _ = args.kw_only("generator");
    args.finish()?;
    in_place(run, t, method, pos)
}
