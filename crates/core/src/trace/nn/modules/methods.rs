//! A module's attributes and methods as a trace uses them: `m.weight`, `m.x = v` (a parameter,
//! a child or a plain attribute, as `nn.Module.__setattr__` sorts them), `parameters()`,
//! `state_dict()`, `train()`, `zero_grad()`, `m[i]` of a container, ...

use super::repr::extra_repr;
use super::*;

/// `module.name`: parameters, buffers, children, plain attributes, then the configuration.
pub fn attr(layer: &Rc<Module>, name: &str) -> Result<Value> {
    if let Some(t) = layer.param(name) {
        return Ok(Value::Tensor(t));
    }
    if let Some(t) = layer.buffer(name) {
        return Ok(Value::Tensor(t));
    }
    if let Some(c) = layer.child(name) {
        return Ok(Value::Layer(c));
    }
    if let Some((_, v)) = layer.attrs.borrow().iter().find(|(n, _)| n == name) {
        return Ok(v.clone());
    }
    if name == "training" {
        return Ok(Value::Scalar(Scalar::Bool(layer.training.get())));
    }
    // A class attribute (`scale = 2` in the class body), seen through the instance.
    if let Some((_, v)) = layer.class.as_ref().and_then(|c| c.attrs.iter().find(|(n, _)| n == name)) {
        return Ok(v.clone());
    }
    if let Some((_, v)) = layer.config.iter().find(|(n, _)| *n == name) {
        return Ok(v.clone());
    }
    let int = |n: usize| Ok(Value::Scalar(Scalar::Int(n as i64)));
    let float = |f: f64| Ok(Value::Scalar(Scalar::Float(f)));
    match (layer.kind, name) {
        (LayerKind::Linear { in_features, .. }, "in_features") => int(in_features),
        (LayerKind::Linear { out_features, .. }, "out_features") => int(out_features),
        (LayerKind::Linear { .. } | LayerKind::Conv2d | LayerKind::LayerNorm { .. }, "bias")
        | (LayerKind::BatchNorm { .. } | LayerKind::LayerNorm { .. }, "weight")
        | (LayerKind::BatchNorm { .. }, "bias" | "running_mean" | "running_var" | "num_batches_tracked") => {
            Ok(Value::None)
        }
        (LayerKind::BatchNorm { eps, .. } | LayerKind::LayerNorm { eps, .. }, "eps") => float(eps),
        (LayerKind::BatchNorm { momentum, .. }, "momentum") => {
            Ok(momentum.map_or(Value::None, |m| float(m).unwrap_or(Value::None)))
        }
        (LayerKind::BatchNorm { features, .. }, "num_features") => int(features),
        (LayerKind::Embedding { num, .. }, "num_embeddings") => int(num),
        (LayerKind::Embedding { dim, .. }, "embedding_dim") => int(dim),
        (LayerKind::Recurrent(r), _) => match crate::trace::nn::recurrent::attr(&r, name) {
            Some(v) => Ok(v),
            None => bail!(Type, "'{}' object has no attribute '{name}'", title(layer)),
        },
        (LayerKind::Functional(f), _) => match row(f).params.iter().find(|(p, _)| *p == name) {
            Some((_, Some(default))) if !default.is_empty() => default_value(default),
            Some(_) => Ok(Value::None),
            None => bail!(Type, "'{}' object has no attribute '{name}'", title(layer)),
        },
        _ => bail!(Type, "'{}' object has no attribute '{name}'", title(layer)),
    }
}

