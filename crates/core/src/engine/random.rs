//! Random tensors: the numbers are drawn on the host by [`crate::random`] in the order
//! PyTorch's CPU kernel visits the elements (TensorIterator's order over the tensor written),
//! and enter the graph as a constant buffer. A factory (`rand`, `randn_like`, ...) is a fresh
//! storage holding them; an in-place form (`normal_`, `bernoulli_`, ...) is a write of that
//! buffer through the tensor's view, with the version bump and overlap check of any write.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::random::{self, Distribution, GeneratorId, Generators};
use crate::shape::tracker::ShapeTracker;
use crate::strided::{row_major_strides, StridedIndex};
use crate::tensor::{Aliasing, Bridge, Engine, OverlapRules, Tensor, Write};
use crate::torch::layout::Layout;
use crate::uop::buffer::Data;

impl Engine {
    /// The run's generators (the default one and each `torch.Generator()`).
    pub fn generators(&mut self) -> &mut Generators {
        &mut self.generators
    }

    /// A fresh tensor laid out as `layout` (dense) whose elements are drawn from `dist`
    /// (`rand`, `randn`, `randint`, the `*_like` forms).
    pub fn random(&mut self, gen: GeneratorId, layout: Layout, dtype: DType, dist: Distribution) -> Result<Tensor> {
        crate::limits::check_numel(layout.sizes())?;
        let n = layout.numel();
        let contiguous = layout.is_contiguous();
        let drawn = random::sample(self.generators.get_mut(gen), dist, dtype, n, contiguous)?;
        let logical = row_major_of(drawn, &layout);
        self.fresh_in_layout(logical, layout)
    }

    /// `randperm(n)` in `dtype`.
    pub fn randperm(&mut self, gen: GeneratorId, n: usize, dtype: DType) -> Result<Tensor> {
        crate::limits::check_numel(&[n])?;
        if dtype == DType::Bool || (dtype.is_float() && n > 0 && !float_holds(dtype, n as u64 - 1)) {
            bail!(Index, "n must be strictly less than 2^{} for {} dtype", float_digits(dtype), dtype.torch_name());
        }
        let perm = random::randperm(self.generators.get_mut(gen), n);
        let values: Vec<crate::uop::buffer::Scalar> = perm.into_iter().map(crate::uop::buffer::Scalar::Int).collect();
        self.from_data(Data::from_scalars(dtype, &values), &[n])
    }

    /// Draws `dist` into `target` through its view (`normal_`, `uniform_`, `exponential_`,
    /// `bernoulli_(p)`, `random_`).
    pub fn random_(&mut self, target: &Tensor, gen: GeneratorId, dist: Distribution) -> Result<Write> {
        let target = self.realize(target)?;
        dist.check(target.dtype())?;
        self.check_write_overlap(&target, &[], OverlapRules { internal: true, partial: false })?;
        let layout = target.layout().clone();
        let drawn =
            random::sample(self.generators.get_mut(gen), dist, target.dtype(), layout.numel(), layout.is_contiguous())?;
        let logical = row_major_of(drawn, &layout);
        self.write_constant(&target, logical)
    }

    /// `torch.bernoulli(p)`: a fresh contiguous tensor in `p`'s dtype, each element drawn
    /// with its probability.
    pub fn bernoulli(&mut self, p: &Tensor, gen: GeneratorId) -> Result<Tensor> {
        let layout = Layout::contiguous(p.shape());
        let logical = self.bernoulli_draws(&layout, p.dtype(), p, gen)?;
        self.fresh_in_layout(logical, layout)
    }

    /// `bernoulli_(p)` with a tensor of probabilities, broadcast to `target`; the kernel visits
    /// the elements in TensorIterator's order over both.
    pub fn bernoulli_tensor_(&mut self, target: &Tensor, p: &Tensor, gen: GeneratorId) -> Result<Write> {
        let target = self.realize(target)?;
        let shape = Engine::broadcast_shapes(&[p.shape(), target.shape()])?;
        if shape != target.shape() {
            bail!(
                Shape,
                "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension",
                target.shape().len(),
                p.shape().len()
            );
        }
        self.check_write_overlap(&target, &[], OverlapRules { internal: true, partial: false })?;
        let logical = self.bernoulli_draws(target.layout(), target.dtype(), p, gen)?;
        self.write_constant(&target, logical)
    }

