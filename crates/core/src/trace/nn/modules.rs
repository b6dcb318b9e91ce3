//! `torch.nn` modules in the trace: construction with PyTorch's initialisation bit for bit
//! (through the default generator, in PyTorch's order of draws), the forward of each built-in
//! module, `nn.Parameter`, the module methods (`parameters()`, `state_dict()`, `train()`, ...),
//! attributes, and PyTorch's printed form.
//!
//! Most built-in modules are one functional call with the constructor's arguments: those are
//! rows of [`FUNCTIONAL`], which names the module, its functional and its constructor's
//! parameters (by the functional's keyword names), so a module's facts are written once and
//! its argument rules are the functional's. Containers (`Sequential`, `ModuleList`) and modules
//! the trace defines run their children through the runner (`exec.rs`), which can call the
//! trace's own `forward`.

use crate::dtype::DType;
use crate::engine::autograd::GradSwitch;
use crate::engine::norm::{BatchMoments, BatchStats};
use crate::error::{bail, Result};
use crate::random::{Distribution, Generators};
use crate::tensor::{Operand, OverlapRules, Tensor};
use crate::trace::binding::elementwise::{tensor_arg, write_value};
use crate::trace::nn::layer::{BatchDims, Class, Functional, LayerKind, Repr};
use crate::trace::nn::table::{pad_config, row, upsample_config, Kind, Printed, FUNCTIONAL};
use crate::trace::python::context::RunContext;
use crate::trace::python::value::{Args, Module, Value};
use crate::uop::buffer::Scalar;
use crate::uop::BinaryOp;
use std::rc::Rc;

pub mod methods;
mod repr;

/// The module classes built here besides the functional table's rows (`Module` is also the
/// base class of a trace's modules; called itself, it makes an empty container).
const CLASSES: &[&str] = &[
    "Module",
    "Linear",
    "Conv2d",
    "BatchNorm1d",
    "BatchNorm2d",
    "Sequential",
    "ModuleList",
    "Embedding",
    "LayerNorm",
    "RNN",
    "LSTM",
    "GRU",
];

/// The modules `nn.X(...)` builds.
pub fn is_layer(name: &str) -> bool {
    FUNCTIONAL.iter().any(|r| r.name == name) || CLASSES.contains(&name)
}

/// Every module class `nn.X` names, for "did you mean".
pub fn class_names() -> impl Iterator<Item = &'static str> {
    CLASSES.iter().copied().chain(FUNCTIONAL.iter().map(|r| r.name))
}

