//! The gradients of convolution and pooling: a window extraction's gradient added back onto the
//! padded input one kernel offset at a time (a transposed convolution's scatter), the input's
//! and weight's gradients of `conv2d`, and those of `max_pool2d` and `avg_pool2d`.

use super::nn::{pool_tail, Window2d};
use crate::dtype::DType;
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::tensor::{Engine, Operand, Tensor};
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, ReduceOp};

impl Engine {
    /// The gradient of a window extraction: `gwin` (..., OH, OW, KH, KW) added back onto the
    /// padded input (..., `padded`), one kernel offset at a time, each a strided placement of
    /// the (..., OH, OW) gradients that offset read (a transposed convolution's scatter).
    fn col2im(&mut self, gwin: &Tensor, win: Window2d, padded: [usize; 2]) -> Result<Tensor> {
        let s = gwin.shape().to_vec();
        let nd = s.len();
        let (oh, ow, kh, kw) = (s[nd - 4], s[nd - 3], s[nd - 2], s[nd - 1]);
        let lead: Vec<i64> = s[..nd - 4].iter().map(|&n| n as i64).collect();
        let [s0, s1] = win.stride;
        let mut acc: Option<Tensor> = None;
        for i in 0..kh {
            for j in 0..kw {
                let part = self.select(gwin, (nd - 2) as i64, i as i64)?;
                let part = self.select(&part, (nd - 2) as i64, j as i64)?;
                // (..., OH, OW) -> (..., OH, 1, OW, 1) -> zeros after each: (..., OH*s0, OW*s1)
                let mut r = lead.clone();
                r.extend([oh as i64, 1, ow as i64, 1]);
                let part = self.reshape(&part, &r)?;
                let mut arg = vec![(0i64, 0i64); lead.len()];
                arg.extend([(0, 0), (0, s0 as i64 - 1), (0, 0), (0, s1 as i64 - 1)]);
                let part = self.pad(&part, &arg, None)?;
                let mut r = lead.clone();
                r.extend([(oh * s0) as i64, (ow * s1) as i64]);
                let part = self.reshape(&part, &r)?;
                // Placed from this offset's first read; cut to the padded input.
                let at = [i * win.dilation[0], j * win.dilation[1]];
                let len = [(oh * s0).min(padded[0] - at[0]), (ow * s1).min(padded[1] - at[1])];
                let mut arg: Vec<(i64, i64)> = lead.iter().map(|&n| (0, n)).collect();
                arg.extend([(0, len[0] as i64), (0, len[1] as i64)]);
                let part = self.shrink(&part, &arg)?;
                let mut arg = vec![(0i64, 0i64); lead.len()];
                for d in 0..2 {
                    arg.push((at[d] as i64, (padded[d] - at[d] - len[d]) as i64));
                }
                let part = self.pad(&part, &arg, None)?;
                acc = Some(match acc {
                    Some(a) => self.add_tensors(&a, &part)?,
                    None => part,
                });
            }
        }
        match acc {
            Some(a) => Ok(a),
            None => bail!(Shape, "a window of no elements has no gradient"),
        }
    }

    /// The padded input's windows (..., OH, OW, KH, KW) as a tensor.
    fn windows(
        &mut self,
        x: &Tensor,
        win: Window2d,
        after: [usize; 2],
        fill: Scalar,
        out: [usize; 2],
    ) -> Result<Tensor> {
        let xn = self.pad_spatial(x.node(), win.padding, after, fill);
        let pooled = self.pool_node(xn, &win.kernel, &win.stride, &win.dilation);
        let pooled = self.crop_windows(pooled, out);
        self.computed(pooled)
    }

