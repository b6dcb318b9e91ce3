//! The op reference: every name the trace language runs, with where PyTorch exposes it and,
//! for the ops the declaration table holds, PyTorch's signature and autograd node. The page's
//! Reference tab and `stridelab ops` read it; a test checks that every listed op runs.

use crate::trace::binding::decl::{self, Grad};
use crate::trace::binding::functional as nn;
use crate::trace::binding::suggest;
use crate::trace::binding::{device, library, views_extra};
use crate::trace::nn::{modules, optim};

/// One entry of the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The name a search finds it by (`layer_norm`, `nn.Linear`, `optim.Adam`).
    pub name: String,
    /// Every spelling that runs (`torch.outer`, `Tensor.outer`, `F.layer_norm`).
    pub forms: Vec<String>,
    /// PyTorch's signature, where declared.
    pub signature: Option<String>,
    /// The autograd node PyTorch records, "not differentiable", or None where not declared.
    pub grad: Option<String>,
}

fn entry(name: impl Into<String>, forms: Vec<String>, signature: Option<String>, grad: Option<String>) -> Entry {
    Entry { name: name.into(), forms, signature, grad }
}

/// Every entry, sorted by name.
pub fn entries() -> Vec<Entry> {
    let mut out = Vec::new();
    let mut declared = std::collections::HashSet::new();
    for d in decl::table::DECLS {
        let grad = match d.grad {
            Grad::Node(n) => Some(n.to_string()),
            Grad::Composite => Some("the composition's nodes".to_string()),
            Grad::None => Some("not differentiable".to_string()),
        };
        let forms = d.spellings().into_iter().map(|s| s.replace("torch.nn.functional.", "F.")).collect();
        out.push(entry(d.name, forms, Some(d.sig.to_string()), grad));
        declared.insert(d.name.to_string());
        for a in d.aliases {
            declared.insert(a.to_string());
        }
        if d.has(decl::Space::Inplace) {
            declared.insert(format!("{}_", d.name));
        }
    }
    for name in suggest::known_names() {
        if declared.contains(&name) || name.starts_with("special.") {
            continue;
        }
        let mut forms = Vec::new();
        if library::is_function(&name) {
            forms.push(format!("torch.{name}"));
        }
        if nn::NAMES.contains(&name.as_str())
            || crate::trace::binding::elementwise::COMPOSITES.iter().any(|(n, _, _)| *n == name)
        {
            forms.push(format!("F.{name}"));
        }
        if crate::trace::binding::methods::is_tensor_method(&name) {
            forms.push(format!("Tensor.{name}"));
        }
        if views_extra::ATTRS.contains(&name.as_str())
            || device::ATTRS.contains(&name.as_str())
            || crate::trace::binding::autograd::ATTRS.contains(&name.as_str())
        {
            forms.push(format!("Tensor.{name} (attribute)"));
        }
        out.push(entry(name, forms, None, None));
    }
    for (n, torch_name) in library::SPECIAL_ALIASES {
        out.push(entry(
            format!("special.{n}"),
            vec![format!("torch.special.{n}")],
            None,
            Some(format!("as torch.{torch_name}")),
        ));
    }
    for (n, sig) in modules::constructors() {
        out.push(entry(format!("nn.{n}"), vec![format!("torch.nn.{n}")], Some(sig), None));
    }
    for n in ["SGD", "Adam", "AdamW"].into_iter().filter(|n| optim::is_optimizer(n)) {
        let sig = match n {
            "SGD" => "(params, lr=0.001, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False)",
            "Adam" => {
                "(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0, amsgrad=False, *, maximize=False)"
            }
            _ => {
                "(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.01, amsgrad=False, *, maximize=False)"
            }
        };
        out.push(entry(format!("optim.{n}"), vec![format!("torch.optim.{n}")], Some(sig.to_string()), None));
    }
    for (n, sig) in [
        ("no_grad", "()"),
        ("enable_grad", "()"),
        ("inference_mode", "(mode=True)"),
        ("set_grad_enabled", "(mode)"),
        ("is_grad_enabled", "()"),
        (
            "autograd.grad",
            "(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None)",
        ),
        ("device", "(type, index=None)"),
        ("cuda.is_available", "()"),
        ("cuda.device_count", "()"),
    ] {
        out.push(entry(n, vec![format!("torch.{n}")], Some(sig.to_string()), None));
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out.dedup_by(|a, b| a.name == b.name);
    out
}
