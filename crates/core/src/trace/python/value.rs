//! Runtime values of the trace language and the argument parsing every call shares.
//!
//! Python's calling convention (positional, then keyword; sizes as varargs or as one tuple) is
//! handled here once, so the op library reads like a list of PyTorch signatures.

use crate::dtype::DType;
use crate::error::{bail, Result};
use crate::tensor::Tensor;
use crate::torch::format::MemoryFormat;
use crate::uop::buffer::Scalar;

#[derive(Clone, Debug)]
pub enum Value {
    Tensor(Tensor),
    Scalar(Scalar),
    /// A Python int that does not fit 64 bits (`2**64`, `10**100`); one that fits is always a
    /// `Scalar::Int` (`trace::python::number` keeps the two forms apart).
    BigInt(std::rc::Rc<num_bigint::BigInt>),
    Str(String),
    None,
    Ellipsis,
    Slice(Option<i64>, Option<i64>, Option<i64>),
    Tuple(Vec<Value>),
    /// A list, shared as Python's are: `b = a` or an argument binds the same list, and a
    /// change through one name (`b.append(1)`, `b[0] = 2`, `b += [3]`) is seen through all.
    List(List),
    /// A named tuple such as the `(values, indices)` that `max(dim)` returns, with the name of
    /// its type (`torch.return_types.max`: the op's name, `linalg_slogdet` for `linalg.slogdet`).
    Named(String, Vec<(&'static str, Value)>),
    DType(DType),
    /// `torch`, `torch.nn.functional` (`F`) and friends: attribute access yields functions.
    Module(&'static str),
    /// A function looked up on a module, waiting for its call.
    Func(String),
    /// `torch.channels_last` and the other memory formats.
    Format(MemoryFormat),
    /// `t.untyped_storage()` or `t.storage()`: the storage under the tensor (read through the
    /// tensor), counted in bytes or in the tensor's elements.
    Storage(Tensor, StorageView),
    /// A numpy array (`np.array(...)`, `t.numpy()`): a tensor of the engine, so that it can
    /// share a storage with torch tensors, with numpy's rules for its operations and printing.
    Array(Tensor),
    /// A numpy dtype (`a.dtype`, `np.float32`).
    NpDType(DType),
    /// `torch.device(...)`, `x.device`.
    Device(crate::torch::device::Device),
    /// A `torch.Generator` (the default one too): which of the run's generators.
    Generator(crate::random::GeneratorId),
    /// `torch.Size`: `t.shape`, `t.size()`.
    Size(Vec<Value>),
    /// `range(start, stop, step)`.
    Range(i64, i64, i64),
    /// One of Python's builtins (`print`, `range`, `len`, ...) or `math`'s functions.
    Builtin(&'static str),
    /// A function the trace defined.
    Function(std::rc::Rc<Function>),
    /// `torch.no_grad()` and the other grad-mode switches, as `with` uses them.
    Context(GradMode),
    /// A tensor's `grad_fn`: one backward node.
    GradFn(crate::autograd::NodeId),
    /// A `torch.nn` module (`nn.Linear(3, 4)`, `nn.Sequential(...)`, an instance of a class the
    /// trace defines).
    Layer(std::rc::Rc<Module>),
    /// A class the trace defines (`class Net(nn.Module):`), called to make an instance.
    Class(std::rc::Rc<crate::trace::nn::layer::Class<Value>>),
    /// A tensor's method taken as a value (`f = x.add`, `getattr(x, "mul")`), called later on
    /// the tensor it was taken from.
    Method(Box<Value>, String),
    /// `F.apply` of a `torch.autograd.Function` the trace defines, taken as a value
    /// (`relu = MyReLU.apply`), called later.
    Apply(std::rc::Rc<crate::trace::nn::layer::Class<Value>>),
    /// `super()`: the instance, and the trace class after the method's own (`None`: a builtin).
    Super(std::rc::Rc<(Value, Option<std::rc::Rc<crate::trace::nn::layer::Class<Value>>>)>),
    /// A `torch.optim` optimizer.
    Optimizer(std::rc::Rc<crate::trace::nn::optimizer::Optimizer<Value>>),
    /// A `torch.optim.lr_scheduler` scheduler over an optimizer's param group.
    Scheduler(std::rc::Rc<crate::trace::nn::optimizer::Scheduler<Value>>),
    /// A mapping with string keys, in insertion order: a `{...}` display or an optimizer's
    /// `param_groups[i]` (a dict), or `state_dict()` (an `OrderedDict`).
    /// Shared as a list is: `g = opt.param_groups[0]; g['lr'] = 0.01` changes the optimizer's.
    Dict(Dict),
    /// A raised exception (`except E as e`) or one made to raise (`ValueError("...")`).
    Exception(std::rc::Rc<Exception>),
    /// A class that is neither a builtin function nor a trace's own: `torch.Tensor`,
    /// `type(x)` of a tensor, a module or a function, by its qualified name.
    Type(&'static str),
    /// What `t.register_hook(fn)` returns: `remove()` takes the hook off.
    HookHandle(crate::autograd::HookId),
    /// `torch.autograd.detect_anomaly()` / `set_detect_anomaly(b)` as `with` uses them.
    Anomaly(crate::autograd::Anomaly),
    /// A Python iterator object: a generator, `iter(xs)`, `enumerate`/`zip` over a generator.
    Iterator(crate::trace::python::iterator::Shared<Value, Function>),
}

/// How a [`Value::Storage`] counts: `untyped_storage()` in bytes, the legacy `storage()` in
/// elements of the tensor's dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageView {
    Untyped,
    Typed,
}

/// A raised exception as a value: `except E as e` binds one, `E("message")` makes one.
#[derive(Clone, Debug)]
pub struct Exception {
    pub class: String,
    /// What `str(e)` gives.
    pub message: String,
    /// `e.args`: the arguments it was made with (a KeyError's key, an engine error's message).
    pub args: Vec<Value>,
}

/// Which Python mapping a [`Value::Dict`] is: the two print differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DictKind {
    Plain,
    Ordered,
}

/// A module as values hold it.
pub type Module = crate::trace::nn::layer::Layer<Value>;

/// What a grad-mode context manager sets while its block runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GradMode {
    On,
    Off,
    Set(bool),
}

impl GradMode {
    /// Grad mode inside the block.
    pub fn enter(self, _outside: bool) -> bool {
        match self {
            GradMode::On => true,
            GradMode::Off => false,
            GradMode::Set(b) => b,
        }
    }
}

/// A Python list object: one vector behind every name, argument, attribute or container that
/// holds it. Borrows are short (never across a call back into the trace), so a list changed
/// while something reads it is read before and written after (`xs.extend(xs)` copies first).
#[derive(Clone, Debug, Default)]
pub struct List(std::rc::Rc<ListCell>);

#[derive(Debug, Default)]
pub struct ListCell {
    items: std::cell::RefCell<Vec<Value>>,
    /// Whether it may hold something the engine tracks: set when such a value, or another list
    /// (which may come to hold one through another name), goes in, never cleared. A list
    /// without it is plain Python data the runner's per-statement walks skip.
    tracked: std::cell::Cell<bool>,
}

impl List {
    pub fn new(items: Vec<Value>) -> List {
        let tracked = !items.iter().all(Value::is_plain_item);
        List(std::rc::Rc::new(ListCell { items: std::cell::RefCell::new(items), tracked: tracked.into() }))
    }

    pub fn borrow(&self) -> std::cell::Ref<'_, Vec<Value>> {
        self.0.items.borrow()
    }

    /// Its items to change in place, each for one of the same kind (a tensor for its realized
    /// or rebound self): what goes in through [`List::push`] and the other changes is checked.
    pub fn borrow_mut_same(&self) -> std::cell::RefMut<'_, Vec<Value>> {
        self.0.items.borrow_mut()
    }

