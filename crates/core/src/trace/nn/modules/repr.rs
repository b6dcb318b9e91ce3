//! A module's printed form, as `print(model)` shows it: PyTorch's `extra_repr` of each built-in
//! module and the indented tree of children.

use super::*;

fn bool_text(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// A config value as PyTorch's repr prints it.
fn config_text(layer: &Module, name: &str, default: &str) -> String {
    match layer.config.iter().find(|(n, _)| *n == name) {
        Some((_, v)) => crate::trace::python::repr_plain(v),
        None => default.to_string(),
    }
}

/// What PyTorch prints inside a module's parentheses (`extra_repr`).
pub(super) fn extra_repr(layer: &Module) -> String {
    match layer.kind {
        LayerKind::Linear { in_features, out_features, bias } => {
            format!("in_features={in_features}, out_features={out_features}, bias={}", bool_text(bias))
        }
        LayerKind::Conv2d => {
            let c = |n: &str| config_text(layer, n, "");
            let mut s = format!(
                "{}, {}, kernel_size={}, stride={}",
                c("in_channels"),
                c("out_channels"),
                c("kernel_size"),
                c("stride")
            );
            if c("padding") != "(0, 0)" {
                s.push_str(&format!(", padding={}", c("padding")));
            }
            if c("dilation") != "(1, 1)" {
                s.push_str(&format!(", dilation={}", c("dilation")));
            }
            if c("groups") != "1" {
                s.push_str(&format!(", groups={}", c("groups")));
            }
            if layer.param("bias").is_none() {
                s.push_str(", bias=False");
            }
            s
        }
        LayerKind::BatchNorm { features, eps, momentum, .. } => format!(
            "{features}, eps={}, momentum={}, affine={}, bias={}, track_running_stats={}",
            crate::trace::python::float_repr(eps),
            momentum.map_or("None".into(), crate::trace::python::float_repr),
            bool_text(layer.param("weight").is_some()),
            bool_text(layer.param("bias").is_some()),
            bool_text(layer.buffer("running_mean").is_some())
        ),
        LayerKind::Embedding { num, dim } => format!("{num}, {dim}"),
        LayerKind::LayerNorm { eps, .. } => {
            let shape = layer.param("weight").map(|w| w.shape().to_vec()).unwrap_or_default();
            let dims: Vec<String> = shape.iter().map(|n| n.to_string()).collect();
            let tuple = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
            format!(
                "{tuple}, eps={}, elementwise_affine={}, bias={}",
                crate::trace::python::float_repr(eps),
                bool_text(layer.param("weight").is_some()),
                bool_text(layer.param("bias").is_some())
            )
        }
        LayerKind::Functional(f) => functional_extra_repr(layer, f),
        LayerKind::Recurrent(r) => crate::trace::nn::recurrent::extra_repr(&r),
        LayerKind::Sequential | LayerKind::ModuleList | LayerKind::Custom => String::new(),
    }
}

fn functional_extra_repr(layer: &Module, f: Functional) -> String {
    let r = row(f);
    let shown = |skip: &str| -> Vec<(&str, String)> {
        r.params
            .iter()
            .filter(|(p, _)| *p != skip)
            .filter_map(|(p, d)| d.map(|d| (*p, config_text(layer, p, d))))
            .collect()
    };
    let named = |parts: Vec<(&str, String)>| parts.iter().map(|(p, v)| format!("{p}={v}")).collect::<Vec<_>>();
    match r.repr {
        Printed::Params => named(shown("")).join(", "),
        Printed::InplaceWhenSet => {
            let mut parts = named(shown("inplace"));
            if config_text(layer, "inplace", "False") == "True" {
                parts.push("inplace=True".into());
            }
            parts.join(", ")
        }
        Printed::Nothing => String::new(),
        Printed::Upsample => {
            let scale = config_text(layer, "scale_factor", "None");
            let first = match scale.as_str() {
                "None" => format!("size={}", config_text(layer, "size", "None")),
                s => format!("scale_factor={s}"),
            };
            format!("{first}, mode={}", config_text(layer, "mode", "'nearest'"))
        }
        Printed::Values => shown("").into_iter().map(|(_, v)| v).collect::<Vec<_>>().join(", "),
        Printed::Pool | Printed::MaxPool => {
            let k = config_text(layer, "kernel_size", "");
            let stride = match config_text(layer, "stride", "None").as_str() {
                "None" => k.clone(),
                s => s.to_string(),
            };
            let mut s = format!("kernel_size={k}, stride={stride}, padding={}", config_text(layer, "padding", "0"));
            if r.repr == Printed::MaxPool {
                s.push_str(&format!(
                    ", dilation={}, ceil_mode={}",
                    config_text(layer, "dilation", "1"),
                    config_text(layer, "ceil_mode", "False")
                ));
            }
            s
        }
    }
}

/// PyTorch's printed form: `Name(extra)` or, with children, one `(name): child` per line.
pub fn repr(layer: &Module) -> Result<String> {
    if let Some(c) = layer.class.as_ref().filter(|c| c.kind == crate::trace::nn::layer::ClassKind::Plain) {
        let at = layer as *const Module as usize as u64;
        return Ok(format!("<__main__.{} object at {:#x}>", c.name, 0x7f00_0000_0000_u64 + at % 0x1_0000_0000_u64));
    }
    nested_repr(layer, 0)
}

/// How deep `print(model)` may nest modules before Python's recursion limit stops
/// `Module.__repr__` (three frames a level under the default limit of 1,000).
const MAX_REPR_DEPTH: usize = 331;

fn nested_repr(layer: &Module, depth: usize) -> Result<String> {
    // A module that contains itself nests without end, as deep ones do.
    if depth > MAX_REPR_DEPTH {
        bail!(Limit, "maximum recursion depth exceeded");
    }
    let extra = extra_repr(layer);
    let children = layer.children.borrow();
    if children.is_empty() {
        return Ok(format!("{}({extra})", title(layer)));
    }
    if matches!(layer.kind, LayerKind::ModuleList) {
        return module_list_repr(&children, depth);
    }
    let mut s = format!("{}(\n", title(layer));
    if !extra.is_empty() {
        s.push_str(&format!("  {extra}\n"));
    }
    for (n, c) in children.iter() {
        let inner = nested_repr(c, depth + 1)?.replace('\n', "\n  ");
        s.push_str(&format!("  ({n}): {inner}\n"));
    }
    s.push(')');
    Ok(s)
}

/// `ModuleList.__repr__`: a run of children that print alike is one line, `(0-2): 3 x Linear(...)`.
fn module_list_repr(children: &[(String, Rc<Module>)], depth: usize) -> Result<String> {
    let mut runs: Vec<(usize, usize, String)> = Vec::new();
    for (i, (_, c)) in children.iter().enumerate() {
        let text = nested_repr(c, depth + 1)?;
        match runs.last_mut() {
            Some((_, end, last)) if *last == text => *end = i,
            _ => runs.push((i, i, text)),
        }
    }
    let lines: Vec<String> = runs
        .into_iter()
        .map(|(start, end, text)| {
            let line = if start == end {
                format!("({start}): {text}")
            } else {
                format!("({start}-{end}): {} x {text}", end - start + 1)
            };
            line.replace('\n', "\n  ")
        })
        .collect();
    Ok(format!("ModuleList(\n  {}\n)", lines.join("\n  ")))
}

impl Repr for Module {
    fn repr(&self) -> Result<String> {
        repr(self)
    }
}
