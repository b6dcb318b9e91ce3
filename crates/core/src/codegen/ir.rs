//! The kernel IR: one small linear program per kernel, the single thing both backends read.
//!
//! A kernel iterates over the output's coordinates (`i0..i{n-1}`, one per output dim). Each
//! instruction yields one value per output element; a reduce wraps a run of instructions in a
//! loop over extra variables (`i{n}..`) and yields the accumulated value. Loads carry the index
//! and validity expressions of the view they read through (the same `symbolic::Expr` the UI
//! prints), so movement ops never become copies. Lowering walks the UOp graph of one scheduled
//! kernel and substitutes coordinates through every movement chain it meets.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::shape::symbolic::Expr;
use crate::shape::tracker::ShapeTracker;
use crate::uop::{BinaryOp, Graph, Op, ReduceOp, StorageId, UOpId, UnaryOp};
use std::collections::HashMap;

/// Which buffer a slot binds: a trace storage or a temporary the schedule introduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum BufRef {
    Storage(StorageId),
    Temp(usize),
}

/// One buffer binding of a kernel. Slot 0 is always the output.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Slot {
    pub buf: BufRef,
    pub dtype: DType,
    /// Elements in the buffer.
    pub len: usize,
}

/// An instruction; its result is the value with the instruction's index.
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    /// A literal; `f64` represents every element type exactly.
    Const {
        value: f64,
        dtype: DType,
    },
    /// A boolean or integer computed from the loop variables (a view's validity).
    Index {
        expr: Expr,
        dtype: DType,
    },
    /// `slot[index]` where `valid` holds, zero elsewhere (padding reads as zero).
    Load {
        slot: usize,
        index: Expr,
        valid: Expr,
        dtype: DType,
    },
    /// An indexed load: `slot[base + at * stride]` where `valid` holds, zero elsewhere; `at` is
    /// an int32 value (a position along an axis of `extent` elements, checked on the host and
    /// clamped into range here, so no read leaves the buffer).
    Gather {
        slot: usize,
        base: Expr,
        stride: i64,
        at: usize,
        extent: usize,
        valid: Expr,
        dtype: DType,
    },
    Unary {
        op: UnaryOp,
        a: usize,
        dtype: DType,
    },
    /// `dtype` is the operands' type; comparisons yield bool.
    Binary {
        op: BinaryOp,
        a: usize,
        b: usize,
        dtype: DType,
    },
    Where {
        c: usize,
        x: usize,
        y: usize,
        dtype: DType,
    },
    Cast {
        a: usize,
        from: DType,
        to: DType,
    },
    /// Opens the reduce loop over `vars` (id, extent); the matching `EndReduce` closes it.
    BeginReduce {
        vars: Vec<(usize, usize)>,
    },
    /// The accumulated `op` of `value` over the loop; yields one value per output element.
    EndReduce {
        op: ReduceOp,
        value: usize,
        dtype: DType,
    },
    /// Writes `value` to `slot 0[index]` where `valid` holds.
    Store {
        index: Expr,
        valid: Expr,
        value: usize,
        dtype: DType,
    },
}

impl Inst {
    /// The dtype of the value this instruction yields (`Store` and `BeginReduce` yield none).
    pub fn dtype(&self) -> Option<DType> {
        match self {
            Inst::Const { dtype, .. }
            | Inst::Index { dtype, .. }
            | Inst::Load { dtype, .. }
            | Inst::Gather { dtype, .. }
            | Inst::Unary { dtype, .. }
            | Inst::Where { dtype, .. }
            | Inst::EndReduce { dtype, .. } => Some(*dtype),
            Inst::Binary { op, dtype, .. } => Some(if op.is_comparison() { DType::Bool } else { *dtype }),
            Inst::Cast { to, .. } => Some(*to),
            Inst::BeginReduce { .. } | Inst::Store { .. } => None,
        }
    }

    /// The slot a load or a gather reads.
    pub fn read_slot(&self) -> Option<usize> {
        match self {
            Inst::Load { slot, .. } | Inst::Gather { slot, .. } => Some(*slot),
            _ => None,
        }
    }