    /// See [`ListCell::tracked`].
    pub fn tracked(&self) -> bool {
        self.0.tracked.get()
    }

    fn note(&self, v: &Value) {
        if !v.is_plain_item() {
            self.0.tracked.set(true);
        }
    }

    pub fn push(&self, v: Value) {
        self.note(&v);
        self.0.items.borrow_mut().push(v);
    }

    pub fn insert(&self, at: usize, v: Value) {
        self.note(&v);
        self.0.items.borrow_mut().insert(at, v);
    }

    pub fn set(&self, at: usize, v: Value) {
        self.note(&v);
        self.0.items.borrow_mut()[at] = v;
    }

    pub fn extend(&self, vs: Vec<Value>) {
        vs.iter().for_each(|v| self.note(v));
        self.0.items.borrow_mut().extend(vs);
    }

    /// Replaces every item (`xs[:] = ...`, `xs.sort()`).
    pub fn replace(&self, vs: Vec<Value>) {
        vs.iter().for_each(|v| self.note(v));
        *self.0.items.borrow_mut() = vs;
    }

    pub fn remove(&self, at: usize) -> Value {
        self.0.items.borrow_mut().remove(at)
    }

    pub fn clear(&self) {
        self.0.items.borrow_mut().clear();
    }

    pub fn len(&self) -> usize {
        self.0.items.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.items.borrow().is_empty()
    }