    /// The gradients of `conv2d`'s input and weight from the output's gradient `g`.
    pub(crate) fn conv2d_backward(
        &mut self,
        x: &Tensor,
        w: &Tensor,
        g: &Tensor,
        win: crate::autograd::Window,
        groups: usize,
    ) -> Result<(Tensor, Tensor)> {
        let win = Window2d::from(win);
        let unbatched = x.shape().len() == 3;
        let (x4, g4) = if unbatched { (self.unsqueeze(x, 0)?, self.unsqueeze(g, 0)?) } else { (x.clone(), g.clone()) };
        let xs = x4.shape().to_vec();
        let ws = w.shape().to_vec();
        let gs = g4.shape().to_vec();
        let [n, cin, h, wd] = [xs[0], xs[1], xs[2], xs[3]];
        let [cout, wcin, kh, kw] = [ws[0], ws[1], ws[2], ws[3]];
        let [oh, ow] = [gs[2], gs[3]];
        let (gr, rcout) = (groups, cout / groups.max(1));
        let i = |v: &[usize]| -> Vec<i64> { v.iter().map(|&k| k as i64).collect() };
        // The input's windows' gradient: (N, G, rcout, OH, OW, 1, 1, 1) * (1, G, rcout, 1, 1, wcin, KH, KW)
        let ga = self.reshape(&g4, &i(&[n, gr, rcout, oh, ow, 1, 1, 1]))?;
        let wa = self.reshape(w, &i(&[1, gr, rcout, 1, 1, wcin, kh, kw]))?;
        let prod = self.binary(BinaryOp::Mul, &Operand::Tensor(ga), &Operand::Tensor(wa))?;
        let gwin = self.reduce(ReduceOp::Sum, &prod, &[2], KeepDim::Drop)?;
        let gwin = self.permute(&gwin, &[0, 1, 4, 2, 3, 5, 6])?;
        let gwin = self.reshape(&gwin, &i(&[n, cin, oh, ow, kh, kw]))?;
        let padded = [h + 2 * win.padding[0], wd + 2 * win.padding[1]];
        let gp = self.col2im(&gwin, win, padded)?;
        let p = win.padding;
        let gx = self.shrink(
            &gp,
            &[(0, n as i64), (0, cin as i64), (p[0] as i64, (p[0] + h) as i64), (p[1] as i64, (p[1] + wd) as i64)],
        )?;
        let gx = self.copy(&gx)?;
        let gx = if unbatched { self.reshape(&gx, &i(&[cin, h, wd]))? } else { gx };
        // The weight's gradient: the windows correlated with g over (N, OH, OW).
        let xw = self.windows(&x4, win, win.padding, Scalar::Int(0), [oh, ow])?;
        let xa = self.reshape(&xw, &i(&[n, gr, 1, wcin, oh, ow, kh, kw]))?;
        let gb = self.reshape(&g4, &i(&[n, gr, rcout, 1, oh, ow, 1, 1]))?;
        let prod = self.binary(BinaryOp::Mul, &Operand::Tensor(xa), &Operand::Tensor(gb))?;
        let gw = self.reduce(ReduceOp::Sum, &prod, &[0, 4, 5], KeepDim::Drop)?;
        let gw = self.reshape(&gw, &i(&ws))?;
        Ok((gx, gw))
    }

    /// The gradient of `max_pool2d` (each window's first maximum gets its output's gradient)
    /// or `avg_pool2d` (each window element its share) from the output's gradient `g`.
    pub(crate) fn pool2d_backward(
        &mut self,
        x: &Tensor,
        g: &Tensor,
        win: crate::autograd::Window,
        avg: Option<(bool, Option<i64>)>,
    ) -> Result<Tensor> {
        let win = Window2d::from(win);
        let xs = x.shape().to_vec();
        let nd = xs.len();
        let (h, w) = (xs[nd - 2], xs[nd - 1]);
        let out_hw = [win.pool_out(0, h) as usize, win.pool_out(1, w) as usize];
        let (_, after) = pool_tail(win, [h, w], out_hw);
        let out_shape = g.shape().to_vec();
        let mut wshape: Vec<i64> = out_shape.iter().map(|&k| k as i64).collect();
        wshape.extend([1, 1]);
        let mut full = wshape.clone();
        full[nd] = win.kernel[0] as i64;
        full[nd + 1] = win.kernel[1] as i64;
        let gwin = match avg {
            None => {
                let xw = self.windows(x, win, after, Scalar::Float(f64::NEG_INFINITY), out_hw)?;
                let m = self.reduce(ReduceOp::Max, &xw, &[nd, nd + 1], KeepDim::Keep)?;
                let hit = self.binary(BinaryOp::CmpEq, &Operand::Tensor(xw.clone()), &Operand::Tensor(m))?;
                // The first hit in each window (PyTorch's index), in row-major window order.
                let mut flat: Vec<i64> = out_shape.iter().map(|&k| k as i64).collect();
                flat.push((win.kernel[0] * win.kernel[1]) as i64);
                let hf = self.reshape(&hit, &flat)?;
                let hf = self.cast(&hf, DType::Int32)?;
                let run = self.cumsum(&hf, nd as i64, None)?;
                let first = self.binary(BinaryOp::Mul, &Operand::Tensor(run), &Operand::Tensor(hf))?;
                let first = self.binary(BinaryOp::CmpEq, &Operand::Tensor(first), &Operand::Scalar(Scalar::Int(1)))?;
                let first = self.reshape(&first, &full)?;
                let gg = self.reshape(g, &wshape)?;
                let gg = self.expand(&gg, &full)?;
                self.where_(&Operand::Tensor(first), &Operand::Tensor(gg), &Operand::Scalar(Scalar::Int(0)))?
            }
            Some(how) => {
                let div = self.avg_divisor(win, [h, w], out_hw, how, g.dtype(), &out_shape)?;
                let div = self.computed(div)?;
                let q = self.binary(BinaryOp::Div, &Operand::Tensor(g.clone()), &Operand::Tensor(div))?;
                let q = self.reshape(&q, &wshape)?;
                self.expand(&q, &full)?
            }
        };
        let padded = [h + win.padding[0] + after[0], w + win.padding[1] + after[1]];
        let gp = self.col2im(&gwin, win, padded)?;
        let mut arg: Vec<(i64, i64)> = xs[..nd - 2].iter().map(|&k| (0, k as i64)).collect();
        arg.push((win.padding[0] as i64, (win.padding[0] + h) as i64));
        arg.push((win.padding[1] as i64, (win.padding[1] + w) as i64));
        let gx = self.shrink(&gp, &arg)?;
        self.copy(&gx)
    }
}
