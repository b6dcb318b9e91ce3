//! The training plan's float32 kernels, forward and backward, each the derivative PyTorch's
//! `derivatives.yaml` gives for its op. Convolutions are im2col + SGEMM per image (the columns
//! are kept for the weight gradient); products go through [`sgemm`] with the transposes as
//! strides, so no operand is ever copied to be transposed.

use crate::sgemm::sgemm;

/// A 2-D convolution's geometry: square kernel, stride 1, zero padding on every side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvGeometry {
    pub in_channels: usize,
    pub out_channels: usize,
    pub kernel: usize,
    pub padding: usize,
    /// The input plane.
    pub height: usize,
    pub width: usize,
}

impl ConvGeometry {
    pub fn out_height(&self) -> usize {
        self.height + 2 * self.padding + 1 - self.kernel
    }

    pub fn out_width(&self) -> usize {
        self.width + 2 * self.padding + 1 - self.kernel
    }

    /// Output positions per channel.
    pub fn positions(&self) -> usize {
        self.out_height() * self.out_width()
    }

    /// Rows of the column matrix: one per input channel and kernel tap.
    pub fn taps(&self) -> usize {
        self.in_channels * self.kernel * self.kernel
    }

    fn input_len(&self) -> usize {
        self.in_channels * self.height * self.width
    }

    fn output_len(&self) -> usize {
        self.out_channels * self.positions()
    }

    /// Calls `f(row, first position, first input index, length)` for every run of
    /// column-matrix cells that read consecutive inputs (cells in the padding read zero and
    /// are in no run): one run per input channel, kernel tap and output row.
    fn for_each_run(&self, mut f: impl FnMut(usize, usize, usize, usize)) {
        let (k, p, oh, ow) = (self.kernel, self.padding, self.out_height(), self.out_width());
        for c in 0..self.in_channels {
            for ky in 0..k {
                for kx in 0..k {
                    let row = (c * k + ky) * k + kx;
                    // Output columns ox whose input column ox + kx - p is inside the image.
                    let ox0 = p.saturating_sub(kx);
                    let ox1 = (self.width + p).saturating_sub(kx).min(ow);
                    if ox0 >= ox1 {
                        continue;
                    }
                    for oy in 0..oh {
                        let iy = oy + ky;
                        if iy < p || iy - p >= self.height {
                            continue;
                        }
                        let src = (c * self.height + iy - p) * self.width + ox0 + kx - p;
                        f(row, oy * ow + ox0, src, ox1 - ox0);
                    }
                }
            }
        }
    }
}

/// `y = conv2d(x, w, b)` for a batch, keeping each image's column matrix in `cols`.
pub fn conv_forward(g: &ConvGeometry, x: &[f32], w: &[f32], b: &[f32], y: &mut [f32], cols: &mut [f32]) {
    let (taps, pos) = (g.taps(), g.positions());
    let images = x.len() / g.input_len();
    for i in 0..images {
        let xi = &x[i * g.input_len()..][..g.input_len()];
        let ci = &mut cols[i * taps * pos..][..taps * pos];
        ci.fill(0.0);
        g.for_each_run(|row, p, src, n| ci[row * pos + p..][..n].copy_from_slice(&xi[src..][..n]));
        let yi = &mut y[i * g.output_len()..][..g.output_len()];
        for (o, plane) in yi.chunks_exact_mut(pos).enumerate() {
            plane.fill(b[o]);
        }
        sgemm((g.out_channels, taps, pos), 1.0, w, (taps as isize, 1), ci, (pos as isize, 1), 1.0, yi, pos);
    }
}

/// The weight and bias gradients of a convolution (`dw = Σ dy·colsᵀ`, `db = Σ dy`), and the
/// input gradient when `dx` is given (`dx = col2im(wᵀ·dy)`).
#[allow(clippy::too_many_arguments)]
pub fn conv_backward(
    g: &ConvGeometry,
    dy: &[f32],
    cols: &[f32],
    w: &[f32],
    dw: &mut [f32],
    db: &mut [f32],
    dx: Option<&mut [f32]>,
    scratch: &mut Vec<f32>,
) {
    let (taps, pos, out_len) = (g.taps(), g.positions(), g.output_len());
    let images = dy.len() / out_len;
    dw.fill(0.0);
    db.fill(0.0);
    for i in 0..images {
        let dyi = &dy[i * out_len..][..out_len];
        for (o, plane) in dyi.chunks_exact(pos).enumerate() {
            db[o] += plane.iter().sum::<f32>();
        }
        let ci = &cols[i * taps * pos..][..taps * pos];
        sgemm((g.out_channels, pos, taps), 1.0, dyi, (pos as isize, 1), ci, (1, pos as isize), 1.0, dw, taps);
    }
    let Some(dx) = dx else { return };
    scratch.resize(taps * pos, 0.0);
    for i in 0..images {
        let dyi = &dy[i * out_len..][..out_len];
        sgemm((taps, g.out_channels, pos), 1.0, w, (1, taps as isize), dyi, (pos as isize, 1), 0.0, scratch, pos);
        let dxi = &mut dx[i * g.input_len()..][..g.input_len()];
        dxi.fill(0.0);
        g.for_each_run(|row, p, dst, n| {
            for (d, s) in dxi[dst..][..n].iter_mut().zip(&scratch[row * pos + p..][..n]) {
                *d += s;
            }
        });
    }
}

