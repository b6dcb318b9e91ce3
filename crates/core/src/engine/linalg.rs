//! The dense linear algebra of `torch.linalg` that factorizes: `det`, `slogdet`, `inv`,
//! `solve`, `cholesky`. Each matrix of the batch is factorized on the host in float64 (LU with
//! partial pivoting, as LAPACK's getrf; Cholesky as potrf), and the result enters the graph as
//! a buffer in the input's dtype. These results carry no autograd history: the front end
//! refuses them where an input requires grad.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::{Engine, Tensor};
use crate::uop::buffer::Data;

/// The matrices of a `(*, m, n)` tensor, row-major, in float64.
struct Batch {
    lead: Vec<usize>,
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Batch {
    fn count(&self) -> usize {
        self.lead.iter().product()
    }

    fn matrix(&self, b: usize) -> &[f64] {
        let n = self.rows * self.cols;
        &self.data[b * n..(b + 1) * n]
    }
}

/// LU of a square matrix with partial pivoting: the factors in place, the pivot sign, and the
/// first zero pivot (1-based), if any.
fn lu(a: &mut [f64], n: usize, perm: &mut [usize]) -> (f64, Option<usize>) {
    let mut sign = 1.0;
    let mut singular = None;
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for k in 0..n {
        let p = (k..n).max_by(|&i, &j| a[i * n + k].abs().total_cmp(&a[j * n + k].abs())).unwrap_or(k);
        if p != k {
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
            }
            perm.swap(k, p);
            sign = -sign;
        }
        let d = a[k * n + k];
        if d == 0.0 {
            singular.get_or_insert(k + 1);
            continue;
        }
        for i in k + 1..n {
            let f = a[i * n + k] / d;
            a[i * n + k] = f;
            for j in k + 1..n {
                a[i * n + j] -= f * a[k * n + j];
            }
        }
    }
    (sign, singular)
}

/// Solves `A X = B` for the `k` columns of `b` (row-major n x k) with A's LU factors.
fn lu_solve(lu: &[f64], perm: &[usize], n: usize, b: &[f64], k: usize) -> Vec<f64> {
    let mut x = vec![0.0; n * k];
    for c in 0..k {
        let mut y: Vec<f64> = (0..n).map(|i| b[perm[i] * k + c]).collect();
        for i in 0..n {
            for j in 0..i {
                y[i] -= lu[i * n + j] * y[j];
            }
        }
        for i in (0..n).rev() {
            for j in i + 1..n {
                y[i] -= lu[i * n + j] * y[j];
            }
            y[i] /= lu[i * n + i];
        }
        for i in 0..n {
            x[i * k + c] = y[i];
        }
    }
    x
}

impl Engine {
    fn batch(&mut self, a: &Tensor, name: &str, square: bool) -> Result<Batch> {
        let s = a.shape();
        if s.len() < 2 {
            bail!(Shape, "{name}: The input tensor A must have at least 2 dimensions.");
        }
        let (rows, cols) = (s[s.len() - 2], s[s.len() - 1]);
        if square && rows != cols {
            bail!(Shape, "{name}: A must be batches of square matrices, but they are {rows} by {cols} matrices");
        }
        if !a.dtype().is_float() {
            bail!(
                DType,
                "{name}: Expected a floating point or complex tensor as input. Got {}",
                a.dtype().torch_name().trim_start_matches("torch.")
            );
        }
        let d = self.values(a)?;
        let data = (0..d.len()).map(|i| d.get_f64(i)).collect();
        Ok(Batch { lead: s[..s.len() - 2].to_vec(), rows, cols, data })
    }

    fn buffer_f64(&mut self, v: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
        let t = self.from_data(Data::F64(v), shape)?;
        if dtype == DType::Float64 {
            Ok(t)
        } else {
            self.cast(&t, dtype)
        }
    }

    /// A matrix result laid out as LAPACK writes it: each matrix column-major (strides
    /// `(..., 1, rows)`), batches row-major.
    fn column_major(&mut self, v: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
        let t = self.buffer_f64(v, shape, dtype)?;
        let nd = shape.len();
        let (rows, cols) = (shape[nd - 2], shape[nd - 1]);
        let mut strides = vec![0i64; nd];
        strides[nd - 2] = 1;
        strides[nd - 1] = rows.max(1) as i64;
        let mut step = (rows * cols).max(1) as i64;
        for d in (0..nd - 2).rev() {
            strides[d] = step;
            step *= shape[d].max(1) as i64;
        }
        let layout = crate::torch::layout::Layout::new(shape, &strides, 0);
        self.computed_as(t.node(), layout)
    }

    /// `linalg.slogdet`: (sign, log|det|) per matrix.
    pub fn slogdet(&mut self, a: &Tensor) -> Result<(Tensor, Tensor)> {
        let b = self.batch(a, "linalg.slogdet", true)?;
        let n = b.rows;
        let (mut signs, mut logs) = (Vec::new(), Vec::new());
        for i in 0..b.count() {
            let mut m = b.matrix(i).to_vec();
            let mut perm = vec![0; n];
            let (mut sign, singular) = lu(&mut m, n, &mut perm);
            if singular.is_some() {
                signs.push(0.0);
                logs.push(f64::NEG_INFINITY);
                continue;
            }
            let mut log = 0.0;
            for k in 0..n {
                let d = m[k * n + k];
                sign *= d.signum();
                log += d.abs().ln();
            }
            signs.push(sign);
            logs.push(log);
        }
        let s = self.buffer_f64(signs, &b.lead, a.dtype())?;
        let l = self.buffer_f64(logs, &b.lead, a.dtype())?;
        Ok((s, l))
    }

