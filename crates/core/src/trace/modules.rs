//! `torch.nn` layers in the trace: `nn.Linear`, `nn.ReLU`, `nn.Flatten` and `nn.Sequential`,
//! with PyTorch's initialisation bit for bit (`nn.Linear` draws its weight and then its bias
//! from the default generator, uniform in ±1/sqrt(in_features), as `kaiming_uniform_` with
//! a=sqrt(5) and `reset_parameters` do), their parameters as leaf tensors that require grad,
//! calls (`model(x)`), `parameters()`, `named_parameters()`, indexing a Sequential, and
//! PyTorch's printed form.

use super::context::RunContext;
use super::elementwise::tensor_arg;
use super::layer::{Layer, LayerKind};
use super::value::{Args, Value};
use crate::error::{bail, Result};
use crate::random::{Distribution, Generators};
use crate::tensor::Tensor;
use crate::uop::buffer::Scalar;
use crate::uop::UnaryOp;
use std::rc::Rc;

/// The layers `nn.X(...)` builds.
pub fn is_layer(name: &str) -> bool {
    matches!(name, "Linear" | "ReLU" | "Flatten" | "Sequential" | "Embedding" | "LayerNorm")
}

/// `nn.Linear(in, out, bias=True)`, `nn.ReLU()`, `nn.Flatten(start_dim, end_dim)`,
/// `nn.Sequential(*layers)`.
pub fn construct(run: &mut RunContext, name: &str, mut args: Args) -> Result<Value> {
    let layer = match name {
        "Linear" => {
            let n_in = args.int(0, "in_features")?;
            let n_out = args.int(1, "out_features")?;
            let bias = args.bool_or(2, "bias", true)?;
            args.finish()?;
            let (Ok(n_in), Ok(n_out)) = (usize::try_from(n_in), usize::try_from(n_out)) else {
                bail!(Value, "Trying to create tensor with negative dimension");
            };
            // reset_parameters: kaiming_uniform_(a=sqrt(5)) on the weight is uniform in
            // ±1/sqrt(fan_in), and so is the bias; the weight draws first.
            let bound = if n_in > 0 { 1.0 / (n_in as f64).sqrt() } else { 0.0 };
            let weight = parameter(run, &[n_out, n_in], bound)?;
            let mut params = vec![("weight", weight)];
            if bias {
                params.push(("bias", parameter(run, &[n_out], bound)?));
            }
            Layer {
                kind: LayerKind::Linear { in_features: n_in, out_features: n_out, bias },
                params,
                children: Vec::new(),
            }
        }
        "Embedding" => {
            let num = args.int(0, "num_embeddings")?;
            let dim = args.int(1, "embedding_dim")?;
            args.finish()?;
            let (Ok(num), Ok(dim)) = (usize::try_from(num), usize::try_from(dim)) else {
                bail!(Value, "Trying to create tensor with negative dimension");
            };
            // reset_parameters: init.normal_(weight).
            let w = run.engine.full(&[num, dim], Scalar::Int(0), Some(crate::dtype::DType::Float32))?;
            let w = run.engine.realize(&w)?;
            run.engine.random_(&w, Generators::DEFAULT, Distribution::Normal { mean: 0.0, std: 1.0 })?;
            let w = run.engine.resolve(&w);
            run.engine.make_parameter(&w)?;
            Layer { kind: LayerKind::Embedding { num, dim }, params: vec![("weight", w)], children: Vec::new() }
        }
        "LayerNorm" => {
            let shape = args.req(0, "normalized_shape")?.as_ints("normalized_shape")?;
            let eps = match args.opt(1, "eps") {
                Some(v) => v.as_scalar("eps")?.as_f64(),
                None => 1e-5,
            };
            let affine = args.bool_or(2, "elementwise_affine", true)?;
            args.finish()?;
            let shape = super::value::sizes(shape)?;
            let mut params = Vec::new();
            if affine {
                for (name, v) in [("weight", 1), ("bias", 0)] {
                    let t = run.engine.full(&shape, Scalar::Int(v), Some(crate::dtype::DType::Float32))?;
                    let t = run.engine.realize(&t)?;
                    run.engine.make_parameter(&t)?;
                    params.push((name, t));
                }
            }
            Layer { kind: LayerKind::LayerNorm { dims: shape.len(), eps }, params, children: Vec::new() }
        }
        "ReLU" => {
            let _ = args.bool_or(0, "inplace", false)?;
            args.finish()?;
            Layer { kind: LayerKind::Relu, params: Vec::new(), children: Vec::new() }
        }
        "Flatten" => {
            let start = args.int_or(0, "start_dim", 1)?;
            let end = args.int_or(1, "end_dim", -1)?;
            args.finish()?;
            Layer { kind: LayerKind::Flatten { start, end }, params: Vec::new(), children: Vec::new() }
        }
        _ => {
            let (pos, kw) = args.into_parts();
            if let Some((k, _)) = kw.first() {
                bail!(Type, "Sequential() got an unexpected keyword argument '{k}'");
            }
            let mut children = Vec::with_capacity(pos.len());
            for v in pos {
                match v {
                    Value::Layer(l) => children.push(l),
                    other => bail!(Type, "{} is not a Module subclass", other.type_name()),
                }
            }
            Layer { kind: LayerKind::Sequential, params: Vec::new(), children }
        }
    };
    Ok(Value::Layer(Rc::new(layer)))
}

