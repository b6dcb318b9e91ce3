//! The scheduler: turns what the engine ran (its realize and store events) into kernels.
//!
//! It follows tinygrad's rules. Elementwise chains fuse into one kernel; a reduce fuses with
//! the elementwise ops before and after it; movement ops never become copies, they are index
//! expressions; a store writes through its view. A node becomes a kernel boundary only for a
//! reason that can be said in one sentence, and that sentence is attached to the kernel:
//! the realize point of a statement, a store, a reduce that another reduce reads or that is
//! broadcast back, a store that would read what it overwrites, the buffer-binding limit, or a
//! chain deeper than [`MAX_FUSED_DEPTH`] computing ops.
//! One more split is made for the hardware: a long reduce to few outputs would run on few GPU
//! threads, so it becomes partial reduces over chunks into a temporary plus a kernel that
//! combines them (see [`split_reduce`]).

use crate::codegen::ir::{self, BufRef, Kernel, Sources, WriteTarget};
use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::shape::tracker::ShapeTracker;
use crate::tensor::{Engine, Event};
use crate::uop::buffer::Data;
use crate::uop::{Graph, Op, StorageId, UOpId};
use std::collections::{BTreeMap, HashMap};

/// Storage buffers a WebGPU stage may bind without asking for more (the spec's default).
pub const DEFAULT_MAX_BUFFERS: usize = 8;

#[derive(Clone, Copy, Debug)]
pub struct ScheduleOptions {
    /// Buffers one kernel may bind, output included.
    pub max_buffers: usize,
}

impl Default for ScheduleOptions {
    fn default() -> Self {
        ScheduleOptions { max_buffers: DEFAULT_MAX_BUFFERS }
    }
}

/// The kernels of a range of events, in run order, plus the temporaries they introduce.
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    pub kernels: Vec<Kernel>,
    /// dtype and length of each `BufRef::Temp`.
    pub temps: Vec<(DType, usize)>,
}

impl Schedule {
    /// Storages the schedule's kernels read or write, sorted.
    pub fn storages(&self) -> Vec<StorageId> {
        sorted_storages(self.kernels.iter().flat_map(|k| k.slots.iter().map(|s| s.buf)))
    }

    /// Storages some kernel writes (its first slot), sorted.
    pub fn written(&self) -> Vec<StorageId> {
        sorted_storages(self.kernels.iter().map(|k| k.slots[0].buf))
    }
}