/// `nn.X(args)`.
pub fn construct(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    // `device=` and `dtype=` as every module's factory arguments: the device as the tensor
    // factories take it; a dtype other than the default would initialise in that dtype.
    if let Some(d) = args.kw_only("device").filter(|d| !matches!(d, Value::None)) {
        let device = crate::trace::binding::device::from_value(&d, name)?;
        crate::trace::binding::device::use_device(run, device);
    }
    match args.kw_only("dtype") {
        None | Some(Value::None) | Some(Value::DType(DType::Float32)) => {}
        Some(other) => bail!(
            Unsupported,
            "{name}(dtype={}) is not supported: modules are built in float32 (convert with .to(dtype))",
            crate::trace::python::repr_plain(&other)
        ),
    }
    if let Some(r) = FUNCTIONAL.iter().find(|r| r.name == name) {
        // The constructor's arguments, defaults included (a module's default can differ
        // from its functional's: `nn.Flatten` starts at dim 1, `torch.flatten` at 0).
        let mut config = Vec::new();
        for (i, (p, default)) in r.params.iter().enumerate() {
            match (args.opt(i, p), default) {
                (Some(v), _) => config.push((*p, v)),
                (None, Some("")) => bail!(Type, "{name}.__init__() missing 1 required positional argument: '{p}'"),
                (None, Some(d)) => config.push((*p, default_value(d)?)),
                (None, None) => {}
            }
        }
        match r.kind {
            Kind::Pad { dims, .. } => pad_config(&mut config, dims)?,
            Kind::Upsample { mode, align_corners } => upsample_config(&mut config, mode, align_corners)?,
            _ => {}
        }
        if r.kind == Kind::Identity {
            // `nn.Identity(*args, **kwargs)` ignores its arguments.
            let _ = args.into_parts();
        } else {
            args.finish()?;
        }
        if r.kind == Kind::Dropout {
            let p = config.iter().find(|(k, _)| *k == "p").map(|(_, v)| v.as_scalar("p")).transpose()?;
            let p = p.map_or(0.5, Scalar::as_f64);
            if !(0.0..=1.0).contains(&p) {
                bail!(
                    Value,
                    "dropout probability has to be between 0 and 1, but got {}",
                    crate::trace::python::float_repr(p)
                );
            }
        }
        let mut layer = Module::new(LayerKind::Functional(Functional(r.name)));
        layer.config = config;
        return Ok(Value::Layer(Rc::new(layer)));
    }
    let layer = match name {
        "Linear" => {
            let n_in = size_arg(&mut args, 0, "in_features")?;
            let n_out = size_arg(&mut args, 1, "out_features")?;
            let bias = args.bool_or(2, "bias", true)?;
            args.finish()?;
            let layer = Module::new(LayerKind::Linear { in_features: n_in, out_features: n_out, bias });
            init_weight_and_bias(run, &layer, &[n_out, n_in], n_in, bias)?;
            layer
        }
        "Conv2d" => conv2d(run, args)?,
        "RNN" | "LSTM" | "GRU" => crate::trace::nn::recurrent::construct(run, name, args)?,
        "BatchNorm1d" | "BatchNorm2d" => {
            let dims = if name == "BatchNorm1d" { BatchDims::One } else { BatchDims::Two };
            batch_norm_layer(run, dims, args)?
        }
        "Embedding" => {
            let num = size_arg(&mut args, 0, "num_embeddings")?;
            let dim = size_arg(&mut args, 1, "embedding_dim")?;
            args.finish()?;
            // reset_parameters: init.normal_(weight).
            let w = zeros(run, &[num, dim], DType::Float32)?;
            run.engine.random_(&w, Generators::DEFAULT, Distribution::Normal { mean: 0.0, std: 1.0 })?;
            let w = run.engine.resolve(&w);
            run.engine.make_parameter(&w)?;
            let layer = Module::new(LayerKind::Embedding { num, dim });
            layer.params.borrow_mut().push(("weight".into(), w));
            layer
        }
        "LayerNorm" => {
            let shape = args.req(0, "normalized_shape")?.as_ints("normalized_shape")?;
            let eps = float_or(&mut args, 1, "eps", 1e-5)?;
            let affine = args.bool_or(2, "elementwise_affine", true)?;
            let bias = args.bool_or(3, "bias", true)?;
            args.finish()?;
            let shape = crate::trace::python::value::sizes(shape)?;
            let layer = Module::new(LayerKind::LayerNorm { dims: shape.len(), eps });
            if affine {
                layer.params.borrow_mut().push(("weight".into(), constant_parameter(run, &shape, 1)?));
                if bias {
                    layer.params.borrow_mut().push(("bias".into(), constant_parameter(run, &shape, 0)?));
                }
            }
            layer
        }
        "Sequential" | "ModuleList" => {
            let (pos, kw) = args.into_parts();
            if let Some((k, _)) = kw.first() {
                bail!(Type, "{name}() got an unexpected keyword argument '{k}'");
            }
            // `nn.Sequential(OrderedDict([('fc1', ...), ...]))`: children by those names.
            let named = match pos.as_slice() {
                [Value::Dict(d)] if name == "Sequential" => match d.str_entries() {
                    Ok(entries) => Some(entries),
                    Err(k) => bail!(Type, "module name should be a string. Got {k}"),
                },
                _ => None,
            };
            let items = if let Some(entries) = &named {
                entries.iter().map(|(_, v)| v.clone()).collect()
            } else if name == "ModuleList" {
                match pos.as_slice() {
                    [] => Vec::new(),
                    [v] => match v.items() {
                        Some(items) => items.to_vec(),
                        None => bail!(Type, "'{}' object is not iterable", v.type_name()),
                    },
                    _ => bail!(Type, "ModuleList() takes from 1 to 2 positional arguments but more were given"),
                }
            } else {
                pos
            };
            let kind = if name == "ModuleList" { LayerKind::ModuleList } else { LayerKind::Sequential };
            let layer = Module::new(kind);
            for (i, v) in items.into_iter().enumerate() {
                let key = named.as_ref().map_or_else(|| i.to_string(), |e| e[i].0.clone());
                match v {
                    Value::Layer(l) => layer.children.borrow_mut().push((key, l)),
                    other => bail!(Type, "{} is not a Module subclass", other.type_name()),
                }
            }
            layer
        }
        // A bare container: attributes set on it register children, parameters and buffers.
        "Module" => {
            args.finish()?;
            Module::new(LayerKind::Custom)
        }
        _ => bail!(Unsupported, "nn.{name} is not supported"),
    };
    Ok(Value::Layer(Rc::new(layer)))
}

