//! `repr(tensor)` as PyTorch prints it (`torch/_tensor_str.py` with the default print options):
//! one formatter for all elements (integer, fixed with 4 decimals, or scientific, chosen from the
//! finite non-zero values), columns right-aligned to the widest, rows wrapped at 80 characters,
//! tensors over 1000 elements summarized with 3 edge items, and the dtype (or size) suffix.

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{Engine, Tensor};
use crate::uop::buffer::{Data, Scalar};

const LINE_WIDTH: usize = 80;
const EDGE_ITEMS: usize = 3;
const THRESHOLD: usize = 1000;
const PRECISION: usize = 4;

pub fn tensor_repr(engine: &mut Engine, t: &Tensor) -> Result<String> {
    let data = engine.values(t)?;
    // Autograd's suffix: the node that made the tensor, or that a leaf requires grad.
    let grad = match engine.grad_fn_name(t) {
        Some(n) => Some(format!("grad_fn=<{n}>")),
        None if engine.autograd().requires_grad(t) => Some("requires_grad=True".to_string()),
        None => None,
    };
    let text = render_with(&data, t.shape(), t.dtype(), grad);
    Ok(if engine.is_parameter(t) { format!("Parameter containing:\n{text}") } else { text })
}

/// The text of a tensor of `shape` whose elements, row-major, are `data`.
pub fn render(data: &Data, shape: &[usize], dtype: DType) -> String {
    render_with(data, shape, dtype, None)
}

fn render_with(data: &Data, shape: &[usize], dtype: DType, grad: Option<String>) -> String {
    let prefix = "tensor(";
    let indent = prefix.len();
    let numel: usize = shape.iter().product();
    let mut suffixes = Vec::new();
    let body = if numel == 0 {
        if shape != [0] {
            let dims: Vec<String> = shape.iter().map(|n| n.to_string()).collect();
            let tuple = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
            suffixes.push(format!("size={tuple}"));
        }
        "[]".to_string()
    } else {
        let summarize = numel > THRESHOLD;
        let strides = row_major(shape);
        let mut shown = Vec::new();
        collect(shape, &strides, 0, summarize, &mut shown);
        let values: Vec<Scalar> = shown.iter().map(|&i| data.get_scalar(i)).collect();
        let f = Formatter::new(&values, dtype.is_float());
        nested(data, shape, &strides, 0, indent, summarize, &f)
    };
    if !matches!(dtype, DType::Float32 | DType::Int64 | DType::Bool) {
        suffixes.push(format!("dtype=torch.{}", dtype.name()));
    }
    suffixes.extend(grad);
    let mut out = format!("{prefix}{body}");
    let mut last_line = out.len() - out.rfind('\n').map_or(0, |i| i + 1) + 1;
    for s in suffixes {
        if last_line + s.len() + 2 > LINE_WIDTH {
            out.push_str(&format!(",\n{}{s}", " ".repeat(indent)));
            last_line = indent + s.len();
        } else {
            out.push_str(&format!(", {s}"));
            last_line += s.len() + 2;
        }
    }
    out.push(')');
    out
}

fn row_major(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// The indices along one dim that are printed (all, or the edge items when summarized).
fn shown(n: usize, summarize: bool) -> Vec<Option<usize>> {
    if summarize && n > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS).map(Some).chain([None]).chain((n - EDGE_ITEMS..n).map(Some)).collect()
    } else {
        (0..n).map(Some).collect()
    }
}

/// The flat indices of every printed element, for choosing the formatter.
fn collect(shape: &[usize], strides: &[usize], base: usize, summarize: bool, out: &mut Vec<usize>) {
    let Some((&n, rest)) = shape.split_first() else {
        out.push(base);
        return;
    };
    for i in shown(n, summarize).into_iter().flatten() {
        collect(rest, &strides[1..], base + i * strides[0], summarize, out);
    }
}

