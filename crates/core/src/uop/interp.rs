//! The reference interpreter: the living definition of every [`Op`].
//!
//! It evaluates a subgraph node by node into dense row-major buffers. Movement chains are never
//! copied one op at a time: they fold into one ShapeTracker over the first non-movement node and
//! become a single gather, the same index expression a generated kernel uses. A reduce never
//! materialises its source: its elementwise tree of views runs fused (see `fused`), so a lazy
//! broadcast product only ever exists as a loop. Every other backend is tested against this
//! module.

use super::alu;
use super::arith::Arith;
use super::buffer::{gather_view, with_data, Data, Elem};
use super::fused::{self, Tree};
use super::gemm;
use super::{BinaryOp, Graph, Op, ReduceOp, StorageId, UOpId};
use crate::error::{bail, Result};
use crate::limits::{checked_numel, StorageBudget, MAX_ELEMENTS};
use crate::shape::tracker::ShapeTracker;
use crate::shape::view::View;
use std::collections::HashMap;
use std::rc::Rc;

/// Storages by id, as the interpreter reads them.
pub trait Storages {
    fn data(&self, id: StorageId) -> &Data;
}

impl Storages for Vec<Data> {
    fn data(&self, id: StorageId) -> &Data {
        &self[id]
    }
}

/// Evaluates `root` to a dense buffer in row-major order of its shape, holding no value of more
/// than [`MAX_ELEMENTS`] elements.
pub fn realize(graph: &Graph, storages: &dyn Storages, root: UOpId) -> Result<Data> {
    realize_within(graph, storages, root, &StorageBudget::DEFAULT)
}

/// [`realize`] holding every value it computes (the result and each intermediate) to `budget`'s
/// bytes per storage ([`StorageBudget::check_held`]): the page's engine computes nothing
/// larger than it may keep.
pub fn realize_within(graph: &Graph, storages: &dyn Storages, root: UOpId, budget: &StorageBudget) -> Result<Data> {
    let mut it = Interp { graph, storages, budget, memo: HashMap::new(), uses: HashMap::new() };
    let out = it.eval(root)?;
    // Drop the memo's references first so the result is moved out, not copied.
    drop(it);
    Ok(match out {
        Val::Borrowed(d) => d.clone(),
        Val::Owned(rc) => Rc::try_unwrap(rc).unwrap_or_else(|rc| (*rc).clone()),
    })
}

/// A node's value: storages are read in place, computed values are shared between users.
#[derive(Clone)]
enum Val<'a> {
    Borrowed(&'a Data),
    Owned(Rc<Data>),
}

impl std::ops::Deref for Val<'_> {
    type Target = Data;
    fn deref(&self) -> &Data {
        match self {
            Val::Borrowed(d) => d,
            Val::Owned(rc) => rc,
        }
    }
}

pub use super::movement::{apply_movement, fold_movement, fold_movement_until};

/// How deep an elementwise tree under a reduce is fused; a deeper node is computed on its own
/// and read as a leaf, so no evaluation recurses as deep as a graph a user built.
const MAX_FUSED_DEPTH: usize = 32;

struct Interp<'a> {
    graph: &'a Graph,
    storages: &'a dyn Storages,
    /// What bounds every value computed, besides [`MAX_ELEMENTS`].
    budget: &'a StorageBudget,
    memo: HashMap<UOpId, Val<'a>>,
    /// For each computed node, how many more times a node evaluated later reads it; at zero
    /// its value leaves the memo, so a chain holds one intermediate at a time (and an
    /// accumulator that nothing else reads is updated in place).
    uses: HashMap<UOpId, usize>,
}