    /// Values this instruction reads.
    pub fn operands(&self) -> Vec<usize> {
        match self {
            Inst::Unary { a, .. } | Inst::Cast { a, .. } | Inst::Gather { at: a, .. } => vec![*a],
            Inst::Binary { a, b, .. } => vec![*a, *b],
            Inst::Where { c, x, y, .. } => vec![*c, *x, *y],
            Inst::EndReduce { value, .. } | Inst::Store { value, .. } => vec![*value],
            _ => Vec::new(),
        }
    }
}

/// The reduce-over-product pattern of a matmul: rendered as a tiled kernel with workgroup
/// memory. `a` depends on (m, k) only and `b` on (k, n) only; the loop is `k`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tile {
    pub m: (usize, usize),
    pub n: (usize, usize),
    pub k: (usize, usize),
    pub a: usize,
    pub b: usize,
}

/// What a kernel is, for names and for the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KernelKind {
    Elementwise,
    Reduce,
    Matmul,
    Store,
}

/// One kernel: loop extents, buffer slots and the program.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub kind: KernelKind,
    /// Extent of each output loop variable `i0..`.
    pub dims: Vec<usize>,
    pub slots: Vec<Slot>,
    pub insts: Vec<Inst>,
    pub tile: Option<Tile>,
    /// Run as one thread in element order: a store through a view that writes some element
    /// twice must leave the last value, as the engine's sequential scatter does.
    pub serial: bool,
    /// For a serial kernel, the output dims in iteration order, innermost first (PyTorch's
    /// TensorIterator order); empty means row-major.
    pub order: Vec<usize>,
    /// Why this kernel is a kernel of its own (the boundary to what follows it).
    pub reason: String,
}

impl Kernel {
    pub fn numel(&self) -> usize {
        self.dims.iter().product()
    }

    /// What fused into this kernel, in words, in program order: its elementwise ops (each
    /// named once, by PyTorch's name), the reduce they feed, and the buffers it reads, e.g.
    /// `fused: mul, add, exp → sum over 64 elements; reads 2 buffers`.
    pub fn fused_summary(&self) -> String {
        let mut ops: Vec<String> = Vec::new();
        let mut push = |name: String| {
            if !ops.contains(&name) {
                ops.push(name);
            }
        };
        let mut reduce = None;
        for inst in &self.insts {
            match inst {
                Inst::Unary { op, .. } => push(op.names()[0].to_string()),
                Inst::Binary { op, .. } => push(op.names()[0].to_string()),
                Inst::Where { .. } => push("where".to_string()),
                Inst::Cast { to, .. } => push(format!("cast to {}", to.name())),
                Inst::EndReduce { op, .. } => reduce = Some(*op),
                Inst::Const { .. }
                | Inst::Index { .. }
                | Inst::Load { .. }
                | Inst::Gather { .. }
                | Inst::BeginReduce { .. }
                | Inst::Store { .. } => {}
            }
        }
        let reads = self.insts.iter().filter_map(Inst::read_slot);
        let reads = reads.collect::<std::collections::BTreeSet<_>>().len();
        let body = if ops.is_empty() { "a copy".to_string() } else { ops.join(", ") };
        let tail = match reduce {
            Some(op) => format!(" → {} over {} elements", format!("{op:?}").to_lowercase(), self.reduce_len()),
            None => String::new(),
        };
        let plural = if reads == 1 { "" } else { "s" };
        format!("fused: {body}{tail}; reads {reads} buffer{plural}")
    }

    /// Total iterations of the reduce loop (1 without one).
    pub fn reduce_len(&self) -> usize {
        self.insts
            .iter()
            .find_map(|i| match i {
                Inst::BeginReduce { vars } => Some(vars.iter().map(|v| v.1).product()),
                _ => None,
            })
            .unwrap_or(1)
    }

    /// ALU operations per output element (inside the loop counted once per iteration).
    pub fn flops(&self) -> u64 {
        let (mut inside, mut outside, mut looping) = (0u64, 0u64, false);
        for i in &self.insts {
            match i {
                Inst::BeginReduce { .. } => looping = true,
                Inst::EndReduce { .. } => {
                    looping = false;
                    inside += 1;
                }
                Inst::Unary { .. } | Inst::Binary { .. } | Inst::Where { .. } => {
                    if looping {
                        inside += 1
                    } else {
                        outside += 1
                    }
                }
                _ => {}
            }
        }
        (self.numel() as u64) * (outside + inside * self.reduce_len() as u64)
    }

