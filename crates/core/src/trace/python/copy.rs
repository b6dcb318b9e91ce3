//! Python's `copy` module on trace values: `copy.deepcopy` by PyTorch's `__deepcopy__` (a leaf
//! tensor's whole storage copied, its offset and strides kept, `requires_grad` and `.grad`
//! carried; a parameter cloned; a module rebuilt from copies of its parameters, buffers,
//! children and attributes; a tensor or storage reached twice copied once) and `copy.copy` (a
//! new tensor object over the same storage, a new list or dict holding the same items).

use super::context::RunContext;
use super::value::{Dict, Module, Value};
use crate::engine::autograd::GradSwitch;
use crate::error::{bail, Result};
use crate::identity::ObjectId;
use crate::tensor::{StorageRef, Tensor};
use std::collections::HashMap;
use std::rc::Rc;

/// What one `deepcopy` call has copied already, so what is shared stays shared.
#[derive(Default)]
struct Memo {
    tensors: HashMap<ObjectId, Tensor>,
    storages: Vec<(StorageRef, Tensor)>,
    modules: HashMap<usize, Rc<Module>>,
    lists: HashMap<usize, Value>,
}

/// `copy.deepcopy(v)`.
pub fn deepcopy(ctx: &mut RunContext, v: &Value) -> Result<Value> {
    deep(ctx, v, &mut Memo::default())
}

/// `copy.copy(v)`.
pub fn shallow(ctx: &mut RunContext, v: &Value) -> Result<Value> {
    Ok(match v {
        Value::List(l) => Value::list(l.items()),
        Value::Dict(d) => Value::Dict(Dict::new(d.kind(), d.entries())),
        Value::Tensor(t) => {
            // `Tensor.__reduce_ex__` rebuilds over the same storage (a `set_`: version 1).
            let alias = ctx.engine.data_alias(t)?;
            Value::Tensor(ctx.engine.bump_version(&alias)?)
        }
        other => other.clone(),
    })
}

fn deep(ctx: &mut RunContext, v: &Value, memo: &mut Memo) -> Result<Value> {
    Ok(match v {
        Value::Tensor(t) => Value::Tensor(tensor(ctx, t, memo)?),
        Value::Tuple(items) => Value::Tuple(items.iter().map(|x| deep(ctx, x, memo)).collect::<Result<_>>()?),
        Value::List(l) => {
            if let Some(done) = memo.lists.get(&l.address()) {
                return Ok(done.clone());
            }
            let out = Value::list(Vec::new());
            memo.lists.insert(l.address(), out.clone());
            let items = l.items().iter().map(|x| deep(ctx, x, memo)).collect::<Result<Vec<_>>>()?;
            if let Value::List(new) = &out {
                new.extend(items);
            }
            out
        }
        Value::Dict(d) => {
            if let Some(done) = memo.lists.get(&d.address()) {
                return Ok(done.clone());
            }
            let out = Value::dict(d.kind(), Vec::new());
            memo.lists.insert(d.address(), out.clone());
            if let Value::Dict(new) = &out {
                for (k, x) in d.entries() {
                    let x = deep(ctx, &x, memo)?;
                    Dict::insert(new, k, x);
                }
            }
            out
        }
        Value::Layer(l) => Value::Layer(module(ctx, l, memo)?),
        Value::Optimizer(_) => bail!(Unsupported, "copy.deepcopy of an optimizer is not supported"),
        other => other.clone(),
    })
}

fn tensor(ctx: &mut RunContext, t: &Tensor, memo: &mut Memo) -> Result<Tensor> {
    if let Some(done) = memo.tensors.get(&t.object_id()) {
        return Ok(done.clone());
    }
    let ag = ctx.engine.autograd();
    if !ag.is_leaf(t) {
        bail!(
            Autograd,
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001"
        );
    }
    let requires_grad = ag.requires_grad(t);
    let grad = ctx.engine.grad(t);
    let out = if ctx.engine.is_parameter(t) {
        // `Parameter.__deepcopy__`: a clone of its elements, version 0.
        let c = ctx.engine.untracked(|e| e.copy(t))?;
        ctx.engine.make_parameter(&c)?;
        if !requires_grad {
            ctx.engine.set_requires_grad(&c, false, GradSwitch::Native)?;
        }
        c
    } else {
        // The whole storage, once per deepcopy, then the tensor's own layout over it (`set_`).
        let whole = match memo.storages.iter().find(|(s, _)| *s == t.storage()) {
            Some((_, w)) => w.clone(),
            None => {
                let n = ctx.engine.storage_numel(t)? as i64;
                let all = ctx.engine.untracked(|e| e.as_strided(t, &[n], &[1], Some(0)))?;
                let w = ctx.engine.untracked(|e| e.copy(&all))?;
                memo.storages.push((t.storage(), w.clone()));
                w
            }
        };
        let size: Vec<i64> = t.shape().iter().map(|&n| n as i64).collect();
        let layout = t.layout();
        let view = ctx.engine.untracked(|e| e.as_strided(&whole, &size, layout.strides(), Some(layout.offset())))?;
        let c = ctx.engine.data_alias(&view)?;
        let c = ctx.engine.bump_version(&c)?;
        if requires_grad {
            ctx.engine.set_requires_grad(&c, true, GradSwitch::Native)?;
        }
        c
    };
    if let Some(g) = grad {
        let g = tensor(ctx, &g, memo)?;
        ctx.engine.set_grad(&out, Some(g))?;
    }
    memo.tensors.insert(t.object_id(), out.clone());
    Ok(out)
}

fn module(ctx: &mut RunContext, l: &Rc<Module>, memo: &mut Memo) -> Result<Rc<Module>> {
    let key = Rc::as_ptr(l) as usize;
    if let Some(done) = memo.modules.get(&key) {
        return Ok(done.clone());
    }
    let mut m = Module::new(l.kind);
    m.config = l.config.clone();
    m.class = l.class.clone();
    m.training.set(l.training.get());
    m.initialized.set(l.initialized.get());
    let m = Rc::new(m);
    memo.modules.insert(key, m.clone());
    for (n, t) in l.params.borrow().iter() {
        let c = tensor(ctx, t, memo)?;
        m.params.borrow_mut().push((n.clone(), c));
    }
    for (n, t) in l.buffers.borrow().iter() {
        let c = tensor(ctx, t, memo)?;
        m.buffers.borrow_mut().push((n.clone(), c));
    }
    for (n, c) in l.children.borrow().iter() {
        let c = module(ctx, c, memo)?;
        m.children.borrow_mut().push((n.clone(), c));
    }
    let attrs: Vec<(String, Value)> = l.attrs.borrow().clone();
    for (n, v) in attrs {
        let v = deep(ctx, &v, memo)?;
        m.attrs.borrow_mut().push((n, v));
    }
    Ok(m)
}
