//! The CPU plan's Gemm and MatMul: the packed, cache-blocked SGEMM of [`crate::sgemm`] over
//! strided operands, once per batch entry.

use super::routine::Gemm;
use crate::sgemm::sgemm;

pub(super) fn run_gemm(g: &Gemm, a: &[f32], b: &[f32], c: Option<&[f32]>, y: &mut [f32]) {
    let (mk, kn, mn) = (g.m * g.k, g.k * g.n, g.m * g.n);
    // C (a Gemm's, or a bias folded into a MatMul) is the same for every batch entry.
    let beta = match (c, g.c) {
        (Some(c), Some(((sr, sc), beta))) => {
            for yt in y.chunks_mut(mn.max(1)).take(g.batch) {
                for i in 0..g.m {
                    for j in 0..g.n {
                        yt[i * g.n + j] = beta * c[i * sr + j * sc];
                    }
                }
            }
            1.0
        }
        _ => 0.0,
    };
    for t in 0..g.batch {
        let bt = if g.b_batched { &b[t * kn..][..kn] } else { b };
        sgemm((g.m, g.k, g.n), g.alpha, &a[t * mk..][..mk], g.a, bt, g.b, beta, &mut y[t * mn..][..mn], g.n);
    }
}
