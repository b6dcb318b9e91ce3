//! Which Python tensor object a value is, and the version counter it bumps.
//!
//! In PyTorch both belong to tensors, not storages: every op result is a new object; a view and
//! `detach()` share their source's version counter, while factories, computations and `.data`
//! get a fresh one. `x.set_(y)` makes `x` read `y`'s storage but keeps `x`'s own counter, so
//! two tensors over one storage can report different versions. An in-place metadata op
//! (`t_`, `resize_`, `set_`, ...) changes an object, which every name bound to it then sees.

/// One Python tensor object: shared by every name bound to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ObjectId(u32);

impl ObjectId {
    /// The object's number within its run (Python's `id()` of a tensor is made from it).
    pub fn number(self) -> u32 {
        self.0
    }
}

/// One version counter (`_version`): shared by a tensor, its views and its detached aliases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CounterId(u32);

/// The objects and counters a run has made.
#[derive(Clone, Debug, Default)]
pub struct Identities {
    objects: u32,
    counters: Vec<u64>,
    /// Every bump and unbump so far: whether any version moved since a moment is one compare.
    changes: u64,
}

impl Identities {
    pub fn fresh_object(&mut self) -> ObjectId {
        self.objects = self.objects.saturating_add(1);
        ObjectId(self.objects)
    }

    pub fn fresh_counter(&mut self) -> CounterId {
        // A run has at most a few million tensors (statements and element caps bound it).
        let id = u32::try_from(self.counters.len()).unwrap_or(u32::MAX);
        self.counters.push(0);
        CounterId(id)
    }

    pub fn version(&self, c: CounterId) -> u64 {
        self.counters.get(c.0 as usize).copied().unwrap_or(0)
    }

    /// One in-place op on a tensor with counter `c`.
    pub fn bump(&mut self, c: CounterId) {
        if let Some(v) = self.counters.get_mut(c.0 as usize) {
            *v += 1;
            self.changes += 1;
        }
    }

    /// Takes back a [`Identities::bump`]: the op wrote, then raised (PyTorch bumps a version only
    /// when the op returns).
    pub fn unbump(&mut self, c: CounterId) {
        if let Some(v) = self.counters.get_mut(c.0 as usize) {
            *v = v.saturating_sub(1);
            self.changes += 1;
        }
    }

    /// How many times any version moved (see [`Identities::bump`]).
    pub fn changes(&self) -> u64 {
        self.changes
    }
}
