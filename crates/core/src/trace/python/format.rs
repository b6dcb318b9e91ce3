//! Python's text forms of trace values: `repr`, `str`, and the format-spec mini-language of
//! f-strings and `format` (fill, align, sign, width, grouping, precision; types d, x, o, b, e,
//! f, g, %), with floats written as Python writes them (shortest round-trip `repr`).

use super::tensor_str::{self, sci};
use crate::error::{bail, Result};
use crate::trace::nn::layer::Repr;
use crate::trace::python::context::RunContext;
use crate::trace::python::number::{self, Num};
use crate::trace::python::value::Value;
use crate::trace::python::value::{DictKind, StorageView};
use crate::uop::buffer::Scalar;

/// Python's `repr(x)` for a float: the shortest digits that round-trip, in fixed notation for
/// exponents -4..16 and scientific (`1e-05`, `1.5e+16`) outside.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.2345e3", "-1e-5".
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    if (-4..16).contains(&exp) {
        let point = exp + 1;
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
        };
        return format!("{sign}{body}");
    }
    let mant = if digits.len() > 1 { format!("{}.{}", &digits[..1], &digits[1..]) } else { digits };
    format!("{sign}{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

/// Python's quoting of a str: single quotes unless the text has one and no double quote.
pub(crate) fn str_repr(s: &str) -> String {
    let q = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// Whether a builtin's name is a class (`int`, `RuntimeError`), which prints as one.
fn is_class(name: &str) -> bool {
    matches!(name, "int" | "float" | "bool" | "str" | "list" | "tuple" | "dict" | "object" | "type")
        || super::exception::class(name).is_some()
}

pub fn scalar_repr(s: Scalar) -> String {
    match s {
        Scalar::Bool(true) => "True".into(),
        Scalar::Bool(false) => "False".into(),
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(f) => float_repr(f),
    }
}

fn join(ctx: &mut RunContext, items: &[Value]) -> Result<String> {
    let mut parts = Vec::with_capacity(items.len());
    let mut total = 0usize;
    for v in items {
        let part = repr(ctx, v)?;
        total = total.saturating_add(part.len() + 2);
        if total > MAX_REPR {
            bail!(Limit, "a printed value may hold at most {} MiB of text", MAX_REPR >> 20);
        }
        parts.push(part);
    }
    Ok(parts.join(", "))
}

/// The most text one value's `repr` builds (a list shared a thousand times would otherwise
/// print gigabytes).
const MAX_REPR: usize = 16 << 20;

/// `repr` of a value that holds no tensor (a module's or an optimizer's options); a tensor
/// inside prints as its shape.
pub fn repr_plain(v: &Value) -> String {
    let join = |items: &[Value]| items.iter().map(repr_plain).collect::<Vec<_>>().join(", ");
    match v {
        Value::Scalar(s) => scalar_repr(*s),
        Value::BigInt(b) => b.to_string(),
        Value::Str(s) => str_repr(s),
        Value::None => "None".into(),
        Value::Tuple(items) if items.len() == 1 => format!("({},)", join(items)),
        Value::Tuple(items) => format!("({})", join(items)),
        Value::List(l) => format!("[{}]", join(&l.borrow())),
        Value::Tensor(t) => format!("<tensor of shape {:?}>", t.shape()),
        other => format!("<{}>", other.type_name()),
    }
}

/// Python's `repr(v)`.
pub fn repr(ctx: &mut RunContext, v: &Value) -> Result<String> {
    Ok(match v {
        Value::Tensor(t) => tensor_str::tensor_repr(ctx.engine, t)?,
        Value::Array(t) => super::array_str::array_repr(ctx.engine, t)?,
        Value::NpDType(d) => format!("dtype('{}')", super::array_str::numpy_name(*d)),
        Value::Scalar(s) => scalar_repr(*s),
        Value::BigInt(b) => number::big_decimal(b)?,
        Value::Str(s) => str_repr(s),
        Value::None => "None".into(),
        Value::Ellipsis => "Ellipsis".into(),
        Value::Slice(a, b, c) => {
            let part = |x: &Option<i64>| x.map_or("None".to_string(), |i| i.to_string());
            format!("slice({}, {}, {})", part(a), part(b), part(c))
        }
        Value::Tuple(items) if items.len() == 1 => format!("({},)", join(ctx, items)?),
        Value::Tuple(items) => format!("({})", join(ctx, items)?),
        Value::List(l) => {
            let items = l.items();
            format!("[{}]", join(ctx, &items)?)
        }
        Value::Size(items) => format!("torch.Size([{}])", join(ctx, items)?),
        // `finfo(resolution=1e-06, ..., dtype=float32)`: numbers as `%g` writes them.
        Value::Named(type_name, fields) if matches!(type_name.as_str(), "finfo" | "iinfo") => {
            let mut parts = Vec::with_capacity(fields.len());
            for (n, v) in fields.iter().filter(|(n, _)| *n != "bits") {
                let text = match v {
                    Value::Str(s) => s.clone(),
                    v => format_field(ctx, v, None, "g")?,
                };
                parts.push(format!("{n}={text}"));
            }
            format!("{type_name}({})", parts.join(", "))
        }
        // `sys.version_info(major=3, minor=11, ...)`: a struct sequence on one line.
        Value::Named(type_name, fields) if type_name.starts_with("sys.") => {
            let mut parts = Vec::with_capacity(fields.len());
            for (n, v) in fields {
                parts.push(format!("{n}={}", repr(ctx, v)?));
            }
            format!("{type_name}({})", parts.join(", "))
        }
        Value::Named(type_name, fields) => {
            let mut parts = Vec::with_capacity(fields.len());
            for (n, v) in fields {
                parts.push(format!("{n}={}", repr(ctx, v)?));
            }
            format!("torch.return_types.{type_name}(\n{})", parts.join(",\n"))
        }
        Value::DType(d) => format!("torch.{}", d.name()),
        Value::Module(m) => {
            let name = match *m {
                "F" => "torch.nn.functional",
                "nn" => "torch.nn",
                other => other,
            };
            format!("<module '{name}'>")
        }
        Value::Func(n) => match crate::trace::nn::layer::class_module(n) {
            Some(module) => format!("<class '{module}.{n}'>"),
            None => format!("<built-in method {n} of type object>"),
        },
        Value::Builtin(n) if is_class(n) => format!("<class '{n}'>"),
        Value::Builtin(n) => format!("<built-in function {n}>"),
        Value::Exception(e) => format!("{}({})", e.class, e.args.iter().map(repr_plain).collect::<Vec<_>>().join(", ")),
        Value::Type(n) => format!("<class '{n}'>"),
        Value::HookHandle(_) => "<torch.utils.hooks.RemovableHandle object>".into(),
        Value::Anomaly(_) => "<torch.autograd.anomaly_mode.detect_anomaly object>".into(),
        Value::Function(f) => format!("<function {}>", f.def.name),
        Value::Iterator(it) => match it.try_borrow().as_deref() {
            Ok(crate::trace::python::iterator::PyIter::Generator(g)) => {
                format!("<generator object {}>", g.function.def.name)
            }
            Ok(other) => format!("<{} object>", other.type_name()),
            Err(_) => "<generator object>".into(),
        },
        Value::Context(_) => "<torch.autograd.grad_mode object>".into(),
        Value::Range(a, b, 1) => format!("range({a}, {b})"),
        Value::Range(a, b, s) => format!("range({a}, {b}, {s})"),
        Value::Format(f) => format!("torch.{}", f.name()),
        Value::Storage(_, StorageView::Untyped) => "<torch.storage.UntypedStorage>".into(),
        Value::Storage(t, StorageView::Typed) => {
            format!("<torch.storage.TypedStorage(dtype=torch.{})>", t.dtype().name())
        }
        Value::Generator(_) => "<torch._C.Generator object>".into(),
        Value::Device(d) => d.repr(),
        Value::Layer(l) => l.repr()?,
        Value::Class(c) => format!("<class '__main__.{}'>", c.name),
        Value::Apply(_) => "<built-in method apply of FunctionMeta object>".into(),
        Value::Method(recv, name) => format!("<built-in method {name} of {} object>", recv.type_name()),
        Value::Super(_) => "<super object>".into(),
        // PyTorch's printed form: the class, then the group's options (as they are now)
        // sorted by name.
        Value::Scheduler(s) => {
            let at = std::rc::Rc::as_ptr(s) as usize as u64;
            format!(
                "<torch.optim.lr_scheduler.{} object at {:#x}>",
                s.title(),
                0x7f00_0000_0000_u64 + at % 0x1_0000_0000_u64
            )
        }
        Value::Optimizer(o) => {
            let mut entries = match &o.param_group {
                Value::Dict(g) => g.entries(),
                _ => Vec::new(),
            };
            entries.retain(|(k, _)| k.as_str() != Some("params"));
            entries.sort_by(|a, b| a.0.as_str().cmp(&b.0.as_str()));
            let mut s = format!("{} (\nParameter Group 0\n", o.kind.title());
            for (k, v) in &entries {
                s.push_str(&format!("    {}: {}\n", k.as_str().unwrap_or_default(), repr_plain(v)));
            }
            s.push(')');
            s
        }
        Value::Dict(d) => {
            let (kind, entries) = (d.kind(), d.entries());
            let mut parts = Vec::with_capacity(entries.len());
            for (k, v) in &entries {
                let k = repr(ctx, &k.value())?;
                parts.push(match kind {
                    DictKind::Plain => format!("{k}: {}", repr(ctx, v)?),
                    DictKind::Ordered => format!("({k}, {})", repr(ctx, v)?),
                });
            }
            match kind {
                DictKind::Plain => format!("{{{}}}", parts.join(", ")),
                DictKind::Ordered => format!("OrderedDict([{}])", parts.join(", ")),
            }
        }
        Value::GradFn(n) => {
            let node = ctx.engine.autograd().node(*n);
            // A Function's node is a Python class of `torch.autograd.function`.
            let module = match node.op {
                crate::autograd::GradOp::Custom { .. } => "torch.autograd.function.",
                _ => "",
            };
            format!("<{module}{} object>", node.name)
        }
    })
}

/// Python's `str(v)`: the text of a str, `repr` of anything else.
pub fn str(ctx: &mut RunContext, v: &Value) -> Result<String> {
    match v {
        Value::Str(s) => Ok(s.clone()),
        // A KeyError prints its key's repr, which its message already is.
        Value::Exception(e) => Ok(e.message.clone()),
        Value::Array(t) => super::array_str::array_str(ctx.engine, t),
        Value::NpDType(d) => Ok(super::array_str::numpy_name(*d).to_string()),
        Value::Device(d) => Ok(d.text()),
        other => repr(ctx, other),
    }
}

/// `format(v, spec)`, as an f-string field applies it.
pub fn format(ctx: &mut RunContext, v: &Value, spec: &str) -> Result<String> {
    // Tensor.__format__: a 0-d tensor formats as its item (an empty spec too).
    if let Value::Tensor(t) = v {
        if t.shape().is_empty() {
            let item = Value::Scalar(ctx.engine.values(t)?.get_scalar(0));
            return format(ctx, &item, spec);
        }
    }
    if spec.is_empty() {
        return str(ctx, v);
    }
    let parsed = Spec::parse(spec)?;
    match v {
        Value::Scalar(_) | Value::BigInt(_) => parsed.number(v),
        Value::Str(s) => parsed.text(s),
        other => bail!(Type, "unsupported format string passed to {}.__format__", other.type_name()),
    }
}

/// One replacement field: `v!conv:spec` (`!r` formats the repr, `!s` the str).
pub fn format_field(ctx: &mut RunContext, v: &Value, conv: Option<char>, spec: &str) -> Result<String> {
    let text = match conv {
        Some('r') | Some('a') => repr(ctx, v)?,
        Some(_) => str(ctx, v)?,
        None => return format(ctx, v, spec),
    };
    format(ctx, &Value::Str(text), spec)
}

/// A parsed format spec: `[[fill]align][sign][#][0][width][,|_][.precision][type]`.
struct Spec {
    fill: char,
    align: Option<char>,
    sign: char,
    alt: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    ty: Option<char>,
}

impl Spec {
    fn parse(spec: &str) -> Result<Spec> {
        let c: Vec<char> = spec.chars().collect();
        let mut i = 0;
        let mut s =
            Spec { fill: ' ', align: None, sign: '-', alt: false, width: 0, grouping: None, precision: None, ty: None };
        let is_align = |x: char| matches!(x, '<' | '>' | '^' | '=');
        if c.len() >= 2 && is_align(c[1]) {
            s.fill = c[0];
            s.align = Some(c[1]);
            i = 2;
        } else if !c.is_empty() && is_align(c[0]) {
            s.align = Some(c[0]);
            i = 1;
        }
        if i < c.len() && matches!(c[i], '+' | '-' | ' ') {
            s.sign = c[i];
            i += 1;
        }
        if i < c.len() && c[i] == '#' {
            s.alt = true;
            i += 1;
        }
        if i < c.len() && c[i] == '0' {
            if s.align.is_none() {
                s.fill = '0';
                s.align = Some('=');
            }
            i += 1;
        }
        let digits = |i: &mut usize| {
            let start = *i;
            while *i < c.len() && c[*i].is_ascii_digit() {
                *i += 1;
            }
            c[start..*i].iter().collect::<String>().parse::<usize>().ok()
        };
        s.width = digits(&mut i).unwrap_or(0);
        if i < c.len() && matches!(c[i], ',' | '_') {
            s.grouping = Some(c[i]);
            i += 1;
        }
        if i < c.len() && c[i] == '.' {
            i += 1;
            match digits(&mut i) {
                Some(p) => s.precision = Some(p),
                None => bail!(Value, "Format specifier missing precision"),
            }
        }
        if i < c.len() {
            s.ty = Some(c[i]);
            i += 1;
        }
        if i != c.len() || s.width > 10_000 || s.precision.is_some_and(|p| p > 1_000) {
            bail!(Value, "Invalid format specifier '{spec}'");
        }
        Ok(s)
    }

    fn text(&self, t: &str) -> Result<String> {
        if !matches!(self.ty, None | Some('s')) {
            bail!(Value, "Unknown format code '{}' for object of type 'str'", self.ty.unwrap_or('s'));
        }
        let t: String = match self.precision {
            Some(p) => t.chars().take(p).collect(),
            None => t.to_string(),
        };
        Ok(self.pad("", &t, '<'))
    }

    fn number(&self, v: &Value) -> Result<String> {
        let int = number::is_int(v);
        if int && matches!(self.ty, None | Some('d' | 'n' | 'x' | 'X' | 'o' | 'b')) && self.precision.is_some() {
            bail!(Value, "Precision not allowed in integer format specifier");
        }
        let (negative, body) = match (int, self.ty) {
            (true, None | Some('d') | Some('n')) => {
                let text = match v {
                    Value::BigInt(b) => number::big_decimal(b)?,
                    Value::Scalar(s) => s.as_i64().to_string(),
                    _ => String::new(),
                };
                match text.strip_prefix('-') {
                    Some(digits) => (true, group(digits, self.grouping)),
                    None => (false, group(&text, self.grouping)),
                }
            }
            (true, Some(r @ ('x' | 'X' | 'o' | 'b'))) => {
                let radix = match r {
                    'x' | 'X' => 16,
                    'o' => 8,
                    _ => 2,
                };
                let (negative, digits) = number::radix_digits(v, radix).unwrap_or_default();
                let digits = if r == 'X' { digits.to_uppercase() } else { digits };
                // `_` groups hex, octal and binary digits by four.
                let digits = match self.grouping {
                    Some('_') => group_by(&digits, '_', 4),
                    _ => digits,
                };
                let prefix = if self.alt { format!("0{r}") } else { String::new() };
                (negative, format!("{prefix}{digits}"))
            }
            (false, Some(t @ ('d' | 'x' | 'X' | 'o' | 'b' | 'n'))) => {
                bail!(Value, "Unknown format code '{t}' for object of type 'float'")
            }
            (_, ty) => {
                let x = match Num::of(v) {
                    Some(n) => n.to_f64()?,
                    None => bail!(Type, "unsupported format string passed to {}.__format__", v.type_name()),
                };
                let body = self.float(x.abs(), ty, int)?;
                (x.is_sign_negative() && !x.is_nan(), body)
            }
        };
        let sign = match (negative, self.sign) {
            (true, _) => "-",
            (false, '+') => "+",
            (false, ' ') => " ",
            _ => "",
        };
        Ok(self.pad(sign, &body, '>'))
    }

    /// The digits of a non-negative float in the spec's type.
    fn float(&self, x: f64, ty: Option<char>, from_int: bool) -> Result<String> {
        let upper = matches!(ty, Some('E' | 'F' | 'G'));
        if !x.is_finite() {
            let t = if x.is_nan() { "nan" } else { "inf" };
            let t = if upper { t.to_uppercase() } else { t.to_string() };
            return Ok(if ty == Some('%') { format!("{t}%") } else { t });
        }
        let out = match ty {
            Some('f' | 'F') => group_float(&format!("{x:.*}", self.precision.unwrap_or(6)), self.grouping),
            Some('e' | 'E') => sci(x, self.precision.unwrap_or(6)),
            Some('%') => format!("{:.*}%", self.precision.unwrap_or(6), x * 100.0),
            Some('g' | 'G') => general(x, self.precision.unwrap_or(6), self.alt, false),
            None if from_int => x.to_string(),
            None => match self.precision {
                Some(p) => general(x, p, self.alt, true),
                None => group_float(&float_repr(x), self.grouping),
            },
            Some(t) => bail!(Value, "Unknown format code '{t}' for object of type 'float'"),
        };
        Ok(if upper { out.to_uppercase() } else { out })
    }

    fn pad(&self, sign: &str, body: &str, default_align: char) -> String {
        let len = sign.chars().count() + body.chars().count();
        if len >= self.width {
            return format!("{sign}{body}");
        }
        let n = self.width - len;
        let fill = |k: usize| self.fill.to_string().repeat(k);
        match self.align.unwrap_or(default_align) {
            '<' => format!("{sign}{body}{}", fill(n)),
            '^' => format!("{}{sign}{body}{}", fill(n / 2), fill(n - n / 2)),
            '=' => format!("{sign}{}{body}", fill(n)),
            _ => format!("{}{sign}{body}", fill(n)),
        }
    }
}

/// Python's `g`: fixed or scientific by the exponent, trailing zeros dropped unless `alt`;
/// `repr_like` is the no-type form with a precision, which keeps one digit after the point.
fn general(x: f64, precision: usize, alt: bool, repr_like: bool) -> String {
    let p = precision.max(1);
    let e_form = format!("{x:.*e}", p - 1);
    let exp: i32 = e_form.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let (mut out, fixed) = if -4 <= exp && exp < p as i32 {
        (format!("{x:.*}", (p as i32 - 1 - exp).max(0) as usize), true)
    } else {
        (sci(x, p - 1), false)
    };
    if !alt {
        let (m, e) = match out.find('e') {
            Some(i) => (out[..i].to_string(), out[i..].to_string()),
            None => (out.clone(), String::new()),
        };
        let m = if m.contains('.') { m.trim_end_matches('0').trim_end_matches('.').to_string() } else { m };
        out = format!("{m}{e}");
    }
    if repr_like && fixed && !out.contains('.') {
        out.push_str(".0");
    }
    out
}

/// Thousands separators in a run of digits.
fn group(digits: &str, sep: Option<char>) -> String {
    match sep {
        Some(sep) => group_by(digits, sep, 3),
        None => digits.to_string(),
    }
}

/// `sep` between groups of `size` digits, counted from the right.
fn group_by(digits: &str, sep: char, size: usize) -> String {
    let n = digits.len();
    let mut out = String::with_capacity(n + n / size);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(size) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

fn group_float(s: &str, sep: Option<char>) -> String {
    if sep.is_none() {
        return s.to_string();
    }
    match s.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => format!("{}{}", group(&s[..i], sep), &s[i..]),
        None => group(s, sep),
    }
}
