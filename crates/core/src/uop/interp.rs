//! The reference interpreter: the living definition of every [`Op`].
//!
//! It evaluates a subgraph node by node into dense row-major buffers. Movement chains are never
//! copied one op at a time: they fold into one ShapeTracker over the first non-movement node and
//! become a single gather, the same index expression a generated kernel uses. A reduce never
//! materialises its source: its elementwise tree of views runs fused (see `fused`), so a lazy
//! broadcast product only ever exists as a loop. Every other backend is tested against this
//! module.

use super::data::{gather_view, with_data, Data, Elem};
use super::fused::{self, Tree};
use super::{BinaryOp, Graph, Op, ReduceOp, StorageId, UOpId, UnaryOp};
use crate::error::{bail, Result};
use crate::shape::tracker::ShapeTracker;
use crate::shape::view::View;
use crate::tensor::MAX_ELEMENTS;
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
        let numel = node.shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
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
            Op::Const(c) => owned(Data::full(node.dtype, node.shape.iter().product(), c.as_f64())),
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
                owned(unary(*u, &a))
            }
            Op::Binary(b) => {
                let x = self.eval(node.src[0])?;
                let y = self.eval(node.src[1])?;
                owned(binary(*b, &x, &y))
            }
            Op::Where => {
                let c = self.eval(node.src[0])?;
                let x = self.eval(node.src[1])?;
                let y = self.eval(node.src[2])?;
                owned(select(&c, &x, &y))
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
                leaves.push((Val::Owned(Rc::new(Data::full(node.dtype, 1, c.as_f64()))), view));
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
                        leaves.push((Val::Owned(Rc::new(Data::full(base_node.dtype, 1, c.as_f64()))), view));
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

fn checked_numel(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
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

pub(crate) trait Arith: Elem {
    /// The identities of max and min.
    const LOWEST: Self;
    const HIGHEST: Self;
    fn add(a: Self, b: Self) -> Self;
    fn sub(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    fn div(a: Self, b: Self) -> Self;
    fn floordiv(a: Self, b: Self) -> Self;
    fn rem(a: Self, b: Self) -> Self;
    fn pow(a: Self, b: Self) -> Self;
    fn and(a: Self, b: Self) -> Self;
    fn or(a: Self, b: Self) -> Self;
    fn xor(a: Self, b: Self) -> Self;
    fn neg(a: Self) -> Self;
    fn not(a: Self) -> Self;
    fn abs(a: Self) -> Self;
    fn max(a: Self, b: Self) -> Self;
    fn min(a: Self, b: Self) -> Self;
}

macro_rules! int_arith {
    ($t:ty) => {
        #[allow(unused_comparisons)]
        impl Arith for $t {
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn sub(a: Self, b: Self) -> Self {
                a.wrapping_sub(b)
            }
            fn mul(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
            // Integer division by zero raises in PyTorch; the runner checks before it gets here,
            // so a zero divisor only reaches this point through a masked lane: yield 0.
            fn div(a: Self, b: Self) -> Self {
                if b == 0 {
                    0
                } else {
                    a.wrapping_div(b)
                }
            }
            fn floordiv(a: Self, b: Self) -> Self {
                if b == 0 {
                    return 0;
                }
                let q = a.wrapping_div(b);
                if (a % b != 0) && ((a < 0) != (b < 0)) {
                    q - 1
                } else {
                    q
                }
            }
            fn rem(a: Self, b: Self) -> Self {
                if b == 0 {
                    return 0;
                }
                let r = a.wrapping_rem(b);
                if r != 0 && ((r < 0) != (b < 0)) {
                    r + b
                } else {
                    r
                }
            }
            fn pow(a: Self, b: Self) -> Self {
                if b < 0 {
                    return if a == 1 { 1 } else { 0 };
                }
                a.wrapping_pow(b as u32)
            }
            fn and(a: Self, b: Self) -> Self {
                a & b
            }
            fn or(a: Self, b: Self) -> Self {
                a | b
            }
            fn xor(a: Self, b: Self) -> Self {
                a ^ b
            }
            fn neg(a: Self) -> Self {
                (0 as $t).wrapping_sub(a)
            }
            fn not(a: Self) -> Self {
                !a
            }
            fn abs(a: Self) -> Self {
                if a < 0 {
                    (0 as $t).wrapping_sub(a)
                } else {
                    a
                }
            }
            fn max(a: Self, b: Self) -> Self {
                Ord::max(a, b)
            }
            fn min(a: Self, b: Self) -> Self {
                Ord::min(a, b)
            }
        }
    };
}
int_arith!(i32);
int_arith!(u8);

impl Arith for f32 {
    const LOWEST: Self = f32::NEG_INFINITY;
    const HIGHEST: Self = f32::INFINITY;
    fn add(a: Self, b: Self) -> Self {
        a + b
    }
    fn sub(a: Self, b: Self) -> Self {
        a - b
    }
    fn mul(a: Self, b: Self) -> Self {
        a * b
    }
    fn div(a: Self, b: Self) -> Self {
        a / b
    }
    fn floordiv(a: Self, b: Self) -> Self {
        (a / b).floor()
    }
    fn rem(a: Self, b: Self) -> Self {
        let r = a % b;
        if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
            r + b
        } else {
            r
        }
    }
    fn pow(a: Self, b: Self) -> Self {
        a.powf(b)
    }
    fn and(a: Self, b: Self) -> Self {
        f32::from(u8::from(a != 0.0 && b != 0.0))
    }
    fn or(a: Self, b: Self) -> Self {
        f32::from(u8::from(a != 0.0 || b != 0.0))
    }
    fn xor(a: Self, b: Self) -> Self {
        f32::from(u8::from((a != 0.0) != (b != 0.0)))
    }
    fn neg(a: Self) -> Self {
        -a
    }
    fn not(a: Self) -> Self {
        f32::from(u8::from(a == 0.0))
    }
    fn abs(a: Self) -> Self {
        a.abs()
    }
    // PyTorch's maximum/minimum propagate NaN.
    fn max(a: Self, b: Self) -> Self {
        if a.is_nan() || b.is_nan() {
            f32::NAN
        } else {
            a.max(b)
        }
    }
    fn min(a: Self, b: Self) -> Self {
        if a.is_nan() || b.is_nan() {
            f32::NAN
        } else {
            a.min(b)
        }
    }
}

impl Arith for bool {
    const LOWEST: Self = false;
    const HIGHEST: Self = true;
    fn add(a: Self, b: Self) -> Self {
        a | b
    }
    fn sub(a: Self, b: Self) -> Self {
        a ^ b
    }
    fn mul(a: Self, b: Self) -> Self {
        a & b
    }
    fn div(a: Self, b: Self) -> Self {
        a & b
    }
    fn floordiv(a: Self, b: Self) -> Self {
        a & b
    }
    fn rem(_a: Self, _b: Self) -> Self {
        false
    }
    fn pow(a: Self, b: Self) -> Self {
        a | !b
    }
    fn and(a: Self, b: Self) -> Self {
        a & b
    }
    fn or(a: Self, b: Self) -> Self {
        a | b
    }
    fn xor(a: Self, b: Self) -> Self {
        a ^ b
    }
    fn neg(a: Self) -> Self {
        a
    }
    fn not(a: Self) -> Self {
        !a
    }
    fn abs(a: Self) -> Self {
        a
    }
    fn max(a: Self, b: Self) -> Self {
        a | b
    }
    fn min(a: Self, b: Self) -> Self {
        a & b
    }
}

pub(crate) fn unary(op: UnaryOp, a: &Data) -> Data {
    fn typed<T: Arith>(op: UnaryOp, v: &[T]) -> Data {
        fn map<T: Arith>(v: &[T], f: impl Fn(T) -> T) -> Data {
            T::wrap(v.iter().map(|&x| f(x)).collect())
        }
        // Transcendentals in f64, rounded once: within an ulp of PyTorch's float32 kernels.
        fn float<T: Arith>(v: &[T], f: impl Fn(f64) -> f64) -> Data {
            T::wrap(v.iter().map(|&x| T::from_f64(f(x.to_f64()))).collect())
        }
        match op {
            UnaryOp::Neg => map(v, T::neg),
            UnaryOp::Abs => map(v, T::abs),
            UnaryOp::Not => map(v, T::not),
            UnaryOp::Relu => map(v, |x| if x > T::default() { x } else { T::default() }),
            UnaryOp::Exp => float(v, f64::exp),
            UnaryOp::Log => float(v, f64::ln),
            UnaryOp::Sqrt => float(v, f64::sqrt),
            UnaryOp::Tanh => float(v, f64::tanh),
            UnaryOp::Sigmoid => float(v, |x| 1.0 / (1.0 + (-x).exp())),
        }
    }
    with_data!(a, |v: T| typed::<T>(op, v))
}

pub(crate) fn binary(op: BinaryOp, a: &Data, b: &Data) -> Data {
    fn typed<T: Arith>(op: BinaryOp, a: &[T], b: &[T]) -> Data {
        debug_assert_eq!(a.len(), b.len());
        // Generic (not fn-pointer) closures so each op's loop is inlined and vectorised.
        fn zip<T: Arith>(a: &[T], b: &[T], f: impl Fn(T, T) -> T) -> Data {
            T::wrap(a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect())
        }
        fn cmp<T: Arith>(a: &[T], b: &[T], f: impl Fn(T, T) -> bool) -> Data {
            Data::Bool(a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect())
        }
        match op {
            BinaryOp::Add => zip(a, b, T::add),
            BinaryOp::Sub => zip(a, b, T::sub),
            BinaryOp::Mul => zip(a, b, T::mul),
            BinaryOp::Div => zip(a, b, T::div),
            BinaryOp::FloorDiv => zip(a, b, T::floordiv),
            BinaryOp::Mod => zip(a, b, T::rem),
            BinaryOp::Pow => zip(a, b, T::pow),
            BinaryOp::Max => zip(a, b, T::max),
            BinaryOp::Min => zip(a, b, T::min),
            BinaryOp::And => zip(a, b, T::and),
            BinaryOp::Or => zip(a, b, T::or),
            BinaryOp::Xor => zip(a, b, T::xor),
            BinaryOp::CmpLt => cmp(a, b, |x, y| x < y),
            BinaryOp::CmpLe => cmp(a, b, |x, y| x <= y),
            BinaryOp::CmpEq => cmp(a, b, |x, y| x == y),
            BinaryOp::CmpNe => cmp(a, b, |x, y| x != y),
        }
    }
    with_data!(a, |x: T| match T::vec(b) {
        Some(y) => typed::<T>(op, x, y),
        None => unreachable!("binary op on mismatched dtypes; the builder casts first"),
    })
}

pub(crate) fn select(c: &Data, x: &Data, y: &Data) -> Data {
    let Data::Bool(c) = c else { unreachable!("where's condition is bool; the builder casts first") };
    with_data!(x, |xv: T| {
        let yv = T::vec(y).unwrap_or_default();
        T::wrap(c.iter().zip(xv.iter().zip(yv)).map(|(&c, (&a, &b))| if c { a } else { b }).collect())
    })
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
                    ReduceOp::Sum => T::from_f64(sum(chunk)),
                    ReduceOp::Max => chunk.iter().copied().reduce(T::max).unwrap_or_default(),
                    ReduceOp::Min => chunk.iter().copied().reduce(T::min).unwrap_or_default(),
                }
            })
            .collect();
        T::wrap(out)
    }
    Ok(with_data!(x, |v: T| typed::<T>(op, v, outer, run)))
}

/// Sums in eight f64 lanes: exact for int32 ranges, more accurate than a serial f32 sum, and
/// the lanes keep the loop vectorisable.
pub(crate) fn sum<T: Elem>(v: &[T]) -> f64 {
    let mut lanes = [0f64; 8];
    let chunks = v.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for (l, x) in lanes.iter_mut().zip(c) {
            *l += x.to_f64();
        }
    }
    lanes.iter().sum::<f64>() + tail.iter().map(|x| x.to_f64()).sum::<f64>()
}
