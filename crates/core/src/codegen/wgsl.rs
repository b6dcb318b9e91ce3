//! The WGSL renderer: kernel IR to a compute shader, by table.
//!
//! Every ALU op is one row of a table from (op, type class) to a text template; the rest is a
//! fixed frame (bindings, the thread-to-element mapping, the reduce loop, the store). WGSL has
//! no 64-bit integers and no 8- or 16-bit storage, so indices are i32 (the schedule refuses
//! kernels that could overflow), bool is stored as one u32 per element, and uint8 is packed
//! four per u32 word: a dense uint8 output is written a whole word per thread, and a store
//! through a view updates its byte with atomic and/or on the word, so no byte write races.
//! Symbolic floor division and modulo keep their floor semantics through small helpers.
//! Elementwise kernels give each thread several elements; where every 32-bit buffer is read and
//! written only at the element's own flat index, those buffers are bound as vec4 arrays, since
//! a CPU driver moves a vec4 per lane at once but gathers scalars lane by lane.
//!
//! Invariant: every loop the renderer writes is counted (see [`loops_are_counted`](super::wgsl_check::loops_are_counted)), so it ends;
//! the runtime relies on that to build these kernels without wgpu's per-iteration loop guard.

use super::ir::{Inst, Kernel, KernelKind, Tile};
use super::wgsl_helpers::{helper_deps, HELPERS};
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::shape::symbolic::Expr;
use crate::uop::alu::{Class, Template};
use crate::uop::ReduceOp;
use std::collections::BTreeSet;
use std::fmt::Write;

/// Threads per workgroup of a one-dimensional kernel.
pub const WORKGROUP: u32 = 64;
/// Threads per workgroup of an elementwise kernel (no reduce): on a CPU driver every workgroup
/// and every invocation has a fixed cost, so fewer, fuller ones stream memory faster.
pub const ELEMENT_WORKGROUP: u32 = 256;
/// The elements each thread of a scalar elementwise kernel computes.
pub const ELEMENTS_PER_THREAD: u32 = 4;
/// The vec4s each thread of a vec4 elementwise kernel computes, one after the other.
pub const QUADS_PER_THREAD: u32 = 2;
/// Edge of the square output tile one matmul workgroup computes.
pub const TILE: u32 = 64;
/// Outputs along each edge one matmul invocation computes (a `BLOCK` x `BLOCK` register block,
/// a multiple of 4: each row of it is `BLOCK / 4` vec4 accumulators).
pub const BLOCK: u32 = 8;
/// Steps of the reduction staged in workgroup memory at a time.
pub const TILE_K: u32 = 16;
/// Invocations along each edge of a matmul workgroup.
const LANES: u32 = TILE / BLOCK;
/// The largest workgroup count of one dispatch dimension WebGPU guarantees.
const MAX_GROUPS: u64 = 65535;

/// A rendered kernel: the shader and how to dispatch it.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    pub wgsl: String,
    pub entry: &'static str,
    pub workgroup_size: [u32; 3],
    pub workgroups: [u32; 3],
    /// Per binding: whether it is read-only (binding i is slot i of the kernel).
    pub read_only: Vec<bool>,
}

/// The register class of `d`. [`render`] refuses kernels with a dtype WGSL has no type for
/// before anything asks, so the fallback is never taken.
fn class(d: DType) -> Class {
    Class::of(d).unwrap_or(Class::F)
}

/// The first dtype of `k` (a buffer's, a value's or a cast's source) that WGSL has no type for:
/// such a kernel runs on the CPU kernel executor instead.
pub fn unsupported_dtype(k: &Kernel) -> Option<DType> {
    let casts = k.insts.iter().filter_map(|i| match i {
        Inst::Cast { from, .. } => Some(*from),
        _ => None,
    });
    k.slots
        .iter()
        .map(|s| s.dtype)
        .chain(k.insts.iter().filter_map(Inst::dtype))
        .chain(casts)
        .find(|d| !d.has_wgsl_type())
}

/// The WGSL type a value of `d` has in registers.
fn ty(d: DType) -> &'static str {
    match class(d) {
        Class::F => "f32",
        Class::I => "i32",
        Class::U8 => "u32",
        Class::B => "bool",
    }
}

fn zero(d: DType) -> &'static str {
    match class(d) {
        Class::F => "0.0",
        Class::I => "0",
        Class::U8 => "0u",
        Class::B => "false",
    }
}

/// An op's template for operands of class `c`, with every operand of `args` filled in. A
/// template written in f32 (a float op given integers, as a capture may) converts its operands
/// to f32 and its result back.
fn apply_template(t: Template, c: Class, args: &[(&str, &str)]) -> String {
    match t {
        Template::PerClass(t) => fill(t, args),
        Template::F32(t) if c == Class::F => fill(t, args),
        Template::F32(t) => {
            let cast: Vec<(&str, String)> =
                args.iter().map(|(k, v)| (*k, fill(cast_template(c, Class::F), &[("{a}", v)]))).collect();
            let cast: Vec<(&str, &str)> = cast.iter().map(|(k, v)| (*k, v.as_str())).collect();
            fill(cast_template(Class::F, c), &[("{a}", &fill(t, &cast))])
        }
    }
}

