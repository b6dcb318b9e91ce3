//! Writes through views: the store of a computed value into a storage (whole, element by
//! element when its reads cross the written elements, or byte for byte through a dtype view),
//! and PyTorch's memory-overlap checks that come first.

use crate::cells::CellList;
use crate::dtype::DType;
use crate::engine::bridge::{BridgeWrite, Landing, Semantics};
use crate::error::{Error, Result};
use crate::shape::tracker::ShapeTracker;
use crate::shape::view::View;
use crate::tensor::{Engine, Event, Operand, OverlapRules, StorageRef, Tensor, Write};
use crate::torch::overlap::{self, MemOverlap, MemOverlapStatus};
use crate::uop::buffer::Data;
use crate::uop::interp;
use crate::uop::sequential;
use crate::uop::{Op, StorageId, UOpId};

/// How an in-place op's loop meets the storage it writes.
#[derive(Clone, Copy)]
enum Loop {
    /// Each element is computed from memory as it is when the loop reaches it.
    Live,
    /// The whole value is computed first, then copied in (the result of another dtype).
    Temporary,
}

impl Engine {
    /// Writes `value` (already computed in the target's shape) through `target`'s view into
    /// its storage and bumps the storage's version. The caller has made PyTorch's checks
    /// ([`Engine::check_write_overlap`], shape, dtype). Returns the storage indices written.
    /// Under the bridge's rules the op being run ([`Engine::bridge_op`]) says how the bridge
    /// writes it.
    pub fn write(&mut self, target: &Tensor, value: UOpId) -> Result<Write> {
        self.store(target, value, Loop::Live)
    }

    /// [`Engine::write`] of an op TensorIterator computes in another dtype than the target's
    /// (`uint8.add_(int64)`, `float32.mul_(float64)`): into a temporary from the inputs as they
    /// were, then copied into the target, so no element reads another one's new value.
    pub fn write_through_temporary(&mut self, target: &Tensor, value: UOpId) -> Result<Write> {
        let temporary = self.computed(value)?;
        let temporary = self.realize(&temporary)?;
        self.store(target, temporary.node(), Loop::Temporary)
    }

    fn store(&mut self, target: &Tensor, value: UOpId, order: Loop) -> Result<Write> {
        let via = std::mem::replace(&mut self.bridge_via, BridgeWrite::Assign);
        let target = self.realize(target)?;
        let StorageRef::Realized(s) = target.storage() else { unreachable!("realize leaves no pending storage") };
        let vshape = self.graph.node(value).shape.clone();
        let vdtype = self.graph.node(value).dtype;
        assert_eq!(vshape, target.shape(), "the caller broadcasts the value to the target's shape");
        let value = self.cast_node(value, vdtype, target.dtype());
        let st = ShapeTracker::from_view(View::new(
            target.shape(),
            Some(target.layout().strides()),
            target.layout().offset(),
            None,
        ));
        let buffer = self.buffer_nodes[s];
        let store =
            self.graph.push(Op::Store(st), target.dtype(), vec![self.storages[s].data.len()], vec![buffer, value]);
        // Everything the statement computed so far reads the storage as it was: realize it
        // first. A value that only reads each element it writes is evaluated whole into a
        // temporary, then stored (tinygrad's fix_store_hazard); one whose reads cross the
        // written elements runs element by element, as PyTorch's loop does.
        self.realize_pending_reading(s)?;
        if let Some(w) = self.write_dense(&target, s, value, store)? {
            return Ok(w);
        }
        let elements = target.layout().storage_indices();
        // The written cells as runs, once: a contiguous target's are one range.
        let cells = match target.layout().is_contiguous() {
            true => CellList::range(target.layout().offset(), elements.len()),
            false => elements.as_slice().into(),
        };
        let mut landing = Landing::Target;
        if self.is_bridge() {
            let plan = self.write_plan(s, cells.clone());
            let how = match via {
                BridgeWrite::Own if !target.is_alias() && !self.viewed.contains(&s) => BridgeWrite::Own,
                _ => BridgeWrite::Assign,
            };
            landing = self.bridge_note_write(&plan, s, value, &elements, how);
            self.plans.push(plan);
        }
        let storage_dtype = self.storages[s].data.dtype();
        if storage_dtype != target.dtype() {
            return self.write_reinterpreted(&target, s, value, &elements, landing);
        }
        // The bridge computes the whole value first, then scatters it (a later duplicate
        // position wins): it never runs PyTorch's element loop.
        let hazard = match (self.semantics(), order) {
            (Semantics::Torch, Loop::Live) => {
                sequential::hazard(&self.graph, &self.storages, s, value, target.layout(), &elements)?
            }
            (Semantics::Torch, Loop::Temporary) => {
                sequential::copy_back(&self.graph, &self.storages, value, target.layout(), &elements)?
            }
            (Semantics::Bridge, _) => None,
        };
        match hazard {
            Some(h) => h.apply(&mut self.storages[s].data),
            None => {
                let data = interp::realize_within(&self.graph, &self.storages, value, &self.budget)?;
                match cells.as_range() {
                    Some(r) => self.storages[s].data.write_range(r.start as usize, &data),
                    None => self.storages[s].data.scatter(&elements, &data),
                }
            }
        }
        self.storages[s].version += 1;
        self.bridge_refresh(s, &elements, landing);
        self.ids.bump(target.counter);
        self.events.push(Event::Store { node: store, storage: s });
        Ok(Write { storage: s, elements: cells })
    }

