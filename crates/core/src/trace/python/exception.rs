//! Python's exceptions as a trace meets them: the builtin classes and their hierarchy, the
//! class each engine error is raised as (so `except RuntimeError` catches what PyTorch raises
//! as one), and exception values (`except E as e`, `E("message")`).
//!
//! Errors that are the product's own (a construct it does not support, a resource limit, a
//! parse or decode failure) have no class: no `except` catches them, so a run never goes on
//! past something it could not do as if PyTorch had raised there. The recursion limit is
//! Python's own, and raises its RecursionError.

use super::value::{Exception, Value};
use crate::error::Error;

/// Every builtin exception class a trace can name, with its base (`None` for the root).
const CLASSES: [(&str, Option<&str>); 17] = [
    ("BaseException", None),
    ("Exception", Some("BaseException")),
    ("ArithmeticError", Some("Exception")),
    ("ZeroDivisionError", Some("ArithmeticError")),
    ("OverflowError", Some("ArithmeticError")),
    ("LookupError", Some("Exception")),
    ("IndexError", Some("LookupError")),
    ("KeyError", Some("LookupError")),
    ("RuntimeError", Some("Exception")),
    ("NotImplementedError", Some("RuntimeError")),
    ("RecursionError", Some("RuntimeError")),
    ("TypeError", Some("Exception")),
    ("ValueError", Some("Exception")),
    ("NameError", Some("Exception")),
    ("AttributeError", Some("Exception")),
    ("AssertionError", Some("Exception")),
    ("StopIteration", Some("Exception")),
];

/// The builtin exception class named `name`.
pub fn class(name: &str) -> Option<&'static str> {
    CLASSES.iter().find(|(c, _)| *c == name).map(|(c, _)| *c)
}

/// Whether `class` is `base` or derives from it.
pub fn is_subclass(class: &str, base: &str) -> bool {
    let mut c = Some(class);
    while let Some(name) = c {
        if name == base {
            return true;
        }
        c = CLASSES.iter().find(|(n, _)| *n == name).and_then(|(_, b)| *b);
    }
    false
}

/// The exception an engine error is raised as; `None` for the product's own failures, which
/// no `except` catches.
pub fn of(e: &Error) -> Option<Exception> {
    let message = e.message();
    let class = match e {
        // PyTorch's refusal, kind `unsupported` as the fixtures record it, raised as its RuntimeError.
        Error::Unsupported(m) if m.starts_with("Can't detach views in-place") => "RuntimeError",
        // Python's own limit: its kind stays `limit`, and `except RecursionError` catches it.
        Error::Limit(m) if m.starts_with("maximum recursion depth exceeded") => "RecursionError",
        Error::Parse { .. } | Error::Unsupported(_) | Error::UnknownOp { .. } | Error::Limit(_) | Error::Decode(_) => {
            return None
        }
        Error::Raised { class, .. } => class.as_str(),
        Error::Type(m) if m.contains("has no attribute") || m.contains("before Module.__init__()") => "AttributeError",
        Error::Name(_) => "NameError",
        Error::Type(_) => "TypeError",
        Error::Index(m) if m.starts_with("KeyError") => "KeyError",
        // Dimension checks PyTorch raises as RuntimeErrors (the product's kind is `index`).
        Error::Index(m)
            if m.starts_with("permute(")
                || m.contains("exceeds dimension size")
                || m.contains("cannot be identical") =>
        {
            "RuntimeError"
        }
        Error::Index(_) => "IndexError",
        Error::Bounds(_) => "RuntimeError",
        Error::Value(m) if m.contains("by zero") || m.contains("float modulo") => "ZeroDivisionError",
        Error::Value(m)
            if m.contains("infinity to integer")
                || m.contains("not in range(0x110000)")
                || m.contains("into an index-sized integer") =>
        {
            "OverflowError"
        }
        Error::Value(_) => "ValueError",
        Error::Assertion(_) => "AssertionError",
        // `torch.tensor` of a ragged list: PyTorch's ValueError.
        Error::Shape(m) if m.starts_with("expected sequence of length") => "ValueError",
        Error::View(_) | Error::Shape(_) | Error::DType(_) | Error::Overlap { .. } | Error::Autograd(_) => {
            "RuntimeError"
        }
    };
    let (message, arg) = match class {
        // A KeyError's message is its key's repr; its argument the key (a string or an int
        // read back from the repr, else the repr itself).
        "KeyError" => {
            let key = message.trim_start_matches("KeyError: ");
            let unquoted = key.strip_prefix('\'').and_then(|k| k.strip_suffix('\'')).filter(|k| !k.contains('\\'));
            let arg = match (unquoted, key.parse::<i64>()) {
                (Some(s), _) => Value::Str(s.to_string()),
                (None, Ok(i)) => Value::Scalar(crate::uop::buffer::Scalar::Int(i)),
                (None, Err(_)) => Value::Str(key.to_string()),
            };
            (key.to_string(), arg)
        }
        _ => (message.to_string(), Value::Str(message.to_string())),
    };
    let args = vec![arg];
    Some(Exception { class: class.to_string(), message, args })
}

/// The error that raising `e` is.
pub fn into_error(e: Exception) -> Error {
    Error::Raised { class: e.class, message: e.message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hierarchy_and_classes() {
        assert!(is_subclass("ZeroDivisionError", "ArithmeticError"));
        assert!(is_subclass("KeyError", "Exception"));
        assert!(is_subclass("NotImplementedError", "RuntimeError"));
        assert!(!is_subclass("ValueError", "RuntimeError"));
        let e = of(&Error::Overlap { message: "m".into(), elements: vec![] });
        assert_eq!(e.map(|e| e.class), Some("RuntimeError".to_string()));
        assert!(of(&Error::Limit("x".into())).is_none());
        let z = of(&Error::Value("division by zero".into()));
        assert_eq!(z.map(|e| e.class), Some("ZeroDivisionError".to_string()));
    }
}