/// A parameter: uniform in ±`bound` from the default generator, a leaf that requires grad.
fn parameter(run: &mut RunContext, shape: &[usize], bound: f64) -> Result<Tensor> {
    let t = run.engine.full(shape, Scalar::Int(0), Some(crate::dtype::DType::Float32))?;
    let t = run.engine.realize(&t)?;
    run.engine.random_(&t, Generators::DEFAULT, Distribution::Uniform { from: -bound, to: bound })?;
    let t = run.engine.resolve(&t);
    run.engine.make_parameter(&t)?;
    Ok(t)
}

/// `layer(x)`.
pub fn call(run: &mut RunContext, layer: &Layer, mut args: Args) -> Result<Value> {
    let x = tensor_arg(args.req(0, "input")?, "forward(): argument 'input'")?;
    args.finish()?;
    Ok(Value::Tensor(forward(run, layer, x)?))
}

fn forward(run: &mut RunContext, layer: &Layer, x: Tensor) -> Result<Tensor> {
    match layer.kind {
        LayerKind::Linear { .. } => {
            let w = &layer.params[0].1;
            let b = layer.params.get(1).map(|(_, b)| b);
            run.engine.linear(&x, w, b)
        }
        LayerKind::Relu => run.engine.unary(UnaryOp::Relu, &x),
        LayerKind::Flatten { start, end } => run.engine.flatten(&x, start, end),
        LayerKind::Embedding { .. } => {
            let out = run.engine.advanced_index(&layer.params[0].1, &[crate::engine::indexing::Index::Tensor(x)])?;
            run.engine.rename_grad_fn(&out, "EmbeddingBackward0");
            Ok(out)
        }
        LayerKind::LayerNorm { dims, eps } => {
            use crate::engine::reduce::KeepDim;
            use crate::tensor::Operand;
            use crate::uop::BinaryOp;
            let n = x.shape().len();
            if dims > n {
                bail!(Shape, "Given normalized_shape has {dims} dims, expected input with at least that many dims");
            }
            let axes: Vec<usize> = (n - dims..n).collect();
            let e = &mut *run.engine;
            let mean = e.mean(&x, &axes, KeepDim::Keep)?;
            let centered = e.binary(BinaryOp::Sub, &Operand::Tensor(x.clone()), &Operand::Tensor(mean))?;
            let sq = e.binary(BinaryOp::Mul, &Operand::Tensor(centered.clone()), &Operand::Tensor(centered.clone()))?;
            let var = e.mean(&sq, &axes, KeepDim::Keep)?;
            let var = e.binary(BinaryOp::Add, &Operand::Tensor(var), &Operand::Scalar(Scalar::Float(eps)))?;
            let std = e.unary(UnaryOp::Sqrt, &var)?;
            let mut y = e.binary(BinaryOp::Div, &Operand::Tensor(centered), &Operand::Tensor(std))?;
            if let [(_, w), (_, b)] = layer.params.as_slice() {
                y = e.binary(BinaryOp::Mul, &Operand::Tensor(y), &Operand::Tensor(w.clone()))?;
                y = e.binary(BinaryOp::Add, &Operand::Tensor(y), &Operand::Tensor(b.clone()))?;
            }
            e.rename_grad_fn(&y, "NativeLayerNormBackward0");
            Ok(y)
        }
        LayerKind::Sequential => {
            let mut x = x;
            for c in &layer.children {
                x = forward(run, c, x)?;
            }
            Ok(x)
        }
    }
}

/// Every parameter with its dotted name, in PyTorch's order (a layer's own, then its children's).
fn named(layer: &Layer, prefix: &str, out: &mut Vec<(String, Tensor)>) {
    for (n, t) in &layer.params {
        out.push((format!("{prefix}{n}"), t.clone()));
    }
    for (i, c) in layer.children.iter().enumerate() {
        named(c, &format!("{prefix}{i}."), out);
    }
}

