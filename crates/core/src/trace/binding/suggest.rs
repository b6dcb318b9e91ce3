//! "Did you mean": every name a trace may call, gathered from the op tables that define them,
//! and the nearest of them to a name that is not one.

use crate::error::Error;
use crate::trace::binding::elementwise::{Form, COMPOSITES};
use crate::trace::binding::functional as nn;
use crate::trace::binding::{copies, device, indexing, library, meta, random, reductions, views_extra};
use crate::uop::{BinaryOp, UnaryOp};

/// The function, method and attribute names the op tables list, sorted and distinct (in-place
/// forms included). Used for suggestions and for the page's op reference.
pub fn known_names() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for table in [
        library::FUNCTIONS,
        library::METHODS,
        copies::FUNCTIONS,
        copies::METHODS_ONLY,
        indexing::METHODS,
        meta::METHODS,
        random::FUNCTIONS,
        random::METHODS,
        reductions::METHODS,
        views_extra::METHODS,
        views_extra::VARIADIC,
        views_extra::ATTRS,
        nn::NAMES,
        device::METHODS,
        device::ATTRS,
        library::SPACES,
        crate::trace::binding::autograd::METHODS,
        crate::trace::binding::autograd::ATTRS,
        &["one_hot"],
    ] {
        out.extend(table.iter().map(|n| n.to_string()));
    }
    out.extend(library::CAST_METHODS.iter().map(|(n, _)| n.to_string()));
    let with_inplace = |out: &mut Vec<String>, names: &[&str], inplace: bool| {
        for n in names {
            out.push(n.to_string());
            if inplace {
                out.push(format!("{n}_"));
            }
        }
    };
    for op in UnaryOp::ALL {
        with_inplace(&mut out, op.names(), op.has_inplace());
    }
    for op in BinaryOp::ALL {
        with_inplace(&mut out, op.names(), op.has_inplace());
        with_inplace(&mut out, op.swapped_names(), op.has_inplace());
    }
    for (name, _, form) in COMPOSITES {
        with_inplace(&mut out, &[name], !matches!(form, Form::FunctionalOnly));
    }
    out.extend(crate::trace::binding::decl::names());
    out.extend(crate::trace::binding::library::SPECIAL_ALIASES.iter().map(|(n, _)| format!("special.{n}")));
    out.sort_unstable();
    out.dedup();
    out
}

/// The known name nearest to `name` by edits (insert, delete, substitute, swap two neighbours):
/// at most one edit for names of four letters or fewer, two for longer ones.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = if name.chars().count() <= 4 { 1 } else { 2 };
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (edits(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, std::cmp::Reverse(common_prefix(name, c)), c.len(), *c))
        .map(|(_, c)| c)
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// The optimal-string-alignment distance between two names.
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// Every public name of the PyTorch namespaces a trace reaches, one per line after a header
/// (written by `tools/fixtures/gen_torch_names.py`).
const TORCH_NAMES: &str = include_str!("torch_names.txt");

/// Whether PyTorch has `name` in any namespace a trace reaches.
fn torch_has(name: &str) -> bool {
    TORCH_NAMES.lines().skip(1).any(|n| n == name)
}

/// Who a `Tensor.x()` / `torch.x` / `nn.X` name was looked up on, as Python's AttributeError
/// names it; `None` where the message does not say.
fn owner(message: &str) -> Option<String> {
    let what = message.strip_suffix(" is not supported")?;
    let what = what.strip_suffix("()").unwrap_or(what);
    let (space, _) = what.rsplit_once('.')?;
    Some(match space {
        "Tensor" => "'Tensor' object".to_string(),
        "nn" => "module 'torch.nn'".to_string(),
        "F" => "module 'torch.nn.functional'".to_string(),
        s if s == "torch" || s.starts_with("torch.") => format!("module '{s}'"),
        s => format!("module 'torch.{s}'"),
    })
}

/// A name no op table has ([`Error::UnknownOp`]) as the error a trace reports. A name PyTorch
/// does not have either is Python's AttributeError, worded as Python prints it with the nearest
/// name ("... has no attribute 'veiw'. Did you mean: 'view'?"); a name PyTorch has is "not
/// supported", with the nearest name the product knows. Every other error is returned as it is.
pub fn with_suggestion<'a>(e: Error, more: impl IntoIterator<Item = &'a str>) -> Error {
    let Error::UnknownOp { message, name } = e else { return e };
    let mut names = known_names();
    names.extend(more.into_iter().map(str::to_string));
    let near = nearest(&name, names.iter().map(String::as_str));
    // A qualified name (`linalg.matrix_sqrth`) is an inventory entry of OpInfo's, which PyTorch
    // may expose under another spelling: only a plain name is taken for a typo.
    if let Some(owner) = owner(&message).filter(|_| !name.contains('.') && !torch_has(&name)) {
        // Python suggests the bare attribute name (`linalg.norm` is `norm` on `torch.linalg`).
        return Error::Type(match near.map(|n| n.rsplit('.').next().unwrap_or(n)) {
            Some(n) => format!("{owner} has no attribute '{name}'. Did you mean: '{n}'?"),
            None => format!("{owner} has no attribute '{name}'"),
        });
    }
    Error::Unsupported(match near {
        Some(n) => format!("{message}; did you mean {n}?"),
        None => message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_the_op() {
        let names = known_names();
        for (typo, want) in [
            ("veiw", Some("view")),
            ("aranj", Some("arange")),
            ("tranpose", Some("transpose")),
            ("unsqeeze", Some("unsqueeze")),
            ("mul__", Some("mul_")),
            ("softmx", Some("softmax")),
            ("xyzzy", None),
        ] {
            assert_eq!(nearest(typo, names.iter().map(String::as_str)), want, "{typo}");
        }
        for name in ["view", "add_", "sigmoid_", "chunk", "index_put_", "randn", "conv2d", "float", "masked_fill_"] {
            assert!(names.iter().any(|n| n == name), "{name}");
        }
    }

    #[test]
    fn pytorch_names_are_known_and_typos_are_not() {
        for name in ["transpose", "view", "Linear", "cross_entropy", "is_available", "lr_scheduler", "add_"] {
            assert!(torch_has(name), "{name}");
        }
        for typo in ["tranpose", "veiw", "aranj", "Lienar"] {
            assert!(!torch_has(typo), "{typo}");
        }
        assert_eq!(owner("Tensor.veiw() is not supported").as_deref(), Some("'Tensor' object"));
        assert_eq!(owner("torch.linalg.nrom is not supported").as_deref(), Some("module 'torch.linalg'"));
        assert_eq!(owner("nn.Lienar is not supported").as_deref(), Some("module 'torch.nn'"));
        assert_eq!(owner("rleu() is not supported"), None);
    }
}