/// The table of casts (PyTorch's: float to int truncates, int to uint8 wraps).
fn cast_template(from: Class, to: Class) -> &'static str {
    use Class::*;
    match (from, to) {
        (F, F) | (I, I) | (U8, U8) | (B, B) => "{a}",
        (F, B) => "({a} != 0.0)",
        (I, B) => "({a} != 0)",
        (U8, B) => "({a} != 0u)",
        (B, F) => "select(0.0, 1.0, {a})",
        (B, I) => "select(0, 1, {a})",
        (B, U8) => "select(0u, 1u, {a})",
        // x86's conversion, as PyTorch's CPU casts: int32's lowest value for NaN and anything
        // out of range (WGSL's own conversion clamps); uint8 through int32, wrapping.
        (F, I) => "select(bitcast<i32>(0x80000000u), i32({a}), abs({a}) < 2147483648.0)",
        (F, U8) => "(u32(select(bitcast<i32>(0x80000000u), i32({a}), abs({a}) < 2147483648.0)) & 0xffu)",
        (I, F) | (U8, F) => "f32({a})",
        (I, U8) => "(u32({a}) & 0xffu)",
        (U8, I) => "i32({a})",
    }
}

fn fill(t: &str, args: &[(&str, &str)]) -> String {
    let mut s = t.to_string();
    for (k, v) in args {
        s = s.replace(k, v);
    }
    s
}

struct Renderer<'k> {
    k: &'k Kernel,
    helpers: BTreeSet<&'static str>,
    /// Whether the output is uint8 written through a view (atomic word updates).
    atomic_out: bool,
    /// Whether the output is dense uint8 (four elements per thread, one word write).
    packed_out: bool,
    /// Per slot: bound as `array<vec4<..>>` and read (or, for the output, written) a whole
    /// vec4 at a time, element `j` of it in the thread's inner loop. Empty unless every slot so bound
    /// is only ever accessed at the kernel's own flat element index.
    quad: Vec<bool>,
}