    /// Bytes the inputs hold (each read buffer once) and bytes the output gets.
    pub fn bytes(&self) -> (u64, u64) {
        let mut read: Vec<usize> = self.insts.iter().filter_map(Inst::read_slot).collect();
        read.sort_unstable();
        read.dedup();
        let bytes = |s: &Slot, n: usize| (n * s.dtype.itemsize()) as u64;
        let r = read.iter().map(|&s| bytes(&self.slots[s], self.slots[s].len)).sum();
        (r, bytes(&self.slots[0], self.numel()))
    }
}

/// Substitutes expressions for variables, rebuilding with the simplifying constructors.
pub fn subst(e: &Expr, vars: &[Expr]) -> Expr {
    match e {
        Expr::Const(_) | Expr::Bool(_) => e.clone(),
        Expr::Var { id, .. } => vars[*id].clone(),
        Expr::Add(terms) => terms.iter().fold(Expr::Const(0), |acc, t| acc + subst(t, vars)),
        Expr::Mul(a, k) => subst(a, vars) * *k,
        Expr::FloorDiv(a, k) => subst(a, vars).floordiv(*k),
        Expr::Mod(a, k) => subst(a, vars).modulo(*k),
        Expr::Lt(a, k) => subst(a, vars).lt(*k),
        Expr::Ge(a, k) => subst(a, vars).ge(*k),
        Expr::And(terms) => terms.iter().fold(Expr::Bool(true), |acc, t| acc.and(subst(t, vars))),
    }
}

/// Row-major coordinates of a flat index in `shape`.
pub fn unravel(flat: &Expr, shape: &[usize]) -> Vec<Expr> {
    let mut out = vec![Expr::Const(0); shape.len()];
    let mut stride = 1i64;
    for d in (0..shape.len()).rev() {
        let n = shape[d] as i64;
        if n > 1 {
            out[d] = flat.clone().floordiv(stride).modulo(n);
        }
        stride *= n.max(1);
    }
    out
}

/// Row-major flat index of coordinates in `shape`.
pub fn ravel(coords: &[Expr], shape: &[usize]) -> Expr {
    let mut acc = Expr::Const(0);
    let mut stride = 1i64;
    for d in (0..shape.len()).rev() {
        acc = acc + coords[d].clone() * stride;
        stride *= shape[d] as i64;
    }
    acc
}

/// Whether a movement tracker maps each output element to a distinct source element
/// (a reshape or permute), so reading a reduce through it never repeats the reduce.
pub fn is_bijective(st: &ShapeTracker, src_numel: usize) -> bool {
    st.numel() == src_numel
        && st.views().iter().all(|v| v.mask().is_none())
        && st.views().last().is_some_and(|v| v.shape().iter().zip(v.strides()).all(|(&n, &s)| n <= 1 || s != 0))
}

/// The nodes a kernel reads from buffers instead of computing: those realized into storages
/// by earlier events (shared, never copied, so scheduling a long run stays linear), the
/// temporaries scheduled for the current root, and, for a store, none of the realized
/// elementwise values over the storage it writes (PyTorch reads that storage as the write
/// changes it, so they are recomputed inside the store).
pub struct Sources<'a> {
    realized: &'a HashMap<UOpId, BufRef>,
    temps: HashMap<UOpId, BufRef>,
    /// A store's graph and storage: realized elementwise values over it are hidden.
    live: Option<(&'a Graph, StorageId)>,
}

impl<'a> Sources<'a> {
    /// Everything `realized` holds.
    pub fn new(realized: &'a HashMap<UOpId, BufRef>) -> Sources<'a> {
        Sources { realized, temps: HashMap::new(), live: None }
    }

    /// What `realized` holds, less the elementwise values that read `storage`.
    pub fn for_store(realized: &'a HashMap<UOpId, BufRef>, graph: &'a Graph, storage: StorageId) -> Sources<'a> {
        Sources { realized, temps: HashMap::new(), live: Some((graph, storage)) }
    }

    pub fn get(&self, id: &UOpId) -> Option<&BufRef> {
        if let Some(b) = self.temps.get(id) {
            return Some(b);
        }
        let b = self.realized.get(id)?;
        match self.live {
            Some((g, s)) if g.node(*id).op.is_elementwise() && g.buffers_read(*id).contains(&s) => None,
            _ => Some(b),
        }
    }

    pub fn contains_key(&self, id: &UOpId) -> bool {
        self.get(id).is_some()
    }