/// `module.name = value`: a module registers as a child, a parameter as a parameter, a tensor
/// over a buffer's name replaces the buffer; anything else is a plain attribute.
pub fn setattr(run: &mut RunContext, layer: &Rc<Module>, name: &str, v: Value) -> Result<()> {
    fn put<T>(list: &mut Vec<(String, T)>, name: &str, v: T) {
        match list.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = v,
            None => list.push((name.to_string(), v)),
        }
    }
    fn remove<T>(list: &mut Vec<(String, T)>, name: &str) {
        list.retain(|(n, _)| n != name);
    }
    if name == "training" {
        layer.training.set(crate::trace::python::truth(run, &v)?);
        return Ok(());
    }
    match v {
        Value::Layer(_) if !layer.initialized.get() => {
            bail!(Type, "cannot assign module before Module.__init__() call")
        }
        Value::Tensor(t) if !layer.initialized.get() && run.engine.is_parameter(&t) => {
            bail!(Type, "cannot assign parameters before Module.__init__() call")
        }
        Value::Layer(c) => {
            remove(&mut layer.params.borrow_mut(), name);
            remove(&mut layer.attrs.borrow_mut(), name);
            put(&mut layer.children.borrow_mut(), name, c);
        }
        Value::Tensor(t) if run.engine.is_parameter(&t) => {
            remove(&mut layer.children.borrow_mut(), name);
            remove(&mut layer.attrs.borrow_mut(), name);
            put(&mut layer.params.borrow_mut(), name, t);
        }
        Value::Tensor(t) if layer.buffer(name).is_some() => put(&mut layer.buffers.borrow_mut(), name, t),
        Value::Tensor(_) if layer.param(name).is_some() => {
            bail!(Type, "cannot assign 'torch.FloatTensor' as parameter '{name}' (torch.nn.Parameter or None expected)")
        }
        v => {
            if layer.child(name).is_some() && !matches!(v, Value::None) {
                bail!(
                    Type,
                    "cannot assign '{}' as child module '{name}' (torch.nn.Module or None expected)",
                    v.type_name()
                );
            }
            remove(&mut layer.children.borrow_mut(), name);
            remove(&mut layer.params.borrow_mut(), name);
            put(&mut layer.attrs.borrow_mut(), name, v);
        }
    }
    Ok(())
}