impl<'a> Interp<'a> {
    /// Evaluates `root` and everything it reads, in post order with an explicit stack: the
    /// depth of the graph (a chain of 20,000 ops, a `cat` of 20,000 tensors) never becomes
    /// the depth of the call stack.
    fn eval(&mut self, root: UOpId) -> Result<Val<'a>> {
        if let Some(v) = self.memo.get(&root) {
            return Ok(v.clone());
        }
        let mut order = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![(root, false)];
        while let Some((id, expanded)) = stack.pop() {
            if expanded {
                order.push(id);
                continue;
            }
            if !seen.insert(id) || self.memo.contains_key(&id) {
                continue;
            }
            stack.push((id, true));
            for d in self.deps(id)? {
                *self.uses.entry(d).or_default() += 1;
                if !seen.contains(&d) && !self.memo.contains_key(&d) {
                    stack.push((d, false));
                }
            }
        }
        for id in order {
            if !self.memo.contains_key(&id) {
                let v = self.eval_node(id)?;
                self.memo.insert(id, v);
            }
        }
        match self.memo.get(&root) {
            Some(v) => Ok(v.clone()),
            None => self.eval_node(root),
        }
    }

    /// The value of `id` for one reader: from the memo (evaluated first if missing), and out of
    /// the memo when this was its last reader.
    fn child(&mut self, id: UOpId) -> Result<Val<'a>> {
        let last = match self.uses.get_mut(&id) {
            Some(n) if *n > 1 => {
                *n -= 1;
                false
            }
            Some(_) => {
                self.uses.remove(&id);
                true
            }
            None => false,
        };
        match if last { self.memo.remove(&id) } else { self.memo.get(&id).cloned() } {
            Some(v) => Ok(v),
            None => self.eval(id),
        }
    }

    /// The nodes [`Interp::eval_node`] reads for `id`, each once per read, as it reads them.
    fn deps(&self, id: UOpId) -> Result<Vec<UOpId>> {
        let node = self.graph.node(id);
        Ok(match &node.op {
            Op::Buffer(_) | Op::Const(_) | Op::Store(_) => Vec::new(),
            op if op.is_movement() => vec![fold_movement(self.graph, id)?.0],
            Op::Binary(BinaryOp::Add) => match self.padded_addend(id)? {
                Some((base, _)) => vec![node.src[0], base],
                None => node.src.clone(),
            },
            Op::Reduce(..) => {
                let mut out = Vec::new();
                self.fused_deps(node.src[0], 0, &mut out)?;
                out
            }
            _ => node.src.clone(),
        })
    }

    /// What [`Interp::fused_tree`] evaluates under a reduce.
    fn fused_deps(&self, id: UOpId, depth: usize, out: &mut Vec<UOpId>) -> Result<()> {
        let node = self.graph.node(id);
        match &node.op {
            Op::Unary(_) | Op::Binary(_) | Op::Where | Op::Cast(_) if depth >= MAX_FUSED_DEPTH => out.push(id),
            Op::Unary(_) | Op::Binary(_) | Op::Where | Op::Cast(_) => {
                for &s in &node.src {
                    self.fused_deps(s, depth + 1, out)?;
                }
            }
            Op::Const(_) => {}
            _ => {
                let (base, st) = fold_movement(self.graph, id)?;
                if !matches!((&self.graph.node(base).op, st.views()), (Op::Const(_), [_])) {
                    out.push(base);
                }
            }
        }
        Ok(())
    }

    /// For `a + b` where `b` reads a buffer through one padded view (`cat`'s construction) and
    /// every dtype and shape agrees: `b`'s base and its tracker. Such an add only touches the
    /// padded view's valid box, so a `cat` of n parts costs its output once, not n times.
    fn padded_addend(&self, id: UOpId) -> Result<Option<(UOpId, ShapeTracker)>> {
        let node = self.graph.node(id);
        let (a, b) = (self.graph.node(node.src[0]), self.graph.node(node.src[1]));
        if !b.op.is_movement() || a.dtype != node.dtype || b.dtype != node.dtype || a.shape != node.shape {
            return Ok(None);
        }
        let (base, st) = fold_movement(self.graph, node.src[1])?;
        let padded = matches!(st.views(), [v] if v.mask().is_some());
        Ok((padded && !matches!(self.graph.node(base).op, Op::Const(_))).then_some((base, st)))
    }

    /// `acc + b` over `b`'s valid box only (the rest of `b` reads as zero, which leaves `acc`
    /// as it is), in place when nothing else reads `acc`.
    fn add_padded(&mut self, acc: UOpId, base: UOpId, st: &ShapeTracker) -> Result<Val<'a>> {
        let acc = self.child(acc)?;
        let base = self.child(base)?;
        let mut acc = match acc {
            Val::Owned(rc) => Rc::try_unwrap(rc).unwrap_or_else(|rc| (*rc).clone()),
            Val::Borrowed(d) => d.clone(),
        };
        let [view] = st.views() else { unreachable!("padded_addend checked for one view") };
        let mask: Vec<(usize, usize)> = match view.mask() {
            Some(m) => m.to_vec(),
            None => st.shape().iter().map(|&n| (0, n)).collect(),
        };
        let dims: Vec<usize> = mask.iter().map(|&(b, e)| e.saturating_sub(b)).collect();
        if dims.contains(&0) {
            return Ok(Val::Owned(Rc::new(acc)));
        }
        let values = gather(&base, &st.shrink(&mask)?);
        let strides = crate::strided::row_major_strides(st.shape());
        let offset: i64 = mask.iter().zip(&strides).map(|(&(b, _), &s)| b as i64 * s).sum();
        let at: Vec<i64> = if dims.is_empty() {
            vec![offset]
        } else {
            let (&inner, outer) = dims.split_last().unwrap_or((&1, &[]));
            crate::strided::StridedIndex::new(outer, &strides[..outer.len()], offset)
                .flat_map(|o| (0..inner as i64).map(move |i| o + i))
                .collect()
        };
        let old = acc.gather(&at.iter().map(|&i| Some(i)).collect::<Vec<_>>());
        acc.scatter(&at, &alu::binary(BinaryOp::Add, &old, &values));
        Ok(Val::Owned(Rc::new(acc)))
    }

    /// One node's value; what it reads is in the memo already (see [`Interp::eval`]).
    fn eval_node(&mut self, id: UOpId) -> Result<Val<'a>> {
        let node = self.graph.node(id);
        // Lazy nodes may be far larger than a buffer may be; everything but a storage read or
        // a pass-through is materialised here, so this is where the buffer limit applies.
        let numel = checked_numel(&node.shape);
        if !matches!(node.op, Op::Buffer(_) | Op::Contiguous) {
            match numel {
                Some(n) if n <= MAX_ELEMENTS => {
                    self.budget.check_held(node.op.name(), &node.shape, n, node.dtype.itemsize())?
                }
                _ => bail!(
                    Limit,
                    "computing a {} of shape {:?} would hold more than the limit of {MAX_ELEMENTS} elements",
                    node.op.name(),
                    node.shape
                ),
            }
        }
        let owned = |d: Data| Val::Owned(Rc::new(d));
        let out = match &node.op {
            Op::Buffer(s) => Val::Borrowed(self.storages.data(*s)),
            Op::Const(c) => owned(Data::full_scalar(node.dtype, node.shape.iter().product(), *c)),
            Op::Reshape(_)
            | Op::Permute(_)
            | Op::Expand(_)
            | Op::Pad(_)
            | Op::Shrink(_)
            | Op::Flip(_)
            | Op::View(_) => {
                let (base, st) = fold_movement(self.graph, id)?;
                let src = self.child(base)?;
                if is_identity(&st, src.len()) {
                    src
                } else {
                    owned(gather(&src, &st))
                }
            }
            Op::Unary(u) => {
                let a = self.child(node.src[0])?;
                owned(alu::unary(*u, &a))
            }
            Op::Binary(BinaryOp::Add) if self.padded_addend(id)?.is_some() => {
                let Some((base, st)) = self.padded_addend(id)? else { unreachable!("checked by the guard") };
                self.add_padded(node.src[0], base, &st)?
            }
            Op::Binary(b) => {
                let x = self.child(node.src[0])?;
                let y = self.child(node.src[1])?;
                owned(alu::binary(*b, &x, &y))
            }
            Op::Where => {
                let c = self.child(node.src[0])?;
                let x = self.child(node.src[1])?;
                let y = self.child(node.src[2])?;
                owned(alu::select(&c, &x, &y))
            }
            Op::Cast(d) => owned(self.child(node.src[0])?.cast(*d)),
            Op::Reduce(..) if gemm::find(self.graph, id)?.is_some() => self.matmul(id)?,
            Op::Reduce(r, axes) => {
                let src = node.src[0];
                let mut leaves = Vec::new();
                let tree = self.fused_tree(src, 0, &mut leaves)?;
                let views: Vec<(&Data, View)> = leaves.iter().map(|(d, v)| (&**d, v.clone())).collect();
                owned(fused::reduce(*r, node.dtype, &tree, &views, &self.graph.node(src).shape, axes))
            }
            Op::Gather(axis) => {
                let sshape = &self.graph.node(node.src[0]).shape;
                let (outer, f) = (sshape[..*axis].iter().product(), sshape[*axis]);
                let inner = sshape[axis + 1..].iter().product();
                let x = self.child(node.src[0])?;
                let pos = self.child(node.src[1])?;
                match x.gather_axis(&pos, outer, f, inner) {
                    Some(d) => owned(d),
                    None => {
                        bail!(Shape, "internal: a gather position outside 0..{f} (positions are checked on the host)")
                    }
                }
            }
            Op::Contiguous => self.child(node.src[0])?,
            Op::Bitcast(d) => owned(Data::from_le_bytes(*d, &self.child(node.src[0])?.to_le_bytes())),
            Op::Store(_) => unreachable!("stores are executed by the runner, not evaluated"),
        };
        Ok(out)
    }

    /// A float32 matrix product as SGEMMs (see [`gemm`]); reads the operands [`Interp::deps`]
    /// lists for the reduce.
    fn matmul(&mut self, id: UOpId) -> Result<Val<'a>> {
        let Some(g) = gemm::find(self.graph, id)? else { bail!(Shape, "internal: not a matrix product") };
        let a = self.child(g.a.base)?;
        let b = self.child(g.b.base)?;
        let (Data::F32(a), Data::F32(b)) = (&*a, &*b) else {
            bail!(DType, "internal: a matrix product's operands are not float32")
        };
        Ok(Val::Owned(Rc::new(Data::F32(g.run(a, b)))))
    }

    /// The elementwise tree under a reduce, down to its leaves: each leaf is a computed (or
    /// stored) value read through one view of the reduce source's shape.
    fn fused_tree(&mut self, id: UOpId, depth: usize, leaves: &mut Vec<(Val<'a>, View)>) -> Result<Tree> {
        let node = self.graph.node(id);
        if depth >= MAX_FUSED_DEPTH && matches!(node.op, Op::Unary(_) | Op::Binary(_) | Op::Where | Op::Cast(_)) {
            let data = self.child(id)?;
            leaves.push((data, View::contiguous(&node.shape)));
            return Ok(Tree::Leaf(leaves.len() - 1));
        }
        let mut sub = |i: usize| self.fused_tree(node.src[i], depth + 1, leaves).map(Box::new);
        Ok(match &node.op {
            Op::Unary(u) => Tree::Unary(*u, sub(0)?),
            Op::Binary(b) => Tree::Binary(*b, sub(0)?, sub(1)?),
            Op::Where => Tree::Where(sub(0)?, sub(1)?, sub(2)?),
            Op::Cast(d) => Tree::Cast(*d, sub(0)?),
            Op::Const(c) => {
                let zeros = vec![0i64; node.shape.len()];
                let view = View::new(&node.shape, Some(&zeros), 0, None);
                leaves.push((Val::Owned(Rc::new(Data::full_scalar(node.dtype, 1, *c))), view));
                Tree::Leaf(leaves.len() - 1)
            }
            _ => {
                let (base, st) = fold_movement(self.graph, id)?;
                let base_node = self.graph.node(base);
                match (&base_node.op, st.views()) {
                    // A moved constant is one value behind a mask: never as large as its shape.
                    (Op::Const(c), [v]) => {
                        let zeros = vec![0i64; v.shape().len()];
                        let view = View::new(v.shape(), Some(&zeros), 0, v.mask());
                        leaves.push((Val::Owned(Rc::new(Data::full_scalar(base_node.dtype, 1, *c))), view));
                    }
                    _ => {
                        let data = self.child(base)?;
                        leaves.push(single_view(data, &st)?);
                    }
                }
                Tree::Leaf(leaves.len() - 1)
            }
        })
    }
}