    /// The usual in-place op under PyTorch's rules: a row-major contiguous target of the
    /// storage's dtype whose value reads the storage only through the target itself. Its
    /// elements are one range, so the write is one evaluation and one copy, with no list of
    /// storage indices (32 MB at 2^22 elements). `None` for every other write.
    fn write_dense(&mut self, target: &Tensor, s: StorageId, value: UOpId, store: UOpId) -> Result<Option<Write>> {
        let layout = target.layout();
        if self.is_bridge() || self.storages[s].data.dtype() != target.dtype() || !layout.is_contiguous() {
            return Ok(None);
        }
        if !sequential::reads_only_own(&self.graph, value, s, layout)? {
            return Ok(None);
        }
        let data = interp::realize_within(&self.graph, &self.storages, value, &self.budget)?;
        let start = layout.offset();
        self.storages[s].data.write_range(start as usize, &data);
        self.storages[s].version += 1;
        self.ids.bump(target.counter);
        self.events.push(Event::Store { node: store, storage: s });
        Ok(Some(Write { storage: s, elements: CellList::range(start, data.len()) }))
    }

    /// A write through a dtype view: the value lands in the storage's bytes read as the view's
    /// dtype. It is computed by the interpreter (no kernel reads a storage as another dtype yet,
    /// so the step has no store kernel); the storage map paints every storage element whose
    /// bytes changed.
    fn write_reinterpreted(
        &mut self,
        target: &Tensor,
        s: StorageId,
        value: UOpId,
        elements: &[i64],
        landing: Landing,
    ) -> Result<Write> {
        let data = interp::realize_within(&self.graph, &self.storages, value, &self.budget)?;
        let storage_dtype = self.storages[s].data.dtype();
        let mut view = Data::from_le_bytes(target.dtype(), &self.storages[s].data.to_le_bytes());
        view.scatter(elements, &data);
        let mut bytes = view.to_le_bytes();
        bytes.resize(self.storages[s].data.len() * storage_dtype.itemsize(), 0);
        self.storages[s].data = Data::from_le_bytes(storage_dtype, &bytes);
        self.storages[s].version += 1;
        let (ts, ss) = (target.dtype().itemsize() as i64, storage_dtype.itemsize() as i64);
        // The storage elements whose bytes the written view elements cover, sorted and unique:
        // marked in one pass over the storage (a `uint8` view's 2^26 elements of an `int64`
        // storage touch 2^23 of them; a list of every covered element first would be 512 MB).
        let mut hit = vec![false; self.storages[s].data.len()];
        for &e in elements {
            for i in (e * ts / ss)..=((e * ts + ts - 1) / ss) {
                if let Some(h) = usize::try_from(i).ok().and_then(|i| hit.get_mut(i)) {
                    *h = true;
                }
            }
        }
        let touched: Vec<i64> = hit.iter().enumerate().filter(|&(_, &h)| h).map(|(i, _)| i as i64).collect();
        drop(hit);
        self.bridge_refresh(s, &touched, landing);
        self.ids.bump(target.counter);
        self.events.push(Event::Host { storage: s });
        Ok(Write { storage: s, elements: touched.into() })
    }

    /// PyTorch's memory-overlap checks for a write into `target` that reads `inputs`.
    /// The bridge makes none: it writes overlapping targets and inputs as they come.
    pub fn check_write_overlap(&mut self, target: &Tensor, inputs: &[Tensor], rules: OverlapRules) -> Result<()> {
        if self.is_bridge() {
            return Ok(());
        }
        let target = self.realize(target)?;
        let StorageRef::Realized(s) = target.storage() else { unreachable!("realize leaves no pending storage") };
        if rules.internal && overlap::has_internal_overlap(target.layout()) == MemOverlap::Yes {
            return Err(Error::Overlap {
                message: "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.".into(),
                elements: overlap::repeated_elements(target.layout()),
            });
        }
        if rules.partial {
            for input in inputs {
                let input = self.resolve(input);
                if input.storage() != StorageRef::Realized(s) {
                    continue;
                }
                if overlap::overlap_status(target.layout(), input.layout()) == MemOverlapStatus::Partial {
                    return Err(Error::Overlap {
                        message: "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.".into(),
                        elements: overlap::shared_elements(target.layout(), input.layout()),
                    });
                }
            }
        }
        Ok(())
    }

    /// The node of `o` broadcast to `shape` in `dtype`, for a value about to be written.
    pub fn value_node(&mut self, o: &Operand, dtype: DType, shape: &[usize]) -> Result<UOpId> {
        self.operand_node(o, dtype, shape)
    }
}