impl Renderer<'_> {
    fn use_helpers_in(&mut self, text: &str) {
        for (name, _) in HELPERS {
            if text.contains(&format!("{name}(")) {
                self.add_helper(name);
            }
        }
    }

    fn add_helper(&mut self, name: &str) {
        if let Some((n, _)) = HELPERS.iter().find(|(n, _)| *n == name) {
            if self.helpers.insert(n) {
                for d in helper_deps(n) {
                    self.add_helper(d);
                }
            }
        }
    }

    /// An index expression as i32 WGSL.
    fn int(&mut self, e: &Expr) -> String {
        match e {
            Expr::Const(k) => {
                if *k < 0 {
                    format!("({k})")
                } else {
                    k.to_string()
                }
            }
            Expr::Bool(_) | Expr::Lt(..) | Expr::Ge(..) | Expr::And(_) => {
                format!("select(0, 1, {})", self.boolean(e))
            }
            Expr::Var { id, .. } => format!("i{id}"),
            Expr::Add(ts) => {
                let parts: Vec<String> = ts.iter().map(|t| self.int(t)).collect();
                format!("({})", parts.join(" + "))
            }
            Expr::Mul(a, k) => format!("({} * {})", self.int(a), self.int(&Expr::Const(*k))),
            Expr::FloorDiv(a, k) => {
                if a.bounds().0 >= 0 {
                    format!("({} / {k})", self.int(a))
                } else {
                    self.add_helper("fdiv");
                    format!("fdiv({}, {k})", self.int(a))
                }
            }
            Expr::Mod(a, k) => {
                if a.bounds().0 >= 0 {
                    format!("({} % {k})", self.int(a))
                } else {
                    self.add_helper("fmod");
                    format!("fmod({}, {k})", self.int(a))
                }
            }
        }
    }

    /// A validity expression as bool WGSL.
    fn boolean(&mut self, e: &Expr) -> String {
        match e {
            Expr::Bool(b) => b.to_string(),
            Expr::Lt(a, k) => format!("({} < {})", self.int(a), self.int(&Expr::Const(*k))),
            Expr::Ge(a, k) => format!("({} >= {})", self.int(a), self.int(&Expr::Const(*k))),
            Expr::And(ts) => {
                let parts: Vec<String> = ts.iter().map(|t| self.boolean(t)).collect();
                format!("({})", parts.join(" && "))
            }
            other => format!("({} != 0)", self.int(other)),
        }
    }

    fn literal(&mut self, v: f64, d: DType) -> String {
        match class(d) {
            Class::F => {
                let f = v as f32;
                if f.is_nan() {
                    self.add_helper("f32_nan");
                    "f32_nan()".into()
                } else if f.is_infinite() {
                    self.add_helper("f32_inf");
                    if f > 0.0 {
                        "f32_inf()".into()
                    } else {
                        "(-f32_inf())".into()
                    }
                } else {
                    format!("f32({f:?})")
                }
            }
            Class::I => format!("i32({})", v as i64),
            Class::U8 => format!("{}u", v as i64),
            Class::B => (v != 0.0).to_string(),
        }
    }

    /// Reads element `idx` (an i32 expression naming a `let`) of slot `s`.
    fn raw_load(&self, s: usize, idx: &str) -> String {
        if self.quad.get(s) == Some(&true) {
            return format!("q{s}[j]");
        }
        let d = self.k.slots[s].dtype;
        let word = |i: &str| {
            if s == 0 && self.atomic_out {
                format!("atomicLoad(&b0[{i}])")
            } else {
                format!("b{s}[{i}]")
            }
        };
        match class(d) {
            Class::F | Class::I => word(idx),
            Class::B => format!("({} != 0u)", word(idx)),
            Class::U8 => format!("(({} >> (u32({idx} & 3) * 8u)) & 0xffu)", word(&format!("{idx} >> 2u"))),
        }
    }

    fn alu(&mut self, t: Template, c: Class, args: &[(&str, &str)]) -> String {
        let s = apply_template(t, c, args);
        self.use_helpers_in(&s);
        s
    }

    /// One instruction as WGSL statements (at `indent`).
    fn inst(&mut self, i: usize, out: &mut String, pad: &str) {
        let v = |x: &usize| format!("v{x}");
        let inst = &self.k.insts[i];
        let line = match inst {
            Inst::Const { value, dtype } => format!("let v{i}: {} = {};", ty(*dtype), self.literal(*value, *dtype)),
            Inst::Index { expr, dtype } => {
                let e = if *dtype == DType::Bool { self.boolean(expr) } else { self.int(expr) };
                format!("let v{i}: {} = {e};", ty(*dtype))
            }
            Inst::Load { slot, index, valid, dtype } => {
                let idx = self.int(index);
                if *valid == Expr::Bool(true) {
                    format!("let v{i}: {} = {};", ty(*dtype), self.raw_load(*slot, &format!("({idx})")))
                } else {
                    // Invalid lanes read element 0 (always in bounds) and then yield zero.
                    let ok = self.boolean(valid);
                    format!(
                        "let ok{i} = {ok};\n{pad}let x{i} = select(0, {idx}, ok{i});\n{pad}let v{i}: {} = select({}, {}, ok{i});",
                        ty(*dtype),
                        zero(*dtype),
                        self.raw_load(*slot, &format!("x{i}"))
                    )
                }
            }
            Inst::Gather { slot, base, stride, at, extent, valid, dtype } => {
                // The position is clamped into the axis (the host checked it): no read leaves
                // the buffer whatever the index buffer holds.
                let idx = format!("{} + clamp(v{at}, 0, {}) * {stride}", self.int(base), extent.saturating_sub(1));
                if *valid == Expr::Bool(true) {
                    format!(
                        "let x{i} = {idx};\n{pad}let v{i}: {} = {};",
                        ty(*dtype),
                        self.raw_load(*slot, &format!("x{i}"))
                    )
                } else {
                    let ok = self.boolean(valid);
                    format!(
                        "let ok{i} = {ok};\n{pad}let x{i} = select(0, {idx}, ok{i});\n{pad}let v{i}: {} = select({}, {}, ok{i});",
                        ty(*dtype),
                        zero(*dtype),
                        self.raw_load(*slot, &format!("x{i}"))
                    )
                }
            }
            Inst::Unary { op, a, dtype } => {
                let c = class(*dtype);
                format!("let v{i}: {} = {};", ty(*dtype), self.alu(op.wgsl(c), c, &[("{a}", &v(a))]))
            }
            Inst::Binary { op, a, b, dtype } => {
                let rt = if op.is_comparison() { DType::Bool } else { *dtype };
                format!(
                    "let v{i}: {} = {};",
                    ty(rt),
                    self.alu(op.wgsl(class(*dtype)), class(*dtype), &[("{a}", &v(a)), ("{b}", &v(b))])
                )
            }
            Inst::Where { c, x, y, dtype } => {
                format!("let v{i}: {} = select({}, {}, {});", ty(*dtype), v(y), v(x), v(c))
            }
            Inst::Cast { a, from, to } => {
                format!("let v{i}: {} = {};", ty(*to), fill(cast_template(class(*from), class(*to)), &[("{a}", &v(a))]))
            }
            Inst::BeginReduce { .. } | Inst::EndReduce { .. } => String::new(),
            Inst::Store { index, valid, value, dtype } => {
                let idx = self.int(index);
                let ok = self.boolean(valid);
                let val = v(value);
                let body: Vec<String> = match class(*dtype) {
                    Class::U8 if self.packed_out => {
                        vec![format!("word = word | (({val} & 0xffu) << (u32(j) * 8u));")]
                    }
                    Class::U8 => vec![
                        format!("let si = {idx};"),
                        "let sh = u32(si & 3) * 8u;".into(),
                        "atomicAnd(&b0[si >> 2u], ~(0xffu << sh));".into(),
                        format!("atomicOr(&b0[si >> 2u], ({val} & 0xffu) << sh);"),
                    ],
                    Class::B => vec![format!("b0[{idx}] = select(0u, 1u, {val});")],
                    _ if self.quad.first() == Some(&true) => vec![format!("q0[j] = {val};")],
                    _ => vec![format!("b0[{idx}] = {val};")],
                };
                if ok == "true" {
                    body.join(&format!("\n{pad}"))
                } else {
                    format!("if ({ok}) {{\n{pad}  {}\n{pad}}}", body.join(&format!("\n{pad}  ")))
                }
            }
        };
        if !line.is_empty() {
            let _ = writeln!(out, "{pad}{line}");
        }
    }

    /// The reduce loop around `body`, accumulating into `acc{end}`.
    fn reduce(&mut self, begin: usize, end: usize, out: &mut String, pad: &str) {
        let Inst::BeginReduce { vars } = &self.k.insts[begin] else {
            return;
        };
        let Inst::EndReduce { op, value, dtype } = &self.k.insts[end] else {
            return;
        };
        let init = self.reduce_init(*op, *dtype);
        let _ = writeln!(out, "{pad}var acc{end}: {} = {init};", ty(*dtype));
        let mut p = pad.to_string();
        for (id, ext) in vars {
            let _ = writeln!(out, "{p}for (var i{id}: i32 = 0; i{id} < {ext}; i{id} = i{id} + 1) {{");
            p.push_str("  ");
        }
        for i in begin + 1..end {
            self.inst(i, out, &p);
        }
        let comb = self.combine(*op, *dtype, &format!("acc{end}"), &format!("v{value}"));
        let _ = writeln!(out, "{p}acc{end} = {comb};");
        for _ in vars {
            p.truncate(p.len() - 2);
            let _ = writeln!(out, "{p}}}");
        }
        let _ = writeln!(out, "{pad}let v{end}: {} = acc{end};", ty(*dtype));
    }

    fn reduce_init(&mut self, op: ReduceOp, d: DType) -> String {
        match (op, class(d)) {
            (ReduceOp::Sum, _) => zero(d).to_string(),
            (ReduceOp::Prod, _) => self.literal(1.0, d),
            (ReduceOp::Max, Class::F) => self.literal(f64::NEG_INFINITY, d),
            (ReduceOp::Min, Class::F) => self.literal(f64::INFINITY, d),
            (ReduceOp::Max, Class::I) => "i32(-2147483648)".into(),
            (ReduceOp::Min, Class::I) => "2147483647".into(),
            (ReduceOp::Max, Class::U8) => "0u".into(),
            (ReduceOp::Min, Class::U8) => "255u".into(),
            (ReduceOp::Max, Class::B) => "false".into(),
            (ReduceOp::Min, Class::B) => "true".into(),
        }
    }

    fn combine(&mut self, op: ReduceOp, d: DType, acc: &str, v: &str) -> String {
        let b = op.combine();
        self.alu(b.wgsl(class(d)), class(d), &[("{a}", acc), ("{b}", v)])
    }

    fn bindings(&self) -> String {
        let mut s = String::new();
        for (i, slot) in self.k.slots.iter().enumerate() {
            let quad = self.quad.get(i) == Some(&true);
            let elem = match class(slot.dtype) {
                Class::F if quad => "vec4<f32>",
                Class::I if quad => "vec4<i32>",
                Class::F => "f32",
                Class::I => "i32",
                Class::U8 if i == 0 && self.atomic_out => "atomic<u32>",
                Class::U8 | Class::B => "u32",
            };
            let access = if i == 0 { "read_write" } else { "read" };
            let _ = writeln!(s, "@group(0) @binding({i}) var<storage, {access}> b{i}: array<{elem}>;");
        }
        s
    }

    fn unravel_dims(&self, flat: &str, skip: &[usize], out: &mut String, pad: &str) {
        let mut stride = 1usize;
        for d in (0..self.k.dims.len()).rev() {
            let n = self.k.dims[d];
            if skip.contains(&d) {
                continue;
            }
            // The outermost dim needs no modulo (the flat index is in range), the innermost
            // no division.
            let outermost = (0..d).all(|o| skip.contains(&o) || self.k.dims[o] <= 1);
            let e = match (n <= 1, stride == 1, outermost) {
                (true, _, _) => "0".to_string(),
                (_, true, true) => flat.to_string(),
                (_, true, false) => format!("{flat} % {n}"),
                (_, false, true) => format!("{flat} / {stride}"),
                _ => format!("({flat} / {stride}) % {n}"),
            };
            let _ = writeln!(out, "{pad}let i{d}: i32 = {e};");
            stride *= n.max(1);
        }
    }
}

