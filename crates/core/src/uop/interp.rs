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
use super::{Graph, Op, ReduceOp, StorageId, UOpId};
use crate::error::{bail, Result};
use crate::limits::{checked_numel, MAX_ELEMENTS};
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

/// Evaluates `root` to a dense buffer in row-major order of its shape.
pub fn realize(graph: &Graph, storages: &dyn Storages, root: UOpId) -> Result<Data> {
    let mut it = Interp { graph, storages, memo: HashMap::new() };
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

/// Folds the movement chain ending at `id` into (first non-movement node, tracker over its output).
pub fn fold_movement(graph: &Graph, id: UOpId) -> Result<(UOpId, ShapeTracker)> {
    fold_movement_until(graph, id, |_| false)
}

/// [`fold_movement`], also stopping at any node `stop` accepts (a kernel's realized inputs).
pub fn fold_movement_until(graph: &Graph, id: UOpId, stop: impl Fn(UOpId) -> bool) -> Result<(UOpId, ShapeTracker)> {
    let mut chain = Vec::new();
    let mut cur = id;
    while graph.node(cur).op.is_movement() && !stop(cur) {
        chain.push(cur);
        cur = graph.node(cur).src[0];
    }
    let mut st = ShapeTracker::from_shape(&graph.node(cur).shape);
    for &m in chain.iter().rev() {
        st = apply_movement(&st, &graph.node(m).op)?;
    }
    Ok((cur, st))
}

/// Applies one movement op to a tracker (the op's argument is relative to the tracker's shape).
pub fn apply_movement(st: &ShapeTracker, op: &Op) -> Result<ShapeTracker> {
    match op {
        Op::Reshape(s) => st.reshape(s),
        Op::Permute(p) => st.permute(p),
        Op::Expand(s) => st.expand(s),
        Op::Pad(p) => st.pad(p),
        Op::Shrink(s) => st.shrink(s),
        Op::Flip(f) => st.flip(f),
        Op::View(v) => v.views().iter().try_fold(st.clone(), |acc, view| acc.push(view.clone())),
        other => unreachable!("{} is not a movement op", other.name()),
    }
}

struct Interp<'a> {
    graph: &'a Graph,
    storages: &'a dyn Storages,
    memo: HashMap<UOpId, Val<'a>>,
}

impl<'a> Interp<'a> {
    fn eval(&mut self, id: UOpId) -> Result<Val<'a>> {
        if let Some(v) = self.memo.get(&id) {
            return Ok(v.clone());
        }
        let node = self.graph.node(id);
        // Lazy nodes may be far larger than a buffer may be; everything but a storage read or
        // a pass-through is materialised here, so this is where the buffer limit applies.
        let numel = checked_numel(&node.shape);
        if !matches!(node.op, Op::Buffer(_) | Op::Contiguous) && numel.is_none_or(|n| n > MAX_ELEMENTS) {
            bail!(
                Limit,
                "computing a {} of shape {:?} would hold more than the limit of {MAX_ELEMENTS} elements",
                node.op.name(),
                node.shape
            );
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
                let src = self.eval(base)?;
                if is_identity(&st, src.len()) {
                    src
                } else {
                    owned(gather(&src, &st))
                }
            }
            Op::Unary(u) => {
                let a = self.eval(node.src[0])?;
                owned(alu::unary(*u, &a))
            }
            Op::Binary(b) => {
                let x = self.eval(node.src[0])?;
                let y = self.eval(node.src[1])?;
                owned(alu::binary(*b, &x, &y))
            }
            Op::Where => {
                let c = self.eval(node.src[0])?;
                let x = self.eval(node.src[1])?;
                let y = self.eval(node.src[2])?;
                owned(alu::select(&c, &x, &y))
            }
            Op::Cast(d) => owned(self.eval(node.src[0])?.cast(*d)),
            Op::Reduce(r, axes) => {
                let src = node.src[0];
                let mut leaves = Vec::new();
                let tree = self.fused_tree(src, &mut leaves)?;
                let views: Vec<(&Data, View)> = leaves.iter().map(|(d, v)| (&**d, v.clone())).collect();
                owned(fused::reduce(*r, node.dtype, &tree, &views, &self.graph.node(src).shape, axes))
            }
            Op::Contiguous => self.eval(node.src[0])?,
            Op::Bitcast(d) => owned(Data::from_le_bytes(*d, &self.eval(node.src[0])?.to_le_bytes())),
            Op::Store(_) => unreachable!("stores are executed by the runner, not evaluated"),
        };
        self.memo.insert(id, out.clone());
        Ok(out)
    }

    /// The elementwise tree under a reduce, down to its leaves: each leaf is a computed (or
    /// stored) value read through one view of the reduce source's shape.
    fn fused_tree(&mut self, id: UOpId, leaves: &mut Vec<(Val<'a>, View)>) -> Result<Tree> {
        let node = self.graph.node(id);
        let mut sub = |i: usize| self.fused_tree(node.src[i], leaves).map(Box::new);
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
                        let data = self.eval(base)?;
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