    /// A copy of its items as they are now (a new vector; the items themselves shared).
    pub fn items(&self) -> Vec<Value> {
        self.0.items.borrow().clone()
    }

    /// Its items, without a copy when nothing else holds the list.
    pub fn into_items(self) -> Vec<Value> {
        match std::rc::Rc::try_unwrap(self.0) {
            Ok(cell) => cell.items.into_inner(),
            Err(shared) => shared.items.borrow().clone(),
        }
    }

    /// Python's `is`: the same list object.
    pub fn is(&self, other: &List) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }

    /// An address that names the list while it lives (`id(xs)`, cycle checks).
    pub fn address(&self) -> usize {
        std::rc::Rc::as_ptr(&self.0) as usize
    }
}

/// A dict key: a hashable Python value. Equal keys are one entry, as in Python: numbers by
/// value (`1`, `1.0` and `True` are one key, the first spelling kept), strings, `None` and
/// tuples by content, everything else by identity (tensors, modules, functions, dtypes).
#[derive(Clone, Debug)]
pub enum Key {
    Str(String),
    Other(Value),
}

impl Key {
    /// `v` as a key, or Python's error for an unhashable value (a list, dict, slice or numpy
    /// array, or a tuple holding one).
    pub fn of(v: Value) -> Result<Key> {
        fn check(v: &Value) -> Result<()> {
            match v {
                Value::List(_) | Value::Dict(_) | Value::Slice(..) => {
                    bail!(Type, "unhashable type: '{}'", v.type_name())
                }
                Value::Array(_) => bail!(Type, "unhashable type: 'numpy.ndarray'"),
                Value::Tuple(items) | Value::Size(items) => items.iter().try_for_each(check),
                Value::Named(_, fields) => fields.iter().try_for_each(|(_, x)| check(x)),
                _ => Ok(()),
            }
        }
        match v {
            Value::Str(s) => Ok(Key::Str(s)),
            other => check(&other).map(|()| Key::Other(other)),
        }
    }

    /// The key as a string, when it is one (keyword names, `state_dict()`'s names).
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Key::Str(s) => Some(s),
            Key::Other(_) => None,
        }
    }

    /// The key as the value it was spelled with.
    pub fn value(&self) -> Value {
        match self {
            Key::Str(s) => Value::Str(s.clone()),
            Key::Other(v) => v.clone(),
        }
    }

    /// Whether the two are one key.
    pub fn matches(&self, other: &Key) -> bool {
        match (self, other) {
            (Key::Str(a), Key::Str(b)) => a == b,
            (Key::Other(a), Key::Other(b)) => same_key(a, b),
            _ => false,
        }
    }
}

impl From<String> for Key {
    fn from(s: String) -> Key {
        Key::Str(s)
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Key {
        Key::Str(s.to_string())
    }
}

/// Python's key equality of two hashable values other than strings.
fn same_key(a: &Value, b: &Value) -> bool {
    use num_bigint::BigInt;
    // A number as an exact integer when it is one, else as a float.
    fn number(v: &Value) -> Option<Result<BigInt, f64>> {
        match v {
            Value::Scalar(Scalar::Bool(b)) => Some(Ok(BigInt::from(u8::from(*b)))),
            Value::Scalar(Scalar::Int(i)) => Some(Ok(BigInt::from(*i))),
            Value::BigInt(b) => Some(Ok((**b).clone())),
            Value::Scalar(Scalar::Float(f)) if f.fract() == 0.0 => {
                Some(num_traits::FromPrimitive::from_f64(*f).ok_or(*f))
            }
            Value::Scalar(Scalar::Float(f)) => Some(Err(*f)),
            _ => None,
        }
    }
    let items = |v: &Value| -> Option<Vec<Value>> {
        match v {
            Value::Tuple(x) | Value::Size(x) => Some(x.clone()),
            Value::Named(_, f) => Some(f.iter().map(|(_, x)| x.clone()).collect()),
            _ => None,
        }
    };
    match (number(a), number(b)) {
        (Some(Ok(x)), Some(Ok(y))) => return x == y,
        // A NaN key is found only as the same object, which a number here never is.
        (Some(Err(x)), Some(Err(y))) => return x == y,
        (Some(_), Some(_)) => return false,
        _ => {}
    }
    match (items(a), items(b)) {
        (Some(x), Some(y)) => {
            x.len() == y.len()
                && x.into_iter().zip(y).all(|(p, q)| match (Key::of(p), Key::of(q)) {
                    (Ok(p), Ok(q)) => p.matches(&q),
                    _ => false,
                })
        }
        _ => matches!((a, b), (Value::None, Value::None)) || a.is_same(b),
    }
}

/// A Python dict in insertion order, keyed by [`Key`]s: one object behind every name and
/// container that holds it, as [`List`] is.
#[derive(Clone, Debug)]
pub struct Dict(std::rc::Rc<DictCell>);

#[derive(Debug)]
pub struct DictCell {
    kind: DictKind,
    entries: std::cell::RefCell<Vec<(Key, Value)>>,
    /// As [`ListCell`]'s: set when a tracked value, a list or a dict goes in.
    tracked: std::cell::Cell<bool>,
}

impl Dict {
    pub fn new(kind: DictKind, entries: Vec<(Key, Value)>) -> Dict {
        let tracked = !entries.iter().all(|(k, v)| v.is_plain_item() && key_is_plain(k));
        Dict(std::rc::Rc::new(DictCell { kind, entries: std::cell::RefCell::new(entries), tracked: tracked.into() }))
    }