/// Whether `e` is the flat row-major index of the kernel's output element: affine (sums of
/// variables times constants) with the dims' contiguous strides and no offset.
fn is_flat_index(e: &Expr, dims: &[usize]) -> bool {
    // Over the kernel's own loop variables only (`n` of them), so `eval` below is defined.
    fn affine(e: &Expr, n: usize) -> bool {
        match e {
            Expr::Const(_) => true,
            Expr::Var { id, .. } => *id < n,
            Expr::Add(ts) => ts.iter().all(|t| affine(t, n)),
            Expr::Mul(a, _) => affine(a, n),
            _ => false,
        }
    }
    if !affine(e, dims.len()) || e.eval(&vec![0; dims.len()]) != 0 {
        return false;
    }
    // An affine expression is its value at the origin plus one coefficient per variable.
    let mut stride = 1i64;
    for d in (0..dims.len()).rev() {
        let mut unit = vec![0; dims.len()];
        unit[d] = 1;
        if dims[d] > 1 && e.eval(&unit) != stride {
            return false;
        }
        stride *= dims[d].max(1) as i64;
    }
    true
}

/// Which slots an elementwise kernel can bind as vec4 arrays (see `Renderer::quad`): 32-bit
/// slots whose every access is unmasked at the flat index; none unless the output is one of
/// them and the element count is a multiple of 4. The slot tables guarantee a slot's buffer
/// covers the kernel's elements, so whole vec4s stay in bounds.
fn quad_slots(k: &Kernel) -> Vec<bool> {
    let dense = |s: usize| {
        matches!(class(k.slots[s].dtype), Class::F | Class::I)
            && k.slots[s].len >= k.numel()
            && k.insts.iter().all(|i| match i {
                // The output's vec4 is only written (`q0` starts as zeros).
                Inst::Load { slot, index, valid, .. } if *slot == s => {
                    s != 0 && *valid == Expr::Bool(true) && is_flat_index(index, &k.dims)
                }
                Inst::Store { index, valid, .. } if s == 0 => {
                    *valid == Expr::Bool(true) && is_flat_index(index, &k.dims)
                }
                Inst::Gather { slot, .. } => *slot != s,
                _ => true,
            })
    };
    let quad: Vec<bool> = (0..k.slots.len()).map(dense).collect();
    let stores = k.insts.iter().filter(|i| matches!(i, Inst::Store { .. })).count();
    if k.numel().is_multiple_of(4) && k.numel() > 0 && stores == 1 && quad[0] {
        quad
    } else {
        Vec::new()
    }
}