fn nested(
    data: &Data,
    shape: &[usize],
    strides: &[usize],
    base: usize,
    indent: usize,
    summarize: bool,
    f: &Formatter,
) -> String {
    match shape.len() {
        0 => f.format(data.get_scalar(base)),
        1 => {
            let per_line = ((LINE_WIDTH.saturating_sub(indent)) / (f.width + 2)).max(1);
            let items: Vec<String> = shown(shape[0], summarize)
                .into_iter()
                .map(|i| match i {
                    Some(i) => f.format(data.get_scalar(base + i * strides[0])),
                    None => " ...".to_string(),
                })
                .collect();
            let lines: Vec<String> = items.chunks(per_line).map(|c| c.join(", ")).collect();
            format!("[{}]", lines.join(&format!(",\n{}", " ".repeat(indent + 1))))
        }
        dims => {
            let rows: Vec<String> = shown(shape[0], summarize)
                .into_iter()
                .map(|i| match i {
                    Some(i) => {
                        nested(data, &shape[1..], &strides[1..], base + i * strides[0], indent + 1, summarize, f)
                    }
                    None => "...".to_string(),
                })
                .collect();
            let sep = format!(",{}{}", "\n".repeat(dims - 1), " ".repeat(indent + 1));
            format!("[{}]", rows.join(&sep))
        }
    }
}

/// PyTorch's `_Formatter`: how every element of one tensor is written, and the column width.
struct Formatter {
    float: bool,
    int_mode: bool,
    sci_mode: bool,
    width: usize,
}

impl Formatter {
    fn new(values: &[Scalar], float: bool) -> Formatter {
        let mut f = Formatter { float, int_mode: true, sci_mode: false, width: 1 };
        if !float {
            f.width = values.iter().map(|&v| plain(v).len()).max().unwrap_or(1).max(1);
            return f;
        }
        let finite: Vec<f64> = values.iter().map(|v| v.as_f64()).filter(|x| x.is_finite() && *x != 0.0).collect();
        // Only finite non-zero values set the mode and the width (zeros, infinities and NaNs
        // are written in it, padded to it or overflowing it).
        if finite.is_empty() {
            return f;
        }
        let (min, max) = finite.iter().fold((f64::INFINITY, 0f64), |(lo, hi), x| (lo.min(x.abs()), hi.max(x.abs())));
        f.int_mode = finite.iter().all(|x| x.ceil() == *x);
        f.sci_mode =
            if f.int_mode { max / min > 1000.0 || max > 1e8 } else { max / min > 1000.0 || max > 1e8 || min < 1e-4 };
        let len = |x: f64| -> usize {
            if f.sci_mode {
                sci(x, PRECISION).len()
            } else if f.int_mode {
                format!("{x:.0}").len() + 1
            } else {
                format!("{x:.PRECISION$}").len()
            }
        };
        f.width = finite.iter().map(|&x| len(x)).max().unwrap_or(1).max(1);
        f
    }

    fn format_raw(&self, x: f64) -> String {
        if x.is_nan() {
            return "nan".into();
        }
        if x.is_infinite() {
            return if x > 0.0 { "inf".into() } else { "-inf".into() };
        }
        if self.sci_mode {
            sci(x, PRECISION)
        } else if self.int_mode {
            format!("{x:.0}.")
        } else {
            format!("{x:.PRECISION$}")
        }
    }

    fn format(&self, v: Scalar) -> String {
        let s = if self.float { self.format_raw(v.as_f64()) } else { plain(v) };
        format!("{s:>w$}", w = self.width)
    }
}

fn plain(v: Scalar) -> String {
    match v {
        Scalar::Bool(true) => "True".into(),
        Scalar::Bool(false) => "False".into(),
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(x) => x.to_string(),
    }
}

/// `d.ddde+XX`, Python's scientific form (at least two exponent digits).
pub fn sci(x: f64, precision: usize) -> String {
    let s = format!("{x:.precision$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}