    pub fn kind(&self) -> DictKind {
        self.0.kind
    }

    pub fn borrow(&self) -> std::cell::Ref<'_, Vec<(Key, Value)>> {
        self.0.entries.borrow()
    }

    /// See [`List::borrow_mut_same`].
    pub fn borrow_mut_same(&self) -> std::cell::RefMut<'_, Vec<(Key, Value)>> {
        self.0.entries.borrow_mut()
    }

    /// See [`ListCell::tracked`].
    pub fn tracked(&self) -> bool {
        self.0.tracked.get()
    }

    /// The value under a string key.
    pub fn get(&self, key: &str) -> Option<Value> {
        self.0.entries.borrow().iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v.clone())
    }

    /// The value under `key`.
    pub fn get_key(&self, key: &Key) -> Option<Value> {
        self.0.entries.borrow().iter().find(|(k, _)| k.matches(key)).map(|(_, v)| v.clone())
    }

    /// `d[key] = v`: replaces the key's value in place (the key keeps its first spelling), or
    /// adds it last.
    pub fn insert(&self, key: impl Into<Key>, v: Value) {
        let key = key.into();
        if !v.is_plain_item() || !key_is_plain(&key) {
            self.0.tracked.set(true);
        }
        let mut entries = self.0.entries.borrow_mut();
        match entries.iter_mut().find(|(k, _)| k.matches(&key)) {
            Some(slot) => slot.1 = v,
            None => entries.push((key, v)),
        }
    }

    pub fn remove(&self, key: &Key) -> Option<Value> {
        let mut entries = self.0.entries.borrow_mut();
        let at = entries.iter().position(|(k, _)| k.matches(key))?;
        Some(entries.remove(at).1)
    }

    pub fn len(&self) -> usize {
        self.0.entries.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.entries.borrow().is_empty()
    }

    /// A copy of its entries as they are now.
    pub fn entries(&self) -> Vec<(Key, Value)> {
        self.0.entries.borrow().clone()
    }

    /// Its entries with string keys, for what takes only those (`**kwargs`, `nn.Sequential`'s
    /// names); `Err` with the type name of the first other key.
    pub fn str_entries(&self) -> std::result::Result<Vec<(String, Value)>, &'static str> {
        self.0
            .entries
            .borrow()
            .iter()
            .map(|(k, v)| match k {
                Key::Str(s) => Ok((s.clone(), v.clone())),
                Key::Other(o) => Err(o.type_name()),
            })
            .collect()
    }

    pub fn is(&self, other: &Dict) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }

    pub fn address(&self) -> usize {
        std::rc::Rc::as_ptr(&self.0) as usize
    }
}

/// Whether a key holds nothing the engine tracks (a tensor key keeps its tensor alive).
fn key_is_plain(k: &Key) -> bool {
    match k {
        Key::Str(_) => true,
        Key::Other(v) => v.is_plain_item(),
    }
}

/// The most items a list, tuple, string, comprehension or `range` may hold when built whole.
pub const MAX_SEQUENCE: usize = 1 << 20;