fn size_arg(args: &mut Args, i: usize, name: &str) -> Result<usize> {
    let n = args.int(i, name)?;
    match usize::try_from(n) {
        Ok(n) => Ok(n),
        Err(_) => bail!(Value, "Trying to create tensor with negative dimension {n}: [{n}]"),
    }
}

fn float_or(args: &mut Args, i: usize, name: &str, default: f64) -> Result<f64> {
    Ok(match args.opt(i, name) {
        Some(v) => v.as_scalar(name)?.as_f64(),
        None => default,
    })
}

fn zeros(run: &mut RunContext, shape: &[usize], dtype: DType) -> Result<Tensor> {
    let t = run.engine.full(shape, Scalar::Int(0), Some(dtype))?;
    run.engine.realize(&t)
}

/// A parameter set by `init.ones_`/`init.zeros_` in `reset_parameters` (a write: version 1).
fn constant_parameter(run: &mut RunContext, shape: &[usize], v: i64) -> Result<Tensor> {
    let t = constant_buffer(run, shape, v, DType::Float32)?;
    run.engine.make_parameter(&t)?;
    Ok(t)
}

/// A buffer allocated, then filled by `zero_()`/`fill_(1)` in `reset_running_stats` (a write:
/// version 1), as PyTorch's constructors do.
fn constant_buffer(run: &mut RunContext, shape: &[usize], v: i64, dtype: DType) -> Result<Tensor> {
    let t = zeros(run, shape, dtype)?;
    let name = if v == 0 { "zero_" } else { "fill_" };
    crate::trace::binding::subscript::fill(run, &t, Operand::Scalar(Scalar::Int(v)), name)?;
    Ok(run.engine.resolve(&t))
}

/// `reset_parameters()` of `nn.Linear` and `nn.Conv2d`: `kaiming_uniform_(weight, a=sqrt(5))`,
/// then the bias uniform in ±1/sqrt(fan_in), both drawn from the default generator in that
/// order. The bounds are computed with PyTorch's own sequence of float64 operations.
fn init_weight_and_bias(
    run: &mut RunContext,
    layer: &Module,
    weight: &[usize],
    fan_in: usize,
    bias: bool,
) -> Result<()> {
    let (bound, bias_bound) = crate::random::default_init_bounds(fan_in);
    if fan_in == 0 && weight.iter().product::<usize>() > 0 {
        bail!(Value, "Initializing zero-element tensors is a no-op");
    }
    let w = uniform_parameter(run, weight, bound)?;
    layer.params.borrow_mut().push(("weight".into(), w));
    if bias {
        let b = uniform_parameter(run, &weight[..1], bias_bound)?;
        layer.params.borrow_mut().push(("bias".into(), b));
    }
    Ok(())
}

/// A parameter uniform in ±`bound` from the default generator.
fn uniform_parameter(run: &mut RunContext, shape: &[usize], bound: f64) -> Result<Tensor> {
    let t = zeros(run, shape, DType::Float32)?;
    run.engine.random_(&t, Generators::DEFAULT, Distribution::Uniform { from: -bound, to: bound })?;
    let t = run.engine.resolve(&t);
    run.engine.make_parameter(&t)?;
    Ok(t)
}