/// The storages among `bufs` (temporaries left out), sorted and unique.
fn sorted_storages(bufs: impl Iterator<Item = BufRef>) -> Vec<StorageId> {
    let mut out: Vec<StorageId> = bufs
        .filter_map(|b| match b {
            BufRef::Storage(id) => Some(id),
            BufRef::Temp(_) => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Schedules the events `range` of the engine (earlier events only tell which nodes are
/// already in storages).
pub fn schedule_events(engine: &Engine, range: std::ops::Range<usize>, opts: ScheduleOptions) -> Result<Schedule> {
    Scheduler::default().schedule(engine, range, opts)
}

/// Schedules a run's events range after range, keeping which nodes earlier events realized, so
/// that scheduling every statement of a long run (or every node of a model) is linear in the
/// events rather than quadratic.
#[derive(Debug, Default)]
pub struct Scheduler {
    realized: HashMap<UOpId, BufRef>,
    /// Events `..seen` are in `realized`.
    seen: usize,
}

impl Scheduler {
    /// Schedules the events `range`; a range that starts before the last one ended is
    /// scheduled from a fresh start.
    pub fn schedule(
        &mut self,
        engine: &Engine,
        range: std::ops::Range<usize>,
        opts: ScheduleOptions,
    ) -> Result<Schedule> {
        let graph = engine.graph();
        let events = engine.events();
        if range.start < self.seen {
            *self = Scheduler::default();
        }
        for e in &events[self.seen..range.start] {
            if let Event::Realize { node, storage } = e {
                self.realized.insert(*node, BufRef::Storage(*storage));
            }
        }
        self.seen = range.start;
        let realized = &mut self.realized;
        let mut out = Schedule::default();
        for e in &events[range.clone()] {
            let lens = |s: StorageId| {
                let d = &engine.storage(s).data;
                (d.dtype(), d.len())
            };
            match e {
                Event::Realize { node, storage } => {
                    let reason = format!("realize point: the statement's value is materialised into storage {storage}, which later statements read");
                    // Temporaries hold values as of their event; later events recompute.
                    schedule_root(
                        graph,
                        *node,
                        Root::Realize(*storage),
                        &mut Sources::new(realized),
                        &mut out,
                        opts,
                        reason,
                        &lens,
                    )?;
                    realized.insert(*node, BufRef::Storage(*storage));
                }
                // The interpreter's own change: no kernel reproduces it (see `Event::Host`).
                Event::Host { .. } => {}
                Event::Store { node, storage } => {
                    let n = graph.node(*node);
                    let Op::Store(st) = &n.op else {
                        bail!(Unsupported, "internal: a store event names a {} node", n.op.name())
                    };
                    let reason = format!("store/assign: writes through the view into storage {storage}; a write is a kernel of its own so later reads see it");
                    // Elementwise values over the written storage are computed inside the
                    // store even when the engine realized them just before, because PyTorch
                    // reads the storage as the write changes it.
                    schedule_root(
                        graph,
                        n.src[1],
                        Root::Store(*storage, st.clone()),
                        &mut Sources::for_store(realized, graph, *storage),
                        &mut out,
                        opts,
                        reason,
                        &lens,
                    )?;
                }
            }
        }
        self.seen = range.end;
        Ok(out)
    }
}

enum Root {
    Realize(StorageId),
    Store(StorageId, ShapeTracker),
}

/// Nodes of the kernel rooted at `root`: everything reachable without crossing a source.
fn group(graph: &Graph, root: UOpId, sources: &Sources<'_>) -> Vec<UOpId> {
    let mut seen = std::collections::HashSet::from([root]);
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if id != root && ir::source_of(graph, id, sources).is_some() {
            continue;
        }
        for &s in &graph.node(id).src {
            if seen.insert(s) {
                stack.push(s);
            }
        }
    }
    let mut seen: Vec<UOpId> = seen.into_iter().collect();
    seen.sort_unstable();
    seen
}

/// The longest chain of computing (non-movement) nodes one kernel may fuse. A deeper chain is
/// cut into kernels of at most this depth: lowering a kernel walks its chain, and a graph a user
/// built (an ONNX chain of 20,000 nodes) must not set the depth of that walk.
pub const MAX_FUSED_DEPTH: usize = 128;

/// The deepest computing node of the kernel at most [`MAX_FUSED_DEPTH`] below `root`, when the
/// kernel is deeper than that. `nodes` is [`group`]'s answer, in id order (sources first: the
/// graph is append-only, so a node's sources have smaller ids).
fn too_deep(graph: &Graph, root: UOpId, nodes: &[UOpId], inner: &dyn Fn(UOpId) -> bool) -> Option<(UOpId, usize)> {
    let mut depth: HashMap<UOpId, usize> = HashMap::from([(root, 0)]);
    let mut deepest = 0;
    for &id in nodes.iter().rev() {
        let Some(&d) = depth.get(&id) else { continue };
        if id != root && !inner(id) {
            continue;
        }
        let step = usize::from(!graph.node(id).op.is_movement());
        for &s in &graph.node(id).src {
            let e = depth.entry(s).or_default();
            *e = (*e).max(d + step);
            deepest = deepest.max(*e);
        }
    }
    if deepest <= MAX_FUSED_DEPTH {
        return None;
    }
    depth
        .into_iter()
        .filter(|&(id, d)| d <= MAX_FUSED_DEPTH && id != root && inner(id) && !graph.node(id).op.is_movement())
        .max_by_key(|&(id, d)| (d, id))
        .map(|(id, _)| (id, deepest))
}

/// Distinct buffers the kernel under `root` reads.
fn reads(graph: &Graph, root: UOpId, sources: &Sources<'_>) -> Vec<BufRef> {
    let mut out: Vec<BufRef> = group(graph, root, sources)
        .into_iter()
        .filter(|&id| id != root)
        .filter_map(|id| ir::source_of(graph, id, sources))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The first node of the kernel that must become its own kernel, and why.
fn boundary(
    graph: &Graph,
    root: UOpId,
    sources: &Sources<'_>,
    out_buf: Option<BufRef>,
    opts: ScheduleOptions,
) -> Result<Option<(UOpId, String)>> {
    let nodes = group(graph, root, sources);
    let inner = |id: UOpId| id != root && ir::source_of(graph, id, sources).is_none();
    if let Some((id, deepest)) = too_deep(graph, root, &nodes, &inner) {
        return Ok(Some((id, format!("depth limit: the fused chain is {deepest} ops deep (at most {MAX_FUSED_DEPTH} per kernel), so this part is computed into its own buffer first"))));
    }
    // Reduces read through a broadcasting view would be recomputed per broadcast element.
    for &id in &nodes {
        let n = graph.node(id);
        if !n.op.is_movement() || !inner(id) {
            continue;
        }
        let (base, st) = ir::fold_to_source(graph, id, sources)?;
        let bnode = graph.node(base);
        if matches!(bnode.op, Op::Reduce(..)) && inner(base) && !ir::is_bijective(&st, bnode.shape.iter().product()) {
            return Ok(Some((base, format!("reduce boundary: the reduced value (shape {:?}) is broadcast back to shape {:?}, so it is reduced once into its own buffer instead of once per element", bnode.shape, n.shape))));
        }
        // The same through elementwise ops: a reduce under a slice or broadcast of a computed
        // value would be reduced once per view of it (two slices of one sum: two loops).
        if inner(base) && !ir::is_bijective(&st, bnode.shape.iter().product()) {
            let under = group(graph, base, sources);
            if let Some(&r) =
                under.iter().find(|&&r| r != base && matches!(graph.node(r).op, Op::Reduce(..)) && inner(r))
            {
                return Ok(Some((r, format!("reduce boundary: the reduced value (shape {:?}) is read through a view of shape {:?} that is not one-to-one, so it is reduced once into its own buffer", graph.node(r).shape, n.shape))));
            }
        }
    }
    // A gather reads its source at data-dependent positions: the source must be in a buffer.
    for &id in &nodes {
        if let Op::Gather(axis) = graph.node(id).op {
            let src = graph.node(id).src[0];
            if (inner(id) || id == root) && ir::gather_source(graph, src, axis, sources)?.is_none() {
                return Ok(Some((src, format!("gather boundary: the gathered value (shape {:?}) is read at positions an index holds, so it is computed into its own buffer first", graph.node(src).shape))));
            }
        }
    }
    let reduces: Vec<UOpId> = nodes
        .iter()
        .copied()
        .filter(|&id| matches!(graph.node(id).op, Op::Reduce(..)) && (inner(id) || id == root))
        .collect();
    if reduces.len() > 1 {
        // Prefer the innermost: a reduce whose own input holds another reduce keeps its loop.
        let first = reduces[0];
        let feeds = reduces[1..].iter().any(|&r| group(graph, r, sources).contains(&first));
        let why = if feeds {
            "reduce boundary: this reduce feeds another reduce, and a kernel runs one reduce loop"
        } else {
            "reduce boundary: the kernel already reduces other values, and a kernel runs one reduce loop"
        };
        return Ok(Some((first, why.to_string())));
    }
    let mut bufs = reads(graph, root, sources);
    if let Some(o) = out_buf {
        if !bufs.contains(&o) {
            bufs.push(o);
        }
    }
    if bufs.len() > opts.max_buffers {
        let mut best: Option<(usize, UOpId)> = None;
        for &id in &nodes {
            if !inner(id) || graph.node(id).op.is_movement() {
                continue;
            }
            let r = reads(graph, id, sources).len();
            if r >= 2 && r < opts.max_buffers && best.is_none_or(|(b, _)| r > b) {
                best = Some((r, id));
            }
        }
        let Some((_, id)) = best else {
            bail!(
                Limit,
                "a kernel would bind {} storage buffers but only {} are allowed, and no part of it can be split off",
                bufs.len(),
                opts.max_buffers
            );
        };
        return Ok(Some((id, format!("buffer-binding limit: the fused kernel would bind {} storage buffers (at most {} per stage), so this part is computed into its own buffer first", bufs.len(), opts.max_buffers))));
    }
    Ok(None)
}

#[allow(clippy::too_many_arguments)]
fn schedule_root(
    graph: &Graph,
    root: UOpId,
    kind: Root,
    realized: &mut Sources<'_>,
    out: &mut Schedule,
    opts: ScheduleOptions,
    reason: String,
    lens: &dyn Fn(StorageId) -> (DType, usize),
) -> Result<()> {
    let out_buf = match &kind {
        Root::Realize(s) | Root::Store(s, _) => BufRef::Storage(*s),
    };
    // A temp's kernel is scheduled before the kernels that read it: split until stable.
    let value_root = root;
    loop {
        let split = if realized.contains_key(&value_root) {
            None
        } else {
            boundary(graph, value_root, realized, Some(out_buf), opts)?
        };
        if let Some((id, why)) = split {
            schedule_temp(graph, id, realized, out, opts, why, lens)?;
            continue;
        }
        let temps = out.temps.clone();
        let describe = |b: BufRef| match b {
            BufRef::Storage(s) => lens(s),
            BufRef::Temp(t) => temps[t],
        };
        let target = match &kind {
            Root::Realize(s) => WriteTarget::Dense(BufRef::Storage(*s)),
            Root::Store(s, st) => WriteTarget::View(BufRef::Storage(*s), st.clone()),
        };
        let mut kernel = ir::lower(graph, value_root, &target, realized, &describe, reason.clone())?;
        if let (WriteTarget::View(_, st), Root::Store(sid, _)) = (&target, &kind) {
            let repeats = !injective(st);
            if repeats || hazard(&kernel, st) {
                // PyTorch computes such a write element by element from live memory; only
                // computations over the written storage (a reduce, a copy) were taken before.
                let written = BufRef::Storage(*sid);
                let snapshot = group(graph, value_root, realized).into_iter().find(|&id| {
                    let n = graph.node(id);
                    let computed = matches!(n.op, Op::Reduce(..) | Op::Contiguous)
                        || (n.op.is_movement()
                            && ir::fold_to_source(graph, id, realized)
                                .is_ok_and(|(b, _)| ir::source_of(graph, b, realized).is_none()));
                    id != value_root
                        && ir::source_of(graph, id, realized).is_none()
                        && computed
                        && reads(graph, id, realized).contains(&written)
                });
                if let Some(id) = snapshot {
                    let why = "store hazard: this computation reads the storage being written, so it is taken as it was before the write".to_string();
                    schedule_temp(graph, id, realized, out, opts, why, lens)?;
                    continue;
                }
                kernel.serial = true;
                kernel.order = iteration_order(st);
                kernel.reason = format!("{reason}; it runs element by element in PyTorch's iteration order because the value reads elements the write changes or the view repeats elements");
            }
        }
        let kernels = split_reduce(kernel, &mut out.temps, opts.max_buffers);
        out.kernels.extend(kernels);
        return Ok(());
    }
}

/// A store kernel that reads its own output anywhere but the element it writes (or at all,
/// when the view writes some element twice).
fn hazard(k: &Kernel, st: &ShapeTracker) -> bool {
    let (index, _) = st.index();
    k.insts.iter().any(|i| match i {
        ir::Inst::Load { slot: 0, index: li, .. } => *li != index || k.serial,
        ir::Inst::Gather { slot: 0, .. } => true,
        _ => false,
    })
}

/// TensorIterator's order over a store's view, innermost dim first.
fn iteration_order(st: &ShapeTracker) -> Vec<usize> {
    match st.views() {
        [v] => {
            let layout = crate::torch::layout::Layout::new(v.shape(), v.strides(), v.offset());
            crate::torch::layout::Layout::iteration_perm(v.shape(), &[&layout])
        }
        _ => Vec::new(),
    }
}

/// Whether a view writes each storage element at most once.
fn injective(st: &ShapeTracker) -> bool {
    if let [v] = st.views() {
        if v.mask().is_none() {
            // Sufficient: dims nest, each stride spanning all the dims inside it.
            let mut dims: Vec<(i64, usize)> =
                v.strides().iter().zip(v.shape()).filter(|&(_, &n)| n > 1).map(|(&s, &n)| (s.abs(), n)).collect();
            dims.sort_unstable();
            let mut span = 1i64;
            let nested = dims.iter().all(|&(s, n)| {
                let ok = s >= span;
                span = s * n as i64;
                ok
            });
            if nested {
                return true;
            }
        }
    }
    let mut seen: Vec<i64> = st.offsets().into_iter().flatten().collect();
    let n = seen.len();
    seen.sort_unstable();
    seen.dedup();
    seen.len() == n
}

#[allow(clippy::too_many_arguments)]
fn schedule_temp(
    graph: &Graph,
    id: UOpId,
    realized: &mut Sources<'_>,
    out: &mut Schedule,
    opts: ScheduleOptions,
    why: String,
    lens: &dyn Fn(StorageId) -> (DType, usize),
) -> Result<()> {
    let n = graph.node(id);
    let t = out.temps.len();
    out.temps.push((n.dtype, n.shape.iter().product()));
    let mut sub = Schedule { kernels: Vec::new(), temps: out.temps.clone() };
    // The temp's own input may need splitting too; it is a Realize into a temp.
    loop {
        let split = boundary(graph, id, realized, Some(BufRef::Temp(t)), opts)?;
        match split {
            Some((inner, w)) => schedule_temp(graph, inner, realized, &mut sub, opts, w, lens)?,
            None => break,
        }
    }
    let temps = sub.temps.clone();
    let describe = |b: BufRef| match b {
        BufRef::Storage(s) => lens(s),
        BufRef::Temp(t) => temps[t],
    };
    let k = ir::lower(graph, id, &WriteTarget::Dense(BufRef::Temp(t)), realized, &describe, why)?;
    let kernels = split_reduce(k, &mut sub.temps, opts.max_buffers);
    sub.kernels.extend(kernels);
    out.kernels.extend(sub.kernels);
    out.temps = sub.temps;
    realized.insert(id, BufRef::Temp(t));
    Ok(())
}

/// Reduces at least this long are split when they have few outputs.
pub const SPLIT_MIN_REDUCE: usize = 1 << 16;
/// Outputs below which a long reduce is split: fewer would leave most GPU threads idle.
pub const SPLIT_MAX_OUTPUTS: usize = 256;

/// Splits a long reduce to few outputs in two: `partial` reduces chunks of `c` consecutive
/// (row-major) reduce steps into a temporary with one extra, innermost output dim of `g`
/// chunks, and the original kernel, with its reduce loop now over those `g` partials, combines
/// them and does everything after the reduce. Both are ordinary IR kernels, so every backend
/// runs them as they are. Steps past the end of the last chunk yield the reduce's identity.
/// The combining kernel binds one buffer more, so a kernel already at `max_buffers` stays whole.
pub fn split_reduce(k: Kernel, temps: &mut Vec<(DType, usize)>, max_buffers: usize) -> Vec<Kernel> {
    use crate::shape::symbolic::Expr;
    use ir::Inst;
    let (Some(b), Some(e)) = (
        k.insts.iter().position(|i| matches!(i, Inst::BeginReduce { .. })),
        k.insts.iter().position(|i| matches!(i, Inst::EndReduce { .. })),
    ) else {
        return vec![k];
    };
    let r = k.reduce_len();
    if k.kind != ir::KernelKind::Reduce
        || k.serial
        || r < SPLIT_MIN_REDUCE
        || k.numel() >= SPLIT_MAX_OUTPUTS
        || k.slots.len() >= max_buffers
    {
        return vec![k];
    }
    let (Inst::BeginReduce { vars }, Inst::EndReduce { op, value, dtype }) = (&k.insts[b], &k.insts[e]) else {
        return vec![k];
    };
    let (op, value, dtype) = (*op, *value, *dtype);
    // Chunks of a power of two near sqrt(r): both stages then loop about as long.
    let c = (r as f64).sqrt().ceil() as usize;
    let c = c.next_power_of_two();
    let g = r.div_ceil(c);
    let nd = k.dims.len();
    // Partial kernel variables: outputs 0..nd, the chunk nd, the step in the chunk nd + 1.
    let (chunk, step) = (Expr::var(nd, g), Expr::var(nd + 1, c));
    let flat = chunk.clone() * c as i64 + step;
    let extents: Vec<usize> = vars.iter().map(|v| v.1).collect();
    let mut map: Vec<Expr> = k.dims.iter().enumerate().map(|(d, &n)| Expr::var(d, n)).collect();
    let max_id = vars.iter().map(|v| v.0).max().unwrap_or(nd);
    map.resize(max_id + 1, Expr::Const(0));
    for ((id, _), x) in vars.iter().zip(ir::unravel(&flat, &extents)) {
        map[*id] = x;
    }
    let mut insts: Vec<Inst> = k.insts[..b].to_vec();
    insts.push(Inst::BeginReduce { vars: vec![(nd + 1, c)] });
    for i in &k.insts[b + 1..e] {
        insts.push(match i {
            Inst::Load { slot, index, valid, dtype } => {
                Inst::Load { slot: *slot, index: ir::subst(index, &map), valid: ir::subst(valid, &map), dtype: *dtype }
            }
            Inst::Index { expr, dtype } => Inst::Index { expr: ir::subst(expr, &map), dtype: *dtype },
            Inst::Gather { slot, base, stride, at, extent, valid, dtype } => Inst::Gather {
                slot: *slot,
                base: ir::subst(base, &map),
                stride: *stride,
                at: *at,
                extent: *extent,
                valid: ir::subst(valid, &map),
                dtype: *dtype,
            },
            other => other.clone(),
        });
    }
    let mut last = value;
    if g * c != r {
        let cond = insts.len();
        insts.push(Inst::Index { expr: flat.lt(r as i64), dtype: DType::Bool });
        let identity = Data::full(dtype, 1, op.identity()).get_f64(0);
        insts.push(Inst::Const { value: identity, dtype });
        insts.push(Inst::Where { c: cond, x: value, y: cond + 1, dtype });
        last = cond + 2;
    }
    let acc = insts.len();
    insts.push(Inst::EndReduce { op, value: last, dtype });
    let mut pdims = k.dims.clone();
    pdims.push(g);
    let coords: Vec<Expr> = pdims.iter().enumerate().map(|(d, &n)| Expr::var(d, n)).collect();
    insts.push(Inst::Store { index: ir::ravel(&coords, &pdims), valid: Expr::Bool(true), value: acc, dtype });
    let t = temps.len();
    temps.push((dtype, k.numel() * g));
    let temp = ir::Slot { buf: BufRef::Temp(t), dtype, len: k.numel() * g };
    let mut name = String::from("r");
    for d in &pdims {
        name.push_str(&format!("_{d}"));
    }
    name.push_str(&format!("_{c}"));
    let partial = Kernel {
        name,
        kind: ir::KernelKind::Reduce,
        dims: pdims.clone(),
        slots: std::iter::once(temp.clone()).chain(k.slots[1..].iter().cloned()).collect(),
        insts,
        tile: None,
        serial: false,
        order: Vec::new(),
        reason: format!(
            "two-stage reduce: {r} reduce steps into {outs} output(s) would keep only {outs} GPU thread(s) busy, so {g} partial reduces of {c} steps run in parallel into their own buffer and the next kernel combines them",
            outs = k.numel()
        ),
    };
    // The combining kernel: the same instructions, its loop now reading the partials.
    let slot = k.slots.len();
    let mut insts: Vec<Inst> = k.insts[..b].to_vec();
    insts.push(Inst::BeginReduce { vars: vec![(nd, g)] });
    insts.push(Inst::Load { slot, index: ir::ravel(&coords, &pdims), valid: Expr::Bool(true), dtype });
    insts.push(Inst::EndReduce { op, value: b + 1, dtype });
    let shift = |x: usize| if x >= e { x + b + 2 - e } else { x };
    for i in &k.insts[e + 1..] {
        let mut i = i.clone();
        match &mut i {
            Inst::Unary { a, .. } | Inst::Cast { a, .. } | Inst::Gather { at: a, .. } => *a = shift(*a),
            Inst::Binary { a, b, .. } => (*a, *b) = (shift(*a), shift(*b)),
            Inst::Where { c, x, y, .. } => (*c, *x, *y) = (shift(*c), shift(*x), shift(*y)),
            Inst::Store { value, .. } => *value = shift(*value),
            _ => {}
        }
        insts.push(i);
    }
    let mut slots = k.slots.clone();
    slots.push(temp);
    let mut name = String::from("r");
    for d in k.dims.iter().chain([&g]) {
        name.push_str(&format!("_{d}"));
    }
    let combine = Kernel { name, insts, slots, ..k };
    vec![partial, combine]
}

/// One statement's kernels with the storages they start from, so any backend can run them
/// and be checked against what the interpreter left.
#[derive(Clone, Debug)]
pub struct StepKernels {
    pub line: usize,
    pub source: String,
    pub schedule: Schedule,
    /// The storages the statement's kernels read or write, as they see them before they run.
    pub inputs: BTreeMap<StorageId, Data>,
    /// What the interpreter left in each storage the schedule writes.
    pub expected: BTreeMap<StorageId, Data>,
    /// Why the statement has no kernels although it computed something, when that is so.
    pub note: Option<String>,
}