/// How many values `v` holds, nested ones and string characters included: what a copy of it
/// costs, values being held by value. A repetition or a sum of sequences is bounded by it
/// (`[big_list] * 1000` is refused, not built), not only by its own length.
pub fn deep_len(v: &Value) -> usize {
    let sum = |n: usize, x: usize| n.saturating_add(x);
    match v {
        Value::Tuple(items) | Value::Size(items) => items.iter().map(deep_len).fold(1, sum),
        // A list is shared, not copied, by what holds it: one value.
        Value::List(_) => 1,
        Value::Named(_, fields) => fields.iter().map(|(_, x)| deep_len(x)).fold(1, sum),
        // A dict is shared, not copied, by what holds it: one value.
        Value::Dict(_) => 1,
        Value::Str(s) => sum(1, s.len()),
        _ => 1,
    }
}

/// The class of `nn.Parameter`s, as `type(p)` prints it.
pub const PARAMETER_CLASS: &str = "torch.nn.parameter.Parameter";

/// A function the trace defined with `def`, with its defaults as evaluated when `def` ran.
#[derive(Debug)]
pub struct Function {
    pub def: std::rc::Rc<crate::trace::lang::ast::FuncDef>,
    pub defaults: Vec<Option<Value>>,
    /// The enclosing function's names as they were when this one was defined (a closure's
    /// free variables; Python would see later rebindings of them too, which a trace rarely
    /// does before the call).
    pub captured: Vec<(String, Value)>,
    /// How a class calls it: with the instance (a method), without (`@staticmethod`), or on
    /// attribute access (`@property`).
    pub kind: FunctionKind,
    /// The grad mode a `@torch.no_grad()` (or `enable_grad`, `inference_mode`) decorator runs
    /// it in.
    pub grad_mode: Option<GradMode>,
}

/// See [`Function::kind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    Plain,
    Static,
    Property,
}

impl Value {
    /// The named tuple `op` returns: its type is `torch.return_types.<op>`, a dotted name
    /// (`linalg.slogdet`) spelled with an underscore as PyTorch's structseq names are.
    pub fn named(op: &str, fields: Vec<(&'static str, Value)>) -> Value {
        Value::Named(op.replace('.', "_"), fields)
    }

    /// Whether it holds only Python data the engine does not track: nothing with a storage, no
    /// module, optimizer, class or function (whose defaults may hold tensors), and no list that
    /// may come to hold one (a list is plain while [`List::tracked`] is not set; one inside
    /// another value is never plain, as it may change through another name).
    pub fn is_plain(&self) -> bool {
        match self {
            Value::List(l) => !l.tracked(),
            Value::Dict(d) => !d.tracked(),
            other => other.is_plain_with(Value::is_plain_item),
        }
    }

    /// [`Value::is_plain`] for a value held inside another: a list there is never plain.
    pub fn is_plain_item(&self) -> bool {
        self.is_plain_with(Value::is_plain_item)
    }

    fn is_plain_with(&self, item: fn(&Value) -> bool) -> bool {
        match self {
            Value::Tensor(_)
            | Value::Array(_)
            | Value::Storage(..)
            | Value::Layer(_)
            | Value::Optimizer(_)
            | Value::Scheduler(_)
            | Value::Function(_)
            | Value::Class(_)
            | Value::Apply(_)
            | Value::Iterator(_)
            | Value::List(_) => false,
            Value::Method(recv, _) => item(recv),
            Value::Tuple(items) | Value::Size(items) => items.iter().all(item),
            Value::Named(_, fields) => fields.iter().all(|(_, x)| item(x)),
            Value::Dict(_) => false,
            _ => true,
        }
    }

    /// A list read as the tuple of its items now (what an op that takes a sequence sees);
    /// anything else as it is.
    pub fn seq(self) -> Value {
        match self {
            Value::List(l) => Value::Tuple(l.into_items()),
            other => other,
        }
    }

    /// [`Value::seq`] of a borrowed value.
    pub fn seq_ref(&self) -> std::borrow::Cow<'_, Value> {
        match self {
            Value::List(l) => std::borrow::Cow::Owned(Value::Tuple(l.items())),
            other => std::borrow::Cow::Borrowed(other),
        }
    }