/// Renders one kernel.
pub fn render(k: &Kernel) -> Result<Rendered> {
    if let Some(d) = unsupported_dtype(k) {
        bail!(Unsupported, "{}: WGSL has no {d} type; the kernel runs on the CPU kernel executor", k.name);
    }
    let out_u8 = k.slots[0].dtype == DType::UInt8;
    let elementwise = k.kind != KernelKind::Store
        && !k.serial
        && !k.insts.iter().any(|i| matches!(i, Inst::BeginReduce { .. }))
        && k.tile.is_none();
    let mut r = Renderer {
        k,
        helpers: BTreeSet::new(),
        atomic_out: out_u8 && k.kind == KernelKind::Store,
        packed_out: out_u8 && k.kind != KernelKind::Store,
        quad: if elementwise { quad_slots(k) } else { Vec::new() },
    };
    let mut body = String::new();
    let begin = k.insts.iter().position(|i| matches!(i, Inst::BeginReduce { .. }));
    let end = k.insts.iter().position(|i| matches!(i, Inst::EndReduce { .. }));
    let (frame, size, groups) = match (&k.tile, begin, end) {
        (Some(t), Some(b), Some(e))
            if !r.packed_out && !r.atomic_out && matches!(k.insts[e].dtype().map(class), Some(Class::F | Class::I)) =>
        {
            let frame = tiled(&mut r, t, b, e, &mut body);
            (frame, [LANES, LANES, 1], tiled_groups(k, t))
        }
        _ => {
            let pad = if r.packed_out { "    " } else { "  " };
            for i in 0..k.insts.len() {
                match (begin, end) {
                    (Some(b), Some(e)) if i == b => r.reduce(b, e, &mut body, pad),
                    (Some(b), Some(e)) if i > b && i <= e => {}
                    _ => r.inst(i, &mut body, pad),
                }
            }
            // A thread per element, per word of packed uint8, or per `ELEMENTS_PER_THREAD`
            // elements of a plain elementwise kernel.
            let spread = !r.packed_out && begin.is_none();
            let quad = !r.quad.is_empty();
            let (wg, threads) = match (r.packed_out, spread) {
                (true, _) => (WORKGROUP, k.numel().div_ceil(4)),
                (false, true) if quad => (ELEMENT_WORKGROUP, (k.numel() / 4).div_ceil(QUADS_PER_THREAD as usize)),
                // Whole workgroups: a workgroup's lanes share its elements (below).
                (false, true) => {
                    let per_group = (ELEMENT_WORKGROUP * ELEMENTS_PER_THREAD) as usize;
                    (ELEMENT_WORKGROUP, k.numel().div_ceil(per_group) * ELEMENT_WORKGROUP as usize)
                }
                (false, false) => (WORKGROUP, k.numel()),
            };
            let mut head = String::new();
            if k.serial && !r.packed_out {
                // One thread, element order: the last write to a repeated element wins.
                let _ = writeln!(head, "@compute @workgroup_size(1)");
                let _ = writeln!(head, "fn main() {{");
                let n = k.numel();
                let _ = writeln!(head, "  for (var gid: i32 = 0; gid < {n}; gid = gid + 1) {{");
                let mut dims = String::new();
                if k.order.is_empty() {
                    r.unravel_dims("gid", &[], &mut dims, "    ");
                } else {
                    let _ = writeln!(dims, "    var rest: i32 = gid;");
                    for &d in &k.order {
                        let n = k.dims[d].max(1);
                        let _ = writeln!(dims, "    let i{d}: i32 = rest % {n};");
                        let _ = writeln!(dims, "    rest = rest / {n};");
                    }
                }
                let body: String = body.lines().map(|l| format!("  {l}\n")).collect();
                let frame = format!("{head}{dims}{body}  }}\n}}\n");
                return Ok(finish(&r, k, frame, [1, 1, 1], [1, 1, 1]));
            }
            let _ = writeln!(head, "@compute @workgroup_size({wg})");
            let _ = writeln!(
                head,
                "fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {{"
            );
            let _ = writeln!(head, "  let t = i32(g.x + g.y * nw.x * {wg}u);");
            let _ = writeln!(head, "  if (t >= {threads}) {{ return; }}");
            let mut dims = String::new();
            if r.packed_out {
                let _ = writeln!(head, "  var word: u32 = 0u;");
                let _ = writeln!(head, "  for (var j: i32 = 0; j < 4; j = j + 1) {{");
                let _ = writeln!(head, "    let gid = t * 4 + j;");
                let _ = writeln!(head, "    if (gid >= {}) {{ break; }}", k.numel());
                r.unravel_dims("gid", &[], &mut dims, "    ");
                let frame = format!("{head}{dims}{body}  }}\n  b0[t] = word;\n}}\n");
                (frame, [WORKGROUP, 1, 1], flat_groups(threads, WORKGROUP))
            } else if quad {
                // Whole vec4s in and out, a few adjacent ones per thread: a CPU driver loads a
                // vec4 per lane in one go where it gathers scalars lane by lane. Every vec4 and
                // each of its four lanes is written out with constant `u` and `j`, so there is
                // no loop: a vector indexed by a loop counter is spilled to memory by drivers
                // that do not unroll, and each loop iteration pays the bound check that wgpu adds
                // to every loop (a fifth of the add's time on lavapipe).
                let (per, quads) = (QUADS_PER_THREAD, k.numel() / 4);
                r.unravel_dims("gid", &[], &mut dims, "      ");
                let body: String = body.lines().map(|l| format!("    {l}\n")).collect();
                let mut frame = head;
                for u in 0..per {
                    let _ = writeln!(frame, "  {{\n    const u: i32 = {u};");
                    let _ = writeln!(frame, "    let w = t * {per} + u;");
                    let _ = writeln!(frame, "    if (w >= {quads}) {{ return; }}");
                    for (s, _) in r.quad.iter().enumerate().skip(1).filter(|(_, q)| **q) {
                        if k.insts.iter().any(|i| matches!(i, Inst::Load { slot, .. } if *slot == s)) {
                            let _ = writeln!(frame, "    let q{s} = b{s}[w];");
                        }
                    }
                    let _ = writeln!(frame, "    var q0: vec4<{}>;", ty(k.slots[0].dtype));
                    for j in 0..4 {
                        let _ = write!(
                            frame,
                            "    {{\n      const j: i32 = {j};\n      let gid = w * 4 + j;\n{dims}{body}    }}\n"
                        );
                    }
                    let _ = writeln!(frame, "    b0[w] = q0;\n  }}");
                }
                frame.push_str("}\n");
                (frame, [wg, 1, 1], flat_groups(threads, wg))
            } else if spread {
                // A workgroup covers `wg * ELEMENTS_PER_THREAD` consecutive elements, its lanes
                // side by side at each step, so neighbouring lanes still read neighbouring
                // elements (what a driver vectorises across lanes).
                // Written out with a constant `j`, like the vec4 lanes above: no loop to bound.
                let e = ELEMENTS_PER_THREAD;
                let _ = writeln!(head, "  let base = (t / {wg}) * {} + t % {wg};", wg * e);
                r.unravel_dims("gid", &[], &mut dims, "    ");
                let body: String = body.lines().map(|l| format!("  {l}\n")).collect();
                let mut frame = head;
                for j in 0..e {
                    let _ = writeln!(frame, "  {{\n    const j: i32 = {j};\n    let gid = base + j * {wg};");
                    let _ = writeln!(frame, "    if (gid >= {}) {{ return; }}", k.numel());
                    let _ = writeln!(frame, "{dims}{body}  }}");
                }
                frame.push_str("}\n");
                (frame, [wg, 1, 1], flat_groups(threads, wg))
            } else {
                let _ = writeln!(head, "  let gid = t;");
                r.unravel_dims("gid", &[], &mut dims, "  ");
                (format!("{head}{dims}{body}}}\n"), [WORKGROUP, 1, 1], flat_groups(threads, WORKGROUP))
            }
        }
    };
    Ok(finish(&r, k, frame, size, groups))
}