/// `layer.weight`, `layer.in_features`, ...
pub fn attr(layer: &Layer, name: &str) -> Result<Value> {
    if let Some((_, t)) = layer.params.iter().find(|(n, _)| *n == name) {
        return Ok(Value::Tensor(t.clone()));
    }
    let int = |n: usize| Ok(Value::Scalar(Scalar::Int(n as i64)));
    match (layer.kind, name) {
        (LayerKind::Linear { in_features, .. }, "in_features") => int(in_features),
        (LayerKind::Linear { out_features, .. }, "out_features") => int(out_features),
        (LayerKind::Linear { bias: false, .. }, "bias") => Ok(Value::None),
        _ => bail!(Type, "'{}' object has no attribute '{name}'", title(layer)),
    }
}

/// `model.parameters()`, `model.named_parameters()`, `model.zero_grad()`, `train()`, `eval()`.
pub fn method(run: &mut RunContext, layer: &Rc<Layer>, name: &str, mut args: Args) -> Result<Value> {
    let mut all = Vec::new();
    named(layer, "", &mut all);
    match name {
        "parameters" => {
            args.finish()?;
            Ok(Value::List(all.into_iter().map(|(_, t)| Value::Tensor(t)).collect()))
        }
        "named_parameters" => {
            args.finish()?;
            Ok(Value::List(all.into_iter().map(|(n, t)| Value::Tuple(vec![Value::Str(n), Value::Tensor(t)])).collect()))
        }
        "zero_grad" => {
            // PyTorch 2's default: set_to_none=True.
            let to_none = args.bool_or(0, "set_to_none", true)?;
            args.finish()?;
            for (_, t) in all {
                if to_none {
                    run.engine.set_grad(&t, None)?;
                } else if let Some(g) = run.engine.grad(&t) {
                    super::subscript::fill(run, &g, crate::tensor::Operand::Scalar(Scalar::Int(0)), "zero_")?;
                }
            }
            Ok(Value::None)
        }
        "train" | "eval" | "requires_grad_" => {
            let _ = args.opt(0, "mode");
            args.finish()?;
            Ok(Value::Layer(layer.clone()))
        }
        "forward" => call(run, layer, args),
        _ => bail!(Type, "'{}' object has no attribute '{name}'", title(layer)),
    }
}

/// `sequential[i]`.
pub fn getitem(layer: &Rc<Layer>, items: &[Value]) -> Result<Value> {
    let [i] = items else { bail!(Type, "indices must be integers") };
    if layer.kind != LayerKind::Sequential {
        bail!(Type, "'{}' object is not subscriptable", title(layer));
    }
    let n = layer.children.len() as i64;
    let i = i.as_int("index")?;
    let j = if i < 0 { i + n } else { i };
    match usize::try_from(j).ok().and_then(|j| layer.children.get(j)) {
        Some(c) => Ok(Value::Layer(c.clone())),
        None => bail!(Index, "index {i} is out of range"),
    }
}

fn title(layer: &Layer) -> &'static str {
    match layer.kind {
        LayerKind::Linear { .. } => "Linear",
        LayerKind::Relu => "ReLU",
        LayerKind::Flatten { .. } => "Flatten",
        LayerKind::Sequential => "Sequential",
        LayerKind::Embedding { .. } => "Embedding",
        LayerKind::LayerNorm { .. } => "LayerNorm",
    }
}

/// PyTorch's printed form: `Linear(in_features=4, out_features=8, bias=True)`, a Sequential's
/// children one per line, indented.
pub fn repr(layer: &Layer) -> String {
    match layer.kind {
        LayerKind::Linear { in_features, out_features, bias } => {
            let b = if bias { "True" } else { "False" };
            format!("Linear(in_features={in_features}, out_features={out_features}, bias={b})")
        }
        LayerKind::Relu => "ReLU()".into(),
        LayerKind::Flatten { start, end } => format!("Flatten(start_dim={start}, end_dim={end})"),
        LayerKind::Embedding { num, dim } => format!("Embedding({num}, {dim})"),
        LayerKind::LayerNorm { eps, .. } => {
            let shape = layer.params.first().map(|(_, w)| w.shape().to_vec()).unwrap_or_default();
            let dims: Vec<String> = shape.iter().map(|n| n.to_string()).collect();
            let tuple = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
            let affine = if layer.params.is_empty() { "False" } else { "True" };
            // PyTorch 2.1+ prints `bias=` too (one flag with the affine parameters here).
            format!(
                "LayerNorm({tuple}, eps={}, elementwise_affine={affine}, bias={affine})",
                super::python::float_repr(eps)
            )
        }
        LayerKind::Sequential if layer.children.is_empty() => "Sequential()".into(),
        LayerKind::Sequential => {
            let mut s = String::from("Sequential(\n");
            for (i, c) in layer.children.iter().enumerate() {
                let inner = repr(c).replace('\n', "\n  ");
                s.push_str(&format!("  ({i}): {inner}\n"));
            }
            s.push(')');
            s
        }
    }
}