/// `st` over `data` as one view: the lower views are gathered into a dense buffer that the top
/// view indexes (they are what a reshape could not merge, no larger than the data they read).
fn single_view<'a>(data: Val<'a>, st: &ShapeTracker) -> Result<(Val<'a>, View)> {
    let views = st.views();
    let (top, lower) = views.split_last().unwrap_or_else(|| unreachable!("a tracker has at least one view"));
    if lower.is_empty() {
        return Ok((data, top.clone()));
    }
    let below = lower.last().map_or(0, View::numel);
    if within(top, below) {
        if let Some(dense) = gather_views(&data, lower) {
            return Ok((Val::Owned(Rc::new(dense)), top.clone()));
        }
    }
    // Out-of-range lower indices wrap (tinygrad's unravel): read the whole tracker.
    match checked_numel(top.shape()) {
        Some(n) if n <= MAX_ELEMENTS => Ok((Val::Owned(Rc::new(gather(&data, st))), View::contiguous(top.shape()))),
        _ => bail!(Limit, "reading a view of shape {:?} would hold more than {MAX_ELEMENTS} elements", top.shape()),
    }
}

/// Whether every valid position of `v` reads inside a buffer of `len` elements.
fn within(v: &View, len: usize) -> bool {
    let shape = v.shape();
    if shape.contains(&0) {
        return true;
    }
    let bounds: Vec<(usize, usize)> = match v.mask() {
        Some(m) => m.to_vec(),
        None => shape.iter().map(|&s| (0, s)).collect(),
    };
    if bounds.iter().any(|&(b, e)| b >= e) {
        return true;
    }
    let (lo, hi) = bounds.iter().zip(v.strides()).fold((v.offset(), v.offset()), |(lo, hi), (&(b, e), &st)| {
        let (x, y) = (st * b as i64, st * (e as i64 - 1));
        (lo + x.min(y), hi + x.max(y))
    });
    lo >= 0 && hi < len as i64
}