    /// A temporary now holds `id`'s value.
    pub fn insert(&mut self, id: UOpId, buf: BufRef) {
        self.temps.insert(id, buf);
    }
}

/// Folds the movement chain above `id`, stopping at a realized node or a non-movement op.
pub fn fold_to_source(graph: &Graph, id: UOpId, sources: &Sources<'_>) -> Result<(UOpId, ShapeTracker)> {
    crate::uop::interp::fold_movement_until(graph, id, |n| sources.contains_key(&n))
}

/// The buffer a node reads from, if it is a leaf of the kernel.
pub fn source_of(graph: &Graph, id: UOpId, sources: &Sources<'_>) -> Option<BufRef> {
    match (sources.get(&id), &graph.node(id).op) {
        (Some(b), _) => Some(*b),
        (None, Op::Buffer(s)) => Some(BufRef::Storage(*s)),
        _ => None,
    }
}

/// Where a lowered kernel writes.
#[derive(Clone, Debug)]
pub enum WriteTarget {
    /// Row-major into a fresh buffer of the root's shape.
    Dense(BufRef),
    /// Through `view` into the storage `buf` (the engine's `Store`).
    View(BufRef, ShapeTracker),
}

/// Lowers the subgraph under `root` (leaves: buffers and `sources`) into a kernel.
pub fn lower(
    graph: &Graph,
    root: UOpId,
    target: &WriteTarget,
    sources: &Sources<'_>,
    describe: &dyn Fn(BufRef) -> (DType, usize),
    reason: String,
) -> Result<Kernel> {
    let node = graph.node(root);
    let dims = node.shape.clone();
    let coords: Vec<Expr> = dims.iter().enumerate().map(|(d, &n)| Expr::var(d, n)).collect();
    let out_buf = match target {
        WriteTarget::Dense(b) | WriteTarget::View(b, _) => *b,
    };
    let (out_dtype, out_len) = describe(out_buf);
    let (index, valid) = match target {
        WriteTarget::Dense(_) => (ravel(&coords, &dims), Expr::Bool(true)),
        WriteTarget::View(_, st) => st.index(),
    };
    let mut lw = Lowering {
        graph,
        sources,
        describe,
        insts: Vec::new(),
        slots: vec![Slot { buf: out_buf, dtype: out_dtype, len: out_len }],
        memo: HashMap::new(),
        next_var: dims.len(),
        reduced: false,
        tile: None,
    };
    let value = lw.value(root, &coords, &Expr::Bool(true))?;
    let vdtype = lw.dtype_of(value);
    let value = if vdtype != out_dtype { lw.push(Inst::Cast { a: value, from: vdtype, to: out_dtype }) } else { value };
    lw.insts.push(Inst::Store { index, valid, value, dtype: out_dtype });
    let kind = match (target, lw.reduced, lw.tile.is_some()) {
        (WriteTarget::View(..), _, _) => KernelKind::Store,
        (_, _, true) => KernelKind::Matmul,
        (_, true, _) => KernelKind::Reduce,
        _ => KernelKind::Elementwise,
    };
    let prefix = match kind {
        KernelKind::Elementwise => "E",
        KernelKind::Reduce => "r",
        KernelKind::Matmul => "mm",
        KernelKind::Store => "S",
    };
    let mut name = prefix.to_string();
    for d in dims.iter().chain(lw.reduce_extents().iter()) {
        name.push_str(&format!("_{d}"));
    }
    let kernel = Kernel {
        name,
        kind,
        dims,
        slots: lw.slots,
        insts: lw.insts,
        tile: lw.tile,
        serial: false,
        order: Vec::new(),
        reason,
    };
    check_i32(&kernel)?;
    Ok(kernel)
}

