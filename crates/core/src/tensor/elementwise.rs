//! The engine's elementwise graph builders: operands as nodes (cast, then broadcast), PyTorch's
//! type promotion and broadcasting, and `binary`, `unary`, `cast` and `where_`, each computing
//! in the dtype its op's domain gives and laid out as TensorIterator lays out its output.

use super::{Engine, Operand, Tensor};
use crate::autograd::GradOp;
use crate::dtype::{result_type, DType};
use crate::error::{bail, Result};
use crate::limits::check_lazy_numel;
use crate::torch::layout::Layout;
use crate::uop::alu::Domain;
use crate::uop::{BinaryOp, Op, UOpId, UnaryOp};

impl Engine {
    pub(crate) fn operand_node(&mut self, o: &Operand, dtype: DType, shape: &[usize]) -> Result<UOpId> {
        match o {
            Operand::Scalar(s) => Ok(self.graph.push(Op::Const(*s), dtype, shape.to_vec(), vec![])),
            Operand::Tensor(t) => {
                let t = self.resolve(t);
                let node = self.cast_node(t.node, t.dtype, dtype);
                self.broadcast_node(node, dtype, t.shape(), shape)
            }
        }
    }

    pub(crate) fn cast_node(&mut self, node: UOpId, from: DType, to: DType) -> UOpId {
        if from == to {
            return node;
        }
        let shape = self.graph.node(node).shape.clone();
        self.graph.push(Op::Cast(to), to, shape, vec![node])
    }

    /// A node's value in another shape of the same element count, in row-major order.
    pub(crate) fn reshape_node(&mut self, node: UOpId, shape: &[usize]) -> UOpId {
        let dtype = self.graph.node(node).dtype;
        self.graph.push(Op::Reshape(shape.to_vec()), dtype, shape.to_vec(), vec![node])
    }

    /// Reshape (prepend 1s) and expand a node to `shape`, as broadcasting does.
    pub(crate) fn broadcast_node(
        &mut self,
        mut node: UOpId,
        dtype: DType,
        from: &[usize],
        to: &[usize],
    ) -> Result<UOpId> {
        if from == to {
            return Ok(node);
        }
        let padded: Vec<usize> = std::iter::repeat_n(1, to.len() - from.len()).chain(from.iter().copied()).collect();
        if padded != from {
            node = self.graph.push(Op::Reshape(padded.clone()), dtype, padded.clone(), vec![node]);
        }
        if padded != to {
            node = self.graph.push(Op::Expand(to.to_vec()), dtype, to.to_vec(), vec![node]);
        }
        Ok(node)
    }

    /// The dtype an elementwise op computes in, by PyTorch's promotion rules.
    pub fn promote(&self, operands: &[&Operand]) -> DType {
        let (mut dims, mut zero_dim, mut numbers) = (Vec::new(), Vec::new(), Vec::new());
        for o in operands {
            match o {
                Operand::Tensor(t) if t.shape().is_empty() => zero_dim.push(t.dtype),
                Operand::Tensor(t) => dims.push(t.dtype),
                Operand::Scalar(s) => numbers.push(s.dtype()),
            }
        }
        result_type(&dims, &zero_dim, &numbers)
    }

    pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Vec<usize>> {
        let n = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
        let mut out = vec![1usize; n];
        for s in shapes {
            for (i, &d) in s.iter().enumerate().rev() {
                let o = &mut out[n - s.len() + i];
                if *o == 1 {
                    *o = d;
                } else if d != 1 && d != *o {
                    bail!(
                        Shape,
                        "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}",
                        *o,
                        d,
                        i + (n - s.len())
                    );
                }
            }
        }
        Ok(out)
    }

    pub(crate) fn shape_of(o: &Operand) -> &[usize] {
        match o {
            Operand::Tensor(t) => t.shape(),
            Operand::Scalar(_) => &[],
        }
    }

    /// Builds `op(a, b)` computing in `dtype` (after PyTorch's promotion); comparisons give bool.
    pub fn binary_node(
        &mut self,
        op: BinaryOp,
        a: &Operand,
        b: &Operand,
        dtype: DType,
    ) -> Result<(UOpId, DType, Vec<usize>)> {
        let shape = Self::broadcast_shapes(&[Self::shape_of(a), Self::shape_of(b)])?;
        check_lazy_numel(&shape)?;
        let x = self.operand_node(a, dtype, &shape)?;
        let y = self.operand_node(b, dtype, &shape)?;
        let out = if op.is_comparison() { DType::Bool } else { dtype };
        Ok((self.graph.push(Op::Binary(op), out, shape.clone(), vec![x, y]), out, shape))
    }

