//! The CPU plan's Gemm and MatMul: `matrixmultiply`'s packed, cache-blocked SGEMM over strided
//! operands, once per batch entry.

use super::routine::Gemm;

/// `c[m×n] = alpha · a[m×k] · b[k×n] + beta · c`, each matrix given by its slice and its row
/// and column strides; `c` is row-major with row stride `ldc`.
#[allow(clippy::too_many_arguments)]
fn sgemm(
    (m, k, n): (usize, usize, usize),
    alpha: f32,
    a: &[f32],
    (rsa, csa): (isize, isize),
    b: &[f32],
    (rsb, csb): (isize, isize),
    beta: f32,
    c: &mut [f32],
    ldc: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    let last = |rows: usize, cols: usize, (rs, cs): (isize, isize)| {
        (rows.saturating_sub(1) as isize * rs + cols.saturating_sub(1) as isize * cs) as usize
    };
    assert!(k == 0 || (last(m, k, (rsa, csa)) < a.len() && last(k, n, (rsb, csb)) < b.len()));
    assert!((m - 1) * ldc + n <= c.len());
    // SAFETY: the asserts above keep every element the strides reach inside `a`, `b` and `c`,
    // and `c` is borrowed mutably, so it aliases neither input.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            alpha,
            a.as_ptr(),
            rsa,
            csa,
            b.as_ptr(),
            rsb,
            csb,
            beta,
            c.as_mut_ptr(),
            ldc as isize,
            1,
        );
    }
}

pub(super) fn run_gemm(g: &Gemm, a: &[f32], b: &[f32], c: Option<&[f32]>, y: &mut [f32]) {
    let (mk, kn, mn) = (g.m * g.k, g.k * g.n, g.m * g.n);
    let beta = match (c, g.c) {
        (Some(c), Some(((sr, sc), beta))) => {
            for i in 0..g.m {
                for j in 0..g.n {
                    y[i * g.n + j] = beta * c[i * sr + j * sc];
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
