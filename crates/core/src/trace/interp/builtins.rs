//! Python's builtins that call back into the trace or ask what a value is: `sorted`, `min`
//! and `max` with a `key`, `map`, `filter`, `type`, `id`, `isinstance`, `callable`, `hasattr`,
//! `getattr`, and the exception classes called to make an exception.

use crate::error::{bail, Result};
use crate::trace::interp::runner::Run;
use crate::trace::nn::modules;
use crate::trace::python::exception;
use crate::trace::python::introspect;
use crate::trace::python::value::{Args, Value};
use crate::trace::python::{self};
use crate::uop::buffer::Scalar;

impl Run {
    /// A builtin this file runs; `Err(args)` hands the call back for Python's others.
    pub(super) fn call_builtin_callback(&mut self, name: &'static str, mut args: Args) -> Result<Result<Value, Args>> {
        if let Some(class) = exception::class(name) {
            return introspect::exception(class, args).map(Ok);
        }
        Ok(Ok(match name {
            "type" => {
                let v = args.req(0, "object")?;
                args.finish()?;
                introspect::type_of(&self.engine, &v, modules::title)
            }
            "id" => {
                let v = args.req(0, "obj")?;
                args.finish()?;
                Value::Scalar(Scalar::Int(introspect::id_of(&v)))
            }
            "isinstance" => {
                let v = args.req(0, "obj")?;
                let types = args.req(1, "class_or_tuple")?;
                args.finish()?;
                let types = match types {
                    Value::Tuple(t) => t,
                    t => vec![t],
                };
                let mut hit = false;
                for t in &types {
                    hit |= introspect::is_instance(&self.engine, &v, t, modules::title)?;
                }
                Value::Scalar(Scalar::Bool(hit))
            }
            "callable" => {
                let v = args.req(0, "obj")?;
                args.finish()?;
                let yes = matches!(
                    v,
                    Value::Func(_)
                        | Value::Builtin(_)
                        | Value::Function(_)
                        | Value::Layer(_)
                        | Value::Class(_)
                        | Value::Type(_)
                        | Value::Method(..)
                        | Value::Apply(_)
                );
                Value::Scalar(Scalar::Bool(yes))
            }
            "hasattr" | "getattr" => {
                let v = args.req(0, "obj")?;
                let attr = match args.req(1, "name")? {
                    Value::Str(s) => s,
                    other => bail!(Type, "attribute name must be string, not '{}'", other.type_name()),
                };
                let default = args.opt(2, "default");
                args.finish()?;
                let got = self.attribute(v, &attr);
                match (name, got, default) {
                    ("hasattr", got, _) => Value::Scalar(Scalar::Bool(got.is_ok())),
                    (_, Ok(v), _) => v,
                    (_, Err(_), Some(d)) => d,
                    (_, Err(e), None) => return Err(e),
                }
            }
            "map" => {
                let f = args.req(0, "func")?;
                let (pos, kw) = args.into_parts();
                if !kw.is_empty() {
                    bail!(Type, "map() takes no keyword arguments");
                }
                let mut lists = Vec::new();
                for it in pos {
                    lists.push(python::sequence(&mut self.context(), it)?);
                }
                let n = lists.iter().map(Vec::len).min().unwrap_or(0);
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    let items: Vec<Value> = lists.iter().map(|l| l[i].clone()).collect();
                    out.push(self.call_value(f.clone(), items, Vec::new())?);
                }
                Value::list(out)
            }
            "filter" => {
                let f = args.req(0, "function")?;
                let items = args.req(1, "iterable")?;
                args.finish()?;
                let mut out = Vec::new();
                for x in python::sequence(&mut self.context(), items)? {
                    let keep = match &f {
                        Value::None => x.clone(),
                        f => self.call_value(f.clone(), vec![x.clone()], Vec::new())?,
                    };
                    if python::truth(&mut self.context(), &keep)? {
                        out.push(x);
                    }
                }
                Value::list(out)
            }
            "sorted" | "min" | "max" if args.has_kw("key") => {
                let key = args.kw_only("key").unwrap_or(Value::None);
                let reverse = name == "sorted" && args.bool_or(usize::MAX, "reverse", false)?;
                let default = if name == "sorted" { None } else { args.kw_only("default") };
                let (pos, kw) = args.into_parts();
                if let Some((k, _)) = kw.first() {
                    bail!(Type, "{name}() got an unexpected keyword argument '{k}'");
                }
                let items = match (name, pos.len()) {
                    ("sorted", 1) | (_, 1) => {
                        python::sequence(&mut self.context(), pos.into_iter().next().unwrap_or(Value::None))?
                    }
                    ("sorted", n) => bail!(Type, "sorted expected 1 argument, got {n}"),
                    (_, 0) => bail!(Type, "{name} expected at least 1 argument, got 0"),
                    _ => pos,
                };
                let mut keyed = Vec::with_capacity(items.len());
                for x in items {
                    let k = match &key {
                        Value::None => x.clone(),
                        f => self.call_value(f.clone(), vec![x.clone()], Vec::new())?,
                    };
                    keyed.push((k, x));
                }
                return self.by_key(name, keyed, reverse, default).map(Ok);
            }
            _ => return Ok(Err(args)),
        }))
    }

    /// `sorted`/`min`/`max` of items already paired with their keys: a stable sort (ties keep
    /// their order, with `reverse` too, as Python's), the first least or greatest item.
    fn by_key(
        &mut self,
        name: &str,
        keyed: Vec<(Value, Value)>,
        reverse: bool,
        default: Option<Value>,
    ) -> Result<Value> {
        let mut ctx = self.context();
        if name == "sorted" {
            let mut keyed = keyed;
            for i in 1..keyed.len() {
                let mut j = i;
                while j > 0 {
                    let (a, b) = (&keyed[j].0, &keyed[j - 1].0);
                    let swap = if reverse { python::less(&mut ctx, b, a)? } else { python::less(&mut ctx, a, b)? };
                    if !swap {
                        break;
                    }
                    keyed.swap(j, j - 1);
                    j -= 1;
                }
            }
            return Ok(Value::list(keyed.into_iter().map(|(_, x)| x).collect()));
        }
        let mut best: Option<(Value, Value)> = None;
        for (k, x) in keyed {
            best = Some(match best {
                None => (k, x),
                Some((bk, bx)) => {
                    let better =
                        if name == "max" { python::less(&mut ctx, &bk, &k)? } else { python::less(&mut ctx, &k, &bk)? };
                    if better {
                        (k, x)
                    } else {
                        (bk, bx)
                    }
                }
            });
        }
        match best.map(|(_, x)| x).or(default) {
            Some(v) => Ok(v),
            None => bail!(Value, "{name}() iterable argument is empty"),
        }
    }
}
