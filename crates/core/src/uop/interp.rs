//! The reference interpreter: the living definition of every [`Op`].
//!
//! It evaluates a subgraph node by node into dense row-major buffers. Movement chains are never
//! copied one op at a time: they fold into one ShapeTracker over the first non-movement node and
//! become a single gather, the same index expression a generated kernel uses. Every other
//! backend is tested against this module.

use super::data::{with_data, Data, Elem};
use super::{BinaryOp, Graph, Op, ReduceOp, StorageId, UOpId, UnaryOp};
use crate::error::Result;
use crate::shape::tracker::ShapeTracker;
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
                let x = self.eval(src)?;
                owned(reduce(*r, &x, &self.graph.node(src).shape, axes)?)
            }
            Op::Contiguous => self.eval(node.src[0])?,
            Op::Store(_) => unreachable!("stores are executed by the runner, not evaluated"),
        };
        self.memo.insert(id, out.clone());
        Ok(out)
    }
}

fn is_identity(st: &ShapeTracker, len: usize) -> bool {
    st.is_contiguous() && st.numel() == len
}

/// Reads `src` through a tracker; masked (padded) positions read as zero.
pub fn gather(src: &Data, st: &ShapeTracker) -> Data {
    if is_identity(st, src.len()) {
        return src.clone();
    }
    if let [v] = st.views() {
        if v.mask().is_none() {
            return src.gather_strided(v.shape(), v.strides(), v.offset());
        }
    }
    src.gather(&st.offsets())
}

trait Arith: Elem {
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
fn sum<T: Elem>(v: &[T]) -> f64 {
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