/// The module methods that need no forward: `parameters()`, `named_parameters()`,
/// `buffers()`, `children()`, `modules()`, `state_dict()`, `zero_grad()`, `train()`, `eval()`,
/// `requires_grad_()`, `register_buffer()`, `register_parameter()`, `add_module()`.
pub fn method(run: &mut RunContext, layer: &Rc<Module>, name: &str, mut args: Args) -> Result<Value> {
    // PyTorch's are generators: `next(m.parameters())` works, `m.parameters()[0]` does not, and
    // one is used up by whatever iterates it first.
    let generator = |items: Vec<Value>| {
        Value::Iterator(crate::trace::python::PyIter::items(
            "generator",
            crate::trace::python::Iter::Items(items.into_iter()),
        ))
    };
    let tensor_list = |v: Vec<(String, Tensor)>| generator(v.into_iter().map(|(_, t)| Value::Tensor(t)).collect());
    let named_list =
        |v: Vec<(String, Value)>| generator(v.into_iter().map(|(n, t)| Value::Tuple(vec![Value::Str(n), t])).collect());
    let tensors = |v: Vec<(String, Tensor)>| v.into_iter().map(|(n, t)| (n, Value::Tensor(t))).collect::<Vec<_>>();
    match name {
        "parameters" | "named_parameters" | "buffers" | "named_buffers" => {
            let recurse = args.bool_or(if name.starts_with("named") { 1 } else { 0 }, "recurse", true)?;
            if name.starts_with("named") {
                let _ = args.opt(0, "prefix");
            }
            args.finish()?;
            let all = match (name.ends_with("parameters"), recurse) {
                (true, true) => layer.named_parameters(),
                (true, false) => layer.params.borrow().clone(),
                (false, true) => layer.named_buffers(),
                (false, false) => layer.buffers.borrow().clone(),
            };
            Ok(if name.starts_with("named") { named_list(tensors(all)) } else { tensor_list(all) })
        }
        "children" | "named_children" => {
            args.finish()?;
            let c: Vec<(String, Value)> =
                layer.children.borrow().iter().map(|(n, c)| (n.clone(), Value::Layer(c.clone()))).collect();
            Ok(if name == "children" { generator(c.into_iter().map(|(_, v)| v).collect()) } else { named_list(c) })
        }
        "modules" | "named_modules" => {
            args.finish()?;
            let m: Vec<(String, Value)> = layer
                .modules()
                .into_iter()
                .map(|(p, m)| (p.trim_end_matches('.').to_string(), Value::Layer(m)))
                .collect();
            Ok(if name == "modules" { generator(m.into_iter().map(|(_, v)| v).collect()) } else { named_list(m) })
        }
        "state_dict" => {
            args.finish()?;
            // The entries are detached tensors over the same storage.
            let mut out = Vec::new();
            for (n, t) in layer.state() {
                let d = crate::trace::binding::methods::method(
                    run,
                    t,
                    "detach",
                    Args::new("detach", Vec::new(), Vec::new()),
                )?;
                out.push((n, d));
            }
            Ok(Value::dict(crate::trace::python::value::DictKind::Ordered, out))
        }
        "zero_grad" => {
            // PyTorch 2's default: set_to_none=True.
            let to_none = args.bool_or(0, "set_to_none", true)?;
            args.finish()?;
            let params: Vec<Tensor> = layer.named_parameters().into_iter().map(|(_, t)| t).collect();
            zero_grads(run, &params, to_none)?;
            Ok(Value::None)
        }
        "train" | "eval" => {
            let mode = if name == "train" { args.bool_or(0, "mode", true)? } else { false };
            args.finish()?;
            for m in layer.all() {
                m.training.set(mode);
            }
            Ok(Value::Layer(layer.clone()))
        }
        "requires_grad_" => {
            let on = args.bool_or(0, "requires_grad", true)?;
            args.finish()?;
            for (_, t) in layer.named_parameters() {
                run.engine.set_requires_grad(&t, on, GradSwitch::Method)?;
            }
            Ok(Value::Layer(layer.clone()))
        }
        "register_buffer" => {
            let n = args.req(0, "name")?;
            let t = args.req(1, "tensor")?;
            let _ = args.bool_or(2, "persistent", true)?;
            args.finish()?;
            let Value::Str(n) = n else { bail!(Type, "buffer name should be a string. Got {}", n.type_name()) };
            let t = tensor_arg(t, "register_buffer(): argument 'tensor'")?;
            if !layer.initialized.get() {
                bail!(Type, "cannot assign buffer before Module.__init__() call");
            }
            layer.buffers.borrow_mut().push((n, t));
            Ok(Value::None)
        }
        "register_parameter" | "add_module" | "register_module" => {
            let n = args.req(0, "name")?;
            let v = args.req(1, if name == "register_parameter" { "param" } else { "module" })?;
            args.finish()?;
            let Value::Str(n) = n else { bail!(Type, "name should be a string. Got {}", n.type_name()) };
            if !layer.initialized.get() {
                match name {
                    "register_parameter" => bail!(Type, "cannot assign parameter before Module.__init__() call"),
                    _ => bail!(Type, "'{}' object has no attribute '_modules'", title(layer)),
                }
            }
            setattr(run, layer, &n, v)?;
            Ok(Value::None)
        }
        "to" | "cpu" | "cuda" | "float" | "double" | "half" | "bfloat16" => {
            let (dtype, format) = conversion(name, args)?;
            convert(run, layer, dtype, format)?;
            Ok(Value::Layer(layer.clone()))
        }
        "extra_repr" => {
            args.finish()?;
            Ok(Value::Str(extra_repr(layer)))
        }
        _ => bail!(Type, "'{}' object has no attribute '{name}'", title(layer)),
    }
}

/// `zero_grad(set_to_none)` over `params`: drops each `.grad`, or zeroes it in place
/// (`grad.detach_()` then `grad.zero_()` in PyTorch, a write into the gradient's storage).
pub fn zero_grads(run: &mut RunContext, params: &[Tensor], to_none: bool) -> Result<()> {
    for t in params {
        if to_none {
            run.engine.set_grad(t, None)?;
        } else if let Some(g) = run.engine.grad(t) {
            crate::trace::binding::subscript::fill(run, &g, Operand::Scalar(Scalar::Int(0)), "zero_")?;
        }
    }
    Ok(())
}