/// WGSL computes indices in i32: refuse a kernel whose index arithmetic could overflow.
pub fn check_i32(k: &Kernel) -> Result<()> {
    fn walk(e: &Expr) -> bool {
        let (lo, hi) = e.bounds();
        let ok = lo >= i64::from(i32::MIN) && hi <= i64::from(i32::MAX);
        ok && match e {
            Expr::Add(t) | Expr::And(t) => t.iter().all(walk),
            Expr::Mul(a, _) | Expr::FloorDiv(a, _) | Expr::Mod(a, _) | Expr::Lt(a, _) | Expr::Ge(a, _) => walk(a),
            _ => true,
        }
    }
    for i in &k.insts {
        let exprs: Vec<&Expr> = match i {
            Inst::Load { index, valid, .. } | Inst::Store { index, valid, .. } => {
                vec![index, valid]
            }
            Inst::Index { expr, .. } => vec![expr],
            Inst::Gather { base, valid, stride, extent, .. } => {
                let (lo, hi) = base.bounds();
                let reach = (*extent as i64 - 1).max(0).saturating_mul(stride.abs());
                if lo.saturating_sub(reach) < i64::from(i32::MIN) || hi.saturating_add(reach) > i64::from(i32::MAX) {
                    bail!(
                        Limit,
                        "kernel {}: a gather's index exceeds the 32-bit range WGSL computes indices in",
                        k.name
                    );
                }
                vec![base, valid]
            }
            _ => continue,
        };
        if !exprs.into_iter().all(walk) {
            bail!(Limit, "kernel {}: an index expression exceeds the 32-bit range WGSL computes indices in", k.name);
        }
    }
    if k.numel() > i32::MAX as usize || k.slots.iter().any(|s| s.len > i32::MAX as usize) {
        bail!(Limit, "kernel {}: more elements than 32-bit indices can address", k.name);
    }
    Ok(())
}

type MemoKey = (UOpId, Vec<Expr>, Expr);

struct Lowering<'a> {
    graph: &'a Graph,
    sources: &'a Sources<'a>,
    describe: &'a dyn Fn(BufRef) -> (DType, usize),
    insts: Vec<Inst>,
    slots: Vec<Slot>,
    memo: HashMap<MemoKey, usize>,
    next_var: usize,
    reduced: bool,
    tile: Option<Tile>,
}

