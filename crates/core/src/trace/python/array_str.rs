//! A numpy array's printed forms, as numpy 2's `arrayprint.py` writes them with the default
//! options (precision 8, threshold 1000, edge items 3, line width 75): `str(a)` (`[1. 2.]`) and
//! `repr(a)` (`array([1., 2.], dtype=float32)`). One formatter serves every element: integers
//! right-aligned to the widest, booleans as ` True`/`False`, floats positional with the
//! shortest digits that identify each value (at most 8 after the point), or scientific when
//! the magnitudes call for it, padded so the points line up.

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{Engine, Tensor};
use crate::uop::buffer::Data;

const LINE_WIDTH: usize = 75;
const THRESHOLD: usize = 1000;
const EDGE_ITEMS: usize = 3;
const PRECISION: usize = 8;

/// `str(a)`.
pub fn array_str(engine: &mut Engine, t: &Tensor) -> Result<String> {
    let data = engine.values(t)?;
    Ok(render(&data, t.shape(), t.dtype(), "", " ", 0))
}

/// `repr(a)`.
pub fn array_repr(engine: &mut Engine, t: &Tensor) -> Result<String> {
    let data = engine.values(t)?;
    let shape = t.shape();
    let numel: usize = shape.iter().product();
    let prefix = "array(";
    let body =
        if numel > 0 || shape == [0] { render(&data, shape, t.dtype(), prefix, ", ", 1) } else { "[]".to_string() };
    let mut extras = Vec::new();
    if (numel == 0 && shape != [0]) || numel > THRESHOLD {
        extras.push(format!("shape={}", tuple(shape)));
    }
    if !matches!(t.dtype(), DType::Float64 | DType::Int64 | DType::Bool) || numel == 0 {
        extras.push(format!("dtype={}", numpy_name(t.dtype())));
    }
    if extras.is_empty() {
        return Ok(format!("{prefix}{body})"));
    }
    let head = format!("{prefix}{body},");
    let extra = format!("{})", extras.join(", "));
    let last = head.len() - head.rfind('\n').map_or(0, |i| i + 1);
    let spacer =
        if last + extra.len() + 1 > LINE_WIDTH { format!("\n{}", " ".repeat(prefix.len())) } else { " ".into() };
    Ok(format!("{head}{spacer}{extra}"))
}

/// numpy's name of a dtype.
pub fn numpy_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        other => other.name(),
    }
}

