//! What a `torch.nn` module is, as a trace value holds it (the modules' behaviour is
//! `modules.rs`; this file imports nothing of the trace, so values can hold modules: the
//! value type is a parameter, `V`).
//!
//! A module is PyTorch's `nn.Module` as data: its parameters, buffers and child modules by
//! name in registration order, its other attributes, and its `training` flag. A built-in
//! module's behaviour is its [`LayerKind`] and its `config` (the constructor's arguments, by
//! the functional's keyword names); a module the trace defines (`class Net(nn.Module)`) is
//! [`LayerKind::Custom`] with its class.

use crate::tensor::Tensor;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// A hasher for the addresses the module walks remember: one multiply, where SipHash made the
/// walks of a deep module tree the cost of every statement.
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
}

type Addresses<T> = HashSet<*const T, BuildHasherDefault<AddressHasher>>;
use std::rc::Rc;

/// One module.
#[derive(Debug)]
pub struct Layer<V> {
    pub kind: LayerKind,
    /// The constructor's arguments a built-in module keeps (`kernel_size`, `p`, `reduction`, ...).
    pub config: Vec<(&'static str, V)>,
    pub params: RefCell<Vec<(String, Tensor)>>,
    pub buffers: RefCell<Vec<(String, Tensor)>>,
    pub children: RefCell<Vec<(String, Rc<Layer<V>>)>>,
    /// Plain attributes of a module the trace defines (`self.n = 3`).
    pub attrs: RefCell<Vec<(String, V)>>,
    pub training: Cell<bool>,
    /// False for an instance of a trace's module class until its `__init__` has called
    /// `super().__init__()`: until then PyTorch's `Module.__setattr__` refuses parameters,
    /// modules and buffers.
    pub initialized: Cell<bool>,
    /// The class of a module the trace defines.
    pub class: Option<Rc<Class<V>>>,
}

/// A module's printed form, PyTorch's `repr(module)`: the modules' behaviour (`modules.rs`)
/// implements it, so Python's `repr` prints a module without importing that.
pub trait Repr {
    fn repr(&self) -> crate::error::Result<String>;
}

/// A class the trace defines (`class Name(nn.Module):`, or a plain `class Name:`): its
/// methods, in definition order, and its class attributes (`scale = 2` in the body).
#[derive(Debug)]
pub struct Class<V> {
    pub name: String,
    /// Its methods with those it inherits (a method of its own replacing its base's).
    pub methods: Vec<(String, V)>,
    pub attrs: Vec<(String, V)>,
    pub kind: ClassKind,
    /// The first base that is a class of the trace: where `super()` looks next.
    pub base: Option<std::rc::Rc<Class<V>>>,
}

/// Whether a trace's class is an `nn.Module` (parameters, children, a module's printed form),
/// a `torch.autograd.Function` or a plain Python class (an object with attributes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassKind {
    Module,
    Plain,
    /// A `torch.autograd.Function`: `F.apply(...)` runs it.
    Function,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LayerKind {
    Linear {
        in_features: usize,
        out_features: usize,
        bias: bool,
    },
    Conv2d,
    /// `BatchNorm1d`/`BatchNorm2d`: the input rank it accepts (2 or 3, or 4).
    BatchNorm {
        dims: BatchDims,
        features: usize,
        eps: f64,
        /// `None`: a cumulative average.
        momentum: Option<f64>,
    },
    Embedding {
        num: usize,
        dim: usize,
    },
    /// Over the last `dims` dims.
    LayerNorm {
        dims: usize,
        eps: f64,
    },
    /// A module that calls one functional with its config (`nn.ReLU` is `F.relu`, ...).
    Functional(Functional),
    /// `nn.RNN`, `nn.LSTM`, `nn.GRU`.
    Recurrent(Recurrent),
    Sequential,
    /// `nn.ModuleList`: children, no forward.
    ModuleList,
    Custom,
}

/// A recurrent stack: its cell and its shape, as the constructor's arguments give them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recurrent {
    pub cell: RecurrentCell,
    pub input_size: usize,
    pub hidden_size: usize,
    pub num_layers: usize,
    pub bias: bool,
    pub batch_first: bool,
    pub dropout: f64,
    pub bidirectional: bool,
}

/// The step a recurrent layer repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecurrentCell {
    /// `nn.RNN`: `h = tanh(W_ih x + b_ih + W_hh h + b_hh)`.
    Tanh,
    /// `nn.RNN(nonlinearity='relu')`.
    Relu,
    /// `nn.LSTM`: four gates, a hidden and a cell state.
    Lstm,
    /// `nn.GRU`: reset, update and new gates.
    Gru,
}

impl RecurrentCell {
    /// How many gates' rows each weight stacks.
    pub fn gates(self) -> usize {
        match self {
            RecurrentCell::Tanh | RecurrentCell::Relu => 1,
            RecurrentCell::Lstm => 4,
            RecurrentCell::Gru => 3,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            RecurrentCell::Tanh | RecurrentCell::Relu => "RNN",
            RecurrentCell::Lstm => "LSTM",
            RecurrentCell::Gru => "GRU",
        }
    }
}

impl Recurrent {
    pub fn directions(&self) -> usize {
        if self.bidirectional {
            2
        } else {
            1
        }
    }
}