/// `y = max(x, 0)`; NaN stays NaN (`v < 0` is false for it), as PyTorch's `clamp_min` keeps it.
/// A select, not a branch, so the loop vectorises.
pub fn relu_forward(x: &[f32], y: &mut [f32]) {
    for (o, &v) in y.iter_mut().zip(x) {
        *o = if v < 0.0 { 0.0 } else { v };
    }
}

/// `threshold_backward(dy, y, 0)`: the gradient where the result is above zero (or NaN),
/// zero elsewhere.
pub fn relu_backward(y: &[f32], dy: &[f32], dx: &mut [f32]) {
    for ((d, &g), &v) in dx.iter_mut().zip(dy).zip(y) {
        *d = if v <= 0.0 { 0.0 } else { g };
    }
}

/// Max pooling with window and stride `k` over `planes` planes of `h`×`w`, recording in
/// `argmax` the input index each output came from: the first maximum in row-major window
/// order, NaN winning, as PyTorch's CPU kernel picks it.
pub fn maxpool_forward(x: &[f32], planes: usize, (h, w): (usize, usize), k: usize, y: &mut [f32], argmax: &mut [u32]) {
    let (oh, ow) = (h / k, w / k);
    for p in 0..planes {
        let xp = &x[p * h * w..][..h * w];
        for oy in 0..oh {
            let o = (p * oh + oy) * ow;
            let (yr, ar) = (&mut y[o..][..ow], &mut argmax[o..][..ow]);
            if k == 2 {
                let base = p * h * w + 2 * oy * w;
                pool2_row(&xp[2 * oy * w..][..2 * w], w, base, yr, ar);
                continue;
            }
            for ox in 0..ow {
                // The first cell starts as the maximum (PyTorch starts from -inf at the first
                // index, which the first cell replaces or equals).
                let first = oy * k * w + ox * k;
                let (mut best, mut at) = (xp[first], first);
                for ky in 0..k {
                    let row = (oy * k + ky) * w + ox * k;
                    for (kx, &v) in xp[row..row + k].iter().enumerate() {
                        let take = v > best || v.is_nan();
                        best = if take { v } else { best };
                        at = if take { row + kx } else { at };
                    }
                }
                yr[ox] = best;
                ar[ox] = (p * h * w + at) as u32;
            }
        }
    }
}

/// One output row of a 2×2 pool: `rows` is the two input rows, `base` the first one's index.
fn pool2_row(rows: &[f32], w: usize, base: usize, y: &mut [f32], argmax: &mut [u32]) {
    let (r0, r1) = rows.split_at(w);
    let cells = r0.chunks_exact(2).zip(r1.chunks_exact(2));
    for (ox, ((top, bottom), (y, at))) in cells.zip(y.iter_mut().zip(argmax.iter_mut())).enumerate() {
        let i = (base + 2 * ox) as u32;
        let (mut best, mut arg) = (top[0], i);
        for (v, j) in [(top[1], i + 1), (bottom[0], i + w as u32), (bottom[1], i + w as u32 + 1)] {
            let take = v > best || v.is_nan();
            best = if take { v } else { best };
            arg = if take { j } else { arg };
        }
        *y = best;
        *at = arg;
    }
}

/// The gradient of max pooling: each output's gradient added at the input it came from.
pub fn maxpool_backward(dy: &[f32], argmax: &[u32], dx: &mut [f32]) {
    dx.fill(0.0);
    for (&g, &at) in dy.iter().zip(argmax) {
        dx[at as usize] += g;
    }
}

/// `y = x·wᵀ + b` for `rows` rows of `w`'s input width.
pub fn linear_forward(x: &[f32], w: &[f32], b: &[f32], (inputs, outputs): (usize, usize), y: &mut [f32]) {
    let rows = x.len() / inputs;
    for row in y.chunks_exact_mut(outputs) {
        row.copy_from_slice(b);
    }
    sgemm((rows, inputs, outputs), 1.0, x, (inputs as isize, 1), w, (1, inputs as isize), 1.0, y, outputs);
}