    /// `linalg.det`.
    pub fn det(&mut self, a: &Tensor) -> Result<Tensor> {
        let b = self.batch(a, "linalg.det", true)?;
        let n = b.rows;
        let mut out = Vec::with_capacity(b.count());
        for i in 0..b.count() {
            let mut m = b.matrix(i).to_vec();
            let mut perm = vec![0; n];
            let (sign, _) = lu(&mut m, n, &mut perm);
            out.push((0..n).fold(sign, |acc, k| acc * m[k * n + k]));
        }
        self.buffer_f64(out, &b.lead, a.dtype())
    }

    /// `linalg.solve(A, B)`, B of shape `(*, n)` or `(*, n, k)` (batch dims broadcast only
    /// when equal here); `linalg.inv` is the solve against the identity.
    pub fn solve(&mut self, a: &Tensor, rhs: Option<&Tensor>, name: &str) -> Result<Tensor> {
        let ab = self.batch(a, name, true)?;
        let n = ab.rows;
        let (bdata, k, out_shape) = match rhs {
            None => {
                let mut eye = vec![0.0; ab.count() * n * n];
                for m in 0..ab.count() {
                    for i in 0..n {
                        eye[m * n * n + i * n + i] = 1.0;
                    }
                }
                (eye, n, a.shape().to_vec())
            }
            Some(r) => {
                let vector = r.shape().len() == a.shape().len() - 1 || r.shape().len() == 1;
                let rb = if vector {
                    let col = self.unsqueeze(r, -1)?;
                    self.batch(&col, name, false)?
                } else {
                    self.batch(r, name, false)?
                };
                if rb.rows != n || (rb.count() != ab.count() && rb.count() != 1) {
                    bail!(
                        Shape,
                        "{name}: Incompatible shapes of A and B for the equation AX = B ({:?} and {:?})",
                        a.shape(),
                        r.shape()
                    );
                }
                let per = n * rb.cols;
                let data: Vec<f64> =
                    (0..ab.count()).flat_map(|m| rb.data[(m % rb.count()) * per..][..per].to_vec()).collect();
                let mut shape = ab.lead.clone();
                shape.push(n);
                if !vector {
                    shape.push(rb.cols);
                }
                (data, rb.cols, shape)
            }
        };
        let mut out = Vec::with_capacity(ab.count() * n * k);
        for m in 0..ab.count() {
            let mut f = ab.matrix(m).to_vec();
            let mut perm = vec![0; n];
            if let (_, Some(p)) = lu(&mut f, n, &mut perm) {
                bail!(
                    Shape,
                    "{name}: The solver failed because the input matrix is singular. (the diagonal element {p} of U is zero)"
                );
            }
            out.extend(lu_solve(&f, &perm, n, &bdata[m * n * k..(m + 1) * n * k], k));
        }
        if out_shape.len() == a.shape().len() {
            self.column_major(out, &out_shape, a.dtype())
        } else {
            self.buffer_f64(out, &out_shape, a.dtype())
        }
    }

    /// `linalg.cholesky`: the lower (or upper) factor of a symmetric positive-definite matrix.
    pub fn cholesky(&mut self, a: &Tensor, upper: bool) -> Result<Tensor> {
        let b = self.batch(a, "linalg.cholesky", true)?;
        let n = b.rows;
        let mut out = Vec::with_capacity(b.data.len());
        for m in 0..b.count() {
            let a = b.matrix(m);
            let mut l = vec![0.0; n * n];
            for j in 0..n {
                let mut d = a[j * n + j];
                for k in 0..j {
                    d -= l[j * n + k] * l[j * n + k];
                }
                if d <= 0.0 || d.is_nan() {
                    bail!(
                        Shape,
                        "linalg.cholesky: The factorization could not be completed because the input is not positive-definite (the leading minor of order {} is not positive-definite).",
                        j + 1
                    );
                }
                let d = d.sqrt();
                l[j * n + j] = d;
                for i in j + 1..n {
                    let mut s = a[i * n + j];
                    for k in 0..j {
                        s -= l[i * n + k] * l[j * n + k];
                    }
                    l[i * n + j] = s / d;
                }
            }
            if upper {
                for i in 0..n {
                    for j in 0..i {
                        l.swap(i * n + j, j * n + i);
                    }
                }
            }
            out.extend(l);
        }
        self.column_major(out, a.shape(), a.dtype())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lu_solves_a_pivoted_system() {
        // [[0, 2], [3, 1]] x = [4, 5] => x = [1, 2].
        let mut a = vec![0.0, 2.0, 3.0, 1.0];
        let mut perm = vec![0; 2];
        let (sign, singular) = lu(&mut a, 2, &mut perm);
        assert_eq!((sign, singular), (-1.0, None));
        let x = lu_solve(&a, &perm, 2, &[4.0, 5.0], 1);
        assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12, "{x:?}");
    }
}