/// `module[i]` for a `Sequential` or `ModuleList` (a slice gives a container of the same kind).
pub fn getitem(layer: &Rc<Module>, items: &[Value]) -> Result<Value> {
    let [i] = items else { bail!(Type, "indices must be integers") };
    if !matches!(layer.kind, LayerKind::Sequential | LayerKind::ModuleList) {
        bail!(Type, "'{}' object is not subscriptable", title(layer));
    }
    let children = layer.children.borrow();
    let n = children.len() as i64;
    if let Value::Slice(start, stop, step) = i {
        let idx = crate::trace::python::containers::slice_positions(n, *start, *stop, *step)?;
        let out = Module::new(layer.kind);
        for (k, j) in idx.into_iter().enumerate() {
            out.children.borrow_mut().push((k.to_string(), children[j].1.clone()));
        }
        return Ok(Value::Layer(Rc::new(out)));
    }
    let i = i.as_int("index")?;
    let j = if i < 0 { i + n } else { i };
    match usize::try_from(j).ok().and_then(|j| children.get(j)) {
        Some((_, c)) => Ok(Value::Layer(c.clone())),
        None => bail!(Index, "index {i} is out of range"),
    }
}

/// What `m.to(...)` (and `m.float()`, `m.double()`, `m.half()`, `m.bfloat16()`, `m.cpu()`,
/// `m.cuda()`) converts to: a floating dtype and a memory format, each if given. Devices are
/// taken and ignored (everything runs on the CPU).
fn conversion(name: &str, args: Args) -> Result<(Option<DType>, Option<Value>)> {
    let fixed = match name {
        "float" => Some(DType::Float32),
        "double" => Some(DType::Float64),
        "half" => Some(DType::Float16),
        "bfloat16" => Some(DType::BFloat16),
        _ => None,
    };
    let (pos, kw) = args.into_parts();
    if name != "to" {
        return Ok((fixed, None));
    }
    let mut dtype = None;
    let mut format = None;
    for v in pos.into_iter().chain(kw.iter().filter(|(k, _)| k == "dtype" || k == "tensor").map(|(_, v)| v.clone())) {
        match v {
            Value::DType(d) => dtype = Some(d),
            Value::Tensor(t) => dtype = Some(t.dtype()),
            _ => {}
        }
    }
    if let Some((_, f)) = kw.iter().find(|(k, _)| k == "memory_format") {
        format = Some(f.clone());
    }
    if let Some(d) = dtype {
        if !d.is_float() {
            bail!(
                Type,
                "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={}",
                d.torch_name()
            );
        }
    }
    Ok((dtype, format))
}

/// `Module._apply` of a conversion, under `no_grad`: each parameter keeps its object and takes
/// the converted values as its `.data` (its `.grad` converted too), each buffer is replaced by
/// its conversion. A floating tensor takes `dtype`; a 4-D or 5-D one takes `format`.
fn convert(run: &mut RunContext, layer: &Rc<Module>, dtype: Option<DType>, format: Option<Value>) -> Result<()> {
    if dtype.is_none() && format.is_none() {
        return Ok(());
    }
    let to = |run: &mut RunContext, t: &Tensor| -> Result<Tensor> {
        let mut kw = Vec::new();
        if let Some(d) = dtype.filter(|_| t.dtype().is_float()) {
            kw.push(("dtype".to_string(), Value::DType(d)));
        }
        if let Some(f) = format.clone().filter(|_| matches!(t.shape().len(), 4 | 5)) {
            kw.push(("memory_format".to_string(), f));
        }
        match run.method(t.clone(), "to", Args::new("to", Vec::new(), kw))? {
            Value::Tensor(c) => Ok(c),
            other => bail!(Type, "to() gave a {}", other.type_name()),
        }
    };
    let grad = run.engine.grad_enabled();
    run.engine.set_grad_enabled(false);
    let r = (|| -> Result<()> {
        for m in layer.all() {
            let params: Vec<Tensor> = m.params.borrow().iter().map(|(_, t)| t.clone()).collect();
            for p in params {
                let c = to(run, &p)?;
                if !c.same_object(&p) {
                    crate::trace::binding::autograd::setattr(run, &p, "data", Value::Tensor(c))?;
                }
                if let Some(g) = run.engine.grad(&p) {
                    let c = to(run, &g)?;
                    if !c.same_object(&g) {
                        run.engine.set_grad(&p, Some(c))?;
                    }
                }
            }
            let buffers: Vec<(String, Tensor)> = m.buffers.borrow().clone();
            for (n, b) in buffers {
                let c = to(run, &b)?;
                if let Some(slot) = m.buffers.borrow_mut().iter_mut().find(|(k, _)| *k == n) {
                    slot.1 = c;
                }
            }
        }
        Ok(())
    })();
    run.engine.set_grad_enabled(grad);
    r
}