/// `dw = dyᵀ·x`, `db = Σ dy` over rows, and `dx = dy·w` when `dx` is given.
#[allow(clippy::too_many_arguments)]
pub fn linear_backward(
    x: &[f32],
    w: &[f32],
    dy: &[f32],
    (inputs, outputs): (usize, usize),
    dw: &mut [f32],
    db: &mut [f32],
    dx: Option<&mut [f32]>,
) {
    let rows = dy.len() / outputs;
    sgemm((outputs, rows, inputs), 1.0, dy, (1, outputs as isize), x, (inputs as isize, 1), 0.0, dw, inputs);
    db.fill(0.0);
    for row in dy.chunks_exact(outputs) {
        for (d, g) in db.iter_mut().zip(row) {
            *d += g;
        }
    }
    if let Some(dx) = dx {
        sgemm((rows, outputs, inputs), 1.0, dy, (outputs as isize, 1), w, (inputs as isize, 1), 0.0, dx, inputs);
    }
}

/// `F.cross_entropy(logits, labels)` with the mean over rows: returns the loss and the number
/// of rows whose first maximum is the label, and writes the gradient of the mean loss
/// (`(softmax - onehot) / rows`) into `dlogits`.
pub fn cross_entropy(logits: &[f32], labels: &[u8], classes: usize, dlogits: &mut [f32]) -> (f32, usize) {
    let rows = labels.len();
    let scale = 1.0 / rows as f32;
    let (mut total, mut correct) = (0.0f64, 0);
    for ((row, grad), &label) in logits.chunks_exact(classes).zip(dlogits.chunks_exact_mut(classes)).zip(labels) {
        let label = usize::from(label);
        let (max, arg) = argmax(row);
        correct += usize::from(arg == label);
        let sum: f32 = row.iter().map(|&v| (v - max).exp()).sum();
        let lse = max + sum.ln();
        total -= f64::from(row[label] - lse);
        for (j, (g, &v)) in grad.iter_mut().zip(row).enumerate() {
            let p = (v - lse).exp();
            *g = if j == label { (p - 1.0) * scale } else { p * scale };
        }
    }
    ((total / rows as f64) as f32, correct)
}

