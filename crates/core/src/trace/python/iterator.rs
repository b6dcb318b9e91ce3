//! Python's iterator objects: a generator (what calling a `def` that yields returns), `iter(xs)`,
//! and `enumerate` / `zip` over a generator. An iterator is shared, as Python's are: advancing
//! it through one name advances it for every name and every loop that holds it.
//!
//! This file holds their state only, generic over the value type `V` and the function type `F`
//! as `nn::layer` is (so that values may hold iterators that hold values); `python` advances
//! the ones that run no trace code, and a generator's body runs in the runner
//! (`interp::generator`) a piece at a time: its state keeps where the body stands as a stack of
//! [`Cursor`]s and the function's names between pieces.

use crate::autograd::Anomaly;
use crate::tensor::Tensor;
use crate::trace::lang::ast::Target;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// One iterator object, as names and containers share it.
pub type Shared<V, F> = Rc<RefCell<PyIter<V, F>>>;

/// An iterator over a value, as a `for` loop or a comprehension walks it.
pub enum Iter<V, F> {
    Range {
        next: i64,
        left: usize,
        step: i64,
    },
    Items(std::vec::IntoIter<V>),
    /// A tensor's rows, each a view (`t[i]`).
    Rows {
        t: Tensor,
        i: usize,
        n: usize,
    },
    /// A numpy array's rows: arrays (views), or numbers for a 1-d array.
    ArrayRows {
        t: Tensor,
        i: usize,
        n: usize,
    },
    /// An iterator object's items, taken from it as they are consumed.
    Shared(Shared<V, F>),
}

pub enum PyIter<V, F> {
    /// `iter(xs)` over a sequence, a range, a dict or a tensor's rows: the items left.
    Items { kind: &'static str, items: Box<Iter<V, F>> },
    /// A generator made by calling a function whose body yields.
    Generator(Box<GenFrame<V, F>>),
    /// `enumerate(it)` where `it` is a generator: the count, and the iterator counted.
    Enumerate { next: i64, inner: Shared<V, F> },
    /// `zip(a, b, ...)` where one of them is a generator.
    Zip(Vec<Shared<V, F>>),
    /// An instance of a trace class with `__getitem__` and no `__iter__`: `target[next]`, then
    /// the next index, until an IndexError.
    Indexed { target: V, next: i64 },
}

impl<V, F> std::fmt::Debug for PyIter<V, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.type_name())
    }
}

impl<V, F> PyIter<V, F> {
    /// Python's name of the iterator's type.
    pub fn type_name(&self) -> &'static str {
        match self {
            PyIter::Items { kind, .. } => kind,
            PyIter::Generator(_) => "generator",
            PyIter::Enumerate { .. } => "enumerate",
            PyIter::Zip(_) => "zip",
            PyIter::Indexed { .. } => "iterator",
        }
    }

    /// A shared iterator over `items` (what `iter(xs)` of `kind`'s sequence returns).
    pub fn items(kind: &'static str, items: Iter<V, F>) -> Shared<V, F> {
        Rc::new(RefCell::new(PyIter::Items { kind, items: Box::new(items) }))
    }

    /// A shared iterator over `target[0]`, `target[1]`, ... (see [`PyIter::Indexed`]).
    pub fn indexed(target: V) -> Shared<V, F> {
        Rc::new(RefCell::new(PyIter::Indexed { target, next: 0 }))
    }
}

/// A generator's state between the pieces of its body that ran.
pub struct GenFrame<V, F> {
    pub function: Rc<F>,
    /// The function's names (its parameters first), kept while the body is suspended.
    pub vars: BTreeMap<String, V>,
    /// The names a `global` statement in the body made the module's.
    pub globals: Vec<String>,
    /// Where the body stands, innermost last; empty before the first item and after the end.
    pub cursors: Vec<Cursor<V, F>>,
    pub state: GenState,
}

impl<V, F> GenFrame<V, F> {
    /// A generator of `function`'s body with its arguments bound, not started (Python runs none
    /// of the body before the first `next`).
    pub fn start(function: Rc<F>, vars: BTreeMap<String, V>) -> Shared<V, F> {
        let frame = GenFrame { function, vars, globals: Vec::new(), cursors: Vec::new(), state: GenState::Created };
        Rc::new(RefCell::new(PyIter::Generator(Box::new(frame))))
    }
}

/// Where a generator is in its life.
#[derive(Clone, Debug, PartialEq)]
pub enum GenState {
    /// Made, its body not yet started.
    Created,
    /// Stopped at a `yield`: what the `yield` binds when the body resumes (`x = yield v`).
    Suspended(Option<Target>),
    /// Its body is running now (a `next` from inside it is Python's ValueError).
    Running,
    /// It returned, raised or ran off its end: every further `next` ends at once.
    Done,
}

/// A path from a function's body to one of its nested blocks: at each level, the index of the
/// compound statement and which of its blocks (`StmtKind::blocks`'s order).
pub type BlockPath = Vec<(usize, usize)>;

/// One level of where a suspended generator's body stands.
pub enum Cursor<V, F> {
    /// Running the statements of the block at `path`; `next` is the index of the next one.
    Block { path: BlockPath, next: usize },
    /// A `for` loop (statement `index` of the block at `path`) that yields in its body: the
    /// iterator it walks.
    For { path: BlockPath, index: usize, items: Shared<V, F> },
    /// A `while` loop (statement `index` of the block at `path`) that yields in its body.
    While { path: BlockPath, index: usize },
    /// A `with` block that yields: the grad mode and anomaly mode to restore when it ends.
    With { grad: bool, anomaly: Anomaly },
    /// `yield from items`: the iterator whose items the generator passes on.
    Delegate(Shared<V, F>),
}