    /// `a is b`: the same object (tensors), or the same singleton or small value.
    pub fn is_same(&self, b: &Value) -> bool {
        match (self, b) {
            (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
            (Value::Tensor(x), Value::Tensor(y)) => x.same_object(y),
            (Value::Scalar(x), Value::Scalar(y)) => std::mem::discriminant(x) == std::mem::discriminant(y) && x == y,
            (Value::BigInt(x), Value::BigInt(y)) => x == y,
            (Value::DType(x), Value::DType(y)) | (Value::NpDType(x), Value::NpDType(y)) => x == y,
            (Value::Array(x), Value::Array(y)) => x.same_object(y),
            (Value::Module(x), Value::Module(y)) => x == y,
            (Value::Builtin(x), Value::Builtin(y)) => x == y,
            // `type(m) == nn.Linear`: a built-in module's class is its name.
            (Value::Func(x), Value::Func(y)) => x == y,
            (Value::Function(x), Value::Function(y)) => std::rc::Rc::ptr_eq(x, y),
            (Value::Exception(x), Value::Exception(y)) => std::rc::Rc::ptr_eq(x, y),
            (Value::Type(x), Value::Type(y)) => x == y,
            // `nn.Parameter` is a function value here; `type(p)` gives its class.
            (Value::Type(PARAMETER_CLASS), Value::Func(f)) | (Value::Func(f), Value::Type(PARAMETER_CLASS)) => {
                f == "Parameter"
            }
            (Value::Layer(x), Value::Layer(y)) => std::rc::Rc::ptr_eq(x, y),
            (Value::Optimizer(x), Value::Optimizer(y)) => std::rc::Rc::ptr_eq(x, y),
            (Value::Class(x), Value::Class(y)) => std::rc::Rc::ptr_eq(x, y),
            (Value::List(x), Value::List(y)) => x.is(y),
            (Value::Dict(x), Value::Dict(y)) => x.is(y),
            _ => false,
        }
    }

    /// A new dict of `entries` with string keys.
    pub fn dict(kind: DictKind, entries: Vec<(String, Value)>) -> Value {
        Value::Dict(Dict::new(kind, entries.into_iter().map(|(k, v)| (Key::Str(k), v)).collect()))
    }

    /// A new list of `items`.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(List::new(items))
    }

    /// The items of a tuple, list or `torch.Size` (a list's as they are now); `None` for
    /// anything else.
    pub fn into_items(self) -> Option<Vec<Value>> {
        match self {
            Value::Tuple(v) | Value::Size(v) => Some(v),
            Value::List(l) => Some(l.into_items()),
            _ => None,
        }
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Tensor(_) => "Tensor",
            Value::Scalar(Scalar::Bool(_)) => "bool",
            Value::Scalar(Scalar::Int(_)) | Value::BigInt(_) => "int",
            Value::Scalar(Scalar::Float(_)) => "float",
            Value::Str(_) => "str",
            Value::None => "NoneType",
            Value::Ellipsis => "ellipsis",
            Value::Slice(..) => "slice",
            Value::Tuple(_) => "tuple",
            Value::List(_) => "list",
            Value::Named(..) => "tuple",
            Value::DType(_) => "torch.dtype",
            Value::Array(_) => "numpy.ndarray",
            Value::NpDType(_) => "numpy.dtype",
            Value::Module(_) => "module",
            Value::Func(_) => "builtin_function_or_method",
            Value::Format(_) => "torch.memory_format",
            Value::Storage(_, StorageView::Untyped) => "UntypedStorage",
            Value::Storage(_, StorageView::Typed) => "TypedStorage",
            Value::Size(_) => "torch.Size",
            Value::Range(..) => "range",
            Value::Builtin(_) => "builtin_function_or_method",
            Value::Function(_) => "function",
            Value::Context(_) => "torch.autograd.grad_mode",
            Value::GradFn(_) => "Node",
            Value::Layer(_) => "Module",
            Value::Class(_) => "type",
            Value::Apply(_) => "method",
            Value::Method(..) => "builtin_function_or_method",
            Value::Super(_) => "super",
            Value::Optimizer(_) => "Optimizer",
            Value::Scheduler(_) => "LRScheduler",
            Value::Dict(..) => "dict",
            Value::Generator(_) => "Generator",
            Value::Device(_) => "torch.device",
            Value::Exception(_) => "Exception",
            Value::Type(_) => "type",
            Value::HookHandle(_) => "RemovableHandle",
            Value::Anomaly(_) => "detect_anomaly",
            // A generator running now (its state is with the runner) is still a generator.
            Value::Iterator(it) => it.try_borrow().map_or("generator", |it| it.type_name()),
        }
    }

    pub fn as_int(&self, what: &str) -> Result<i64> {
        match self {
            Value::Scalar(Scalar::Int(i)) => Ok(*i),
            Value::Scalar(Scalar::Bool(b)) => Ok(i64::from(*b)),
            // PyTorch's unpacking of an int argument (a size, a dim, an index, a seed).
            Value::BigInt(_) => bail!(Value, "Overflow when unpacking long long"),
            other => bail!(Type, "{what} must be int, not {}", other.type_name()),
        }
    }

    pub fn as_scalar(&self, what: &str) -> Result<Scalar> {
        match self {
            Value::Scalar(s) => Ok(*s),
            Value::BigInt(b) => big_operand(b),
            other => bail!(Type, "{what} must be a number, not {}", other.type_name()),
        }
    }

    /// Ints from an int, a tuple/list of ints (or a `torch.Size`).
    pub fn as_ints(&self, what: &str) -> Result<Vec<i64>> {
        match self {
            Value::Tuple(v) | Value::Size(v) => v.iter().map(|x| x.as_int(what)).collect(),
            Value::List(l) => l.borrow().iter().map(|x| x.as_int(what)).collect(),
            other => Ok(vec![other.as_int(what)?]),
        }
    }

    /// The items of a tuple, list or `torch.Size` (a list's copied as they are now).
    pub fn items(&self) -> Option<std::borrow::Cow<'_, [Value]>> {
        match self {
            Value::Tuple(v) | Value::Size(v) => Some(std::borrow::Cow::Borrowed(v)),
            Value::List(l) => Some(std::borrow::Cow::Owned(l.items())),
            _ => None,
        }
    }
}