fn is_identity(st: &ShapeTracker, len: usize) -> bool {
    st.is_contiguous() && st.numel() == len
}

/// Reads `src` through a tracker; masked (padded) positions read as zero.
///
/// View by view from the buffer up, each a strided copy of its valid box into a dense buffer the
/// next view indexes. Only when a lower view's valid reads leave the buffer below it (tinygrad
/// then wraps the index) or a lower view is too large to hold does it walk element by element.
pub fn gather(src: &Data, st: &ShapeTracker) -> Data {
    if is_identity(st, src.len()) {
        return src.clone();
    }
    if let Some(dense) = gather_views(src, st.views()) {
        return dense;
    }
    fn walk<T: Copy + Default>(v: &[T], st: &ShapeTracker) -> Vec<T> {
        let mut out = vec![T::default(); st.numel()];
        st.for_each_offset(|k, o| {
            if let Some(o) = o {
                out[k] = v[o as usize];
            }
        });
        out
    }
    with_data!(src, |v: T| T::wrap(walk(v, st)))
}

/// Reads a stack of views (buffer side first) view by view; `None` when a view's valid reads
/// leave the buffer below it or a view below the top is too large to hold.
fn gather_views(src: &Data, views: &[View]) -> Option<Data> {
    let stepwise = views.iter().enumerate().all(|(i, view)| {
        let below = if i == 0 { src.len() } else { views[i - 1].numel() };
        within(view, below) && (i + 1 == views.len() || view.numel() <= MAX_ELEMENTS)
    });
    if !stepwise {
        return None;
    }
    let (first, rest) = views.split_first()?;
    fn typed<T: Copy + Default>(v: &[T], first: &View, rest: &[View]) -> Vec<T> {
        rest.iter().fold(gather_view(v, first), |cur, view| gather_view(&cur, view))
    }
    Some(with_data!(src, |v: T| T::wrap(typed(v, first, rest))))
}