/// Prepends the header, bindings and helpers to the kernel's frame.
fn finish(r: &Renderer<'_>, k: &Kernel, frame: String, size: [u32; 3], groups: [u32; 3]) -> Rendered {
    let mut src = format!("// {}: {}\n", k.name, k.reason);
    src.push_str(&r.bindings());
    for (name, text) in HELPERS {
        if r.helpers.contains(name) {
            src.push_str(text);
            src.push('\n');
        }
    }
    src.push_str(&frame);
    let read_only = (0..k.slots.len()).map(|i| i != 0).collect();
    Rendered { wgsl: src, entry: "main", workgroup_size: size, workgroups: groups, read_only }
}

fn flat_groups(threads: usize, workgroup: u32) -> [u32; 3] {
    let groups = (threads as u64).div_ceil(u64::from(workgroup)).max(1);
    let x = groups.min(MAX_GROUPS);
    [x as u32, groups.div_ceil(x) as u32, 1]
}

fn tiled_groups(k: &Kernel, t: &Tile) -> [u32; 3] {
    let batch: usize = k.dims.iter().enumerate().filter(|(d, _)| *d != t.m.0 && *d != t.n.0).map(|(_, &n)| n).product();
    [t.n.1.div_ceil(TILE as usize) as u32, t.m.1.div_ceil(TILE as usize) as u32, batch.max(1) as u32]
}