    pub fn binary(&mut self, op: BinaryOp, a: &Operand, b: &Operand) -> Result<Tensor> {
        let dtype = self.compute_dtype(op, a, b)?;
        let (node, _, shape) = self.binary_node(op, a, b, dtype)?;
        // `pow(Tensor, Scalar)` runs a unary kernel: its scalar is no operand; `pow(Scalar,
        // Tensor)` allocates a row-major output whatever the exponent's layout.
        let layout = match (op, a, b) {
            (BinaryOp::Pow, _, Operand::Scalar(_)) => Self::output_layout(&shape, &[a]),
            (BinaryOp::Pow, Operand::Scalar(_), _) => Layout::contiguous(&shape),
            _ => Self::output_layout(&shape, &[a, b]),
        };
        let out = self.computed_as(node, layout)?;
        self.record_binary(op, a, b, &out);
        Ok(out)
    }

    /// TensorIterator's output layout for operands broadcast to `shape`. A Python scalar is an
    /// operand too (a wrapped 0-d tensor): with one, the operands' shapes differ, which decides
    /// an empty result's strides (`x[:, :0] * 2` of a channels-last `x`: `[0, 1, 0, 0]`).
    fn output_layout(shape: &[usize], operands: &[&Operand]) -> Layout {
        let scalar = Layout::new(&[], &[], 0);
        let layouts: Vec<&Layout> = operands
            .iter()
            .map(|o| match o {
                Operand::Tensor(t) => &t.layout,
                Operand::Scalar(_) => &scalar,
            })
            .collect();
        Layout::elementwise_output(shape, &layouts)
    }

    /// The dtype `op` computes in: PyTorch's promotion, then the op's [`Domain`] (float ops
    /// compute integers in float32; bitwise ops refuse floats).
    pub fn compute_dtype(&self, op: BinaryOp, a: &Operand, b: &Operand) -> Result<DType> {
        let dtype = self.promote(&[a, b]);
        Ok(match op.domain() {
            Domain::Float if !dtype.is_float() => DType::Float32,
            Domain::Bitwise if dtype.is_float() => {
                bail!(DType, "\"{}_cpu\" not implemented for 'Float'", op.name())
            }
            _ if op == BinaryOp::Sub && dtype == DType::Bool => {
                bail!(DType, "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.")
            }
            _ => dtype,
        })
    }

    /// The dtype unary `op` computes in for an operand of `dtype`, by its [`Domain`].
    pub fn unary_dtype(op: UnaryOp, dtype: DType) -> Result<DType> {
        Ok(match op.domain() {
            Domain::Float if !dtype.is_float() => DType::Float32,
            _ if op == UnaryOp::Neg && dtype == DType::Bool => {
                bail!(DType, "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
            }
            _ if op == UnaryOp::Not && dtype.is_float() => {
                bail!(DType, "\"bitwise_not_cpu\" not implemented for 'Float'")
            }
            _ => dtype,
        })
    }

    pub fn unary(&mut self, op: UnaryOp, a: &Tensor) -> Result<Tensor> {
        let a = self.resolve(a);
        let dtype = Self::unary_dtype(op, a.dtype)?;
        let x = self.cast_node(a.node, a.dtype, dtype);
        let node = self.graph.push(Op::Unary(op), dtype, a.shape().to_vec(), vec![x]);
        let out = self.computed_as(node, Layout::elementwise_output(a.shape(), &[&a.layout]))?;
        self.record_unary(op, &a, &out);
        Ok(out)
    }

    pub fn cast(&mut self, a: &Tensor, dtype: DType) -> Result<Tensor> {
        if a.dtype == dtype {
            return Ok(self.resolve(a));
        }
        let a = self.resolve(a);
        let node = self.cast_node(a.node, a.dtype, dtype);
        let out = self.computed_as(node, a.layout.empty_like_preserve())?;
        self.record(&out, GradOp::Cast { from: a.dtype }, &[Some(&a)], Vec::new(), &[]);
        Ok(out)
    }

    pub fn where_(&mut self, c: &Operand, x: &Operand, y: &Operand) -> Result<Tensor> {
        let shape = Self::broadcast_shapes(&[Self::shape_of(c), Self::shape_of(x), Self::shape_of(y)])?;
        self.where_as(c, x, y, Self::output_layout(&shape, &[c, x, y]))
    }

    /// [`Engine::where_`] laid out as `layout`, of the operands' broadcast shape.
    pub(crate) fn where_as(&mut self, c: &Operand, x: &Operand, y: &Operand, layout: Layout) -> Result<Tensor> {
        let shape = layout.sizes().to_vec();
        check_lazy_numel(&shape)?;
        let dtype = self.promote(&[x, y]);
        let cn = self.operand_node(c, DType::Bool, &shape)?;
        let xn = self.operand_node(x, dtype, &shape)?;
        let yn = self.operand_node(y, dtype, &shape)?;
        let node = self.graph.push(Op::Where, dtype, shape.clone(), vec![cn, xn, yn]);
        let out = self.computed_as(node, layout)?;
        let tensor = |o: &Operand| if let Operand::Tensor(t) = o { Some(t.clone()) } else { None };
        let (ct, xt, yt) = (tensor(c), tensor(x), tensor(y));
        self.record(&out, GradOp::Where, &[xt.as_ref(), yt.as_ref()], vec![ct, xt.clone(), yt.clone()], &[0]);
        Ok(out)
    }
}
