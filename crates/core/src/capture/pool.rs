//! The CPU plan's 2-D max and average pools over (N, C, H, W), with a check-free path for
//! windows that stay inside the input and a paired path for the common 2-wide, stride-2 window.

use super::elementwise::max_nan;
use super::routine::Pool;

pub(super) fn run_pool(p: &Pool, x: &[f32], y: &mut [f32]) {
    let [h, w] = p.hw;
    let [oh, ow] = p.out;
    let avg = p.divisors.is_some();
    let start = if avg { 0.0 } else { f32::NEG_INFINITY };
    // Whether every window lies inside the input along a dim: then its loop needs no checks.
    let inside = |d: usize, n: usize| p.pad[d] == 0 && (p.out[d] - 1) * p.stride[d] + (p.k[d] - 1) * p.dilation[d] < n;
    let interior = oh > 0 && ow > 0 && inside(0, h) && inside(1, w);
    let mut cols = vec![start; w];
    for plane in 0..p.planes {
        let src = &x[plane * h * w..][..h * w];
        let dst = &mut y[plane * oh * ow..][..oh * ow];
        for oy in 0..oh {
            let out = &mut dst[oy * ow..][..ow];
            if interior {
                // Down the window's rows first, whole input rows at a time (contiguous, so it
                // vectorises), then across each output cell's columns.
                cols.fill(start);
                for ky in 0..p.k[0] {
                    let row = &src[(oy * p.stride[0] + ky * p.dilation[0]) * w..][..w];
                    if avg {
                        cols.iter_mut().zip(row).for_each(|(c, &v)| *c += v);
                    } else {
                        cols.iter_mut().zip(row).for_each(|(c, &v)| *c = max_nan(*c, v));
                    }
                }
                if p.k[1] == 2 && p.stride[1] == 2 && p.dilation[1] == 1 {
                    // The common 2-wide, stride-2 window: pairs, which vectorise.
                    let (pairs, _) = cols.as_chunks::<2>();
                    if avg {
                        out.iter_mut().zip(pairs).for_each(|(v, c)| *v = c[0] + c[1]);
                    } else {
                        out.iter_mut().zip(pairs).for_each(|(v, c)| *v = max_nan(c[0], c[1]));
                    }
                } else {
                    for (ox, v) in out.iter_mut().enumerate() {
                        let at = |kx: usize| cols[ox * p.stride[1] + kx * p.dilation[1]];
                        *v = if avg {
                            (0..p.k[1]).map(at).sum()
                        } else {
                            (0..p.k[1]).map(at).fold(f32::NEG_INFINITY, max_nan)
                        };
                    }
                }
            } else {
                out.fill(start);
                for ky in 0..p.k[0] {
                    let iy = (oy * p.stride[0] + ky * p.dilation[0]).wrapping_sub(p.pad[0]);
                    if iy >= h {
                        continue;
                    }
                    let row = &src[iy * w..][..w];
                    for kx in 0..p.k[1] {
                        for (ox, v) in out.iter_mut().enumerate() {
                            let ix = (ox * p.stride[1] + kx * p.dilation[1]).wrapping_sub(p.pad[1]);
                            if ix < w {
                                *v = if avg { *v + row[ix] } else { max_nan(*v, row[ix]) };
                            }
                        }
                    }
                }
            }
            if let Some(d) = &p.divisors {
                out.iter_mut().zip(&d[oy * ow..][..ow]).for_each(|(v, &d)| *v /= d);
            }
        }
    }
}
