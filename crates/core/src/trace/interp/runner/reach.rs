//! What the trace can still reach: the storages of every tensor its names, frames, running
//! loops, hooks and autograd functions hold (through containers, modules, optimizers,
//! closures and suspended generators), so the engine frees the rest.

use super::*;

impl Run {
    /// The storages the trace can still reach: its names in every frame, what lists, tuples,
    /// dicts, modules (parameters, buffers, attributes, children), optimizers, suspended
    /// generators and functions' default arguments hold.
    pub(super) fn live_storages(&self) -> Vec<crate::uop::StorageId> {
        fn walk(v: &Value, out: &mut Vec<crate::uop::StorageId>, seen: &mut Seen) {
            match v {
                Value::Tensor(t) | Value::Array(t) | Value::Storage(t, _) => tensor(t, out),
                Value::Method(recv, _) => walk(recv, out, seen),
                Value::Tuple(items) | Value::Size(items) => items.iter().for_each(|x| walk(x, out, seen)),
                // A list or dict shared by many (a DAG of lists) is walked once.
                Value::List(l) if l.tracked() && seen.insert(l.address()) => {
                    l.borrow().iter().for_each(|x| walk(x, out, seen))
                }
                Value::Named(_, fields) => fields.iter().for_each(|(_, x)| walk(x, out, seen)),
                Value::Dict(d) if d.tracked() && seen.insert(d.address()) => d.borrow().iter().for_each(|(k, x)| {
                    if let Key::Other(k) = k {
                        walk(k, out, seen);
                    }
                    walk(x, out, seen)
                }),
                Value::Layer(l) => {
                    for m in l.all() {
                        for list in [&m.params, &m.buffers] {
                            list.borrow().iter().for_each(|(_, t)| tensor(t, out));
                        }
                        m.attrs.borrow().iter().for_each(|(_, x)| walk(x, out, seen));
                        m.config.iter().for_each(|(_, x)| walk(x, out, seen));
                    }
                }
                Value::Optimizer(o) => {
                    o.params.iter().for_each(|t| tensor(t, out));
                    o.named_state().iter().for_each(|(_, t)| tensor(t, out));
                    o.group.iter().for_each(|(_, x)| walk(x, out, seen));
                    walk(&o.param_group, out, seen);
                }
                Value::Function(f) => {
                    f.defaults.iter().flatten().for_each(|x| walk(x, out, seen));
                    f.captured.iter().for_each(|(_, x)| walk(x, out, seen));
                }
                // A suspended generator keeps its names, its loops' iterables and its function.
                Value::Iterator(it) if seen.insert(std::rc::Rc::as_ptr(it) as usize) => {
                    if let Ok(it) = it.try_borrow() {
                        it.reachable(&mut |x| walk(x, out, seen));
                    }
                }
                _ => {}
            }
        }
        fn tensor(t: &Tensor, out: &mut Vec<crate::uop::StorageId>) {
            if let crate::tensor::StorageRef::Realized(s) = t.storage() {
                out.push(s);
            }
        }
        let mut out = Vec::new();
        let globals = self.env.iter().filter(|(n, v)| !self.still_plain(n, v)).map(|(_, v)| v);
        let hooks = self.hook_fns.values();
        let ctxs: Vec<Value> = self.functions.ctxs().collect();
        let mut seen = Seen::default();
        let loops: Vec<Value> = self.loop_iters.iter().map(|it| Value::Iterator(it.clone())).collect();
        let frames = self.frames.iter().flat_map(|f| f.vars.values());
        for v in globals.chain(frames).chain(hooks).chain(&ctxs).chain(&loops) {
            walk(v, &mut out, &mut seen);
        }
        out
    }
}
