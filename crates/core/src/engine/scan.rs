//! Running reductions along a dim: `cumsum` and `cumprod`, each a new row-major storage of the
//! input's shape. Integers (and bools) accumulate in the default integer type, as PyTorch's do.
//!
//! `cumsum` is a sum over a triangular mask of a lazy (input, output) broadcast, which the
//! interpreter and the kernels run as a loop without materialising it (as matmul's product).
//! The graph has no product reduce, so `cumprod` is a doubling scan: log2(n) steps, each one
//! buffer of the input's size that multiplies in the running product from 2^s places back.
//! A step's value is closed by a sum over a unit axis (the value itself): a step reads the one
//! before at a shifted index, and the scheduler gives a reduce read that way its own buffer,
//! so each step is one kernel instead of a fused expression that would re-read every earlier
//! step at every index (n loads per element).

use crate::dtype::DType;
use crate::error::Result;
use crate::limits::check_lazy_numel;
use crate::strided::wrap_dim;
use crate::tensor::{Engine, Tensor};
use crate::uop::buffer::Scalar;
use crate::uop::{BinaryOp, Op, ReduceOp, UOpId};

use super::reduce::KeepDim;

impl Engine {
    /// `torch.cumsum(t, dim, dtype=)`.
    pub fn cumsum(&mut self, t: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
        let (x, out_dtype, shape, d) = self.scan_input(t, dim, dtype)?;
        let Some(d) = d else { return self.scan_copy(x, out_dtype, shape) };
        let n = shape[d];
        // Axis d runs over the inputs (k), axis d + 1 over the outputs (j); j adds every k <= j.
        let mut ones = shape.clone();
        ones.insert(d + 1, 1);
        let mut wide = ones.clone();
        wide[d + 1] = n;
        check_lazy_numel(&wide)?;
        let xk = self.movement(x, Op::Reshape(ones));
        let xk = self.movement(xk, Op::Expand(wide.clone()));
        let k = self.axis_index(&wide, d)?;
        let j = self.axis_index(&wide, d + 1)?;
        let later = self.graph.push(Op::Binary(BinaryOp::CmpLt), DType::Bool, wide.clone(), vec![j, k]);
        let zero = self.const_node(Scalar::Int(0), out_dtype, &wide);
        let picked = self.graph.push(Op::Where, out_dtype, wide.clone(), vec![later, zero, xk]);
        let sum = self.reduce_node(ReduceOp::Sum, picked, out_dtype, &wide, &[d], KeepDim::Drop)?;
        let sum_dtype = self.graph.node(sum).dtype;
        let node = self.cast_node(sum, sum_dtype, out_dtype);
        let out = self.computed(node)?;
        let src = self.resolve(t);
        let op = crate::autograd::GradOp::Cumsum { dim: d, from: src.dtype() };
        self.record(&out, op, &[Some(&src)], Vec::new(), &[]);
        Ok(out)
    }

    /// `torch.cumprod(t, dim, dtype=)`.
    pub fn cumprod(&mut self, t: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
        let (x, out_dtype, shape, d) = self.scan_input(t, dim, dtype)?;
        let Some(d) = d else { return self.scan_copy(x, out_dtype, shape) };
        let n = shape[d];
        // Sums of bool and uint8 count in int32; products of those wrap the same way.
        let acc = if out_dtype.is_float() { out_dtype } else { DType::Int64 };
        let x = self.cast_node(x, out_dtype, acc);
        let index = self.axis_index(&shape, d)?;
        let one = self.const_node(Scalar::Int(1), acc, &shape);
        let mut y = x;
        let mut step = 1;
        while step < n {
            // back[i] = y[i - step], and 1 where i < step.
            let cut: Vec<(usize, usize)> =
                shape.iter().enumerate().map(|(i, &s)| if i == d { (0, n - step) } else { (0, s) }).collect();
            let pad: Vec<(usize, usize)> = (0..shape.len()).map(|i| if i == d { (step, 0) } else { (0, 0) }).collect();
            let back = self.movement(y, Op::Shrink(cut));
            let back = self.movement(back, Op::Pad(pad));
            let s = self.const_node(Scalar::Int(step as i64), DType::Int32, &shape);
            let early = self.graph.push(Op::Binary(BinaryOp::CmpLt), DType::Bool, shape.clone(), vec![index, s]);
            let factor = self.graph.push(Op::Where, acc, shape.clone(), vec![early, one, back]);
            let prod = self.graph.push(Op::Binary(BinaryOp::Mul), acc, shape.clone(), vec![y, factor]);
            y = self.unit_sum(prod, acc, &shape)?;
            step *= 2;
        }
        let node = self.cast_node(y, acc, out_dtype);
        let node = self.graph.push(Op::Contiguous, out_dtype, shape.clone(), vec![node]);
        let out = self.computed(node)?;
        let src = self.resolve(t);
        // PyTorch saves the input and the result.
        let op = crate::autograd::GradOp::Cumprod { dim: d, from: src.dtype() };
        self.record(&out, op, &[Some(&src)], vec![Some(src.clone()), Some(out.clone())], &[0, 1]);
        Ok(out)
    }

