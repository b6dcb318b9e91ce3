//! `F.linear`: `x @ weight.T + bias` as a broadcast multiply summed over the last dim (one
//! fused reduce, as tinygrad builds it), with PyTorch's checks and its in-place squeeze of a
//! vector's result.

use super::matmul::c_name;
use crate::engine::reduce::KeepDim;
use crate::error::{bail, Result};
use crate::tensor::{Engine, Tensor};
use crate::uop::{BinaryOp, Op, ReduceOp};

impl Engine {
    /// `F.linear`: `x @ weight.T + bias`, as a broadcast multiply summed over the last dim.
    pub fn linear(&mut self, x: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        let out = self.linear_forward(x, weight, bias)?;
        if weight.shape().len() == 2 {
            let (x, w) = (self.resolve(x), self.resolve(weight));
            let b = bias.map(|b| self.resolve(b));
            let op = crate::autograd::GradOp::Linear { bias: b.is_some() && x.shape().len() == 2 };
            let saved: Vec<usize> = [(0, &w), (1, &x)]
                .into_iter()
                .filter(|(_, other)| self.autograd().requires_grad(other))
                .map(|(i, _)| i)
                .collect();
            let operands = vec![Some(x.clone()), Some(w.clone()), b.clone()];
            self.record(&out, op, &[Some(&x), Some(&w), b.as_ref()], operands, &saved);
        }
        Ok(out)
    }

    fn linear_forward(&mut self, x: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        let x = self.resolve(x);
        let w = self.resolve(weight);
        let (xs, ws) = (x.shape().to_vec(), w.shape().to_vec());
        if xs.is_empty() || ws.is_empty() || ws.len() > 2 {
            bail!(
                Shape,
                "linear(): expected a weight of 1 or 2 dims and an input of at least 1, got {}D and {}D",
                ws.len(),
                xs.len()
            );
        }
        if x.dtype() != w.dtype() {
            bail!(
                DType,
                "expected m1 and m2 to have the same dtype, but got: {} != {}",
                c_name(x.dtype()),
                c_name(w.dtype())
            );
        }
        let k = xs[xs.len() - 1];
        let (wn, wk) = if ws.len() == 2 { (Some(ws[0]), ws[1]) } else { (None, ws[0]) };
        if k != wk {
            let rows: usize = xs[..xs.len() - 1].iter().product();
            match wn {
                Some(n) => bail!(Shape, "mm: mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {wk}x{n})"),
                None => bail!(Shape, "size mismatch, got input ({rows}), mat ({rows}x{k}), vec ({wk})"),
            }
        }
        if xs.len() == 2 && ws.len() == 1 && bias.is_some() {
            bail!(Shape, "addmm: mat2 must be a matrix, got 1-D tensor");
        }
        let dtype = x.dtype();
        let lead = &xs[..xs.len() - 1];
        let prod = match wn {
            Some(n) => {
                // x: (..., 1, K), w: (N, K), both expanded to (..., N, K).
                let full: Vec<usize> = lead.iter().copied().chain([n, k]).collect();
                let xr: Vec<usize> = lead.iter().copied().chain([1, k]).collect();
                let xn = self.movement(x.node(), Op::Reshape(xr.clone()));
                let xn = self.broadcast_node(xn, dtype, &xr, &full)?;
                let wn = self.broadcast_node(w.node(), dtype, &ws, &full)?;
                self.graph.push(Op::Binary(BinaryOp::Mul), dtype, full, vec![xn, wn])
            }
            None => {
                let wn = self.broadcast_node(w.node(), dtype, &ws, &xs)?;
                self.graph.push(Op::Binary(BinaryOp::Mul), dtype, xs.clone(), vec![x.node(), wn])
            }
        };
        let pshape = self.shape_of_node(prod);
        let mut out = self.reduce_node(ReduceOp::Sum, prod, dtype, &pshape, &[pshape.len() - 1], KeepDim::Drop)?;
        let oshape = self.shape_of_node(out);
        let odtype = self.graph.node(out).dtype;
        if odtype != dtype {
            out = self.cast_node(out, odtype, dtype);
        }
        if let Some(b) = bias {
            let b = self.resolve(b);
            let target = Engine::broadcast_shapes(&[&oshape, b.shape()])?;
            if target != oshape {
                bail!(
                    Shape,
                    "The expanded size of the tensor ({}) must match the existing size ({}) at non-singleton dimension {}.  Target sizes: {:?}.  Tensor sizes: {:?}",
                    oshape.last().copied().unwrap_or(1),
                    b.shape().last().copied().unwrap_or(1),
                    b.shape().len().saturating_sub(1),
                    oshape,
                    b.shape()
                );
            }
            let bn = self.cast_node(b.node(), b.dtype(), dtype);
            let bn = self.broadcast_node(bn, dtype, b.shape(), &oshape)?;
            out = self.graph.push(Op::Binary(BinaryOp::Add), dtype, oshape, vec![out, bn]);
            return self.computed(out);
        }
        let out = self.computed(out)?;
        // Without a bias PyTorch's linear is `matmul(x, w.t())`, which squeezes a vector's
        // result in place.
        if xs.len() == 1 && ws.len() == 2 {
            return self.bump_version(&out);
        }
        Ok(out)
    }
}