/// `nn.Conv2d(in, out, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
/// padding_mode='zeros')`: the config keeps what `F.conv2d` takes.
fn conv2d(run: &mut RunContext, mut args: Args) -> Result<Module> {
    let n_in = size_arg(&mut args, 0, "in_channels")?;
    let n_out = size_arg(&mut args, 1, "out_channels")?;
    let kernel = pair(args.req(2, "kernel_size")?, "kernel_size")?;
    let stride = args.opt(3, "stride");
    let padding = args.opt(4, "padding");
    let dilation = args.opt(5, "dilation");
    let groups = args.int_or(6, "groups", 1)?;
    let bias = args.bool_or(7, "bias", true)?;
    match args.opt(8, "padding_mode") {
        None => {}
        Some(Value::Str(s)) if s == "zeros" => {}
        Some(Value::Str(s)) if ["reflect", "replicate", "circular"].contains(&s.as_str()) => {
            bail!(Unsupported, "Conv2d(padding_mode='{s}') is not supported")
        }
        Some(v) => bail!(
            Value,
            "padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got padding_mode='{}'",
            crate::trace::python::repr_plain(&v).trim_matches('\'')
        ),
    }
    args.finish()?;
    if groups <= 0 {
        bail!(Value, "groups must be a positive integer");
    }
    let g = groups as usize;
    if n_in % g != 0 {
        bail!(Value, "in_channels must be divisible by groups");
    }
    if n_out % g != 0 {
        bail!(Value, "out_channels must be divisible by groups");
    }
    let mut layer = Module::new(LayerKind::Conv2d);
    let fan_in = n_in / g * kernel[0] * kernel[1];
    init_weight_and_bias(run, &layer, &[n_out, n_in / g, kernel[0], kernel[1]], fan_in, bias)?;
    let tuple = |v: [usize; 2]| Value::Tuple(v.iter().map(|&n| Value::Scalar(Scalar::Int(n as i64))).collect());
    let as_pair = |v: Option<Value>, default: usize| -> Result<Value> {
        Ok(match v {
            None => tuple([default, default]),
            Some(Value::Str(s)) => Value::Str(s),
            Some(v) => tuple(pair(v, "conv2d")?),
        })
    };
    layer.config = vec![
        ("in_channels", Value::Scalar(Scalar::Int(n_in as i64))),
        ("out_channels", Value::Scalar(Scalar::Int(n_out as i64))),
        ("kernel_size", tuple(kernel)),
        ("stride", as_pair(stride, 1)?),
        ("padding", as_pair(padding, 0)?),
        ("dilation", as_pair(dilation, 1)?),
        ("groups", Value::Scalar(Scalar::Int(groups))),
    ];
    Ok(layer)
}

/// An int or a pair of ints, as `_pair` reads a module's argument.
fn pair(v: Value, what: &str) -> Result<[usize; 2]> {
    let ints = v.as_ints(what)?;
    let ints: Vec<usize> = ints.into_iter().map(|n| usize::try_from(n).unwrap_or(0)).collect();
    match ints.as_slice() {
        [n] => Ok([*n, *n]),
        [a, b] => Ok([*a, *b]),
        _ => bail!(Value, "{what} must be an int or a tuple of two ints"),
    }
}

/// `nn.BatchNorm1d/2d(num_features, eps=1e-5, momentum=0.1, affine=True,
/// track_running_stats=True)`: weight ones and bias zeros (parameters), `running_mean` zeros,
/// `running_var` ones and `num_batches_tracked` 0 (int64) as buffers.
fn batch_norm_layer(run: &mut RunContext, dims: BatchDims, mut args: Args) -> Result<Module> {
    let n = size_arg(&mut args, 0, "num_features")?;
    let eps = float_or(&mut args, 1, "eps", 1e-5)?;
    let momentum = match args.opt(2, "momentum") {
        None => Some(0.1),
        Some(Value::None) => None,
        Some(v) => Some(v.as_scalar("momentum")?.as_f64()),
    };
    let affine = args.bool_or(3, "affine", true)?;
    let track = args.bool_or(4, "track_running_stats", true)?;
    let bias = match args.kw_only("bias") {
        None => true,
        Some(v) => crate::trace::python::truth(run, &v)?,
    };
    args.finish()?;
    let layer = Module::new(LayerKind::BatchNorm { dims, features: n, eps, momentum });
    // `reset_parameters`: the running statistics first, then the affine parameters.
    if track {
        let stats = [
            ("running_mean", constant_buffer(run, &[n], 0, DType::Float32)?),
            ("running_var", constant_buffer(run, &[n], 1, DType::Float32)?),
            ("num_batches_tracked", constant_buffer(run, &[], 0, DType::Int64)?),
        ];
        layer.buffers.borrow_mut().extend(stats.into_iter().map(|(k, t)| (k.to_string(), t)));
    }
    if affine {
        layer.params.borrow_mut().push(("weight".into(), constant_parameter(run, &[n], 1)?));
        if bias {
            layer.params.borrow_mut().push(("bias".into(), constant_parameter(run, &[n], 0)?));
        }
    }
    Ok(layer)
}