    /// `node` itself, as a sum over a unit axis appended to `shape`: a reduce, so a later
    /// shifted read of it is a kernel boundary (see the module's comment).
    fn unit_sum(&mut self, node: UOpId, dtype: DType, shape: &[usize]) -> Result<UOpId> {
        let unit: Vec<usize> = shape.iter().copied().chain([1]).collect();
        let x = self.movement(node, Op::Reshape(unit.clone()));
        self.reduce_node(ReduceOp::Sum, x, dtype, &unit, &[shape.len()], KeepDim::Drop)
    }

    /// The scan's input cast to its output dtype, the shape, and the dim (`None` when there
    /// is nothing to accumulate along: a 0-d or empty tensor).
    fn scan_input(
        &mut self,
        t: &Tensor,
        dim: i64,
        dtype: Option<DType>,
    ) -> Result<(UOpId, DType, Vec<usize>, Option<usize>)> {
        let t = self.resolve(t);
        let d = wrap_dim(dim, t.shape().len())?;
        let out_dtype = dtype.unwrap_or(if t.dtype().is_float() { t.dtype() } else { DType::Int64 });
        let x = self.cast_node(t.node(), t.dtype(), out_dtype);
        let d = if t.shape().is_empty() || t.numel() == 0 { None } else { Some(d) };
        Ok((x, out_dtype, t.shape().to_vec(), d))
    }

    /// A scan with nothing to accumulate: a row-major copy.
    fn scan_copy(&mut self, x: UOpId, dtype: DType, shape: Vec<usize>) -> Result<Tensor> {
        let node = self.graph.push(Op::Contiguous, dtype, shape, vec![x]);
        self.computed(node)
    }
}

#[cfg(test)]
mod tests {
    use crate::dtype::DType;
    use crate::tensor::Engine;
    use crate::uop::buffer::Data;

    fn values(e: &mut Engine, t: &crate::tensor::Tensor) -> Vec<f64> {
        let d = e.values(t).unwrap_or_else(|err| panic!("{err}"));
        (0..d.len()).map(|i| d.get_f64(i)).collect()
    }

    #[test]
    fn scans_match_the_sequential_loop() {
        let mut e = Engine::new();
        let n = 37;
        let xs: Vec<f32> = (0..n).map(|i| 1.0 + (i % 5) as f32 * 0.01 - 0.02).collect();
        let x = e.from_data(Data::F32(xs.clone()), &[n]).unwrap_or_else(|err| panic!("{err}"));
        let p = e.cumprod(&x, 0, None).unwrap_or_else(|err| panic!("{err}"));
        let s = e.cumsum(&x, -1, None).unwrap_or_else(|err| panic!("{err}"));
        let (mut prod, mut sum) = (1f64, 0f64);
        let (got_p, got_s) = (values(&mut e, &p), values(&mut e, &s));
        for (i, &v) in xs.iter().enumerate() {
            prod *= f64::from(v);
            sum += f64::from(v);
            assert!((got_p[i] - prod).abs() <= 1e-5 * prod.abs(), "cumprod[{i}] {} != {prod}", got_p[i]);
            assert!((got_s[i] - sum).abs() <= 1e-5 * sum.abs(), "cumsum[{i}] {} != {sum}", got_s[i]);
        }
    }

    #[test]
    fn integer_scans_count_in_int() {
        let mut e = Engine::new();
        let x =
            e.from_data(Data::Bool(vec![true, false, true, true, true]), &[5]).unwrap_or_else(|err| panic!("{err}"));
        let s = e.cumsum(&x, 0, None).unwrap_or_else(|err| panic!("{err}"));
        let p = e.cumprod(&x, 0, None).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!((s.dtype(), p.dtype()), (DType::Int64, DType::Int64));
        assert_eq!(values(&mut e, &s), vec![1.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(values(&mut e, &p), vec![1.0, 0.0, 0.0, 0.0, 0.0]);
    }
}
