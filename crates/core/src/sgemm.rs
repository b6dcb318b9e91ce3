//! Single-precision matrix products over strided operands: a packed, cache-blocked SGEMM (the
//! `gemm` crate natively, with run-time AVX2/FMA, AVX-512 or NEON microkernels; `matrixmultiply`'s
//! simd128 kernels in the browser), behind one safe function that checks every element the
//! strides reach. The CPU model plan and the training plan both call it.

/// `c[m×n] = alpha · a[m×k] · b[k×n] + beta · c`, each matrix given by its slice and its row
/// and column strides; `c` is row-major with row stride `ldc`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sgemm(
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
    // One row or one column of output: a matrix-vector product, which the GEMM would run after
    // packing the whole matrix for a single pass over it.
    if m == 1 && k > 0 && gemv(k, n, alpha, a, csa, b, (rsb, csb), beta, c, 1) {
        return;
    }
    if n == 1 && k > 0 && gemv(k, m, alpha, b, rsb, a, (csa, rsa), beta, c, ldc) {
        return;
    }
    packed_gemm((m, k, n), alpha, a, (rsa, csa), b, (rsb, csb), beta, c, ldc);
}

/// The packed GEMM: natively `gemm`'s kernels (its `alpha` scales the destination, its `beta`
/// the product), in the browser `matrixmultiply`'s simd128 kernels.
#[allow(clippy::too_many_arguments)]
fn packed_gemm(
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
    // SAFETY (both): `sgemm`'s asserts keep every element the strides reach inside `a`, `b` and
    // `c`, and `c` is borrowed mutably, so it aliases neither input.
    #[cfg(not(target_arch = "wasm32"))]
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            ldc as isize,
            beta != 0.0,
            a.as_ptr(),
            csa,
            rsa,
            b.as_ptr(),
            csb,
            rsb,
            beta,
            alpha,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
    #[cfg(target_arch = "wasm32")]
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

/// `c[j·inc] = alpha · Σ_p x[p·xs] · mat[p·rs + j·cs] + beta · c[j·inc]` for `j < n`, when the
/// matrix is contiguous along `p` (dot products) or along `j` (scaled row sums); `false` for any
/// other layout, left to the GEMM. A zero `beta` ignores `c`, as the GEMM does.
#[allow(clippy::too_many_arguments)]
fn gemv(
    k: usize,
    n: usize,
    alpha: f32,
    x: &[f32],
    xs: isize,
    mat: &[f32],
    (rs, cs): (isize, isize),
    beta: f32,
    c: &mut [f32],
    inc: usize,
) -> bool {
    let put = |c: &mut f32, s: f32| *c = alpha * s + if beta == 0.0 { 0.0 } else { beta * *c };
    if xs == 1 && rs == 1 && cs >= 0 {
        // Eight partial sums, so that the loop vectorises.
        let x = &x[..k];
        for j in 0..n {
            let row = &mat[j * cs as usize..][..k];
            let mut acc = [0.0f32; 8];
            let (xc, xr) = x.as_chunks::<8>();
            let (rc, rr) = row.as_chunks::<8>();
            for (a, b) in xc.iter().zip(rc) {
                for l in 0..8 {
                    acc[l] += a[l] * b[l];
                }
            }
            let tail: f32 = xr.iter().zip(rr).map(|(a, b)| a * b).sum();
            put(&mut c[j * inc], acc.iter().sum::<f32>() + tail);
        }
        true
    } else if cs == 1 && rs >= 0 && xs >= 0 {
        let mut acc = vec![0.0f32; n];
        for p in 0..k {
            let v = x[p * xs as usize];
            acc.iter_mut().zip(&mat[p * rs as usize..][..n]).for_each(|(s, &m)| *s += v * m);
        }
        for (j, s) in acc.into_iter().enumerate() {
            put(&mut c[j * inc], s);
        }
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::sgemm;

    /// One-row and one-column products (the matrix-vector paths) and a full one, with either
    /// operand transposed, against a plain f64 loop; `beta` 0 ignores a NaN already in `c`.
    #[test]
    fn products_match_a_plain_loop() {
        let vals = |n: usize, seed: usize| -> Vec<f32> {
            (0..n).map(|i| ((i * 37 + seed * 11) % 23) as f32 / 7.0 - 1.5).collect()
        };
        for (m, k, n) in [(1, 13, 9), (7, 19, 1), (1, 1, 1), (4, 9, 5)] {
            for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
                for beta in [0.0f32, 0.5] {
                    let (a, b) = (vals(m * k, 1), vals(k * n, 2));
                    let sa = if ta { (1, m as isize) } else { (k as isize, 1) };
                    let sb = if tb { (1, k as isize) } else { (n as isize, 1) };
                    let ldc = n + 2;
                    let c0: Vec<f32> = (0..m * ldc).map(|i| if beta == 0.0 { f32::NAN } else { i as f32 }).collect();
                    let mut c = c0.clone();
                    sgemm((m, k, n), 2.0, &a, sa, &b, sb, beta, &mut c, ldc);
                    for i in 0..m {
                        for j in 0..n {
                            let at =
                                |s: (isize, isize), r: usize, q: usize| (r as isize * s.0 + q as isize * s.1) as usize;
                            let dot: f64 =
                                (0..k).map(|p| f64::from(a[at(sa, i, p)]) * f64::from(b[at(sb, p, j)])).sum();
                            let old = if beta == 0.0 { 0.0 } else { f64::from(beta * c0[i * ldc + j]) };
                            let want = 2.0 * dot + old;
                            let got = f64::from(c[i * ldc + j]);
                            assert!(
                                (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                                "{m}x{k}x{n} {ta} {tb}: {got} vs {want}"
                            );
                        }
                    }
                }
            }
        }
    }
}