impl Lowering<'_> {
    fn push(&mut self, i: Inst) -> usize {
        self.insts.push(i);
        self.insts.len() - 1
    }

    fn dtype_of(&self, v: usize) -> DType {
        // Every value-producing instruction has a dtype; operands only ever name those.
        self.insts[v].dtype().unwrap_or(DType::Float32)
    }

    fn reduce_extents(&self) -> Vec<usize> {
        self.insts
            .iter()
            .find_map(|i| match i {
                Inst::BeginReduce { vars } => Some(vars.iter().map(|v| v.1).collect()),
                _ => None,
            })
            .unwrap_or_default()
    }

    fn slot(&mut self, buf: BufRef) -> usize {
        if let Some(i) = self.slots.iter().position(|s| s.buf == buf) {
            return i;
        }
        let (dtype, len) = (self.describe)(buf);
        self.slots.push(Slot { buf, dtype, len });
        self.slots.len() - 1
    }

    fn load(&mut self, buf: BufRef, index: Expr, valid: Expr, dtype: DType) -> usize {
        let slot = self.slot(buf);
        if valid == Expr::Bool(false) {
            return self.push(Inst::Const { value: 0.0, dtype });
        }
        self.push(Inst::Load { slot, index, valid, dtype })
    }

    /// The value of `id` at `coords` (one expression per dim of its shape); `gate` is where
    /// the caller will use it (loads outside it are not performed).
    fn value(&mut self, id: UOpId, coords: &[Expr], gate: &Expr) -> Result<usize> {
        let key = (id, coords.to_vec(), gate.clone());
        if let Some(&v) = self.memo.get(&key) {
            return Ok(v);
        }
        let node = self.graph.node(id);
        let dtype = node.dtype;
        let v = if let Some(buf) = source_of(self.graph, id, self.sources) {
            let index = ravel(coords, &node.shape);
            self.load(buf, index, gate.clone(), dtype)
        } else {
            match &node.op {
                op if op.is_movement() => {
                    let (base, st) = fold_to_source(self.graph, id, self.sources)?;
                    let (idx, valid) = st.index();
                    let idx = subst(&idx, coords);
                    let valid = subst(&valid, coords);
                    let inner = gate.clone().and(valid.clone());
                    let bshape = self.graph.node(base).shape.clone();
                    if let Some(buf) = source_of(self.graph, base, self.sources) {
                        self.load(buf, idx, inner, dtype)
                    } else if inner == Expr::Bool(false) {
                        self.push(Inst::Const { value: 0.0, dtype })
                    } else {
                        let val = self.value(base, &unravel(&idx, &bshape), &inner)?;
                        if valid == Expr::Bool(true) {
                            val
                        } else {
                            let c = self.push(Inst::Index { expr: valid, dtype: DType::Bool });
                            let z = self.push(Inst::Const { value: 0.0, dtype });
                            self.push(Inst::Where { c, x: val, y: z, dtype })
                        }
                    }
                }
                Op::Const(c) => self.push(Inst::Const {
                    value: crate::uop::buffer::Data::full(dtype, 1, c.as_f64()).get_f64(0),
                    dtype,
                }),
                Op::Unary(u) => {
                    let a = self.value(node.src[0], coords, gate)?;
                    self.push(Inst::Unary { op: *u, a, dtype })
                }
                Op::Binary(b) => {
                    let a = self.value(node.src[0], coords, gate)?;
                    let c = self.value(node.src[1], coords, gate)?;
                    let odt = self.graph.node(node.src[0]).dtype;
                    self.push(Inst::Binary { op: *b, a, b: c, dtype: odt })
                }
                Op::Where => {
                    let c = self.value(node.src[0], coords, gate)?;
                    let x = self.value(node.src[1], coords, gate)?;
                    let y = self.value(node.src[2], coords, gate)?;
                    self.push(Inst::Where { c, x, y, dtype })
                }
                Op::Cast(to) => {
                    let a = self.value(node.src[0], coords, gate)?;
                    let from = self.graph.node(node.src[0]).dtype;
                    self.push(Inst::Cast { a, from, to: *to })
                }
                Op::Contiguous => self.value(node.src[0], coords, gate)?,
                Op::Bitcast(d) => {
                    bail!(
                        Unsupported,
                        "a dtype view (the storage read as {d}) has no kernel yet; the interpreter computes it"
                    )
                }
                Op::Reduce(op, axes) => self.reduce(*op, axes, node.src[0], coords, gate, dtype)?,
                Op::Gather(axis) => self.gather(*axis, node.src[0], node.src[1], coords, gate, dtype)?,
                Op::Buffer(_) | Op::Store(_) => {
                    unreachable!("buffers are sources and stores are roots")
                }
                other => unreachable!("{} is handled above", other.name()),
            }
        };
        self.memo.insert(key, v);
        Ok(v)
    }

    /// `src` read at the position `pos` holds, along `axis`. The scheduler leaves `src` a
    /// source read through one view that does not mask the axis (see [`gather_source`]).
    fn gather(
        &mut self,
        axis: usize,
        src: UOpId,
        pos: UOpId,
        coords: &[Expr],
        gate: &Expr,
        dtype: DType,
    ) -> Result<usize> {
        let at = self.value(pos, coords, gate)?;
        let pdtype = self.dtype_of(at);
        let at =
            if pdtype == DType::Int32 { at } else { self.push(Inst::Cast { a: at, from: pdtype, to: DType::Int32 }) };
        let Some((buf, st, stride)) = gather_source(self.graph, src, axis, self.sources)? else {
            bail!(
                Unsupported,
                "internal: the scheduler left a gather whose source is not a buffer read through one view"
            );
        };
        let mut at_zero = coords.to_vec();
        at_zero[axis] = Expr::Const(0);
        let (index, valid) = st.index();
        let (base, valid) = (subst(&index, &at_zero), gate.clone().and(subst(&valid, &at_zero)));
        let extent = self.graph.node(src).shape[axis];
        let slot = self.slot(buf);
        if valid == Expr::Bool(false) {
            return Ok(self.push(Inst::Const { value: 0.0, dtype }));
        }
        Ok(self.push(Inst::Gather { slot, base, stride, at, extent, valid, dtype }))
    }

    fn reduce(
        &mut self,
        op: ReduceOp,
        axes: &[usize],
        src: UOpId,
        coords: &[Expr],
        gate: &Expr,
        dtype: DType,
    ) -> Result<usize> {
        if self.reduced {
            bail!(Unsupported, "internal: the scheduler left two reduces in one kernel");
        }
        self.reduced = true;
        let sshape = self.graph.node(src).shape.clone();
        let mut vars = Vec::new();
        let mut inner = coords.to_vec();
        for &a in axes {
            let id = self.next_var;
            self.next_var += 1;
            vars.push((id, sshape[a]));
            inner[a] = Expr::var(id, sshape[a]);
        }
        self.push(Inst::BeginReduce { vars: vars.clone() });
        let saved = self.memo.clone();
        let body_start = self.insts.len();
        let value = self.value(src, &inner, gate)?;
        self.memo = saved;
        let out = self.push(Inst::EndReduce { op, value, dtype });
        if op == ReduceOp::Sum && vars.len() == 1 {
            self.tile = self.find_tile(body_start, value, vars[0], coords);
        }
        Ok(out)
    }

    /// Recognises `sum_k a(m, k) * b(k, n)` with `m` and `n` two output variables.
    fn find_tile(&self, body_start: usize, value: usize, k: (usize, usize), coords: &[Expr]) -> Option<Tile> {
        let Inst::Binary { op: BinaryOp::Mul, a, b, .. } = self.insts[value] else {
            return None;
        };
        // The body may only be the two operand subgraphs and the product.
        let uses = |root: usize| -> Option<Vec<usize>> {
            let mut seen = vec![root];
            let mut stack = vec![root];
            while let Some(v) = stack.pop() {
                if v < body_start {
                    return None;
                }
                for o in self.insts[v].operands() {
                    if !seen.contains(&o) {
                        seen.push(o);
                        stack.push(o);
                    }
                }
            }
            Some(seen)
        };
        let (ua, ub) = (uses(a)?, uses(b)?);
        // A gather's address depends on a value: the tiled kernel's staging does not do that.
        if ua.iter().chain(&ub).any(|&v| matches!(self.insts[v], Inst::Gather { .. })) {
            return None;
        }
        if ua.iter().any(|x| ub.contains(x)) || ua.len() + ub.len() + 1 != value + 1 - body_start {
            return None;
        }
        let vars_of = |vals: &[usize]| -> Vec<usize> {
            let mut out = Vec::new();
            for &v in vals {
                let exprs: Vec<&Expr> = match &self.insts[v] {
                    Inst::Load { index, valid, .. } => vec![index, valid],
                    Inst::Index { expr, .. } => vec![expr],
                    _ => vec![],
                };
                for e in exprs {
                    collect_vars(e, &mut out);
                }
            }
            out
        };
        let (va, vb) = (vars_of(&ua), vars_of(&ub));
        // The output variables each side uses, besides k.
        let out_vars: Vec<(usize, usize)> = coords
            .iter()
            .filter_map(|c| match c {
                Expr::Var { id, extent } => Some((*id, *extent)),
                _ => None,
            })
            .collect();
        let only_a: Vec<_> = out_vars.iter().filter(|v| va.contains(&v.0) && !vb.contains(&v.0)).collect();
        let only_b: Vec<_> = out_vars.iter().filter(|v| vb.contains(&v.0) && !va.contains(&v.0)).collect();
        let (&&m, &&n) = (only_a.last()?, only_b.last()?);
        if !va.contains(&k.0) || !vb.contains(&k.0) || va.contains(&n.0) || vb.contains(&m.0) {
            return None;
        }
        Some(Tile { m, n, k, a, b })
    }
}

