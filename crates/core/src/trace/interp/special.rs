//! Python's special methods on instances of the classes a trace defines: `len(obj)` runs
//! `__len__`, `obj[i]` `__getitem__`, `obj[i] = v` `__setitem__`, `x in obj` `__contains__`,
//! `for x in obj` `__iter__` (or `__getitem__` from 0 until an IndexError, Python's older
//! protocol), `obj(...)` `__call__`, and `print(obj)`, `str`, `repr` and f-strings `__str__`
//! / `__repr__`. A hand-written `Dataset` (`__len__` + `__getitem__`) is the usual one.

use crate::error::{bail, Error, Result};
use crate::trace::interp::runner::Run;
use crate::trace::lang::ast::BinOp;
use crate::trace::nn::layer::LayerKind;
use crate::trace::python::exception;
use crate::trace::python::value::{Args, Function, Value};
use crate::trace::python::{PyIter, SharedIter};
use crate::uop::buffer::Scalar;
use std::rc::Rc;

impl Run {
    /// The special method `name` of `v`, when `v` is an instance of a trace class that has it.
    pub(in crate::trace) fn special(&self, v: &Value, name: &str) -> Option<Rc<Function>> {
        match v {
            Value::Layer(l) => self.method_of(l, name),
            _ => None,
        }
    }

    /// Calls a special method found by [`Run::special`] on `v`.
    pub(in crate::trace) fn call_special(&mut self, v: &Value, f: &Rc<Function>, args: Vec<Value>) -> Result<Value> {
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(v.clone());
        all.extend(args);
        self.call_user(f, all, Vec::new())
    }

    /// `len`, `str`, `repr` and `print` of instances whose class defines `__len__`, `__str__`
    /// or `__repr__`; `Err(args)` hands every other call back.
    pub(in crate::trace) fn special_builtin(&mut self, name: &'static str, args: Args) -> Result<Result<Value, Args>> {
        if name == "super" {
            return self.super_object(args).map(Ok);
        }
        let (pos, kw) = args.into_parts();
        if !pos.iter().any(|v| matches!(v, Value::Layer(l) if l.class.is_some())) {
            return Ok(Err(Args::new(name, pos, kw)));
        }
        match (name, pos.as_slice()) {
            ("len", [v]) if kw.is_empty() => {
                if let Some(n) = self.special_len(v)? {
                    return Ok(Ok(n));
                }
                if let Value::Layer(l) = v {
                    if let (Some(c), false) =
                        (&l.class, matches!(l.kind, LayerKind::Sequential | LayerKind::ModuleList))
                    {
                        bail!(Type, "object of type '{}' has no len()", c.name);
                    }
                }
            }
            ("str" | "repr", [v]) if kw.is_empty() => {
                let which = if name == "str" { Text::Str } else { Text::Repr };
                if let Some(s) = self.special_text(v, which)? {
                    return Ok(Ok(Value::Str(s)));
                }
            }
            ("print", _) => {
                let mut shown = Vec::with_capacity(pos.len());
                for v in pos {
                    shown.push(self.shown(v)?);
                }
                return Ok(Err(Args::new(name, shown, kw)));
            }
            _ => {}
        }
        Ok(Err(Args::new(name, pos, kw)))
    }

    /// `super()` (inside a method: its class and its first argument) or `super(Class, obj)`:
    /// the instance with the class after that one in the instance's chain of trace classes.
    fn super_object(&mut self, args: Args) -> Result<Value> {
        let (pos, kw) = args.into_parts();
        if !kw.is_empty() {
            bail!(Type, "super() takes no keyword arguments");
        }
        let (owner, obj) = match pos.as_slice() {
            [] => {
                let no_arguments =
                    || Error::Raised { class: "RuntimeError".into(), message: "super(): no arguments".into() };
                let Some(f) = self.running.last().cloned() else { return Err(no_arguments()) };
                let Some((first, _)) = f.def.params.first() else { return Err(no_arguments()) };
                let obj = self.frames.last().and_then(|fr| fr.vars.get(first)).cloned().unwrap_or(Value::None);
                // The class whose own method is running: the last in the instance's chain that
                // holds this very function.
                let mut owner = None;
                let mut class = match &obj {
                    Value::Layer(l) => l.class.clone(),
                    _ => None,
                };
                while let Some(c) = class {
                    if c.methods.iter().any(|(_, m)| matches!(m, Value::Function(m) if Rc::ptr_eq(m, &f))) {
                        owner = Some(c.clone());
                    }
                    class = c.base.clone();
                }
                (owner, obj)
            }
            [Value::Class(c), obj] => (Some(c.clone()), obj.clone()),
            [_, obj] => (None, obj.clone()),
            _ => bail!(Type, "super() takes at most 2 arguments"),
        };
        let next = owner.and_then(|c| c.base.clone());
        Ok(Value::Super(Rc::new((obj, next))))
    }

