//! The CPU plan's 2-D max and average pools over (N, C, H, W): down each window's rows first,
//! whole input rows at a time (contiguous, so it vectorises), into one row that carries the
//! left padding and whatever the last window reaches past the input as the reduction's start
//! value; then across each output cell's columns of that row, with no bounds checks but the
//! window's own, and a paired path for the common 2-wide, stride-2 window.

use super::elementwise::max_nan;
use super::routine::Pool;

pub(super) fn run_pool(p: &Pool, x: &[f32], y: &mut [f32]) {
    let [h, w] = p.hw;
    let [oh, ow] = p.out;
    if oh == 0 || ow == 0 {
        return;
    }
    let avg = p.divisors.is_some();
    // Padding adds nothing to a sum (the divisors count the cells that do) and never wins a max.
    let start = if avg { 0.0 } else { f32::NEG_INFINITY };
    let left = p.pad[1];
    let span = (p.k[1] - 1) * p.dilation[1] + 1;
    let mut cols = vec![start; (left + w).max((ow - 1) * p.stride[1] + span)];
    for plane in 0..p.planes {
        let src = &x[plane * h * w..][..h * w];
        let dst = &mut y[plane * oh * ow..][..oh * ow];
        for (oy, out) in dst.chunks_exact_mut(ow).enumerate() {
            let inner = &mut cols[left..left + w];
            inner.fill(start);
            for ky in 0..p.k[0] {
                let iy = (oy * p.stride[0] + ky * p.dilation[0]).wrapping_sub(p.pad[0]);
                if iy >= h {
                    continue;
                }
                let row = &src[iy * w..][..w];
                if avg {
                    inner.iter_mut().zip(row).for_each(|(c, &v)| *c += v);
                } else {
                    inner.iter_mut().zip(row).for_each(|(c, &v)| *c = max_nan(*c, v));
                }
            }
            if p.k[1] == 2 && p.stride[1] == 2 && p.dilation[1] == 1 {
                let (pairs, _) = cols.as_chunks::<2>();
                if avg {
                    out.iter_mut().zip(pairs).for_each(|(v, c)| *v = c[0] + c[1]);
                } else {
                    out.iter_mut().zip(pairs).for_each(|(v, c)| *v = max_nan(c[0], c[1]));
                }
            } else {
                for (ox, v) in out.iter_mut().enumerate() {
                    let taps = cols[ox * p.stride[1]..][..span].iter().step_by(p.dilation[1]);
                    *v = if avg { taps.sum() } else { taps.fold(f32::NEG_INFINITY, |m, &c| max_nan(m, c)) };
                }
            }
            if let Some(d) = &p.divisors {
                out.iter_mut().zip(&d[oy * ow..][..ow]).for_each(|(v, &d)| *v /= d);
            }
        }
    }
}