/// `nn.Parameter(data, requires_grad=True)`: `data.detach()` (same storage and version
/// counter) as a leaf parameter.
pub fn parameter(run: &mut RunContext, mut args: Args) -> Result<Value> {
    let data = match args.opt(0, "data") {
        Some(v) => tensor_arg(v, "Parameter(): argument 'data'")?,
        None => zeros(run, &[0], DType::Float32)?,
    };
    let requires_grad = args.bool_or(1, "requires_grad", true)?;
    args.finish()?;
    let t = crate::trace::binding::methods::method(run, data, "detach", Args::new("detach", Vec::new(), Vec::new()))?;
    let Value::Tensor(t) = t else { bail!(Type, "Parameter(): data must be a Tensor") };
    run.engine.make_parameter(&t)?;
    if !requires_grad {
        run.engine.set_requires_grad(&t, false, GradSwitch::Native)?;
    }
    Ok(Value::Tensor(t))
}

/// The forward of a built-in module that is not a container (containers and the trace's own
/// modules are run by the runner, which calls this for their leaves).
pub fn forward(run: &mut RunContext, layer: &Module, args: Args) -> Result<Value> {
    match layer.kind {
        LayerKind::Functional(f) => return functional_forward(run, layer, f, args),
        LayerKind::Recurrent(r) => return crate::trace::nn::recurrent::forward(run, layer, &r, args),
        _ => {}
    }
    let mut args = args;
    let x = tensor_arg(args.req(0, "input")?, "forward(): argument 'input' (position 1)")?;
    args.finish()?;
    let out = match layer.kind {
        LayerKind::Linear { .. } => {
            let w = layer.param("weight");
            let b = layer.param("bias");
            match w {
                Some(w) => run.engine.linear(&x, &w, b.as_ref())?,
                None => bail!(Type, "linear(): argument 'weight' must be Tensor, not NoneType"),
            }
        }
        LayerKind::Conv2d => {
            let w = layer.param("weight").map_or(Value::None, Value::Tensor);
            let b = layer.param("bias").map_or(Value::None, Value::Tensor);
            let kw = ["stride", "padding", "dilation", "groups"]
                .iter()
                .filter_map(|k| layer.config.iter().find(|(n, _)| n == k).map(|(n, v)| (n.to_string(), v.clone())))
                .collect();
            return crate::trace::binding::autograd::function_call(run, "conv2d", vec![Value::Tensor(x), w, b], kw);
        }
        LayerKind::BatchNorm { dims, eps, momentum, .. } => batch_norm_forward(run, layer, x, dims, eps, momentum)?,
        LayerKind::Embedding { .. } => {
            let w = layer.param("weight");
            let Some(w) = w else { bail!(Type, "embedding(): argument 'weight' must be Tensor, not NoneType") };
            run.engine.embedding(&w, &x)?
        }
        LayerKind::LayerNorm { dims, eps } => {
            let w = layer.param("weight");
            let b = layer.param("bias");
            layer_norm(run, &x, dims, eps, w.as_ref(), b.as_ref())?
        }
        LayerKind::Functional(_)
        | LayerKind::Recurrent(_)
        | LayerKind::Sequential
        | LayerKind::ModuleList
        | LayerKind::Custom => {
            bail!(Type, "{} has no forward here", title(layer))
        }
    };
    Ok(Value::Tensor(out))
}

fn functional_forward(run: &mut RunContext, layer: &Module, f: Functional, mut args: Args) -> Result<Value> {
    let r = row(f);
    let mut pos = Vec::with_capacity(r.inputs.len());
    for (i, what) in r.inputs.iter().enumerate() {
        pos.push(args.req(i, what)?);
    }
    args.finish()?;
    if r.kind == Kind::Identity {
        return Ok(pos.swap_remove(0));
    }
    let mut kw: Vec<(String, Value)> = layer.config.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    match r.kind {
        Kind::Dropout => kw.push(("training".into(), Value::Scalar(Scalar::Bool(layer.training.get())))),
        Kind::Pad { mode, .. } => {
            for (k, _) in kw.iter_mut().filter(|(k, _)| k == "padding") {
                *k = "pad".into();
            }
            kw.push(("mode".into(), Value::Str(mode.into())));
        }
        _ => {}
    }
    crate::trace::binding::autograd::function_call(run, r.function, pos, kw)
}