/// What a big int becomes where PyTorch takes a number (a tensor op's scalar operand): PyTorch
/// converts through a 64-bit int and refuses what does not fit.
pub fn big_operand(b: &num_bigint::BigInt) -> Result<Scalar> {
    if b.sign() == num_bigint::Sign::Minus {
        bail!(Value, "can't convert negative int to unsigned");
    }
    if b.bits() > 64 {
        bail!(Value, "int too big to convert");
    }
    // PyTorch reads an int from 2**63 to 2**64 as an unsigned 64-bit value: an integer tensor
    // takes it wrapped to int64 (`int64 + 2**63` wraps), as here; the operators give a float
    // tensor the value itself (`trace::binding::operators`).
    Ok(Scalar::Int(num_traits::ToPrimitive::to_u64(b).unwrap_or(0) as i64))
}

/// The arguments of one call, consumed by name or position as a signature reads them.
pub struct Args {
    func: String,
    pos: Vec<Option<Value>>,
    kw: Vec<(String, Option<Value>)>,
}

impl Args {
    pub fn new(func: &str, pos: Vec<Value>, kw: Vec<(String, Value)>) -> Self {
        Args {
            func: func.to_string(),
            pos: pos.into_iter().map(Some).collect(),
            kw: kw.into_iter().map(|(k, v)| (k, Some(v))).collect(),
        }
    }

    pub fn func(&self) -> &str {
        &self.func
    }

    pub fn len_pos(&self) -> usize {
        self.pos.iter().filter(|p| p.is_some()).count()
    }

    /// The argument at position `i` or keyword `name`, if given.
    /// Positional argument `i` without taking it (to choose an overload).
    pub fn peek(&self, i: usize) -> Option<&Value> {
        self.pos.get(i).and_then(Option::as_ref)
    }

    pub fn opt(&mut self, i: usize, name: &str) -> Option<Value> {
        if let Some(v) = self.pos.get_mut(i).and_then(Option::take) {
            return Some(v);
        }
        self.kw.iter_mut().find(|(k, _)| k == name).and_then(|(_, v)| v.take())
    }

    /// Whether keyword `name` was given (and not yet taken).
    pub fn has_kw(&self, name: &str) -> bool {
        self.kw.iter().any(|(k, v)| k == name && v.is_some())
    }

    pub fn kw_only(&mut self, name: &str) -> Option<Value> {
        self.kw.iter_mut().find(|(k, _)| k == name).and_then(|(_, v)| v.take())
    }

    pub fn req(&mut self, i: usize, name: &str) -> Result<Value> {
        match self.opt(i, name) {
            Some(v) => Ok(v),
            None => bail!(Type, "{}() missing required argument '{name}' (pos {})", self.func, i + 1),
        }
    }

    pub fn int(&mut self, i: usize, name: &str) -> Result<i64> {
        self.req(i, name)?.as_int(name)
    }

