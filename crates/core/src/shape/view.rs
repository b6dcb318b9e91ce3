//! One tinygrad view: an affine map from a logical index to a buffer offset, with an optional
//! validity mask (the region that reads the buffer rather than padding).
//!
//! Everything here mirrors tinygrad 0.10.3's `shape/view.py` value for value, because the
//! playground shows these numbers side by side with what tinygrad itself would print: the same
//! canonical form (size-1 strides zeroed, no-op masks dropped, single-element masked dims folded
//! into the offset, zero-size views made contiguous) and the same decisions about when a movement
//! op or a merge of two views is expressible as one view.

use crate::error::{bail, Error, Result};
use crate::limits;
use crate::strided::strides_for_shape;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct View {
    shape: Vec<usize>,
    strides: Vec<i64>,
    offset: i64,
    /// Per dim, the half-open range of indices that read the buffer; `None` when all do.
    mask: Option<Vec<(usize, usize)>>,
    contiguous: bool,
}

// Sizes, strides and offsets meet in signed arithmetic (flip and pad make them negative);
// shapes are bounded by what fits in memory, so the conversion cannot truncate.
#[inline]
fn sz(x: usize) -> i64 {
    x as i64
}

/// Python's `//`: tinygrad's offsets and masks rely on flooring for negative operands.
pub(crate) fn floor_div(a: i64, b: i64) -> i64 {
    let q = a / b;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// Python's `%` (the sign follows the divisor).
pub(crate) fn floor_mod(a: i64, b: i64) -> i64 {
    a - b * floor_div(a, b)
}

/// tinygrad's `ceildiv`: `-(a // -b)`.
fn ceil_div(a: i64, b: i64) -> i64 {
    -floor_div(a, -b)
}

/// `numel`, refusing shapes whose element count (or any dim) does not fit the signed offset
/// arithmetic: shapes come from user text and must not wrap.
pub(crate) fn checked_numel(shape: &[usize]) -> Result<usize> {
    let limit = i64::MAX as usize;
    limits::checked_numel(shape)
        .filter(|&n| n <= limit && shape.iter().all(|&s| s <= limit))
        .ok_or_else(|| Error::Limit(format!("shape {shape:?} has more elements than can be addressed")))
}

/// Where a linear row-major `offset` lands in `shape`; the leading dim wraps like tinygrad's.
fn unravel(shape: &[usize], offset: i64) -> Vec<i64> {
    let mut idx = vec![0; shape.len()];
    let mut rest = offset;
    for (i, &d) in idx.iter_mut().zip(shape).rev() {
        *i = floor_mod(rest, sz(d));
        rest = floor_div(rest, sz(d));
    }
    idx
}

/// Groups dims that address memory as one: contiguous runs, zero strides, and dims whose mask
/// keeps a single index. Each entry is (merged size, stride of the last dim, size excluding
/// broadcast dims) — the inputs reshape needs to decide what it can split.
fn merge_dims(shape: &[usize], strides: &[i64], mask: Option<&[(usize, usize)]>) -> Vec<(i64, i64, i64)> {
    let Some((&s0, &st0)) = shape.first().zip(strides.first()) else {
        return Vec::new();
    };
    let mut ret = vec![(sz(s0), st0, if st0 != 0 { sz(s0) } else { 0 })];
    let mut merging = match mask {
        Some(m) => m[0].1 - m[0].0 == 1,
        None => s0 == 1,
    };
    for (i, (&s, &st)) in shape.iter().zip(strides).enumerate().skip(1) {
        if s == 1 {
            continue;
        }
        let s = sz(s);
        let last = ret.len() - 1;
        let (last_s, last_st, last_pre) = ret[last];
        if merging || last_st == s * st {
            ret[last] = (last_s * s, st, if merging { s } else { last_pre * s });
        } else {
            ret.push((s, st, s));
        }
        merging = match mask {
            Some(m) => m[i].1 - m[i].0 == 1,
            None => false,
        };
    }
    ret
}

/// The mask of a reshaped masked view, or `None` when a new dim would cut across the mask
/// (tinygrad's `_reshape_mask`, walking both shapes from the innermost dim).
fn reshape_mask(mask: &[(usize, usize)], old_shape: &[usize], new_shape: &[usize]) -> Option<Vec<(usize, usize)>> {
    let mut r_masks = mask.iter().rev().map(|&(b, e)| (sz(b), sz(e)));
    let mut r_shape = old_shape.iter().rev().map(|&s| sz(s));
    let mut r_new = new_shape.iter().rev().map(|&s| sz(s));
    let mut new_mask: Vec<(usize, usize)> = Vec::with_capacity(new_shape.len());
    let mut curr_stride = 1i64;
    let mut old_dim = r_shape.next().unwrap_or(1);
    let mut new_dim = r_new.next().unwrap_or(1);
    let mut cur = r_masks.next().unwrap_or((0, 1));
    // Begins are >= 0 (mask bounds are, divisors are positive sizes); an end goes negative only
    // for an empty mask, which stays empty at 0 and canonicalizes the same way.
    let push = |v: &mut Vec<(usize, usize)>, b: i64, e: i64| v.push((b as usize, e.max(0) as usize));
    while new_mask.len() < new_shape.len() {
        let (l, r) = cur;
        let next_stride = new_dim * curr_stride;
        if old_dim == next_stride {
            push(&mut new_mask, floor_div(l, curr_stride), floor_div(r - 1, curr_stride) + 1);
            curr_stride = 1;
            old_dim = r_shape.next().unwrap_or(1);
            new_dim = r_new.next().unwrap_or(1);
            cur = r_masks.next().unwrap_or((0, 1));
        } else if old_dim > next_stride {
            if old_dim % next_stride != 0 {
                return None;
            }
            if (l % next_stride != 0 || r % next_stride != 0)
                && floor_div(l, next_stride) != floor_div(r - 1, next_stride)
            {
                return None;
            }
            push(
                &mut new_mask,
                floor_div(floor_mod(l, next_stride), curr_stride),
                floor_div(floor_mod(r - 1, next_stride), curr_stride) + 1,
            );
            curr_stride = next_stride;
            new_dim = r_new.next().unwrap_or(1);
        } else {
            let next_mask = r_masks.next().unwrap_or((0, 1));
            if cur != (0, old_dim) && l != r && next_mask.1 - next_mask.0 != 1 {
                return None;
            }
            cur = (next_mask.0 * old_dim + l, (next_mask.1 - 1) * old_dim + r);
            old_dim *= r_shape.next().unwrap_or(1);
        }
    }
    new_mask.reverse();
    Some(new_mask)
}

fn rank_check(op: &str, what: &str, got: usize, shape: &[usize]) -> Result<()> {
    if got != shape.len() {
        bail!(Shape, "{op}: expected {} {what} for shape {shape:?}, got {got}", shape.len());
    }
    Ok(())
}

/// Guards against merges that tinygrad itself would chase forever; far above any real depth.
const MAX_MERGE_DEPTH: usize = 64;

impl View {
    /// tinygrad's `View.create`: builds the canonical form of a view.
    ///
    /// `strides` defaults to row-major; mask bounds past a dim's size are clamped to it.
    /// Panics if `strides` or `mask` is given with a length other than `shape.len()`.
    pub fn new(shape: &[usize], strides: Option<&[i64]>, offset: i64, mask: Option<&[(usize, usize)]>) -> View {
        if let Some(st) = strides {
            assert!(
                st.is_empty() || st.len() == shape.len(),
                "View::new: {} strides for {} dims",
                st.len(),
                shape.len()
            );
        }
        let mask = mask.map(|m| {
            assert_eq!(m.len(), shape.len(), "View::new: mask rank differs from shape");
            m.iter().zip(shape).map(|(&(b, e), &s)| (b.min(s), e.min(s))).collect()
        });
        View::create(shape.to_vec(), strides.map(<[i64]>::to_vec), offset, mask)
    }

    /// The row-major view of a fresh buffer.
    pub fn contiguous(shape: &[usize]) -> View {
        View::create(shape.to_vec(), None, 0, None)
    }

    fn create(
        shape: Vec<usize>,
        strides: Option<Vec<i64>>,
        mut offset: i64,
        mask: Option<Vec<(usize, usize)>>,
    ) -> View {
        let mut strides = match strides {
            Some(mut st) if !st.is_empty() => {
                for (st, &s) in st.iter_mut().zip(&shape) {
                    if s == 1 {
                        *st = 0;
                    }
                }
                st
            }
            _ => strides_for_shape(&shape),
        };
        if shape.contains(&0) {
            let zeros = vec![0; shape.len()];
            return View { shape, strides: zeros, offset: 0, mask: None, contiguous: true };
        }
        let mut mask = mask.filter(|m| m.iter().zip(&shape).any(|(&(b, e), &s)| b != 0 || e != s));
        if let Some(m) = mask.as_mut() {
            // A dim that keeps at most one index reads one address: fold it into the offset.
            if m.iter().any(|&(b, e)| b + 1 >= e) {
                if m.iter().any(|&(b, e)| b >= e) {
                    strides.iter_mut().for_each(|st| *st = 0);
                    offset = 0;
                    m.iter_mut().for_each(|x| *x = (0, 0));
                }
                for (st, &(b, e)) in strides.iter_mut().zip(m.iter()) {
                    if b + 1 >= e {
                        offset += *st * sz(b);
                        *st = 0;
                    }
                }
            }
        }
        let contiguous = offset == 0 && mask.is_none() && strides == strides_for_shape(&shape);
        View { shape, strides, offset, mask, contiguous }
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    pub fn strides(&self) -> &[i64] {
        &self.strides
    }

    pub fn offset(&self) -> i64 {
        self.offset
    }

    pub fn mask(&self) -> Option<&[(usize, usize)]> {
        self.mask.as_deref()
    }

    pub fn is_contiguous(&self) -> bool {
        self.contiguous
    }

    /// Number of logical elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Reshape within one view; `Ok(None)` when the strides or mask cannot express it.
    pub fn reshape(&self, new_shape: &[usize]) -> Result<Option<View>> {
        if self.shape == new_shape {
            return Ok(Some(self.clone()));
        }
        let (old_n, new_n) = (checked_numel(&self.shape)?, checked_numel(new_shape)?);
        if old_n != new_n {
            bail!(
                Shape,
                "reshape: shape {:?} ({old_n} elements) cannot become {new_shape:?} ({new_n} elements)",
                self.shape
            );
        }
        if self.shape.contains(&0) || self.contiguous {
            return Ok(Some(View::contiguous(new_shape)));
        }
        if new_shape.is_empty() && self.mask().is_some_and(|m| m.iter().any(|&(b, e)| b == e)) {
            return Ok(None);
        }
        let mut r_strides: Vec<i64> = Vec::with_capacity(new_shape.len());
        let mut r_new = new_shape.iter().rev().map(|&s| sz(s));
        for (merged_size, mut stride, real_size) in
            merge_dims(&self.shape, &self.strides, self.mask()).into_iter().rev()
        {
            let mut acc = 1i64;
            while acc < merged_size {
                let new_dim = r_new.next().unwrap_or(0);
                if new_dim <= 0 {
                    break;
                }
                r_strides.push(stride * acc);
                acc *= new_dim;
                if acc >= real_size {
                    stride = 0;
                }
            }
            if acc != merged_size {
                return Ok(None);
            }
        }
        let mut new_strides = vec![0i64; new_shape.len() - r_strides.len()];
        new_strides.extend(r_strides.iter().rev());
        let Some(mask) = self.mask() else {
            return Ok(Some(View::create(new_shape.to_vec(), Some(new_strides), self.offset, None)));
        };
        let Some(new_mask) = reshape_mask(mask, &self.shape, new_shape) else {
            return Ok(None);
        };
        let old_start: i64 = mask.iter().zip(&self.strides).map(|(m, s)| sz(m.0) * s).sum();
        let new_start: i64 = new_mask.iter().zip(&new_strides).map(|(m, s)| sz(m.0) * s).sum();
        Ok(Some(View::create(
            new_shape.to_vec(),
            Some(new_strides),
            self.offset + old_start - new_start,
            Some(new_mask),
        )))
    }

    pub fn permute(&self, axes: &[usize]) -> Result<View> {
        rank_check("permute", "axes", axes.len(), &self.shape)?;
        let mut seen = vec![false; axes.len()];
        for &a in axes {
            if a >= axes.len() || std::mem::replace(&mut seen[a], true) {
                bail!(Index, "permute: {axes:?} is not a permutation of the {} dims of {:?}", axes.len(), self.shape);
            }
        }
        Ok(View::create(
            axes.iter().map(|&a| self.shape[a]).collect(),
            Some(axes.iter().map(|&a| self.strides[a]).collect()),
            self.offset,
            self.mask.as_ref().map(|m| axes.iter().map(|&a| m[a]).collect()),
        ))
    }

    pub fn expand(&self, new_shape: &[usize]) -> Result<View> {
        rank_check("expand", "sizes", new_shape.len(), &self.shape)?;
        for (i, (&s, &ns)) in self.shape.iter().zip(new_shape).enumerate() {
            if s != ns && s != 1 {
                bail!(
                    Shape,
                    "expand: dim {i} of {:?} has size {s}, only size 1 expands (to {new_shape:?})",
                    self.shape
                );
            }
        }
        checked_numel(new_shape)?;
        if self.shape.contains(&0) {
            return Ok(View::contiguous(new_shape));
        }
        let mask = self.mask.as_ref().map(|m| {
            m.iter()
                .zip(self.shape.iter().zip(new_shape))
                .map(|(&m, (&s, &ns))| match (s != ns, m == (0, 1)) {
                    (false, _) => m,
                    (true, true) => (0, ns),
                    (true, false) => (0, 0),
                })
                .collect()
        });
        Ok(View::create(new_shape.to_vec(), Some(self.strides.clone()), self.offset, mask))
    }

    pub fn pad(&self, arg: &[(usize, usize)]) -> Result<View> {
        rank_check("pad", "(before, after) pairs", arg.len(), &self.shape)?;
        let padded: Vec<usize> =
            arg.iter().zip(&self.shape).map(|(&(b, e), &s)| b.saturating_add(s).saturating_add(e)).collect();
        checked_numel(&padded)?;
        Ok(self.pad_unchecked(arg))
    }

    fn pad_unchecked(&self, arg: &[(usize, usize)]) -> View {
        if arg.iter().all(|&(b, e)| b == 0 && e == 0) {
            return self.clone();
        }
        let region: Vec<(i64, i64)> = arg.iter().zip(&self.shape).map(|(&(b, e), &s)| (-sz(b), sz(s + e))).collect();
        let mask = arg.iter().zip(&self.shape).map(|(&(b, _), &s)| (sz(b), sz(s + b))).collect();
        self.resize(&region, Some(mask))
    }

    pub fn shrink(&self, arg: &[(usize, usize)]) -> Result<View> {
        rank_check("shrink", "(begin, end) pairs", arg.len(), &self.shape)?;
        for (i, (&(b, e), &s)) in arg.iter().zip(&self.shape).enumerate() {
            if b > e || e > s {
                bail!(
                    Index,
                    "shrink: range {b}..{e} is out of bounds for dim {i} of size {s} (shape {:?})",
                    self.shape
                );
            }
        }
        Ok(self.shrink_unchecked(arg))
    }

    fn shrink_unchecked(&self, arg: &[(usize, usize)]) -> View {
        let region: Vec<(i64, i64)> = arg.iter().map(|&(b, e)| (sz(b), sz(e))).collect();
        self.resize(&region, None)
    }

    /// tinygrad's `__unsafe_resize`: take `region` of every dim (it may reach outside the view,
    /// which is how pad is expressed), moving an existing mask along and intersecting `mask`.
    fn resize(&self, region: &[(i64, i64)], mask: Option<Vec<(i64, i64)>>) -> View {
        let shift: i64 = self.strides.iter().zip(region).map(|(st, r)| st * r.0).sum();
        let mask = match (&self.mask, mask) {
            (None, m) => m,
            (Some(old), new) => {
                let moved = old.iter().zip(region).map(|(&(mb, me), &(ab, ae))| {
                    let clamp = |x: i64| x.min(ae - ab).max(0);
                    (clamp(sz(mb) - ab), clamp(sz(me) - ab))
                });
                Some(match new {
                    Some(new) => moved.zip(new).map(|(m, n)| (m.0.max(n.0), m.1.min(n.1))).collect(),
                    None => moved.collect(),
                })
            }
        };
        // Every bound is >= 0: moved bounds are clamped and pad's own mask starts at `before`.
        let mask = mask.map(|m| m.into_iter().map(|(b, e)| (b as usize, e.max(0) as usize)).collect());
        View::create(
            region.iter().map(|&(b, e)| (e - b) as usize).collect(),
            Some(self.strides.clone()),
            self.offset + shift,
            mask,
        )
    }

    pub fn flip(&self, axes: &[bool]) -> Result<View> {
        rank_check("flip", "flags", axes.len(), &self.shape)?;
        let shift: i64 = self
            .shape
            .iter()
            .zip(&self.strides)
            .zip(axes)
            .filter(|(_, &f)| f)
            .map(|((&s, &st), _)| (sz(s) - 1) * st)
            .sum();
        let mask = self.mask.as_ref().map(|m| {
            m.iter()
                .zip(self.shape.iter().zip(axes))
                .map(|(&(b, e), (&s, &f))| if f { (s - e, s - b) } else { (b, e) })
                .collect()
        });
        let strides = self.strides.iter().zip(axes).map(|(&st, &f)| if f { -st } else { st }).collect();
        Ok(View::create(self.shape.clone(), Some(strides), self.offset + shift, mask))
    }

    /// tinygrad's `inner + self`: one view equal to reading `inner` through `self`, where
    /// `self` indexes `inner`'s row-major logical space. `None` when no single view does.
    pub fn compose(&self, inner: &View) -> Option<View> {
        merge(inner, self, 0)
    }

    /// The same view with as few dims as its strides and mask allow.
    pub(crate) fn minify(&self) -> View {
        let min_shape: Vec<usize> =
            merge_dims(&self.shape, &self.strides, self.mask()).iter().map(|&(s, _, _)| s as usize).collect();
        match self.reshape(&min_shape) {
            Ok(Some(v)) => v,
            _ => self.clone(),
        }
    }
}

/// tinygrad's `View.__add__` with `vm2` the inner (buffer-side) view and `vm1` the outer one.
fn merge(vm2: &View, vm1: &View, depth: usize) -> Option<View> {
    if depth > MAX_MERGE_DEPTH {
        return None;
    }
    if vm2.contiguous {
        return Some(vm1.clone());
    }
    if vm1.contiguous && vm1.shape == vm2.shape {
        return Some(vm2.clone());
    }
    if vm1.contiguous && vm1.numel() == vm2.numel() {
        if let Ok(Some(v)) = vm2.reshape(&vm1.shape) {
            return Some(v);
        }
    }
    if let Some(mask) = &vm1.mask {
        // Merge the unmasked core, then pad it back out to the outer shape.
        let core = vm1.shrink_unchecked(mask);
        if core == *vm1 {
            return None;
        }
        let merged = merge(vm2, &core, depth + 1)?;
        let pads: Vec<(usize, usize)> = mask.iter().zip(&vm1.shape).map(|(&(b, e), &s)| (b, s - e)).collect();
        return Some(merged.pad_unchecked(&pads));
    }

    // Project vm1's offset and each of its strides onto vm2's dims.
    let (r1, r2) = (vm1.shape.len(), vm2.shape.len());
    let origin = unravel(&vm2.shape, vm1.offset);
    let mut terms: Vec<Vec<(usize, i64)>> = vec![Vec::new(); r2];
    let mut strides = vec![0i64; r1];
    for (d1, &st) in vm1.strides.iter().enumerate() {
        if st == 0 {
            continue;
        }
        let moved = unravel(&vm2.shape, vm1.offset + st);
        for (d2, (&m, &o)) in moved.iter().zip(&origin).enumerate() {
            let s1 = m - o;
            if s1 != 0 {
                terms[d2].push((d1, s1));
                strides[d1] += s1 * vm2.strides[d2];
            }
        }
    }
    let extent = |d1: usize| sz(vm1.shape[d1]) - 1;

    // Merge vm2 dims (innermost first) only where a projected index would overflow one dim.
    let mut merged_shape_rev: Vec<usize> = Vec::with_capacity(r2);
    let mut merged_size = 1i64;
    let mut coef = vec![0i64; r1];
    let mut constant = 0i64;
    for ((term, &s), &o) in terms.iter().zip(&vm2.shape).zip(&origin).rev() {
        for &(d1, s1) in term {
            coef[d1] += s1 * merged_size;
        }
        constant += o * merged_size;
        merged_size *= sz(s);
        let (lo, hi) = coef.iter().enumerate().fold((constant, constant), |(lo, hi), (d1, &c)| {
            let span = c * extent(d1);
            (lo + span.min(0), hi + span.max(0))
        });
        if hi < merged_size && lo >= 0 {
            merged_shape_rev.push(merged_size as usize);
            merged_size = 1;
            coef.iter_mut().for_each(|c| *c = 0);
            constant = 0;
        }
    }
    if constant != 0 || coef.iter().any(|&c| c != 0) {
        return None;
    }
    merged_shape_rev.reverse();
    if merged_shape_rev != vm2.shape {
        let reshaped = vm2.reshape(&merged_shape_rev).ok()??;
        if reshaped.shape != vm2.shape {
            return merge(&reshaped, vm1, depth + 1);
        }
    }

    if let Some(mask2) = &vm2.mask {
        // Try to turn vm2's mask into a mask on vm1's dims.
        let mut newb = vec![0i64; r1];
        let mut newe: Vec<i64> = vm1.shape.iter().map(|&s| sz(s)).collect();
        let mut bad = false;
        for ((&(b, e), &o), term) in mask2.iter().zip(&origin).zip(&terms) {
            let (b, e) = (sz(b), sz(e));
            let (lo, hi) = term.iter().fold((o, o), |(lo, hi), &(d1, s1)| {
                let span = s1 * extent(d1);
                (lo + span.min(0), hi + span.max(0))
            });
            if b <= lo && hi < e {
                continue;
            }
            match term.as_slice() {
                [] if r1 > 0 => newe[0] = 0,
                &[(d1, s1)] => {
                    let first = ceil_div(if s1 > 0 { b - o } else { e - o - 1 }, s1);
                    let last = floor_div(if s1 < 0 { b - o } else { e - o - 1 }, s1);
                    newb[d1] = newb[d1].max(first);
                    newe[d1] = newe[d1].min(last + 1);
                }
                _ => bad = true,
            }
        }
        let full = |(i, (&b, &e)): (usize, (&i64, &i64))| b == 0 && e == sz(vm1.shape[i]);
        if !newb.iter().zip(&newe).enumerate().all(full) {
            let mask: Vec<(usize, usize)> = newb
                .iter()
                .zip(&newe)
                .zip(&vm1.shape)
                .map(|((&b, &e), &s)| (b.clamp(0, sz(s)) as usize, e.clamp(0, sz(s)) as usize))
                .collect();
            let masked = View::create(vm1.shape.clone(), Some(vm1.strides.clone()), vm1.offset, Some(mask));
            // A mask that canonicalizes away gives back vm1 itself: tinygrad recurses forever here.
            if masked == *vm1 {
                return None;
            }
            return merge(vm2, &masked, depth + 1);
        }
        if bad {
            return None;
        }
    }

    let offset = origin.iter().zip(&vm2.strides).map(|(o, s)| o * s).sum::<i64>() + vm2.offset;
    Some(View::create(vm1.shape.clone(), Some(strides), offset, None))
}