fn tuple(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

/// The shortest decimal that reads back as `x` in `dtype`'s precision.
fn shortest(x: f64, dtype: DType) -> String {
    let s = if matches!(dtype, DType::Float32 | DType::Float16 | DType::BFloat16) {
        format!("{}", x as f32)
    } else {
        format!("{x}")
    };
    if s.contains('.') || s.contains("inf") || s.contains("NaN") {
        s
    } else {
        format!("{s}.0")
    }
}

/// The positional digits numpy's `dragon4_positional(unique=True, precision=8)` gives:
/// `(integer part with sign, fraction digits)`.
fn positional(x: f64, dtype: DType) -> (String, String) {
    let s = shortest(x, dtype);
    let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
    if frac.len() <= PRECISION {
        let frac = if frac == "0" { "" } else { frac };
        return (int.to_string(), frac.to_string());
    }
    let r = format!("{x:.PRECISION$}");
    let (int, frac) = r.split_once('.').unwrap_or((&r, ""));
    (int.to_string(), frac.trim_end_matches('0').to_string())
}

/// `dragon4_scientific(unique=True, precision=8)`: `(mantissa integer part, fraction digits,
/// exponent)`.
fn scientific(x: f64, dtype: DType) -> (String, String, i32) {
    let s = if matches!(dtype, DType::Float32 | DType::Float16 | DType::BFloat16) {
        format!("{:e}", x as f32)
    } else {
        format!("{x:e}")
    };
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if frac.len() <= PRECISION {
        return (int.to_string(), frac.to_string(), exp);
    }
    let r = format!("{x:.PRECISION$e}");
    let (mantissa, exp) = r.split_once('e').unwrap_or((&r, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    (int.to_string(), frac.trim_end_matches('0').to_string(), exp)
}

/// One formatter for every element shown.
enum Format {
    Bool,
    Int { width: usize },
    Positional { dtype: DType, left: usize, right: usize },
    Scientific { dtype: DType, left: usize, digits: usize, exp: usize },
}

impl Format {
    fn new(values: &[f64], dtype: DType) -> Format {
        if dtype == DType::Bool {
            return Format::Bool;
        }
        if !dtype.is_float() {
            let width = values.iter().map(|v| format!("{}", *v as i64).len()).max().unwrap_or(1);
            return Format::Int { width };
        }
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let nonzero: Vec<f64> = finite.iter().map(|v| v.abs()).filter(|v| *v != 0.0).collect();
        let exp_format = match (nonzero.iter().copied().reduce(f64::max), nonzero.iter().copied().reduce(f64::min)) {
            (Some(max), Some(min)) => max >= 1e8 || min < 1e-4 || max / min > 1000.0,
            _ => false,
        };
        let non_finite = finite.len() != values.len();
        let mut f = if finite.is_empty() {
            Format::Positional { dtype, left: 0, right: 0 }
        } else if exp_format {
            let parts: Vec<(String, String, i32)> = finite.iter().map(|&x| scientific(x, dtype)).collect();
            let exp = parts.iter().map(|p| p.2.unsigned_abs().to_string().len()).max().unwrap_or(2).max(2);
            let digits = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
            let left = parts.iter().map(|p| p.0.len()).max().unwrap_or(1);
            Format::Scientific { dtype, left, digits, exp }
        } else {
            let parts: Vec<(String, String)> = finite.iter().map(|&x| positional(x, dtype)).collect();
            let left = parts.iter().map(|p| p.0.len()).max().unwrap_or(1);
            let right = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
            Format::Positional { dtype, left, right }
        };
        if non_finite {
            let neg_inf = values.contains(&f64::NEG_INFINITY);
            let (left, right) = match &mut f {
                Format::Positional { left, right, .. } => (left, *right),
                Format::Scientific { left, digits, exp, .. } => {
                    let right = *exp + 2 + *digits;
                    (left, right)
                }
                _ => return f,
            };
            let offset = right + 1;
            *left = (*left).max(3usize.saturating_sub(offset)).max((3 + usize::from(neg_inf)).saturating_sub(offset));
        }
        f
    }

    fn width_right(&self) -> usize {
        match self {
            Format::Positional { right, .. } => *right,
            Format::Scientific { digits, exp, .. } => exp + 2 + digits,
            _ => 0,
        }
    }

    fn left(&self) -> usize {
        match self {
            Format::Positional { left, .. } | Format::Scientific { left, .. } => *left,
            _ => 0,
        }
    }

    fn apply(&self, x: f64) -> String {
        match *self {
            Format::Bool => if x != 0.0 { " True" } else { "False" }.into(),
            Format::Int { width } => format!("{:>width$}", x as i64),
            _ if !x.is_finite() => {
                let text = if x.is_nan() {
                    "nan".to_string()
                } else if x < 0.0 {
                    "-inf".into()
                } else {
                    "inf".into()
                };
                let total = self.left() + self.width_right() + 1;
                format!("{text:>total$}")
            }
            Format::Positional { dtype, left, right } => {
                let (int, frac) = positional(x, dtype);
                format!("{int:>left$}.{frac:<right$}")
            }
            Format::Scientific { dtype, left, digits, exp } => {
                // Past its shortest digits a value shows its exact ones (numpy's `min_digits`).
                let (mut int, mut frac, mut e) = scientific(x, dtype);
                if frac.len() < digits {
                    let exact = format!("{x:.digits$e}");
                    let (mantissa, power) = exact.split_once('e').unwrap_or((&exact, "0"));
                    let (i, f) = mantissa.split_once('.').unwrap_or((mantissa, ""));
                    (int, frac, e) = (i.to_string(), f.to_string(), power.parse().unwrap_or(e));
                }
                let sign = if e < 0 { '-' } else { '+' };
                format!("{int:>left$}.{frac:0<digits$}e{sign}{:0>exp$}", e.unsigned_abs())
            }
        }
    }
}

/// `[...]` of the array, wrapped under `prefix` (`array(` for a repr) with `separator`
/// between items; `suffix` characters are kept free at the end of the last line.
fn render(data: &Data, shape: &[usize], dtype: DType, prefix: &str, separator: &str, suffix: usize) -> String {
    let numel: usize = shape.iter().product();
    let summarize = numel > THRESHOLD;
    let strides = row_major(shape);
    let mut shown = Vec::new();
    collect(shape, &strides, 0, summarize, &mut shown);
    let values: Vec<f64> = shown.iter().map(|&i| data.get_f64(i)).collect();
    let format = Format::new(&values, dtype);
    if shape.is_empty() {
        return format.apply(data.get_f64(0)).trim_start().to_string();
    }
    let hanging = format!(" {}", " ".repeat(prefix.len()));
    let p = Printer { data, shape, strides: &strides, format: &format, separator, summarize };
    p.recurse(0, 0, &hanging, LINE_WIDTH - suffix)
}

fn row_major(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    strides
}

fn shown(n: usize, summarize: bool) -> Vec<usize> {
    if summarize && n > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS).chain(n - EDGE_ITEMS..n).collect()
    } else {
        (0..n).collect()
    }
}

fn collect(shape: &[usize], strides: &[usize], base: usize, summarize: bool, out: &mut Vec<usize>) {
    match shape.split_first() {
        None => out.push(base),
        Some((&n, rest)) => {
            for i in shown(n, summarize) {
                collect(rest, &strides[1..], base + i * strides[0], summarize, out);
            }
        }
    }
}

struct Printer<'a> {
    data: &'a Data,
    shape: &'a [usize],
    strides: &'a [usize],
    format: &'a Format,
    separator: &'a str,
    summarize: bool,
}

