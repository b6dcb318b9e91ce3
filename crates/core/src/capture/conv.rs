//! The CPU plan's 2-D convolution: weights packed once per plan into 4-channel blocks, a 4 × 8
//! register tile (eight 4-lane accumulators), and the pixels read straight from a zero-padded
//! copy of the input (im2col into 8-pixel blocks only for convolutions strided along rows).
//!
//! A GEMM library would repack both operands on every call, and its wasm kernel holds sixteen
//! accumulators, more than the sixteen vector registers V8 has on x86-64 once the operands are
//! loaded, so it spills. Packing the weights at plan time and the columns straight from the
//! image into the tile's layout leaves one small kernel that the page runs at several times the
//! GEMM's speed; reading the padded input in place skips im2col, which cost as much as the
//! arithmetic for the sample model's small channel counts. Lanes are wasm `simd128` vectors in the page and plain arrays natively, so the
//! same code is what the native tests run.

use super::routine::{Conv, ConvKernel};
use crate::sgemm::sgemm;

/// Output channels per tile and pixels per tile.
const OC: usize = 4;
const PX: usize = 8;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod lanes {
    use core::arch::wasm32::*;

    #[derive(Clone, Copy)]
    pub struct F4(v128);

    impl F4 {
        #[inline(always)]
        pub fn splat(v: f32) -> F4 {
            F4(f32x4_splat(v))
        }
        #[inline(always)]
        pub fn load(a: &[f32; 4]) -> F4 {
            // SAFETY: `a` is 16 readable bytes; v128 loads need no alignment.
            F4(unsafe { v128_load(a.as_ptr().cast()) })
        }
        #[inline(always)]
        pub fn store(self, a: &mut [f32; 4]) {
            // SAFETY: `a` is 16 writable bytes, borrowed exclusively.
            unsafe { v128_store(a.as_mut_ptr().cast(), self.0) }
        }
        #[inline(always)]
        pub fn load_splat(v: &f32) -> F4 {
            // SAFETY: `v` is 4 readable bytes.
            F4(unsafe { v128_load32_splat((v as *const f32).cast()) })
        }
        /// `self * b + c`, rounded twice like the plain version.
        #[inline(always)]
        pub fn mul_add(self, b: F4, c: F4) -> F4 {
            F4(f32x4_add(f32x4_mul(self.0, b.0), c.0))
        }
        #[inline(always)]
        pub fn relu(self) -> F4 {
            // `v > 0 ? v : 0`, so NaN becomes 0 as in the other Relu kernels.
            F4(v128_and(self.0, f32x4_gt(self.0, f32x4_splat(0.0))))
        }
        /// Lane-wise maximum; NaN wins, as in the other max kernels.
        #[inline(always)]
        pub fn max(self, b: F4) -> F4 {
            F4(f32x4_max(self.0, b.0))
        }
        /// The maxima of neighbouring lanes of `self` then `b`: eight values to four.
        #[inline(always)]
        pub fn pair_max(self, b: F4) -> F4 {
            F4(f32x4_max(i32x4_shuffle::<0, 2, 4, 6>(self.0, b.0), i32x4_shuffle::<1, 3, 5, 7>(self.0, b.0)))
        }
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod lanes {
    use crate::capture::elementwise::max_nan;

    #[derive(Clone, Copy)]
    pub struct F4([f32; 4]);

    impl F4 {
        #[inline(always)]
        pub fn splat(v: f32) -> F4 {
            F4([v; 4])
        }
        #[inline(always)]
        pub fn load(a: &[f32; 4]) -> F4 {
            F4(*a)
        }
        #[inline(always)]
        pub fn store(self, a: &mut [f32; 4]) {
            *a = self.0;
        }
        #[inline(always)]
        pub fn load_splat(v: &f32) -> F4 {
            F4([*v; 4])
        }
        #[inline(always)]
        pub fn mul_add(self, b: F4, c: F4) -> F4 {
            F4(std::array::from_fn(|i| self.0[i] * b.0[i] + c.0[i]))
        }
        #[inline(always)]
        pub fn relu(self) -> F4 {
            F4(self.0.map(|v| if v > 0.0 { v } else { 0.0 }))
        }
        #[inline(always)]
        pub fn max(self, b: F4) -> F4 {
            F4(std::array::from_fn(|i| max_nan(self.0[i], b.0[i])))
        }
        #[inline(always)]
        pub fn pair_max(self, b: F4) -> F4 {
            let (x, y) = (self.0, b.0);
            F4([max_nan(x[0], x[1]), max_nan(x[2], x[3]), max_nan(y[0], y[1]), max_nan(y[2], y[3])])
        }
    }
}

use lanes::F4;

/// The kernel this build runs `c` with. Natively, the GEMM wherever a group has output channels
/// enough to fill its rows (the native GEMM picks AVX2/FMA or AVX-512 microkernels at run time, which
/// the portable tile cannot use); the tile for depthwise-like groups and a folded 2×2 pool. In
/// the page, always the tile (see the module's note on wasm).
pub(super) fn kernel_for(c: &Conv) -> ConvKernel {
    let native = !cfg!(target_arch = "wasm32");
    if native && !c.pool && c.oc / c.groups >= 8 {
        ConvKernel::Gemm
    } else {
        ConvKernel::Tile
    }
}

/// The weights as `c.kernel` reads them: the tile's channel blocks, or nothing for the GEMM,
/// which reads them as stored.
pub(super) fn pack_weights(c: &Conv, w: &[f32]) -> Vec<f32> {
    match c.kernel {
        ConvKernel::Tile => pack_tile(c, w),
        ConvKernel::Gemm => Vec::new(),
    }
}

/// Runs the convolution with `c.kernel` on the weights `w` as stored (the tile reads
/// `c.packed`, or packs `w` now when the plan could not).
pub(super) fn run(c: &Conv, x: &[f32], w: &[f32], bias: Option<&[f32]>, y: &mut [f32], scratch: &mut Vec<f32>) {
    match c.kernel {
        ConvKernel::Tile if c.packed.is_empty() => run_tile(c, x, &pack_tile(c, w), bias, y, scratch),
        ConvKernel::Tile => run_tile(c, x, &c.packed, bias, y, scratch),
        ConvKernel::Gemm => run_gemm(c, x, w, bias, y, scratch),
    }
}

/// One group's weights as `[channel block][k][OC]`, zero-padded to whole blocks.
fn pack_tile(c: &Conv, w: &[f32]) -> Vec<f32> {
    let (og, kk) = (c.oc / c.groups, c.c / c.groups * c.k[0] * c.k[1]);
    let blocks = og.div_ceil(OC);
    let mut out = vec![0.0; c.groups * blocks * kk * OC];
    for g in 0..c.groups {
        for o in 0..og {
            let (b, lane) = (o / OC, o % OC);
            for k in 0..kk {
                out[((g * blocks + b) * kk + k) * OC + lane] = w[(g * og + o) * kk + k];
            }
        }
    }
    out
}

/// The register-tile convolution; `packed` is [`pack_tile`]'s.
fn run_tile(c: &Conv, x: &[f32], packed: &[f32], bias: Option<&[f32]>, y: &mut [f32], scratch: &mut Vec<f32>) {
    let (cg, og) = (c.c / c.groups, c.oc / c.groups);
    let [h, w] = c.hw;
    let p = c.out[0] * c.out[1];
    // Pixels per output channel: the pooled ones when a pool is folded in.
    let plane = if c.pool { (c.out[0] / 2) * (c.out[1] / 2) } else { p };
    let kk = cg * c.k[0] * c.k[1];
    let oblocks = og.div_ceil(OC);
    let direct = Direct::new(c);
    let cols_len = match &direct {
        Some(d) => cg * d.rows * d.width,
        None => p.div_ceil(PX) * kk * PX + p.div_ceil(PX) * PX,
    };
    scratch.resize(cols_len, 0.0);
    for img in 0..c.n {
        for g in 0..c.groups {
            let xg = &x[(img * c.c + g * cg) * h * w..][..cg * h * w];
            let wg = &packed[g * oblocks * kk * OC..][..oblocks * kk * OC];
            let yg = &mut y[(img * c.oc + g * og) * plane..][..og * plane];
            let bias_of = |o0: usize| -> [f32; OC] {
                std::array::from_fn(|i| match bias {
                    Some(b) if o0 + i < og => b[g * og + o0 + i],
                    _ => 0.0,
                })
            };
            match &direct {
                Some(d) if c.pool => {
                    d.pad(c, xg, scratch);
                    let [ph, pw] = [c.out[0] / 2, c.out[1] / 2];
                    for py in 0..ph {
                        for x0 in (0..2 * pw).step_by(PX) {
                            for ob in 0..oblocks {
                                let wb = &wg[ob * kk * OC..][..kk * OC];
                                let top = d.tile(c, scratch, 2 * py, x0, wb, bias_of(ob * OC));
                                let bottom = d.tile(c, scratch, 2 * py + 1, x0, wb, bias_of(ob * OC));
                                // Relu first, then the window's maximum, as the unfused kernels
                                // order them (that matters only for NaN).
                                let act = |v: F4| if c.relu { v.relu() } else { v };
                                let pooled: [F4; OC] = std::array::from_fn(|i| {
                                    let m0 = act(top[i][0]).max(act(bottom[i][0]));
                                    let m1 = act(top[i][1]).max(act(bottom[i][1]));
                                    m0.pair_max(m1)
                                });
                                let lanes = OC.min(og - ob * OC);
                                store4(&pooled[..lanes], yg, ob * OC, py * pw + x0 / 2, (pw - x0 / 2).min(4), ph * pw);
                            }
                        }
                    }
                }
                Some(d) => {
                    d.pad(c, xg, scratch);
                    let [oh, ow] = c.out;
                    for oy in 0..oh {
                        for x0 in (0..ow).step_by(PX) {
                            for ob in 0..oblocks {
                                let wb = &wg[ob * kk * OC..][..kk * OC];
                                let acc = d.tile(c, scratch, oy, x0, wb, bias_of(ob * OC));
                                store(&acc, yg, ob * OC, OC.min(og - ob * OC), oy * ow + x0, PX.min(ow - x0), p, c);
                            }
                        }
                    }
                }
                None => {
                    let (cols, row) = scratch.split_at_mut(p.div_ceil(PX) * kk * PX);
                    im2col(c, xg, cols, row);
                    for pb in 0..p.div_ceil(PX) {
                        let block = &cols[pb * kk * PX..][..kk * PX];
                        for ob in 0..oblocks {
                            let acc = tile(&wg[ob * kk * OC..][..kk * OC], block, bias_of(ob * OC));
                            store(&acc, yg, ob * OC, OC.min(og - ob * OC), pb * PX, PX.min(p - pb * PX), p, c);
                        }
                    }
                }
            }
        }
    }
}

/// One step of a tile: four channels' weights for one `k` times eight pixels' values.
#[inline(always)]
fn step(acc: &mut [[F4; 2]; OC], w: &[f32; OC], c: &[f32]) {
    let (c, _) = c.as_chunks::<4>();
    let (c0, c1) = (F4::load(&c[0]), F4::load(&c[1]));
    // One broadcast load per weight (a single instruction) rather than a load and four shuffles.
    for (a, wi) in acc.iter_mut().zip(w) {
        let wi = F4::load_splat(wi);
        a[0] = wi.mul_add(c0, a[0]);
        a[1] = wi.mul_add(c1, a[1]);
    }
}

/// `bias + W·cols` for four output channels and eight im2col pixels.
#[inline(always)]
fn tile(w: &[f32], cols: &[f32], bias: [f32; OC]) -> [[F4; 2]; OC] {
    let mut acc = bias.map(|b| [F4::splat(b); 2]);
    let (w, _) = w.as_chunks::<OC>();
    for (w, c) in w.iter().zip(cols.chunks_exact(PX)) {
        step(&mut acc, w, c);
    }
    acc
}

/// The convolution without im2col, when the window moves one pixel at a time along rows:
/// each (channel, ky, kx) then reads eight neighbouring pixels of a zero-padded copy of the
/// input, which is wide enough that a tile running past a row's end reads zeros, not the next
/// row's values out of bounds.
struct Direct {
    rows: usize,
    width: usize,
}

impl Direct {
    fn new(c: &Conv) -> Option<Direct> {
        if c.stride[1] != 1 {
            return None;
        }
        let [h, w] = c.hw;
        let [oh, ow] = c.out;
        let last_row = (oh.max(1) - 1) * c.stride[0] + (c.k[0] - 1) * c.dilation[0];
        let last_col = ow.div_ceil(PX) * PX - 1 + (c.k[1] - 1) * c.dilation[1];
        Some(Direct { rows: (c.pad[0] + h).max(last_row + 1), width: (c.pad[1] + w).max(last_col + 1) })
    }

    /// Copies one group's channels into `buf` with the padding as zeros.
    fn pad(&self, c: &Conv, x: &[f32], buf: &mut [f32]) {
        let [h, w] = c.hw;
        buf.fill(0.0);
        for (src, dst) in x.chunks_exact(h * w).zip(buf.chunks_exact_mut(self.rows * self.width)) {
            for (r, row) in src.chunks_exact(w).enumerate() {
                dst[(c.pad[0] + r) * self.width + c.pad[1]..][..w].copy_from_slice(row);
            }
        }
    }

    /// Output row `oy`, pixels `x0..x0 + PX`, for one block of channels.
    #[inline(always)]
    fn tile(&self, c: &Conv, buf: &[f32], oy: usize, x0: usize, w: &[f32], bias: [f32; OC]) -> [[F4; 2]; OC] {
        let mut acc = bias.map(|b| [F4::splat(b); 2]);
        let (mut w, _) = w.as_chunks::<OC>();
        for plane in buf.chunks_exact(self.rows * self.width) {
            for ky in 0..c.k[0] {
                let row = &plane[(oy * c.stride[0] + ky * c.dilation[0]) * self.width + x0..];
                if let (true, Some(win), Some((wk, rest))) =
                    (c.k[1] == 3 && c.dilation[1] == 1, row.first_chunk::<{ PX + 2 }>(), w.split_first_chunk::<3>())
                {
                    // The common 3-wide window, unrolled over fixed-size views: no bounds checks.
                    step(&mut acc, &wk[0], &win[..PX]);
                    step(&mut acc, &wk[1], &win[1..PX + 1]);
                    step(&mut acc, &wk[2], &win[2..]);
                    w = rest;
                    continue;
                }
                for kx in 0..c.k[1] {
                    let Some((wk, rest)) = w.split_first() else { return acc };
                    step(&mut acc, wk, &row[kx * c.dilation[1]..][..PX]);
                    w = rest;
                }
            }
        }
        acc
    }
}

/// Writes up to four lanes of `v` into `out` (its length says how many): one vector store when
/// all four fit, lane by lane otherwise (a slice copy would be a memcpy call per tile in wasm).
#[inline(always)]
fn put(v: F4, out: &mut [f32]) {
    match <&mut [f32; 4]>::try_from(&mut *out) {
        Ok(quad) => v.store(quad),
        Err(_) => {
            let mut t = [0.0f32; 4];
            v.store(&mut t);
            out.iter_mut().zip(t).for_each(|(o, x)| *o = x);
        }
    }
}

/// Writes four pooled pixels (`n` of them valid) of each channel in `v`, from pixel `p0` of
/// each channel's `p` pixels.
fn store4(v: &[F4], y: &mut [f32], o0: usize, p0: usize, n: usize, p: usize) {
    for (i, &v) in v.iter().enumerate() {
        put(v, &mut y[(o0 + i) * p + p0..][..n]);
    }
}

/// Writes a tile's first `lanes` channels and `n` pixels, from pixel `p0` of each channel's
/// `p` pixels, applying `c`'s folded Relu if it has one.
#[allow(clippy::too_many_arguments)]
fn store(acc: &[[F4; 2]; OC], y: &mut [f32], o0: usize, lanes: usize, p0: usize, n: usize, p: usize, c: &Conv) {
    for (i, a) in acc.iter().enumerate().take(lanes) {
        let a = if c.relu { a.map(F4::relu) } else { *a };
        let (first, rest) = y[(o0 + i) * p + p0..][..n].split_at_mut(n.min(4));
        put(a[0], first);
        put(a[1], rest);
    }
}

/// Lays out one group of one image as `[pixel block][k][PX]`: the values each output pixel's
/// window reads, zero where it reads padding or past the last pixel.
fn im2col(c: &Conv, x: &[f32], cols: &mut [f32], row: &mut [f32]) {
    let [h, w] = c.hw;
    let [oh, ow] = c.out;
    let p = oh * ow;
    let kk = cols.len() / row.len();
    row[p..].fill(0.0);
    let mut k = 0;
    for ch in 0..c.c / c.groups {
        let plane = &x[ch * h * w..][..h * w];
        for ky in 0..c.k[0] {
            for kx in 0..c.k[1] {
                for oy in 0..oh {
                    window_row(c, plane, [ky, kx], oy, &mut row[oy * ow..][..ow]);
                }
                for (b, chunk) in row.chunks_exact(PX).enumerate() {
                    cols[(b * kk + k) * PX..][..PX].copy_from_slice(chunk);
                }
                k += 1;
            }
        }
    }
}

/// The values that tap `(ky, kx)` of output row `oy`'s windows read from one input plane: one
/// per output column, zero where the window reads padding.
#[inline]
fn window_row(c: &Conv, plane: &[f32], [ky, kx]: [usize; 2], oy: usize, out: &mut [f32]) {
    let [h, w] = c.hw;
    let ow = out.len();
    let iy = (oy * c.stride[0] + ky * c.dilation[0]).wrapping_sub(c.pad[0]);
    if iy >= h {
        out.fill(0.0);
        return;
    }
    let src = &plane[iy * w..][..w];
    let x0 = kx * c.dilation[1];
    if c.stride[1] == 1 {
        // Contiguous: the part of the row inside the input, zeros either side.
        let lo = c.pad[1].saturating_sub(x0).min(ow);
        let hi = (w + c.pad[1]).saturating_sub(x0).min(ow).max(lo);
        out[..lo].fill(0.0);
        if lo < hi {
            out[lo..hi].copy_from_slice(&src[lo + x0 - c.pad[1]..hi + x0 - c.pad[1]]);
        }
        out[hi..].fill(0.0);
    } else {
        for (ox, v) in out.iter_mut().enumerate() {
            let ix = (ox * c.stride[1] + x0).wrapping_sub(c.pad[1]);
            *v = if ix < w { src[ix] } else { 0.0 };
        }
    }
}

/// Pixels per GEMM block (rounded up to whole output rows): the GEMM's own column panel, so
/// that the weights are packed once per panel and the block's im2col columns are still in cache
/// when it packs them. Measured on ResNet-18: smaller blocks repack the weights more often
/// (the deep layers' weights are megabytes), larger ones gain nothing.
const GEMM_PIXELS: usize = 1024;

/// The convolution as GEMMs: per image and group, blocks of whole output rows whose im2col
/// columns (`[k][pixel]`) are multiplied by the weights as stored (`[oc][k]`) straight into the
/// output, which holds the bias beforehand; a folded Relu is applied to each block while it is
/// in cache. A 1×1, stride-1, unpadded convolution reads the input itself as its columns.
fn run_gemm(c: &Conv, x: &[f32], w: &[f32], bias: Option<&[f32]>, y: &mut [f32], scratch: &mut Vec<f32>) {
    let (cg, og) = (c.c / c.groups, c.oc / c.groups);
    let [h, wd] = c.hw;
    let [oh, ow] = c.out;
    let p = oh * ow;
    let kk = cg * c.k[0] * c.k[1];
    let pointwise = c.k == [1, 1] && c.stride == [1, 1] && c.pad == [0, 0] && c.out == c.hw;
    let rows = GEMM_PIXELS.div_ceil(ow.max(1)).clamp(1, oh.max(1));
    if !pointwise {
        scratch.resize(kk * rows * ow, 0.0);
    }
    for img in 0..c.n {
        for g in 0..c.groups {
            let xg = &x[(img * c.c + g * cg) * h * wd..][..cg * h * wd];
            let wg = &w[g * og * kk..][..og * kk];
            let yg = &mut y[(img * c.oc + g * og) * p..][..og * p];
            for (o, yo) in yg.chunks_exact_mut(p).enumerate() {
                yo.fill(bias.map_or(0.0, |b| b[g * og + o]));
            }
            for oy0 in (0..oh).step_by(rows) {
                let nb = rows.min(oh - oy0) * ow;
                let cols: &[f32] = if pointwise {
                    &xg[oy0 * ow..]
                } else {
                    let cols = &mut scratch[..kk * nb];
                    for (k, row) in cols.chunks_exact_mut(nb).enumerate() {
                        let (ch, tap) = (k / (c.k[0] * c.k[1]), k % (c.k[0] * c.k[1]));
                        let plane = &xg[ch * h * wd..][..h * wd];
                        for (r, out) in row.chunks_exact_mut(ow).enumerate() {
                            window_row(c, plane, [tap / c.k[1], tap % c.k[1]], oy0 + r, out);
                        }
                    }
                    cols
                };
                let ld = if pointwise { p } else { nb };
                let out = &mut yg[oy0 * ow..];
                sgemm((og, kk, nb), 1.0, wg, (kk as isize, 1), cols, (ld as isize, 1), 1.0, out, p);
                if c.relu {
                    for row in out.chunks_mut(p) {
                        row[..nb].iter_mut().for_each(|v| *v = if *v > 0.0 { *v } else { 0.0 });
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    // A panic is how a test reports failure.
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::engine::nn::{PoolKind, Window2d};
    use crate::tensor::Engine;
    use crate::uop::buffer::Data;
    use crate::uop::UnaryOp;

    struct Case {
        n: usize,
        c: usize,
        hw: [usize; 2],
        oc: usize,
        k: [usize; 2],
        groups: usize,
        stride: [usize; 2],
        dilation: [usize; 2],
        pad: [usize; 2],
        bias: bool,
        relu: bool,
        pool: bool,
    }

    const fn case(n: usize, c: usize, hw: [usize; 2], oc: usize, k: [usize; 2]) -> Case {
        let one = [1, 1];
        Case {
            n,
            c,
            hw,
            oc,
            k,
            groups: 1,
            stride: one,
            dilation: one,
            pad: [0, 0],
            bias: true,
            relu: false,
            pool: false,
        }
    }

    /// The direct path and the im2col path (strided along rows), channel and pixel counts
    /// that leave partial tiles, groups, dilation, 1×1, Relu and 2×2 pools folded in (odd
    /// sizes drop the last row and column), and the sample model's two convolutions.
    const CASES: [Case; 11] = [
        Case { pad: [1, 1], relu: true, ..case(2, 3, [7, 9], 5, [3, 3]) },
        Case { groups: 2, stride: [2, 2], ..case(1, 4, [8, 8], 6, [3, 3]) },
        Case { dilation: [2, 2], pad: [2, 2], bias: false, relu: true, ..case(2, 2, [9, 11], 3, [3, 2]) },
        Case { stride: [2, 1], pad: [1, 0], ..case(1, 3, [10, 6], 4, [3, 3]) },
        Case { bias: false, ..case(3, 5, [4, 5], 7, [1, 1]) },
        Case { groups: 3, stride: [1, 3], pad: [1, 1], relu: true, ..case(1, 3, [9, 13], 3, [2, 3]) },
        Case { pad: [1, 1], relu: true, pool: true, ..case(2, 3, [7, 9], 5, [3, 3]) },
        Case { groups: 2, pad: [0, 1], pool: true, ..case(1, 4, [11, 20], 6, [2, 3]) },
        Case { pad: [1, 1], relu: true, pool: true, ..case(3, 8, [14, 14], 16, [3, 3]) },
        Case { pad: [1, 1], relu: true, pool: true, ..case(2, 1, [28, 28], 8, [3, 3]) },
        Case { pad: [1, 1], relu: true, ..case(3, 8, [14, 14], 16, [3, 3]) },
    ];

    fn values(n: usize, seed: usize) -> Vec<f32> {
        (0..n).map(|i| (((i * 7919 + seed * 104_729) % 2003) as f32 / 1001.5) - 1.0).collect()
    }

    /// Every case against the interpreter's `conv2d`, then its Relu and 2×2 max pool.
    #[test]
    fn convolutions_match_the_interpreter() {
        for (i, t) in CASES.iter().enumerate() {
            let out: [usize; 2] =
                std::array::from_fn(|d| (t.hw[d] + 2 * t.pad[d] - t.dilation[d] * (t.k[d] - 1) - 1) / t.stride[d] + 1);
            for kernel in [ConvKernel::Tile, ConvKernel::Gemm] {
                if kernel == ConvKernel::Gemm && t.pool {
                    // `kernel_for` never folds a pool into the GEMM.
                    continue;
                }
                let conv = Conv {
                    n: t.n,
                    c: t.c,
                    hw: t.hw,
                    oc: t.oc,
                    k: t.k,
                    groups: t.groups,
                    stride: t.stride,
                    dilation: t.dilation,
                    pad: t.pad,
                    out,
                    bias: t.bias,
                    relu: t.relu,
                    pool: t.pool,
                    kernel,
                    packed: Vec::new(),
                };
                let (xs, ws) = ([t.n, t.c, t.hw[0], t.hw[1]], [t.oc, t.c / t.groups, t.k[0], t.k[1]]);
                let (x, w, b) = (values(xs.iter().product(), 1), values(ws.iter().product(), 2), values(t.oc, 3));
                let shape = if t.pool { [t.n, t.oc, out[0] / 2, out[1] / 2] } else { [t.n, t.oc, out[0], out[1]] };
                let mut y = vec![f32::NAN; shape.iter().product()];
                run(&conv, &x, &w, t.bias.then_some(b.as_slice()), &mut y, &mut Vec::new());

                let mut e = Engine::new();
                let xt = e.from_data(Data::F32(x), &xs).unwrap();
                let wt = e.from_data(Data::F32(w), &ws).unwrap();
                let bt = t.bias.then(|| e.from_data(Data::F32(b), &[t.oc]).unwrap());
                let win =
                    Window2d { kernel: t.k, stride: t.stride, padding: t.pad, dilation: t.dilation, ceil_mode: false };
                let mut want = e.conv2d(&xt, &wt, bt.as_ref(), win, t.groups).unwrap();
                if t.relu {
                    want = e.unary(UnaryOp::Relu, &want).unwrap();
                }
                if t.pool {
                    let two = Window2d {
                        kernel: [2, 2],
                        stride: [2, 2],
                        padding: [0, 0],
                        dilation: [1, 1],
                        ceil_mode: false,
                    };
                    want = e.pool2d(&want, two, PoolKind::Max).unwrap();
                }
                assert_eq!(want.shape(), shape, "case {i}");
                let want = e.values(&want).unwrap().to_f64_vec();
                for (j, (&got, &want)) in y.iter().zip(&want).enumerate() {
                    assert!(
                        (f64::from(got) - want).abs() <= 1e-4 * (1.0 + want.abs()),
                        "case {i} ({kernel:?}) element {j}: {got} vs {want}"
                    );
                }
            }
        }
    }
}
