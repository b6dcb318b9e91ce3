//! The crate's one error type. Every fallible API returns [`Result`]; the variant is the
//! `kind` a trace error reports (`view`, `index`, `shape`, ...), the text is PyTorch-like.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The trace text could not be parsed.
    Parse { line: usize, column: usize, message: String },
    /// A view cannot be formed over the input's strides (PyTorch's `view` refusals).
    View(String),
    /// An index or dimension is out of range.
    Index(String),
    /// A position an index op reads or writes is past its dim where PyTorch raises a
    /// RuntimeError (`gather`, the scatter family, `index_add`), not indexing's IndexError:
    /// kind `index` too.
    Bounds(String),
    /// Sizes that do not fit together (reshape to another numel, bad expand, broadcast).
    Shape(String),
    /// A dtype that cannot be used or written there.
    DType(String),
    /// A write whose target overlaps itself or an input; `elements` are the storage indices.
    Overlap { message: String, elements: Vec<i64> },
    /// A name that is not bound (Python's NameError).
    Name(String),
    /// Arguments of the wrong number or type (Python's TypeError).
    Type(String),
    /// Something the trace language or the core does not support.
    Unsupported(String),
    /// A function, method or attribute name no op table has (kind `unsupported`): the runner
    /// adds the nearest known name to the message (`trace::binding::suggest`).
    UnknownOp { message: String, name: String },
    /// A resource limit that keeps a trace from allocating without bound.
    Limit(String),
    /// A share link or file that does not decode.
    Decode(String),
    /// A trace's `assert` failed (Python's AssertionError).
    Assertion(String),
    /// A Python value of the right type but a wrong value (Python's ValueError).
    Value(String),
    /// One of autograd's refusals (a saved tensor changed, an in-place op on a leaf, a second
    /// backward through freed buffers, ...).
    Autograd(String),
    /// An exception the trace raised itself (`raise ValueError("...")`), with its class.
    Raised { class: String, message: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// `{what} is not supported` for a name no op table has (`Tensor.veiw()`, `torch.aranj`).
    pub fn unknown_op(what: String, name: &str) -> Error {
        Error::UnknownOp { message: format!("{what} is not supported"), name: name.to_string() }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Error::Parse { .. } => "parse",
            Error::View(_) => "view",
            Error::Index(_) | Error::Bounds(_) => "index",
            Error::Shape(_) => "shape",
            Error::DType(_) => "dtype",
            Error::Overlap { .. } => "overlap",
            Error::Name(_) => "name",
            Error::Type(_) => "type",
            Error::Unsupported(_) | Error::UnknownOp { .. } => "unsupported",
            Error::Limit(_) => "limit",
            Error::Decode(_) => "decode",
            Error::Assertion(_) => "assertion",
            Error::Value(_) => "value",
            Error::Autograd(_) => "autograd",
            Error::Raised { .. } => "raised",
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Error::Parse { message, .. }
            | Error::Overlap { message, .. }
            | Error::UnknownOp { message, .. }
            | Error::Raised { message, .. } => message,
            Error::View(m)
            | Error::Index(m)
            | Error::Bounds(m)
            | Error::Shape(m)
            | Error::DType(m)
            | Error::Name(m)
            | Error::Type(m)
            | Error::Unsupported(m)
            | Error::Limit(m)
            | Error::Decode(m)
            | Error::Assertion(m)
            | Error::Value(m)
            | Error::Autograd(m) => m,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse { line, column, message } => write!(f, "{line}:{column}: {message}"),
            other => write!(f, "{}: {}", other.kind(), other.message()),
        }
    }
}

impl std::error::Error for Error {}

/// Shorthands so call sites read like the PyTorch check they mirror: an early `Err` of one
/// kind. Exported so the adapters (the page) use the same one.
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err($crate::error::Error::$kind(format!($($arg)*)))
    };
}
pub use bail;