    pub fn opt_int(&mut self, i: usize, name: &str) -> Result<Option<i64>> {
        match self.opt(i, name) {
            None | Some(Value::None) => Ok(None),
            Some(v) => v.as_int(name).map(Some),
        }
    }

    pub fn int_or(&mut self, i: usize, name: &str, default: i64) -> Result<i64> {
        Ok(self.opt_int(i, name)?.unwrap_or(default))
    }

    pub fn bool_or(&mut self, i: usize, name: &str, default: bool) -> Result<bool> {
        match self.opt(i, name) {
            None => Ok(default),
            Some(Value::Scalar(Scalar::Bool(b))) => Ok(b),
            Some(Value::Scalar(Scalar::Int(i))) => Ok(i != 0),
            Some(v) => bail!(Type, "{}(): argument '{name}' must be bool, not {}", self.func, v.type_name()),
        }
    }

    /// Sizes as PyTorch accepts them: varargs from position `i` on, or one tuple/list there.
    pub fn sizes(&mut self, i: usize, name: &str) -> Result<Vec<i64>> {
        let first = match self.opt(i, name) {
            Some(v) => v,
            None => return Ok(vec![]),
        };
        let func = self.func.clone();
        // PyTorch's refusal of a size past 64 bits names its place in the list (from 1).
        let size = |k: usize, v: &Value| -> Result<i64> {
            if let Value::BigInt(_) = v {
                bail!(
                    Type,
                    "{func}(): argument '{name}' failed to unpack the object at pos {} with error \"Overflow when unpacking long long\"",
                    k + 1
                );
            }
            v.as_int(name)
        };
        if let Some(items) = first.items() {
            return items.iter().enumerate().map(|(k, v)| size(k, v)).collect();
        }
        let mut out = vec![size(0, &first)?];
        let mut j = i + 1;
        while let Some(v) = self.pos.get_mut(j).and_then(Option::take) {
            out.push(size(out.len(), &v)?);
            j += 1;
        }
        Ok(out)
    }

    /// Dims given as None (all), an int, or a tuple/list of ints.
    pub fn dims(&mut self, i: usize, name: &str) -> Result<Option<Vec<i64>>> {
        match self.opt(i, name) {
            None | Some(Value::None) => Ok(None),
            Some(v) => v.as_ints(name).map(Some),
        }
    }

    pub fn dtype(&mut self) -> Result<Option<DType>> {
        match self.kw_only("dtype") {
            None | Some(Value::None) => Ok(None),
            Some(Value::DType(d)) => Ok(Some(d)),
            Some(v) => bail!(Type, "{}(): argument 'dtype' must be torch.dtype, not {}", self.func, v.type_name()),
        }
    }

    /// The `memory_format=` keyword, `default` when absent.
    pub fn memory_format(&mut self, default: MemoryFormat) -> Result<MemoryFormat> {
        match self.kw_only("memory_format") {
            None | Some(Value::None) => Ok(default),
            Some(Value::Format(f)) => Ok(f),
            Some(v) => {
                bail!(
                    Type,
                    "{}(): argument 'memory_format' must be torch.memory_format, not {}",
                    self.func,
                    v.type_name()
                )
            }
        }
    }

    /// The arguments not yet taken: positional, then keyword (for varargs signatures).
    pub fn into_parts(self) -> (Vec<Value>, Vec<(String, Value)>) {
        let pos = self.pos.into_iter().flatten().collect();
        let kw = self.kw.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))).collect();
        (pos, kw)
    }

    /// The same call without its first positional argument (a function's receiver).
    pub fn shifted(mut self) -> Args {
        if !self.pos.is_empty() {
            self.pos.remove(0);
        }
        self
    }

    /// Fails on anything the signature did not consume, as Python does.
    pub fn finish(self) -> Result<()> {
        if let Some(i) = self.pos.iter().position(Option::is_some) {
            bail!(Type, "{}() takes {} positional arguments but more were given", self.func, i);
        }
        if let Some((k, _)) = self.kw.iter().find(|(_, v)| v.is_some()) {
            bail!(Type, "{}() got an unexpected keyword argument '{k}'", self.func);
        }
        Ok(())
    }
}

/// Sizes as `usize`, refusing a negative one with PyTorch's message.
pub fn sizes(v: Vec<i64>) -> Result<Vec<usize>> {
    if let Some(&n) = v.iter().find(|&&n| n < 0) {
        bail!(Shape, "Trying to create tensor with negative dimension {n}: {v:?}");
    }
    Ok(v.into_iter().map(|n| n as usize).collect())
}
