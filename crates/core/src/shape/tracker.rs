//! tinygrad's ShapeTracker: the stack of views a chain of movement ops leaves behind.
//!
//! A reshape that one view cannot express pushes a fresh contiguous view; each view indexes the
//! row-major logical space of the view below it, and the bottom view indexes the buffer. The
//! movement ops act on the top view exactly as tinygrad 0.10.3's lazy graph does, so the stack the
//! playground shows is the one tinygrad would hold for the same chain.

use serde::Serialize;

use super::symbolic::Expr;
use super::view::{checked_numel, floor_div, floor_mod, View};
use crate::error::{bail, Result};
use crate::strided::Odometer;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ShapeTracker {
    /// Innermost (buffer-side) first; never empty.
    views: Vec<View>,
}

impl ShapeTracker {
    pub fn from_shape(shape: &[usize]) -> Self {
        Self::from_view(View::contiguous(shape))
    }

    pub fn from_view(v: View) -> Self {
        ShapeTracker { views: vec![v] }
    }

    pub fn views(&self) -> &[View] {
        &self.views
    }

    fn top(&self) -> &View {
        &self.views[self.views.len() - 1]
    }

    pub fn shape(&self) -> &[usize] {
        self.top().shape()
    }

    pub fn numel(&self) -> usize {
        self.top().numel()
    }

    /// Replaces the top view, as every movement op but an inexpressible reshape does.
    fn with_top(&self, v: View) -> Self {
        let mut views = self.views.clone();
        let last = views.len() - 1;
        views[last] = v;
        ShapeTracker { views }
    }

    /// Reshapes the top view, or pushes a contiguous view when one view cannot express it.
    ///
    /// The pushed stack is left unsimplified, as in tinygrad's lazy graph: `simplify()` can
    /// merge a pushed view (a fully masked one, for instance), and doing so here would report
    /// fewer views than tinygrad holds for the same chain.
    pub fn reshape(&self, s: &[usize]) -> Result<Self> {
        match self.top().reshape(s)? {
            Some(v) => Ok(self.with_top(v)),
            None => {
                let mut views = self.views.clone();
                views.push(View::contiguous(s));
                Ok(ShapeTracker { views })
            }
        }
    }

    pub fn permute(&self, a: &[usize]) -> Result<Self> {
        Ok(self.with_top(self.top().permute(a)?))
    }

    pub fn expand(&self, s: &[usize]) -> Result<Self> {
        Ok(self.with_top(self.top().expand(s)?))
    }

    pub fn pad(&self, a: &[(usize, usize)]) -> Result<Self> {
        Ok(self.with_top(self.top().pad(a)?))
    }

    pub fn shrink(&self, a: &[(usize, usize)]) -> Result<Self> {
        Ok(self.with_top(self.top().shrink(a)?))
    }

    pub fn flip(&self, axes: &[bool]) -> Result<Self> {
        Ok(self.with_top(self.top().flip(axes)?))
    }

    /// Put `v` on top: `v` maps a new shape onto THIS tracker's contiguous logical index space
    /// (v's offsets/strides count elements of self.shape() in row-major order). Then simplify.
    /// Used for torch view ops that have no tinygrad movement op (diagonal, unfold, as_strided).
    pub fn push(&self, v: View) -> Result<Self> {
        let n = checked_numel(self.shape())?;
        if let Some((lo, hi)) = reach(&v) {
            if lo < 0 || hi >= n as i64 {
                bail!(
                    Index,
                    "view {:?} with strides {:?} and offset {} reaches elements {lo}..={hi}, \
                     outside the {n} elements of shape {:?}",
                    v.shape(),
                    v.strides(),
                    v.offset(),
                    self.shape()
                );
            }
        }
        let mut views = self.views.clone();
        views.push(v);
        Ok(ShapeTracker { views }.simplify())
    }

    /// Merge the top two views while one view can express them (tinygrad's `simplify`).
    pub fn simplify(&self) -> Self {
        let mut views = self.views.clone();
        while views.len() >= 2 {
            let n = views.len();
            match views[n - 1].compose(&views[n - 2]) {
                Some(v) => {
                    views.truncate(n - 2);
                    views.push(v);
                }
                None => break,
            }
        }
        ShapeTracker { views }
    }

    pub fn is_contiguous(&self) -> bool {
        self.views.len() == 1 && self.views[0].is_contiguous()
    }

    /// (buffer index, validity) over loop variables `i0..i{n-1}`, one per dim of `shape()`.
    /// The index is meaningful only where the validity holds.
    pub fn index(&self) -> (Expr, Expr) {
        let top = self.top();
        let vars: Vec<Expr> = top.shape().iter().enumerate().map(|(i, &s)| Expr::var(i, s)).collect();
        let (mut idx, mut valid) = apply_view(top, vars, Expr::Bool(true));
        for v in self.views[..self.views.len() - 1].iter().rev() {
            if v.numel() == 0 {
                return (Expr::Const(0), Expr::Bool(false));
            }
            let v = v.minify();
            let mut coords = vec![Expr::Const(0); v.shape().len()];
            let mut acc = 1i64;
            for (c, &d) in coords.iter_mut().zip(v.shape()).rev() {
                *c = idx.clone().floordiv(acc).modulo(d as i64);
                acc *= d as i64;
            }
            (idx, valid) = apply_view(&v, coords, valid);
        }
        (idx, valid)
    }

    /// `index()` rendered, e.g. `("(i0*12)+(i1*4)+i2+1", "(i0<2)")`; validity `"true"` when
    /// every element reads the buffer.
    pub fn index_text(&self) -> (String, String) {
        let (idx, valid) = self.index();
        (idx.to_string(), valid.to_string())
    }