    /// `super().name(args)`: the next class's method on the instance; `__init__` past the
    /// trace's classes is `nn.Module`'s (it marks the module initialised) or `object`'s.
    pub(in crate::trace) fn call_super(
        &mut self,
        sup: &(Value, Option<Rc<crate::trace::nn::modules::ModuleClass>>),
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> Result<Value> {
        let (obj, next) = sup;
        let method = next.as_ref().and_then(|c| {
            c.methods.iter().rev().find_map(|(n, m)| match m {
                Value::Function(m) if n == name => Some(m.clone()),
                _ => None,
            })
        });
        if let Some(m) = method {
            let mut all = Vec::with_capacity(pos.len() + 1);
            all.push(obj.clone());
            all.extend(pos);
            return self.call_user(&m, all, kw);
        }
        match name {
            "__init__" => {
                if let Value::Layer(l) = obj {
                    l.initialized.set(true);
                }
                Ok(Value::None)
            }
            // A built-in module's forward or method, as the instance's own would run it.
            _ => self.call_method(obj.clone(), name, pos, kw),
        }
    }

    /// `len(v)` through `__len__`; `None` when `v` has none.
    pub(in crate::trace) fn special_len(&mut self, v: &Value) -> Result<Option<Value>> {
        let Some(f) = self.special(v, "__len__") else { return Ok(None) };
        match self.call_special(v, &f, Vec::new())? {
            Value::Scalar(Scalar::Int(n)) if n < 0 => bail!(Value, "__len__() should return >= 0"),
            n @ Value::Scalar(Scalar::Int(_) | Scalar::Bool(_)) => Ok(Some(n)),
            other => bail!(Type, "'{}' object cannot be interpreted as an integer", other.type_name()),
        }
    }

    /// The text `str(v)` (`Str`) or `repr(v)` (`Repr`) gives for an instance whose class defines
    /// `__str__` or `__repr__` (`str` falls back on `__repr__`); `None` otherwise.
    pub(in crate::trace) fn special_text(&mut self, v: &Value, which: Text) -> Result<Option<String>> {
        let f = match which {
            Text::Str => self.special(v, "__str__").or_else(|| self.special(v, "__repr__")),
            Text::Repr => self.special(v, "__repr__"),
        };
        let Some(f) = f else { return Ok(None) };
        let name = if matches!(which, Text::Str) { "__str__" } else { "__repr__" };
        match self.call_special(v, &f, Vec::new())? {
            Value::Str(s) => Ok(Some(s)),
            other => bail!(Type, "{name} returned non-string (type {})", other.type_name()),
        }
    }

    /// `v` as `print` and `str()` would show it, when its class says how; else `v` itself.
    pub(in crate::trace) fn shown(&mut self, v: Value) -> Result<Value> {
        Ok(match self.special_text(&v, Text::Str)? {
            Some(s) => Value::Str(s),
            None => v,
        })
    }

    /// `obj[items]` through `__getitem__`; `None` when `obj` has none.
    pub(in crate::trace) fn special_getitem(&mut self, obj: &Value, items: &[Value]) -> Result<Option<Value>> {
        let Some(f) = self.special(obj, "__getitem__") else { return Ok(None) };
        self.call_special(obj, &f, vec![key_of(items)]).map(Some)
    }

    /// `obj[items] = v` through `__setitem__`; `false` when `obj` has none.
    pub(in crate::trace) fn special_setitem(&mut self, obj: &Value, items: &[Value], v: Value) -> Result<bool> {
        let Some(f) = self.special(obj, "__setitem__") else { return Ok(false) };
        self.call_special(obj, &f, vec![key_of(items), v])?;
        Ok(true)
    }

    /// `a in b` / `a not in b` through `b.__contains__`; `None` when `b` has none.
    pub(in crate::trace) fn special_contains(&mut self, op: BinOp, a: &Value, b: &Value) -> Result<Option<Value>> {
        if !matches!(op, BinOp::In | BinOp::NotIn) {
            return Ok(None);
        }
        let Some(f) = self.special(b, "__contains__") else { return Ok(None) };
        let v = self.call_special(b, &f, vec![a.clone()])?;
        let hit = crate::trace::python::truth(&mut self.context(), &v)?;
        Ok(Some(Value::Scalar(Scalar::Bool(hit == (op == BinOp::In)))))
    }

    /// An iterator over an instance: its `__iter__`'s, or its items by index; `None` when the
    /// class defines neither.
    pub(in crate::trace) fn special_iter(&mut self, obj: &Value) -> Result<Option<SharedIter>> {
        if let Some(f) = self.special(obj, "__iter__") {
            let it = self.call_special(obj, &f, Vec::new())?;
            if let Value::Layer(_) = it {
                bail!(Unsupported, "an __iter__ that returns an object with __next__ is not supported; use 'yield'");
            }
            return self.iterator_of(it).map(Some);
        }
        if self.special(obj, "__getitem__").is_some() {
            return Ok(Some(PyIter::indexed(obj.clone())));
        }
        Ok(None)
    }

    /// The next item of a by-index iterator: `obj[i]`, the end at its IndexError.
    pub(in crate::trace) fn next_indexed(&mut self, obj: &Value, i: i64) -> Result<Option<Value>> {
        let failing = self.failing;
        match self.special_getitem(obj, &[Value::Scalar(Scalar::Int(i))]) {
            Ok(v) => Ok(v),
            Err(e) if exception::of(&e).is_some_and(|x| x.class == "IndexError" || x.class == "StopIteration") => {
                // The error ends the loop; it points at no line.
                self.failing = failing;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

/// Which text a value's class is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::trace) enum Text {
    Str,
    Repr,
}

/// The key a subscript passes: one item as itself, several as a tuple (`obj[1, 2]`).
fn key_of(items: &[Value]) -> Value {
    match items {
        [one] => one.clone(),
        many => Value::Tuple(many.to_vec()),
    }
}