/// The first maximum of a row and its position (`argmax`'s tie rule).
pub fn argmax(row: &[f32]) -> (f32, usize) {
    let mut best = (f32::NEG_INFINITY, 0);
    for (j, &v) in row.iter().enumerate() {
        if v > best.0 || (v.is_nan() && !best.0.is_nan()) {
            best = (v, j);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small convolution against its definition, and its gradients against finite
    /// differences of `Σ y·r` for a fixed `r`.
    #[test]
    fn conv_matches_its_definition_and_finite_differences() {
        let g = ConvGeometry { in_channels: 2, out_channels: 3, kernel: 3, padding: 1, height: 4, width: 5 };
        let n = 2;
        let x: Vec<f32> = (0..n * g.input_len()).map(|i| ((i * 7 % 13) as f32 - 6.0) / 5.0).collect();
        let w: Vec<f32> = (0..g.out_channels * g.taps()).map(|i| ((i * 5 % 11) as f32 - 5.0) / 7.0).collect();
        let b = vec![0.5, -0.25, 0.125];
        let mut y = vec![0.0; n * g.output_len()];
        let mut cols = vec![0.0; n * g.taps() * g.positions()];
        conv_forward(&g, &x, &w, &b, &mut y, &mut cols);
        let direct = |x: &[f32], w: &[f32]| -> Vec<f64> {
            let mut out = vec![0.0f64; n * g.output_len()];
            for i in 0..n {
                for o in 0..3 {
                    for oy in 0..4 {
                        for ox in 0..5 {
                            let mut s = f64::from(b[o]);
                            for c in 0..2 {
                                for ky in 0..3 {
                                    for kx in 0..3 {
                                        let (iy, ix) = (oy as isize + ky as isize - 1, ox as isize + kx as isize - 1);
                                        if (0..4).contains(&iy) && (0..5).contains(&ix) {
                                            let xv = x[((i * 2 + c) * 4 + iy as usize) * 5 + ix as usize];
                                            s += f64::from(xv) * f64::from(w[((o * 2 + c) * 3 + ky) * 3 + kx]);
                                        }
                                    }
                                }
                            }
                            out[((i * 3 + o) * 4 + oy) * 5 + ox] = s;
                        }
                    }
                }
            }
            out
        };
        for (a, e) in y.iter().zip(direct(&x, &w)) {
            assert!((f64::from(*a) - e).abs() < 1e-5, "{a} vs {e}");
        }
        let r: Vec<f32> = (0..y.len()).map(|i| ((i * 3 % 7) as f32 - 3.0) / 4.0).collect();
        let (mut dw, mut db, mut dx, mut scratch) = (vec![0.0; w.len()], vec![0.0; 3], vec![0.0; x.len()], vec![]);
        conv_backward(&g, &r, &cols, &w, &mut dw, &mut db, Some(&mut dx), &mut scratch);
        let objective =
            |x: &[f32], w: &[f32]| -> f64 { direct(x, w).iter().zip(&r).map(|(y, r)| y * f64::from(*r)).sum() };
        let h = 1e-2f32;
        for j in [0, 7, 20, 53] {
            let (mut wp, mut wm) = (w.clone(), w.clone());
            wp[j] += h;
            wm[j] -= h;
            let fd = (objective(&x, &wp) - objective(&x, &wm)) / f64::from(2.0 * h);
            assert!((fd - f64::from(dw[j])).abs() < 1e-3, "dw[{j}]: {} vs {fd}", dw[j]);
        }
        for j in [0, 9, 33, 79] {
            let (mut xp, mut xm) = (x.clone(), x.clone());
            xp[j] += h;
            xm[j] -= h;
            let fd = (objective(&xp, &w) - objective(&xm, &w)) / f64::from(2.0 * h);
            assert!((fd - f64::from(dx[j])).abs() < 1e-3, "dx[{j}]: {} vs {fd}", dx[j]);
        }
        let db0: f32 = (0..n).flat_map(|i| r[i * 60..i * 60 + 20].to_vec()).sum();
        assert!((db[0] - db0).abs() < 1e-5);
    }

    #[test]
    fn maxpool_picks_the_first_maximum_and_routes_the_gradient_there() {
        let x = [1.0, 3.0, 3.0, 0.0, /**/ 2.0, 3.0, f32::NAN, 1.0];
        let (mut y, mut at) = ([0.0; 2], [0u32; 2]);
        maxpool_forward(&x, 1, (2, 4), 2, &mut y, &mut at);
        assert_eq!(y[0], 3.0);
        assert!(y[1].is_nan());
        assert_eq!(at, [1, 6]);
        let mut dx = [9.0; 8];
        let (mut r, mut dr) = ([0.0; 4], [0.0; 4]);
        relu_forward(&[-1.0, 0.0, f32::NAN, 2.0], &mut r);
        assert!(r[0] == 0.0 && r[1] == 0.0 && r[2].is_nan() && r[3] == 2.0);
        relu_backward(&r, &[5.0; 4], &mut dr);
        assert_eq!(dr, [0.0, 0.0, 5.0, 5.0]);
        maxpool_backward(&[1.0, 2.0], &at, &mut dx);
        assert_eq!(dx, [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]);
    }

    #[test]
    fn linear_and_cross_entropy_gradients_match_finite_differences() {
        let (inputs, outputs, rows) = (4, 3, 2);
        let x = [0.5, -1.0, 2.0, 0.25, 1.5, 0.0, -0.5, 1.0];
        let w: Vec<f32> = (0..12).map(|i| (i as f32 - 6.0) / 10.0).collect();
        let b = [0.1, -0.2, 0.3];
        let labels = [2u8, 0];
        let loss = |w: &[f32]| -> f32 {
            let mut y = vec![0.0; rows * outputs];
            linear_forward(&x, w, &b, (inputs, outputs), &mut y);
            let mut d = vec![0.0; y.len()];
            cross_entropy(&y, &labels, outputs, &mut d).0
        };
        let mut y = vec![0.0; rows * outputs];
        linear_forward(&x, &w, &b, (inputs, outputs), &mut y);
        let mut dy = vec![0.0; y.len()];
        let (l, correct) = cross_entropy(&y, &labels, outputs, &mut dy);
        assert!((l - loss(&w)).abs() < 1e-7);
        assert!(correct <= 2);
        let (mut dw, mut db, mut dx) = (vec![0.0; 12], vec![0.0; 3], vec![0.0; 8]);
        linear_backward(&x, &w, &dy, (inputs, outputs), &mut dw, &mut db, Some(&mut dx));
        for j in 0..12 {
            let (mut wp, mut wm) = (w.clone(), w.clone());
            wp[j] += 1e-2;
            wm[j] -= 1e-2;
            let fd = (loss(&wp) - loss(&wm)) / 2e-2;
            assert!((fd - dw[j]).abs() < 1e-3, "dw[{j}]: {} vs {fd}", dw[j]);
        }
        let db_sum: f32 = db.iter().sum();
        assert!(db_sum.abs() < 1e-6, "softmax gradients sum to zero per row");
    }
}
