//! What one row of the declaration table is: an op's names, where PyTorch exposes them, its
//! signature, its gradient and its handler (the rows are `table.rs`, their use `mod.rs`).

use crate::error::Result;
use crate::trace::binding::signature::{Bound, Signature};
use crate::trace::python::context::RunContext;
use crate::trace::python::value::Value;

/// Where PyTorch exposes an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// `torch.X(input, ...)`.
    Torch,
    /// `input.X(...)`.
    Method,
    /// `input.X_(...)`: the in-place form, writing the result into `input`.
    Inplace,
    /// `torch.nn.functional.X(...)`.
    Functional,
    /// `torch.special.X(...)`.
    Special,
    /// `torch.linalg.X(...)`.
    Linalg,
}

/// What backward PyTorch records for an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grad {
    /// The op's own node, by PyTorch's name; the formula is the composition's.
    Node(&'static str),
    /// The node of the last op of the composition, as PyTorch's composite ops record it.
    Composite,
    /// No gradient: the result never requires grad (bool results, indices).
    None,
}

/// How PyTorch's kernel lays out an op's fresh result (the rows that say nothing keep what
/// the composition gives).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// What the composition's last op gives (TensorIterator's rules follow the inputs).
    AsComputed,
    /// Row-major whatever the inputs' layout (`layer_norm`, `embedding`).
    Contiguous,
    /// Channels-last when the first input is (`suggest_memory_format`), else row-major
    /// (`interpolate`, `pad`, the adaptive pools).
    Suggested,
}

/// One op.
pub struct Decl {
    pub name: &'static str,
    pub spaces: &'static [Space],
    /// Other names of the same op in the same spaces (`ger` for `outer`).
    pub aliases: &'static [&'static str],
    pub sig: &'static str,
    pub grad: Grad,
    pub run: fn(&mut RunContext, &Bound) -> Result<Value>,
    pub format: Format,
}

impl Decl {
    pub fn has(&self, space: Space) -> bool {
        self.spaces.contains(&space)
    }

    pub(super) fn named(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }

    pub fn signature(&self) -> Signature {
        // The table's test parses every row; a row that does not parse never ships.
        Signature::parse(self.sig).unwrap_or(Signature { params: Vec::new() })
    }

    /// Every public spelling: `torch.outer`, `Tensor.outer`, `F.layer_norm`, `Tensor.logit_`.
    pub fn spellings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for n in std::iter::once(&self.name).chain(self.aliases) {
            for s in self.spaces {
                out.push(match s {
                    Space::Torch => format!("torch.{n}"),
                    Space::Method => format!("Tensor.{n}"),
                    Space::Inplace => format!("Tensor.{n}_"),
                    Space::Functional => format!("torch.nn.functional.{n}"),
                    Space::Special => format!("torch.special.{n}"),
                    Space::Linalg => format!("torch.linalg.{n}"),
                });
            }
        }
        out
    }
}