/// `F.layer_norm` over the last `dims` dims: (x - mean) / sqrt(var + eps) * w + b, with the
/// biased variance, as one `NativeLayerNormBackward0` node.
fn layer_norm(
    run: &mut RunContext,
    x: &Tensor,
    dims: usize,
    eps: f64,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
) -> Result<Tensor> {
    let n = x.shape().len();
    if dims > n {
        bail!(Shape, "Given normalized_shape has {dims} dims, expected input with at least that many dims");
    }
    let axes: Vec<usize> = (n - dims..n).collect();
    let y = run.engine.normalize(x, &axes, eps, w, b)?;
    // PyTorch's kernel writes a row-major result, whatever the input's layout.
    let y = run.engine.in_format(&y, crate::torch::format::MemoryFormat::Contiguous)?;
    run.engine.rename_grad_fn(&y, "NativeLayerNormBackward0");
    Ok(y)
}

/// `BatchNorm` forward (`_BatchNorm.forward` then `F.batch_norm`): in training, the batch's
/// statistics normalize and the running statistics move in place (`num_batches_tracked += 1`,
/// `running = (1 - m) * running + m * stat` with the unbiased variance); in eval, the running
/// statistics normalize.
fn batch_norm_forward(
    run: &mut RunContext,
    layer: &Module,
    x: Tensor,
    dims: BatchDims,
    eps: f64,
    momentum: Option<f64>,
) -> Result<Tensor> {
    let rank = x.shape().len();
    match dims {
        BatchDims::Two if rank != 4 => bail!(Value, "expected 4D input (got {rank}D input)"),
        BatchDims::One if rank != 2 && rank != 3 => bail!(Value, "expected 2D or 3D input (got {rank}D input)"),
        _ => {}
    }
    let w = layer.param("weight");
    let b = layer.param("bias");
    let running = match (layer.buffer("running_mean"), layer.buffer("running_var")) {
        (Some(m), Some(v)) => Some((m, v)),
        _ => None,
    };
    let training = layer.training.get();
    let channels = x.shape()[1];
    if let Some(w) = &w {
        if w.numel() != channels {
            bail!(
                Shape,
                "running_mean should contain {channels} elements not {}",
                running.as_ref().map_or(w.numel(), |(m, _)| m.numel())
            );
        }
    }
    let stats = match (training, &running) {
        (false, Some((mean, var))) => BatchStats::Given { mean, var },
        _ => BatchStats::Batch,
    };
    // `_BatchNorm.forward` counts the batch before `F.batch_norm` checks anything.
    let factor = match (training, &running) {
        (true, Some(_)) => Some(count_batch(run, layer, momentum)?),
        _ => None,
    };
    let shown = crate::trace::python::float_repr(eps);
    crate::trace::binding::decl::check_batch_norm_eps(&x, &stats, eps, &shown)?;
    let (y, moments) = run.engine.batch_norm(&x, stats, eps, w.as_ref(), b.as_ref())?;
    if let (Some(BatchMoments { mean, var, count }), Some((rm, rv)), Some(factor)) = (moments, &running, factor) {
        update_running(run, rm, rv, &mean, &var, count, factor)?;
    }
    Ok(y)
}

/// `num_batches_tracked.add_(1)` where the layer has it, and the factor the running statistics
/// move by: `momentum`, or with `momentum=None` the cumulative `1 / num_batches_tracked`.
fn count_batch(run: &mut RunContext, layer: &Module, momentum: Option<f64>) -> Result<f64> {
    let Some(n) = layer.buffer("num_batches_tracked") else { return Ok(momentum.unwrap_or(0.0)) };
    let grad = run.engine.grad_enabled();
    run.engine.set_grad_enabled(false);
    let r = (|| -> Result<f64> {
        let one = Operand::Scalar(Scalar::Int(1));
        let next = run.engine.binary(BinaryOp::Add, &Operand::Tensor(n.clone()), &one)?;
        write_value(run, &n, &next, &[], OverlapRules::ALL)?;
        Ok(match momentum {
            Some(m) => m,
            None => 1.0 / run.engine.values(&n)?.get_f64(0),
        })
    })();
    run.engine.set_grad_enabled(grad);
    r
}