/// How a gather reads `src` (the node it gathers from, along `axis`): its buffer, the view
/// and the view's stride along the axis; `None` when `src` is not a buffer read through one view
/// that leaves the axis unmasked (then the scheduler computes `src` into a buffer first).
pub fn gather_source(
    graph: &Graph,
    src: UOpId,
    axis: usize,
    sources: &Sources<'_>,
) -> Result<Option<(BufRef, ShapeTracker, i64)>> {
    let (base, st) = fold_to_source(graph, src, sources)?;
    let Some(buf) = source_of(graph, base, sources) else { return Ok(None) };
    let [view] = st.views() else { return Ok(None) };
    if view.mask().is_some_and(|m| m[axis] != (0, view.shape()[axis])) {
        return Ok(None);
    }
    let stride = view.strides()[axis];
    Ok(Some((buf, st, stride)))
}

/// Variable ids an expression mentions.
pub fn collect_vars(e: &Expr, out: &mut Vec<usize>) {
    match e {
        Expr::Var { id, .. } => {
            if !out.contains(id) {
                out.push(*id)
            }
        }
        Expr::Add(t) | Expr::And(t) => t.iter().for_each(|x| collect_vars(x, out)),
        Expr::Mul(a, _) | Expr::FloorDiv(a, _) | Expr::Mod(a, _) | Expr::Lt(a, _) | Expr::Ge(a, _) => {
            collect_vars(a, out)
        }
        Expr::Const(_) | Expr::Bool(_) => {}
    }
}