    /// Buffer offset of every logical element in row-major order, `None` where masked (padding).
    pub fn offsets(&self) -> Vec<Option<i64>> {
        let mut out = vec![None; self.numel()];
        self.for_each_offset(|k, o| out[k] = o);
        out
    }

    /// `offsets()` streamed as (logical position, offset) in row-major order.
    pub fn for_each_offset(&self, f: impl FnMut(usize, Option<i64>)) {
        self.for_each_offset_upto(usize::MAX, f);
    }

    /// The first `n` of `offsets()` (all of them if there are fewer), walking no further.
    pub fn first_offsets(&self, n: usize) -> Vec<Option<i64>> {
        let mut out = Vec::with_capacity(n.min(self.numel()));
        self.for_each_offset_upto(n, |k, o| {
            if k < n {
                out.push(o);
            }
        });
        out
    }

    /// [`ShapeTracker::for_each_offset`] that stops after the row holding position `limit - 1`.
    fn for_each_offset_upto(&self, limit: usize, mut f: impl FnMut(usize, Option<i64>)) {
        let lower: Vec<Flat> =
            self.views[..self.views.len() - 1].iter().rev().map(|v| Flat::new(&v.minify())).collect();
        if lower.is_empty() {
            walk(self.top(), limit, f);
        } else {
            walk(self.top(), limit, |k, o| f(k, o.and_then(|i| lower.iter().try_fold(i, |i, v| v.at(i)))));
        }
    }
}

/// The lowest and highest offsets `v` reads where valid, or `None` if it reads nothing.
fn reach(v: &View) -> Option<(i64, i64)> {
    let full: Vec<(usize, usize)>;
    let mask = match v.mask() {
        Some(m) => m,
        None => {
            full = v.shape().iter().map(|&s| (0, s)).collect();
            &full
        }
    };
    if mask.iter().any(|&(b, e)| b >= e) {
        return None;
    }
    Some(mask.iter().zip(v.strides()).fold((v.offset(), v.offset()), |(lo, hi), (&(b, e), &st)| {
        let (x, y) = (st * b as i64, st * (e as i64 - 1));
        (lo + x.min(y), hi + x.max(y))
    }))
}

/// One view applied to index expressions, tinygrad's `View.to_indexed_uops`.
fn apply_view(v: &View, idxs: Vec<Expr>, mut valid: Expr) -> (Expr, Expr) {
    let mut idx = Expr::Const(v.offset());
    for (d, i) in idxs.into_iter().enumerate() {
        let (s, st) = (v.shape()[d], v.strides()[d]);
        if s != 1 && st != 0 {
            idx = idx + i.clone() * st;
        }
        if let Some(&(b, e)) = v.mask().map(|m| &m[d]) {
            if b != 0 {
                valid = valid.and(i.clone().ge(b as i64));
            }
            if e != s {
                valid = valid.and(i.lt(e as i64));
            }
        }
    }
    (idx, valid)
}

/// A lower view prepared for per-element lookups of a linear logical index.
struct Flat {
    /// (size, stride, mask begin, mask end) per dim, innermost last.
    dims: Vec<(i64, i64, i64, i64)>,
    offset: i64,
    empty: bool,
}

impl Flat {
    fn new(v: &View) -> Flat {
        let dims = v
            .shape()
            .iter()
            .zip(v.strides())
            .enumerate()
            .map(|(d, (&s, &st))| {
                let (b, e) = v.mask().map_or((0, s), |m| m[d]);
                (s as i64, st, b as i64, e as i64)
            })
            .collect();
        Flat { dims, offset: v.offset(), empty: v.numel() == 0 }
    }

    /// Unravel `idx` row-major (the leading dim wraps, as in tinygrad) and read through the view.
    fn at(&self, idx: i64) -> Option<i64> {
        if self.empty {
            return None;
        }
        let mut rest = idx;
        let mut off = self.offset;
        for &(s, st, b, e) in self.dims.iter().rev() {
            let c = floor_mod(rest, s);
            rest = floor_div(rest, s);
            if c < b || c >= e {
                return None;
            }
            off += c * st;
        }
        Some(off)
    }
}

/// Row-major walk of one view: an [`Odometer`] over the outer dims, a tight loop over the last.
fn walk(v: &View, limit: usize, mut f: impl FnMut(usize, Option<i64>)) {
    let shape = v.shape();
    let strides = v.strides();
    if shape.contains(&0) {
        return;
    }
    let bounds = |d: usize| v.mask().map_or((0, shape[d]), |m| m[d]);
    let Some(last) = shape.len().checked_sub(1) else {
        // A 0-d view has no mask in canonical form.
        f(0, Some(v.offset()));
        return;
    };
    let (n_in, st_in) = (shape[last], strides[last]);
    let (b_in, e_in) = bounds(last);
    let (b_in, e_in) = (b_in.min(e_in), e_in);
    let mut rows = Odometer::new(&shape[..last]);
    let mut base = v.offset();
    let mut k = 0usize;
    loop {
        let valid = rows.index().iter().enumerate().all(|(d, &i)| {
            let (b, e) = bounds(d);
            b <= i && i < e
        });
        if valid {
            (0..b_in).for_each(|j| f(k + j, None));
            (b_in..e_in).for_each(|j| f(k + j, Some(base + j as i64 * st_in)));
            (e_in..n_in).for_each(|j| f(k + j, None));
        } else {
            (0..n_in).for_each(|j| f(k + j, None));
        }
        k += n_in;
        if k >= limit || !rows.step(std::slice::from_mut(&mut base), &[strides]) {
            return;
        }
    }
}