/// The running statistics' in-place update by `factor`, outside autograd as PyTorch does it.
fn update_running(
    run: &mut RunContext,
    rm: &Tensor,
    rv: &Tensor,
    mean: &Tensor,
    var: &Tensor,
    count: usize,
    factor: f64,
) -> Result<()> {
    let grad = run.engine.grad_enabled();
    run.engine.set_grad_enabled(false);
    let r = (|| -> Result<()> {
        let flat = |run: &mut RunContext, t: &Tensor| run.engine.reshape(t, &[-1]);
        let mean = flat(run, mean)?;
        let var = flat(run, var)?;
        let unbiased = count as f64 / (count as f64 - 1.0);
        let var = run.engine.binary(BinaryOp::Mul, &Operand::Tensor(var), &Operand::Scalar(Scalar::Float(unbiased)))?;
        for (buf, stat) in [(rm, mean), (rv, var)] {
            let e = &mut *run.engine;
            let kept =
                e.binary(BinaryOp::Mul, &Operand::Tensor(buf.clone()), &Operand::Scalar(Scalar::Float(1.0 - factor)))?;
            let moved = e.binary(BinaryOp::Mul, &Operand::Tensor(stat), &Operand::Scalar(Scalar::Float(factor)))?;
            let next = e.binary(BinaryOp::Add, &Operand::Tensor(kept), &Operand::Tensor(moved))?;
            // The kernel writes the running statistics directly: their version does not move.
            let alias = e.data_alias(buf)?;
            write_value(run, &alias, &next, &[], OverlapRules::ALL)?;
        }
        Ok(())
    })();
    run.engine.set_grad_enabled(grad);
    r
}

/// A default as the table writes it, as a value.
fn default_value(text: &str) -> Result<Value> {
    Ok(match text {
        "None" => Value::None,
        "True" => Value::Scalar(Scalar::Bool(true)),
        "False" => Value::Scalar(Scalar::Bool(false)),
        t if t.starts_with('\'') => Value::Str(t.trim_matches('\'').to_string()),
        t => match t.parse::<i64>() {
            Ok(i) => Value::Scalar(Scalar::Int(i)),
            Err(_) => Value::Scalar(Scalar::Float(t.parse::<f64>().unwrap_or(0.0))),
        },
    })
}

/// The module's class name as PyTorch prints it.
pub fn title(layer: &Module) -> String {
    match layer.kind {
        LayerKind::Linear { .. } => "Linear".into(),
        LayerKind::Conv2d => "Conv2d".into(),
        LayerKind::BatchNorm { dims: BatchDims::One, .. } => "BatchNorm1d".into(),
        LayerKind::BatchNorm { dims: BatchDims::Two, .. } => "BatchNorm2d".into(),
        LayerKind::Embedding { .. } => "Embedding".into(),
        LayerKind::LayerNorm { .. } => "LayerNorm".into(),
        LayerKind::Functional(f) => row(f).name.into(),
        LayerKind::Recurrent(r) => r.cell.title().into(),
        LayerKind::Sequential => "Sequential".into(),
        LayerKind::ModuleList => "ModuleList".into(),
        LayerKind::Custom => layer.class.as_ref().map_or_else(|| "Module".into(), |c| c.name.clone()),
    }
}

/// A class the trace defines, as a value.
pub type ModuleClass = Class<Value>;

/// Every module `nn.X(...)` builds, with its constructor's parameters as PyTorch documents
/// them (for the op reference).
pub fn constructors() -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = FUNCTIONAL
        .iter()
        .map(|r| {
            let params: Vec<String> = r
                .params
                .iter()
                .map(|(p, d)| match d {
                    Some(d) if !d.is_empty() => format!("{p}={d}"),
                    Some(_) => p.to_string(),
                    None => format!("{p}=None"),
                })
                .collect();
            (r.name, format!("({})", params.join(", ")))
        })
        .collect();
    out.extend([
        ("Linear", "(in_features, out_features, bias=True)".to_string()),
        (
            "Conv2d",
            "(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True)".into(),
        ),
        ("BatchNorm1d", "(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)".into()),
        ("BatchNorm2d", "(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)".into()),
        ("Sequential", "(*modules)".into()),
        ("ModuleList", "(modules=None)".into()),
        ("Embedding", "(num_embeddings, embedding_dim)".into()),
        ("LayerNorm", "(normalized_shape, eps=1e-05, elementwise_affine=True, bias=True)".into()),
        (
            "RNN",
            "(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False, dropout=0.0, bidirectional=False)"
                .into(),
        ),
        (
            "LSTM",
            "(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False, proj_size=0)"
                .into(),
        ),
        (
            "GRU",
            "(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False)"
                .into(),
        ),
        ("Parameter", "(data=None, requires_grad=True)".into()),
        ("Module", "()".into()),
    ]);
    out
}
