//! `import sys`: what snippets read from it to say where they ran (`sys.version`,
//! `sys.version_info`), its number limits (`sys.maxsize`, `sys.float_info`), and
//! `sys.setrecursionlimit` (accepted: the trace's own call-depth limit stays, and says so when
//! reached). The interpreter's internals (`getrefcount`, `getsizeof`, `exit`, `stdout`) are
//! refused by name: the trace language has no such objects to report on.

use crate::error::{bail, Result};
use crate::trace::python::value::{Args, Value};
use crate::uop::buffer::Scalar;

/// The CPython the trace language's semantics and messages follow (the one its fixtures were
/// recorded with).
const VERSION_INFO: (i64, i64, i64) = (3, 11, 7);

fn int(i: i64) -> Value {
    Value::Scalar(Scalar::Int(i))
}

fn float(x: f64) -> Value {
    Value::Scalar(Scalar::Float(x))
}

/// `sys.<name>`.
pub fn attr(name: &str) -> Result<Value> {
    let (major, minor, micro) = VERSION_INFO;
    Ok(match name {
        "version" => Value::Str(format!("{major}.{minor}.{micro}")),
        "version_info" => Value::Named(
            "sys.version_info".into(),
            vec![
                ("major", int(major)),
                ("minor", int(minor)),
                ("micro", int(micro)),
                ("releaselevel", Value::Str("final".into())),
                ("serial", int(0)),
            ],
        ),
        "maxsize" => int(i64::MAX),
        "float_info" => Value::Named(
            "sys.float_info".into(),
            vec![
                ("max", float(f64::MAX)),
                ("max_exp", int(i64::from(f64::MAX_EXP))),
                ("max_10_exp", int(i64::from(f64::MAX_10_EXP))),
                ("min", float(f64::MIN_POSITIVE)),
                ("min_exp", int(i64::from(f64::MIN_EXP))),
                ("min_10_exp", int(i64::from(f64::MIN_10_EXP))),
                ("dig", int(i64::from(f64::DIGITS))),
                ("mant_dig", int(i64::from(f64::MANTISSA_DIGITS))),
                ("epsilon", float(f64::EPSILON)),
                ("radix", int(i64::from(f64::RADIX))),
                ("rounds", int(1)),
            ],
        ),
        "setrecursionlimit" => Value::Func("sys.setrecursionlimit".into()),
        "getrefcount" | "getsizeof" | "exit" | "stdout" | "stderr" | "argv" | "path" | "modules" => {
            bail!(Unsupported, "sys.{name} is not supported: the trace language has no interpreter state to report")
        }
        _ => bail!(Type, "module 'sys' has no attribute '{name}'"),
    })
}

/// `sys.<name>(args)`.
pub fn call(name: &str, mut args: Args) -> Result<Value> {
    match name {
        "setrecursionlimit" => {
            let limit = args.int(0, "limit")?;
            args.finish()?;
            if limit < 1 {
                bail!(Value, "recursion limit must be greater or equal than 1");
            }
            Ok(Value::None)
        }
        _ => attr(name).and_then(|v| bail!(Type, "'{}' object is not callable", v.type_name())),
    }
}