/// The matmul frame. Each workgroup of `LANES` x `LANES` invocations computes a `TILE` x
/// `TILE` block of outputs, each invocation a `BLOCK` x `BLOCK` register block (vec4
/// accumulators), so every value read from workgroup memory feeds `BLOCK` multiply-adds instead
/// of one. Per `TILE_K` steps of `k` the workgroup stages a `TILE` x `TILE_K` tile of `a` and a
/// `TILE_K` x `TILE` tile of `b` (b as vec4 rows, read four columns at a time), so each input
/// element is read from storage once per tile and there are two barriers per `TILE_K` steps.
fn tiled(r: &mut Renderer<'_>, t: &Tile, begin: usize, end: usize, body: &mut String) -> String {
    let k = r.k;
    let Inst::EndReduce { dtype, .. } = &k.insts[end] else {
        return String::new();
    };
    let tyv = ty(*dtype);
    let z = zero(*dtype);
    let (m, n, kv) = (t.m, t.n, t.k);
    let (threads, per_thread) = (LANES * LANES, TILE * TILE_K / (LANES * LANES));
    let mut s = String::new();
    let _ = writeln!(s, "var<workgroup> ta: array<array<{tyv}, {TILE_K}>, {TILE}>;");
    let _ = writeln!(s, "var<workgroup> tb: array<array<vec4<{tyv}>, {}>, {TILE_K}>;", TILE / 4);
    let _ = writeln!(s, "@compute @workgroup_size({LANES}, {LANES}, 1)");
    let _ = writeln!(
        s,
        "fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {{"
    );
    let _ = writeln!(s, "  let ly = i32(lid.y);\n  let lx = i32(lid.x);\n  let lf = i32(li);");
    let _ = writeln!(s, "  let m0 = i32(wg.y) * {TILE};\n  let n0 = i32(wg.x) * {TILE};");
    let _ = writeln!(s, "  let bz = i32(wg.z);");
    let mut dims = String::new();
    r.unravel_dims("bz", &[m.0, n.0], &mut dims, "  ");
    s.push_str(&dims);
    let quads = BLOCK / 4;
    let accs: Vec<(u32, u32)> = (0..BLOCK).flat_map(|row| (0..quads).map(move |q| (row, q))).collect();
    for (row, q) in &accs {
        let _ = writeln!(s, "  var acc{row}_{q}: vec4<{tyv}> = vec4<{tyv}>({z});");
    }
    let _ = writeln!(s, "  for (var k0: i32 = 0; k0 < {}; k0 = k0 + {TILE_K}) {{", kv.1);
    // Operand subgraphs: body instructions reachable from a (resp. b).
    let reach = |root: usize| {
        let mut seen = vec![root];
        let mut stack = vec![root];
        while let Some(v) = stack.pop() {
            for o in k.insts[v].operands() {
                if !seen.contains(&o) {
                    seen.push(o);
                    stack.push(o);
                }
            }
        }
        seen.sort_unstable();
        seen
    };
    // (tile, operand, its own output variable, columns of the staged tile, where a value goes)
    let sides = [
        ("ta", t.a, m, TILE_K, "ta[row][col]", "m0 + row", "k0 + col"),
        ("tb", t.b, n, TILE, "tb[row][col / 4][col % 4]", "n0 + col", "k0 + row"),
    ];
    for (_, root, own, cols, dst, own_at, k_at) in sides {
        let _ = writeln!(s, "    for (var e: i32 = 0; e < {per_thread}; e = e + 1) {{");
        let _ = writeln!(s, "      let f = lf + e * {threads};");
        let _ = writeln!(s, "      let row = f / {cols};\n      let col = f % {cols};");
        let _ = writeln!(s, "      let ok = ({k_at}) < {} && ({own_at}) < {};", kv.1, own.1);
        // Clamp so that lanes past the edge still read in bounds; `ok` zeroes them.
        let _ = writeln!(s, "      let i{} = min({k_at}, {});", kv.0, kv.1.max(1) - 1);
        let _ = writeln!(s, "      let i{} = min({own_at}, {});", own.0, own.1.max(1) - 1);
        let mut part = String::new();
        for i in reach(root) {
            r.inst(i, &mut part, "      ");
        }
        s.push_str(&part);
        let _ = writeln!(s, "      {dst} = select({z}, v{root}, ok);");
        let _ = writeln!(s, "    }}");
    }
    let _ = writeln!(s, "    workgroupBarrier();");
    let _ = writeln!(s, "    for (var kk: i32 = 0; kk < {TILE_K}; kk = kk + 1) {{");
    for q in 0..quads {
        let _ = writeln!(s, "      let bq{q} = tb[kk][lx * {quads} + {q}];");
    }
    for row in 0..BLOCK {
        let _ = writeln!(s, "      let ar{row} = ta[ly * {BLOCK} + {row}][kk];");
    }
    for (row, q) in &accs {
        let comb = r.combine(ReduceOp::Sum, *dtype, &format!("acc{row}_{q}"), &format!("ar{row} * bq{q}"));
        let _ = writeln!(s, "      acc{row}_{q} = {comb};");
    }
    let _ = writeln!(s, "    }}\n    workgroupBarrier();\n  }}");
    let names: Vec<String> = accs.iter().map(|(row, q)| format!("acc{row}_{q}")).collect();
    let _ = writeln!(s, "  var acc = array<vec4<{tyv}>, {}>({});", accs.len(), names.join(", "));
    let _ = writeln!(s, "  for (var r: i32 = 0; r < {BLOCK}; r = r + 1) {{");
    let _ = writeln!(s, "    for (var c: i32 = 0; c < {BLOCK}; c = c + 1) {{");
    let _ = writeln!(s, "      let i{} = m0 + ly * {BLOCK} + r;\n      let i{} = n0 + lx * {BLOCK} + c;", m.0, n.0);
    let _ = writeln!(s, "      if (i{} < {} && i{} < {}) {{", m.0, m.1, n.0, n.1);
    let _ = writeln!(s, "        let v{end}: {tyv} = acc[r * {quads} + c / 4][c % 4];");
    let mut post = String::new();
    for i in (0..begin).chain(end + 1..k.insts.len()) {
        r.inst(i, &mut post, "        ");
    }
    s.push_str(&post);
    let _ = writeln!(s, "      }}\n    }}\n  }}\n}}");
    body.clear();
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_flat(cases: &[(Expr, &[usize], bool)]) {
        for (e, dims, want) in cases {
            assert_eq!(is_flat_index(e, dims), *want, "{e:?} over {dims:?}");
        }
    }

    #[test]
    fn flat_index_recognition() {
        let (i, j) = (Expr::var(0, 4), Expr::var(1, 3));
        check_flat(&[
            (i.clone(), &[4], true),
            (i.clone() * 3 + j.clone(), &[4, 3], true),
            // A size-1 dim has no stride to check.
            (j.clone(), &[1, 3], true),
            // Transposed, offset, or strided: not the flat index.
            (j.clone() * 4 + i.clone(), &[4, 3], false),
            (i.clone() + Expr::Const(1), &[4], false),
            (i.clone() * 2, &[4], false),
            // Not affine, even where it agrees at the probe points.
            (Expr::Mod(Box::new(i.clone()), 2), &[4], false),
            (i.clone() * 3 + Expr::FloorDiv(Box::new(j), 2), &[4, 3], false),
            // A variable the kernel's dims do not have.
            (i + Expr::var(2, 5), &[4, 3], false),
        ]);
    }
}