/// Reduces `axes` of a dense buffer of `shape` to size 1.
pub fn reduce(op: ReduceOp, x: &Data, shape: &[usize], axes: &[usize]) -> Result<Data> {
    // Move the reduced axes last so that each output element reduces one contiguous run.
    let keep: Vec<usize> = (0..shape.len()).filter(|a| !axes.contains(a)).collect();
    let order: Vec<usize> = keep.iter().chain(axes.iter()).copied().collect();
    let run: usize = axes.iter().map(|&a| shape[a]).product();
    let outer: usize = keep.iter().map(|&a| shape[a]).product();
    let permuted = if order.iter().enumerate().all(|(i, &a)| i == a) {
        None
    } else {
        Some(gather(x, &ShapeTracker::from_shape(shape).permute(&order)?))
    };
    let x = permuted.as_ref().unwrap_or(x);
    fn typed<T: Arith>(op: ReduceOp, v: &[T], outer: usize, run: usize) -> Data {
        let out: Vec<T> = (0..outer)
            .map(|o| {
                let chunk = &v[o * run..(o + 1) * run];
                match op {
                    // Integers sum exactly in i64, wrapping as PyTorch's int64 accumulator does.
                    ReduceOp::Sum if !T::DTYPE.is_float() => {
                        T::from_i64(chunk.iter().fold(0i64, |a, x| a.wrapping_add(x.to_i64())))
                    }
                    ReduceOp::Sum => T::from_f64(alu::sum(chunk)),
                    ReduceOp::Max => chunk.iter().copied().reduce(T::max).unwrap_or_default(),
                    ReduceOp::Min => chunk.iter().copied().reduce(T::min).unwrap_or_default(),
                    ReduceOp::Prod => chunk.iter().copied().fold(T::from_i64(1), T::mul),
                }
            })
            .collect();
        T::wrap(out)
    }
    Ok(with_data!(x, |v: T| typed::<T>(op, v, outer, run)))
}