    /// The draws of `bernoulli_(p)` into a tensor laid out as `layout`, row-major.
    fn bernoulli_draws(&mut self, layout: &Layout, dtype: DType, p: &Tensor, gen: GeneratorId) -> Result<Data> {
        let p_data = self.values(p)?;
        let p_layout = self.resolve(p).layout().clone();
        let order = visiting_order(layout.sizes(), &[layout, &p_layout]);
        // Each visited element's probability (p broadcast to the target's shape, row-major).
        let expanded = broadcast_row_major(&p_data.to_f64_vec(), p.shape(), layout.sizes());
        let probs: Vec<f64> = order.iter().map(|&i| expanded[i]).collect();
        if probs.iter().any(|p| !(0.0..=1.0).contains(p)) {
            bail!(Index, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
        }
        let drawn = random::sample_bernoulli(self.generators.get_mut(gen), dtype, &probs, p.dtype() == DType::Float64);
        Ok(in_row_major(&drawn, &order))
    }

    /// Writes `logical` (row-major over `target`'s shape) through `target`'s view.
    fn write_constant(&mut self, target: &Tensor, logical: Data) -> Result<Write> {
        let value = self.from_data(logical, target.shape())?;
        self.write(target, value.node())
    }

    /// A new tensor over a fresh storage: `logical` (row-major) placed where `layout` puts each
    /// element.
    fn fresh_in_layout(&mut self, logical: Data, layout: Layout) -> Result<Tensor> {
        let shape = layout.sizes().to_vec();
        let dtype = logical.dtype();
        let indices = layout.storage_indices();
        let len = indices.iter().max().map_or(0, |&m| m as usize + 1);
        let mut storage = Data::zeros(dtype, len);
        storage.scatter(&indices, &logical);
        let flat = self.from_data(storage, &[len])?.storage();
        let (tg, bridge) = (ShapeTracker::from_shape(&shape), Bridge::fresh(&shape));
        Ok(self.over_storage(flat, dtype, layout, Aliasing::Owner, tg, bridge))
    }
}

/// The row-major index of each element, in the order TensorIterator visits them for operands
/// (output first) laid out as `layouts` over `shape`: the dims sorted by stride, innermost the
/// smallest.
fn visiting_order(shape: &[usize], layouts: &[&Layout]) -> Vec<usize> {
    let row_major = row_major_strides(shape);
    // Walk the dims outermost first: the permutation lists them innermost first.
    let dims: Vec<usize> = Layout::iteration_perm(shape, layouts).into_iter().rev().collect();
    let sizes: Vec<usize> = dims.iter().map(|&d| shape[d]).collect();
    let strides: Vec<i64> = dims.iter().map(|&d| row_major[d]).collect();
    StridedIndex::new(&sizes, &strides, 0).map(|i| i as usize).collect()
}

/// Draws made in `layout`'s visiting order, rearranged row-major; as drawn when the kernel
/// visits row-major already (a contiguous tensor: no permutation to build).
fn row_major_of(drawn: Data, layout: &Layout) -> Data {
    let perm = Layout::iteration_perm(layout.sizes(), &[layout]);
    // The permutation lists dims innermost first: row-major is n-1, ..., 0.
    if perm.iter().rev().enumerate().all(|(i, &d)| i == d) {
        return drawn;
    }
    in_row_major(&drawn, &visiting_order(layout.sizes(), &[layout]))
}

/// `drawn` (in visiting order) rearranged row-major.
fn in_row_major(drawn: &Data, order: &[usize]) -> Data {
    let mut inverse = vec![Some(0i64); order.len()];
    for (k, &i) in order.iter().enumerate() {
        inverse[i] = Some(k as i64);
    }
    drawn.gather(&inverse)
}

/// `values` (row-major over `from`) broadcast to `to`, row-major.
fn broadcast_row_major(values: &[f64], from: &[usize], to: &[usize]) -> Vec<f64> {
    let lead = to.len() - from.len();
    let src = row_major_strides(from);
    let strides: Vec<i64> =
        (0..to.len()).map(|d| if d < lead || from[d - lead] == 1 { 0 } else { src[d - lead] }).collect();
    StridedIndex::new(to, &strides, 0).map(|i| values[i as usize]).collect()
}

fn float_digits(dtype: DType) -> u32 {
    match dtype {
        DType::Float16 => 11,
        DType::BFloat16 => 8,
        DType::Float32 => 24,
        _ => 53,
    }
}

/// Whether every integer up to `max` is exact in the float `dtype`.
fn float_holds(dtype: DType, max: u64) -> bool {
    max <= 1u64 << float_digits(dtype)
}