/// numpy's `_extendLine`: a word goes on the line unless it would pass `width` (and the line
/// holds more than its indent).
fn extend(s: &mut String, line: &mut String, word: &str, width: usize, indent: &str) {
    if line.len() + word.len() > width && line.len() > indent.len() {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = indent.to_string();
    }
    line.push_str(word);
}

impl Printer<'_> {
    /// numpy's `_formatArray` recursion over the axis `axis` at element offset `base`.
    fn recurse(&self, axis: usize, base: usize, hanging: &str, width: usize) -> String {
        if axis == self.shape.len() {
            return self.format.apply(self.data.get_f64(base));
        }
        if self.shape[axis] == 0 {
            return "[]".into();
        }
        let next_hanging = format!("{hanging} ");
        let next_width = width - 1;
        let n = self.shape[axis];
        let summary = self.summarize && 2 * EDGE_ITEMS < n;
        let (lead, trail) = if summary { (EDGE_ITEMS, EDGE_ITEMS) } else { (0, n) };
        let item = |i: usize| self.recurse(axis + 1, base + i * self.strides[axis], &next_hanging, next_width);
        let left = self.shape.len() - axis;
        let mut s = String::new();
        if left == 1 {
            let elem_width = width - self.separator.trim_end().len().max(1);
            let mut line = hanging.to_string();
            for i in 0..lead {
                extend(&mut s, &mut line, &item(i), elem_width, hanging);
                line.push_str(self.separator);
            }
            if summary {
                extend(&mut s, &mut line, "...", elem_width, hanging);
                line.push_str(self.separator);
            }
            for i in (n - trail)..n.saturating_sub(1) {
                extend(&mut s, &mut line, &item(i), elem_width, hanging);
                line.push_str(self.separator);
            }
            extend(&mut s, &mut line, &item(n - 1), elem_width, hanging);
            s.push_str(&line);
        } else {
            let line_sep = format!("{}{}", self.separator.trim_end(), "\n".repeat(left - 1));
            for i in 0..lead {
                s.push_str(&format!("{hanging}{}{line_sep}", item(i)));
            }
            if summary {
                s.push_str(&format!("{hanging}...{line_sep}"));
            }
            for i in (n - trail)..n.saturating_sub(1) {
                s.push_str(&format!("{hanging}{}{line_sep}", item(i)));
            }
            s.push_str(&format!("{hanging}{}", item(n - 1)));
        }
        format!("[{}]", &s[hanging.len()..])
    }
}