/// The input ranks a batch norm accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchDims {
    /// `BatchNorm1d`: (N, C) or (N, C, L).
    One,
    /// `BatchNorm2d`: (N, C, H, W).
    Two,
}

/// A built-in module that is one functional call, by its name in `nn` (a row of the
/// modules' table, which holds its facts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Functional(pub &'static str);

impl<V> Layer<V> {
    /// A module of `kind` with nothing registered yet, in training mode (PyTorch's default).
    pub fn new(kind: LayerKind) -> Self {
        Layer {
            kind,
            config: Vec::new(),
            params: RefCell::default(),
            buffers: RefCell::default(),
            children: RefCell::default(),
            attrs: RefCell::default(),
            training: Cell::new(true),
            initialized: Cell::new(true),
            class: None,
        }
    }

    pub fn param(&self, name: &str) -> Option<Tensor> {
        self.params.borrow().iter().find(|(n, _)| n == name).map(|(_, t)| t.clone())
    }

    pub fn buffer(&self, name: &str) -> Option<Tensor> {
        self.buffers.borrow().iter().find(|(n, _)| n == name).map(|(_, t)| t.clone())
    }

    pub fn child(&self, name: &str) -> Option<Rc<Layer<V>>> {
        self.children.borrow().iter().find(|(n, _)| n == name).map(|(_, c)| c.clone())
    }

    /// The module and every module under it, pre-order, each with its dotted prefix
    /// (PyTorch's `named_modules`; a module reached twice is listed once).
    pub fn modules(self: &Rc<Self>) -> Vec<(String, Rc<Layer<V>>)> {
        let mut out: Vec<(String, Rc<Layer<V>>)> = Vec::new();
        let mut seen = Addresses::<Layer<V>>::default();
        let mut stack = vec![(String::new(), self.clone())];
        while let Some((prefix, m)) = stack.pop() {
            if !seen.insert(Rc::as_ptr(&m)) {
                continue;
            }
            for (name, c) in m.children.borrow().iter().rev() {
                stack.push((format!("{prefix}{name}."), c.clone()));
            }
            out.push((prefix, m));
        }
        out
    }

    /// The module and every module under it, pre-order, each once, without their names: what
    /// a walk over a model's tensors needs, linear in the modules however deep they nest.
    pub fn all(self: &Rc<Self>) -> Vec<Rc<Layer<V>>> {
        let mut out = Vec::new();
        let mut seen = Addresses::<Layer<V>>::default();
        let mut stack = vec![self.clone()];
        while let Some(m) = stack.pop() {
            if !seen.insert(Rc::as_ptr(&m)) {
                continue;
            }
            stack.extend(m.children.borrow().iter().rev().map(|(_, c)| c.clone()));
            out.push(m);
        }
        out
    }

    /// `named_parameters()`: dotted names in PyTorch's order, each parameter once.
    pub fn named_parameters(self: &Rc<Self>) -> Vec<(String, Tensor)> {
        let mut out: Vec<(String, Tensor)> = Vec::new();
        let mut seen = HashSet::new();
        for (prefix, m) in self.modules() {
            for (n, t) in m.params.borrow().iter() {
                if seen.insert(t.object) {
                    out.push((format!("{prefix}{n}"), t.clone()));
                }
            }
        }
        out
    }

    /// `named_buffers()`.
    pub fn named_buffers(self: &Rc<Self>) -> Vec<(String, Tensor)> {
        let mut out = Vec::new();
        for (prefix, m) in self.modules() {
            for (n, t) in m.buffers.borrow().iter() {
                out.push((format!("{prefix}{n}"), t.clone()));
            }
        }
        out
    }

    /// `state_dict()`'s entries: per module its parameters, then its buffers, then its children.
    pub fn state(self: &Rc<Self>) -> Vec<(String, Tensor)> {
        let mut out = Vec::new();
        for (prefix, m) in self.modules() {
            for (n, t) in m.params.borrow().iter().chain(m.buffers.borrow().iter()) {
                out.push((format!("{prefix}{n}"), t.clone()));
            }
        }
        out
    }
}

/// The Python module that defines `nn.<name>` (what its class prints as), for the classes
/// the trace builds.
pub fn class_module(name: &str) -> Option<&'static str> {
    Some(match name {
        "Module" => "torch.nn.modules.module",
        "Linear" | "Identity" => "torch.nn.modules.linear",
        "Conv2d" => "torch.nn.modules.conv",
        "BatchNorm1d" | "BatchNorm2d" => "torch.nn.modules.batchnorm",
        "Sequential" | "ModuleList" => "torch.nn.modules.container",
        "Embedding" => "torch.nn.modules.sparse",
        "LayerNorm" => "torch.nn.modules.normalization",
        "RNN" | "LSTM" | "GRU" => "torch.nn.modules.rnn",
        "ReLU" | "Sigmoid" | "Tanh" | "GELU" | "LeakyReLU" | "Softmax" | "LogSoftmax" => "torch.nn.modules.activation",
        "Flatten" => "torch.nn.modules.flatten",
        "Dropout" => "torch.nn.modules.dropout",
        "MaxPool2d" | "AvgPool2d" => "torch.nn.modules.pooling",
        "CrossEntropyLoss" | "MSELoss" | "L1Loss" | "NLLLoss" | "BCEWithLogitsLoss" => "torch.nn.modules.loss",
        "Parameter" => "torch.nn.parameter",
        _ => return None,
    })
}
