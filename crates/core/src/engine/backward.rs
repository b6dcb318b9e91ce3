//! Running autograd's graph backward: `backward()` and `torch.autograd.grad` in PyTorch's ready
//! order (each node's gradient materialised once before its inputs' are computed), the saved
//! tensors' version checks, `create_graph`'s history check and `.grad` accumulation.

use super::autograd::GraphUse;
use super::grad_version::{obeys_layout_contract, Arrival, Holders};
use crate::autograd::{op_name, BackwardEntry, Edge, GradTarget, HookId, HookOn, Node, NodeId, SavedField};
use crate::error::{bail, Error, Result};
use crate::identity::ObjectId;
use crate::tensor::{Engine, Tensor};
use std::collections::HashMap;

/// Whether a sum of two gradients in an input's buffer is PyTorch's (in place when it can) or
/// the product's own (a composite reaching one input twice), which PyTorch never makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Summing {
    InPlace,
    Fresh,
}

/// The nodes whose PyTorch op takes two tensor inputs, so that `op(x, x)` sends two gradients
/// to `x` in PyTorch as in the product.
fn two_edge_node(name: &str) -> bool {
    matches!(
        name,
        "AddBackward0"
            | "SubBackward0"
            | "MulBackward0"
            | "DivBackward0"
            | "Atan2Backward0"
            | "HypotBackward0"
            | "MaximumBackward0"
            | "MinimumBackward0"
            | "CatBackward0"
            | "StackBackward0"
    )
}

/// Where a gradient accumulates: a leaf's `.grad` (AccumulateGrad) or a non-leaf's that
/// called `retain_grad()` (its hook clones the first gradient and adds later ones out of place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sink {
    Leaf,
    Retained,
}

/// The description PyTorch gives a tensor in autograd's messages: `[torch.FloatTensor [2, 3]]`.
fn describe(t: &Tensor) -> String {
    // PyTorch's legacy tensor type names (`torch.LongTensor` for a saved int64 index).
    let dims: Vec<String> = t.shape().iter().map(|n| n.to_string()).collect();
    format!("[{} [{}]]", t.dtype().legacy_type(), dims.join(", "))
}

/// PyTorch's refusal to read what a backward without `retain_graph` freed.
const FREED: &str = "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.";

/// A value `grad_fn._saved_<field>` gives.
#[derive(Clone, Debug)]
pub enum Unpacked {
    Tensor(Tensor),
    Scalar(crate::uop::buffer::Scalar),
    /// Declared by the op but not saved by this node (Python's `None`).
    NotSaved,
}

/// What a backward asks its caller to run: the trace's own code, which the engine cannot.
/// Each call gets the engine that runs the backward.
pub trait Callbacks {
    /// A tensor hook's function (the caller keeps the functions, by id) on a gradient: the
    /// gradient to use instead, or `None` to keep it.
    fn hook(&mut self, engine: &mut Engine, id: HookId, g: Tensor) -> Result<Option<Tensor>>;

    /// The `backward` of call `call` of a `torch.autograd.Function` (see
    /// [`Engine::record_function`]) on the gradient of its output: one gradient per tensor
    /// input of the forward, in order (`None` for one it gives no gradient).
    fn backward(&mut self, engine: &mut Engine, call: usize, g: Tensor) -> Result<Vec<Option<Tensor>>>;
}

/// The callbacks a backward is given (named for the hooks, which came first).
pub type HookRunner<'a> = dyn Callbacks + 'a;

/// The caller when nothing needs the trace's code: hooks keep their gradient; a Function's
/// backward cannot run (the caller checks [`Engine::needs_callbacks`] first).
struct NoCallbacks;

impl Callbacks for NoCallbacks {
    fn hook(&mut self, _: &mut Engine, _: HookId, _: Tensor) -> Result<Option<Tensor>> {
        Ok(None)
    }

    fn backward(&mut self, _: &mut Engine, _: usize, _: Tensor) -> Result<Vec<Option<Tensor>>> {
        bail!(Unsupported, "an autograd.Function's backward needs the trace's runner")
    }
}

impl Engine {
    /// `root.backward(gradient, retain_graph, create_graph)`: gradients accumulate into the
    /// leaves' `.grad`.
    pub fn backward(&mut self, root: &Tensor, gradient: Option<&Tensor>, graph: GraphUse) -> Result<()> {
        self.backward_hooked(root, gradient, graph, &mut NoCallbacks)
    }

    /// [`Engine::backward`] running the tensor hooks on the way, through `hooks`: a
    /// non-leaf's when the gradient into its `grad_fn` is complete (before `retain_grad`
    /// keeps it), a leaf's just before it accumulates, each in registration order.
    pub fn backward_hooked(
        &mut self,
        root: &Tensor,
        gradient: Option<&Tensor>,
        graph: GraphUse,
        hooks: &mut HookRunner<'_>,
    ) -> Result<()> {
        let (grads, mut holders) = self.run_backward(root, gradient, graph, None, hooks)?;
        for (leaf, g) in grads {
            let g = self.run_hooks(HookOn::Leaf(leaf), g, hooks)?;
            let arrival = holders.arrival(&g);
            holders.release(&g);
            self.accumulate(leaf, g, graph, arrival, Sink::Leaf)?;
        }
        Ok(())
    }

    /// Whether a backward may need the trace's code: a tensor hook is registered or an
    /// autograd Function was recorded (the caller then runs backward with its [`Callbacks`]).
    pub fn needs_callbacks(&self) -> bool {
        !self.ag.hooks.is_empty() || self.ag.functions
    }

    /// `t.register_hook(fn)`: PyTorch's refusal for a tensor that does not require grad, then
    /// a hook on its `grad_fn` (or on the leaf).
    pub fn register_hook(&mut self, t: &Tensor) -> Result<HookId> {
        if !self.ag.requires_grad(t) {
            bail!(Autograd, "cannot register a hook on a tensor that doesn't require gradient");
        }
        let on = match self.ag.grad_fn(t) {
            Some(n) => HookOn::Node(n),
            None => HookOn::Leaf(t.object),
        };
        let id = HookId(self.ag.next_hook);
        self.ag.next_hook = self.ag.next_hook.saturating_add(1);
        self.ag.hooks.push((on, id));
        Ok(id)
    }

    /// `handle.remove()`.
    pub fn remove_hook(&mut self, id: HookId) {
        self.ag.hooks.retain(|(_, h)| *h != id);
    }

    /// The hooks registered and not removed, in order.
    pub fn hook_ids(&self) -> Vec<HookId> {
        self.ag.hooks.iter().map(|(_, h)| *h).collect()
    }

    /// Runs the hooks on `on` over `g`, each seeing the previous one's result.
    fn run_hooks(&mut self, on: HookOn, mut g: Tensor, hooks: &mut HookRunner<'_>) -> Result<Tensor> {
        let ids: Vec<HookId> = self.ag.hooks.iter().filter(|(o, _)| *o == on).map(|(_, h)| *h).collect();
        for id in ids {
            if let Some(new) = hooks.hook(self, id, g.clone())? {
                if new.shape() != g.shape() {
                    bail!(
                        Autograd,
                        "hook 'hook' has changed the size of value: expected {:?}, got {:?}",
                        g.shape(),
                        new.shape()
                    );
                }
                g = new;
            }
        }
        Ok(g)
    }

    /// Runs a backward formula: untracked, or under `create_graph` recorded like any op (grad
    /// mode on), so the gradient has a history of its own.
    fn differentiate<T>(&mut self, graph: GraphUse, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if !graph.create {
            return self.untracked(f);
        }
        let was = self.ag.enabled;
        self.ag.enabled = true;
        let r = f(self);
        self.ag.enabled = was;
        r
    }

    /// `torch.autograd.grad(root, inputs, gradient, retain_graph)`: the gradients, nothing
    /// accumulated.
    pub fn grad_of(
        &mut self,
        root: &Tensor,
        inputs: &[Tensor],
        gradient: Option<&Tensor>,
        graph: GraphUse,
        allow_unused: bool,
    ) -> Result<Vec<Option<Tensor>>> {
        self.grad_of_hooked(root, inputs, gradient, graph, allow_unused, &mut NoCallbacks)
    }

    /// [`Engine::grad_of`] running the tensor hooks, as [`Engine::backward_hooked`] does (a
    /// leaf input's hooks on the gradient returned for it).
    pub fn grad_of_hooked(
        &mut self,
        root: &Tensor,
        inputs: &[Tensor],
        gradient: Option<&Tensor>,
        graph: GraphUse,
        allow_unused: bool,
        hooks: &mut HookRunner<'_>,
    ) -> Result<Vec<Option<Tensor>>> {
        for t in inputs {
            if !self.ag.requires_grad(t) {
                bail!(Autograd, "One of the differentiated Tensors does not require grad");
            }
        }
        let want: Vec<Edge> = inputs.iter().filter_map(|t| self.ag.edge(t)).collect();
        let (mut grads, _) = self.run_backward(root, gradient, graph, Some(&want), hooks)?;
        for (o, g) in grads.iter_mut() {
            if want.contains(&Edge::Leaf(*o)) {
                *g = self.run_hooks(HookOn::Leaf(*o), g.clone(), hooks)?;
            }
        }
        let mut out = Vec::with_capacity(inputs.len());
        for (i, e) in want.iter().enumerate() {
            let g =
                grads.iter().find(|(o, _)| Edge::Leaf(*o) == *e || self.captured_for(*e, *o)).map(|(_, g)| g.clone());
            if g.is_none() && !allow_unused {
                bail!(
                    Autograd,
                    "The differentiated Tensor at index {i} appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."
                );
            }
            out.push(g);
        }
        Ok(out)
    }

    fn captured_for(&self, e: Edge, o: ObjectId) -> bool {
        matches!(e, Edge::Node(n) if self.ag.meta.get(&o).and_then(|m| m.grad_fn) == Some(n))
    }

    /// Walks the graph from `root`; returns the gradient of each leaf reached (and of each
    /// non-leaf that retains its grad or that `capture` names, keyed by its object).
    fn run_backward(
        &mut self,
        root: &Tensor,
        gradient: Option<&Tensor>,
        graph: GraphUse,
        capture: Option<&[Edge]>,
        hooks: &mut HookRunner<'_>,
    ) -> Result<(Vec<(ObjectId, Tensor)>, Holders)> {
        self.refresh_view(root);
        let Some(edge) = self.ag.edge(root) else {
            bail!(Autograd, "element 0 of tensors does not require grad and does not have a grad_fn");
        };
        let seed = match gradient {
            Some(g) => {
                if g.shape() != root.shape() {
                    bail!(
                        Autograd,
                        "Mismatch in shape: grad_output[0] has a shape of torch.Size([{}]) and output[0] has a shape of torch.Size([{}]).",
                        g.shape().iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "),
                        root.shape().iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")
                    );
                }
                g.clone()
            }
            None => {
                if root.numel() != 1 {
                    bail!(Autograd, "grad can be implicitly created only for scalar outputs");
                }
                self.untracked(|e| e.full(root.shape(), crate::uop::buffer::Scalar::Int(1), Some(root.dtype())))?
            }
        };
        let mut holders = Holders::new(&seed);
        let mut leaves: Vec<(ObjectId, Tensor)> = Vec::new();
        let root_node = match edge {
            Edge::Leaf(o) => {
                leaves.push((o, seed));
                return Ok((leaves, holders));
            }
            Edge::Node(n) => n,
        };
        // Topological order: a node runs once every node feeding it a gradient has.
        let order = self.topo_order(root_node);
        let mut pending: HashMap<NodeId, Tensor> = HashMap::new();
        pending.insert(root_node, seed);
        // The group of the nodes every gradient an input's buffer holds came from (see
        // `Engine::group_as_one_node`); `None` once any came from elsewhere.
        let mut from: HashMap<Edge, Option<NodeId>> = HashMap::new();
        let retained: HashMap<NodeId, ObjectId> = self
            .ag
            .meta
            .iter()
            .filter(|(_, m)| m.retains_grad)
            .filter_map(|(o, m)| m.grad_fn.map(|n| (n, *o)))
            .collect();
        let captured: HashMap<NodeId, ObjectId> = match capture {
            Some(edges) => self
                .ag
                .meta
                .iter()
                .filter_map(|(o, m)| m.grad_fn.filter(|n| edges.contains(&Edge::Node(*n))).map(|n| (n, *o)))
                .collect(),
            None => HashMap::new(),
        };
        for id in order {
            let Some(g) = pending.remove(&id) else { continue };
            let g = self.run_hooks(HookOn::Node(id), g, hooks)?;
            if let Some(&o) = retained.get(&id) {
                if capture.is_none() {
                    self.accumulate(o, g.clone(), graph, Arrival::Shared, Sink::Retained)?;
                }
            }
            if let Some(&o) = captured.get(&id) {
                leaves.push((o, g.clone()));
                continue;
            }
            let node: Node<Tensor> = self.ag.node(id).clone();
            // A Function's saved tensors are checked when its backward reads them.
            let custom = match node.op {
                crate::autograd::GradOp::Custom { call, .. } => Some(call),
                _ => None,
            };
            if node.freed && node.holds_saved && custom.is_none() {
                bail!(Autograd, "{FREED}");
            }
            if custom.is_none() {
                self.check_saved(&node)?;
            }
            // The gradient is computed once, as PyTorch's engine materialises each: every input's
            // gradient below then reads it instead of recomputing its graph.
            let g = if graph.create { g } else { self.realize(&g)? };
            let grads = match custom {
                Some(call) => hooks.backward(self, call, g.clone())?,
                None => self.differentiate(graph, |e| e.vjp(&node, &g))?,
            };
            if self.ag.anomaly == (crate::autograd::Anomaly::On { check_nan: true }) {
                self.check_nan(&node.name, &grads)?;
            }
            if graph.create {
                self.check_history(&node, &g, &grads)?;
            }
            // A node inside a composition that PyTorch records as one node runs no formula of
            // PyTorch's own: only the group's first node (named as PyTorch's) counts its steps.
            if self.ag.groups.get(&id).is_none_or(|&first| first == id) {
                self.count_formula_steps(&node.name, &g, &grads);
            }
            holders.release(&g);
            let into = node
                .next
                .iter()
                .zip(&grads)
                .filter_map(|(e, g)| match (e, g) {
                    (Some(Edge::Node(n)), Some(_)) => Some(GradTarget::Node(self.ag.node(*n).name.clone())),
                    (Some(Edge::Leaf(o)), Some(_)) => Some(GradTarget::Leaf(*o)),
                    _ => None,
                })
                .collect();
            self.backward_log.push(BackwardEntry {
                node: node.name.clone(),
                line: node.line,
                grad_shape: g.shape().to_vec(),
                into,
                write: None,
            });
            // Two gradients one node sends to one input are summed in place only where PyTorch's
            // node has both edges too (`x * x`); the product's composites (`square`, `clamp`)
            // reach an input twice through what is one formula in PyTorch.
            let twice = if two_edge_node(&node.name) { Summing::InPlace } else { Summing::Fresh };
            let group = self.ag.groups.get(&id).copied();
            let mut reached: Vec<Edge> = Vec::new();
            for (edge, g) in node.next.iter().zip(grads) {
                let (Some(edge), Some(g)) = (edge, g) else { continue };
                let summing = if reached.contains(edge) { twice } else { Summing::InPlace };
                reached.push(*edge);
                // Gradients from the nodes of one PyTorch node meet in its formula: fresh.
                let summing = match from.get(edge) {
                    Some(Some(g0)) if group == Some(*g0) => Summing::Fresh,
                    _ => summing,
                };
                let before = from.get(edge).copied();
                from.insert(*edge, if before.is_none_or(|b| b == group) { group } else { None });
                match edge {
                    Edge::Leaf(o) => {
                        if capture.is_some_and(|c| c.contains(edge)) || capture.is_none() {
                            holders.hold(&g);
                            match leaves.iter_mut().find(|(l, _)| l == o) {
                                Some((_, acc)) => *acc = self.buffer_sum(graph, summing, &mut holders, acc, &g)?,
                                None => leaves.push((*o, g)),
                            }
                        }
                    }
                    Edge::Node(n) => {
                        holders.hold(&g);
                        let g = match pending.remove(n) {
                            Some(acc) => self.buffer_sum(graph, summing, &mut holders, &acc, &g)?,
                            None => g,
                        };
                        pending.insert(*n, g);
                    }
                }
            }
            if !graph.retain && node.holds_saved {
                let n = &mut self.ag.nodes[id.index()];
                n.freed = true;
                n.saved.clear();
                self.ag.frees += 1;
            }
        }
        Ok((leaves, holders))
    }

    /// Two gradients for one input summed in its buffer (see [`Engine::count_buffer_sum`]).
    fn buffer_sum(
        &mut self,
        graph: GraphUse,
        summing: Summing,
        holders: &mut Holders,
        old: &Tensor,
        new: &Tensor,
    ) -> Result<Tensor> {
        let sum = self.differentiate(graph, |e| e.add_tensors(old, new))?;
        // With grad mode on (`create_graph`) the buffer never adds in place.
        if !graph.create && summing == Summing::InPlace {
            self.count_buffer_sum(holders, old, &sum);
        }
        holders.release(old);
        holders.release(new);
        holders.hold(&sum);
        Ok(sum)
    }

    /// Nodes reachable from `root`, each after every node that feeds it.
    fn topo_order(&self, root: NodeId) -> Vec<NodeId> {
        let mut indegree: HashMap<NodeId, usize> = HashMap::new();
        let mut stack = vec![root];
        let mut seen = std::collections::HashSet::new();
        seen.insert(root);
        while let Some(n) = stack.pop() {
            for e in self.ag.node(n).next.iter().flatten() {
                if let Edge::Node(m) = e {
                    *indegree.entry(*m).or_default() += 1;
                    if seen.insert(*m) {
                        stack.push(*m);
                    }
                }
            }
        }
        // Among the ready nodes the one made last runs first, as in PyTorch's ready queue
        // (ordered by sequence number): gradients then accumulate in PyTorch's order.
        let mut order = Vec::with_capacity(seen.len());
        let mut ready = std::collections::BinaryHeap::from([root]);
        while let Some(n) = ready.pop() {
            order.push(n);
            for e in self.ag.node(n).next.iter().flatten() {
                if let Edge::Node(m) = e {
                    if let Some(d) = indegree.get_mut(m) {
                        *d -= 1;
                        if *d == 0 {
                            ready.push(*m);
                        }
                    }
                }
            }
        }
        order
    }

    /// PyTorch's check that no saved tensor changed since it was saved.
    /// Anomaly detection's NaN check: a node that returned a NaN gradient is named, as
    /// PyTorch's engine names it.
    fn check_nan(&mut self, name: &str, grads: &[Option<Tensor>]) -> Result<()> {
        for (k, g) in grads.iter().enumerate() {
            let Some(g) = g.as_ref().filter(|g| g.dtype().is_float()) else { continue };
            let values = self.values(g)?;
            if values.to_f64_vec().iter().any(|x| x.is_nan()) {
                bail!(Autograd, "Function '{name}' returned nan values in its {k}th output.");
            }
        }
        Ok(())
    }

    fn check_saved(&self, node: &Node<Tensor>) -> Result<()> {
        node.saved.iter().try_for_each(|s| self.check_saved_one(s))
    }

    /// `grad_fn._saved_<field>`: `Ok(None)` where the node has no such field; the value PyTorch
    /// unpacks otherwise, with its refusals (a saved tensor freed by a backward, or changed in
    /// place since).
    pub fn unpack_saved(&mut self, id: NodeId, field: &str) -> Result<Option<Unpacked>> {
        let node = self.ag.node(id);
        // A freed node forgot what it saved: every field it may have had is gone.
        let freed = node.freed;
        let found = node.op.saved_field(field, |i| freed || node.saved.iter().any(|s| s.operand == i)).or_else(|| {
            // Any op's saved output is its `result`.
            let s = node.saved.iter().find(|s| s.producer == Some(id))?;
            (field == "result").then_some(SavedField::Operand(s.operand))
        });
        let index = match found {
            None => return Ok(None),
            Some(SavedField::Operand(_) | SavedField::Scalar { wrapped: true, .. }) if freed => {
                bail!(Autograd, "{FREED}")
            }
            Some(SavedField::Scalar { value, wrapped: true }) => {
                return Ok(Some(Unpacked::Tensor(self.untracked(|e| e.full(&[], value, None))?)))
            }
            Some(SavedField::Scalar { value, wrapped: false }) => return Ok(Some(Unpacked::Scalar(value))),
            Some(SavedField::Operand(i)) => i,
        };
        let Some(saved) = node.saved.iter().find(|s| s.operand == index) else {
            return Ok(Some(Unpacked::NotSaved));
        };
        self.check_saved_one(saved)?;
        Ok(Some(Unpacked::Tensor(saved.tensor.clone())))
    }

    /// `ctx.saved_tensors` of the Function call recorded as `node`: PyTorch's refusals when
    /// a backward freed them or one was changed in place since it was saved.
    pub fn function_saved(&self, node: NodeId) -> Result<Vec<Tensor>> {
        let n = self.ag.node(node);
        if n.freed && n.holds_saved {
            bail!(Autograd, "{FREED}");
        }
        n.saved.iter().try_for_each(|s| self.check_saved_one(s))?;
        Ok(n.saved.iter().map(|s| s.tensor.clone()).collect())
    }

    fn check_saved_one(&self, s: &crate::autograd::Saved<Tensor>) -> Result<()> {
        {
            let now = self.ids.version(s.counter);
            if now != s.version {
                // PyTorch 2.15 names the op that made the tensor (`Add`, not `AddBackward0`).
                // A saved output names the node that made it; a saved input its `grad_fn` now.
                let node = match s.producer {
                    Some(n) => Some(self.ag.node(n).name.as_str()),
                    None => self.grad_fn_name_now(&s.tensor),
                };
                let which = match node {
                    Some(name) => format!(", which is output 0 of {},", op_name(name)),
                    None => String::new(),
                };
                // With anomaly detection on, PyTorch points at the forward trace it printed.
                let hint = match self.ag.anomaly {
                    crate::autograd::Anomaly::Off => "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
                    crate::autograd::Anomaly::On { .. } => "Hint: the backtrace further above shows the operation that failed to compute its gradient. The variable in question was changed in there or anywhere later. Good luck!",
                };
                return Err(Error::Autograd(format!(
                    "one of the variables needed for gradient computation has been modified by an inplace operation: {}{which} is at version {now}; expected version {} instead. {hint}",
                    describe(&s.tensor),
                    s.version
                )));
            }
        }
        Ok(())
    }

    /// Under `create_graph`, gradients must keep the history they depend on: a formula that
    /// lost the incoming gradient's history, or one that reads its operands through ops that
    /// record nothing while an operand has history, would silently drop second-order terms,
    /// so it is refused instead.
    fn check_history(&self, node: &Node<Tensor>, g: &Tensor, grads: &[Option<Tensor>]) -> Result<()> {
        let lost = grads.iter().flatten().any(|r| r.dtype().is_float() && !self.ag.requires_grad(r));
        let unrecorded =
            !node.op.formula_records_operands() && node.operands.iter().flatten().any(|t| self.ag.requires_grad(t));
        if unrecorded || (lost && self.ag.requires_grad(g)) {
            bail!(
                Unsupported,
                "create_graph=True through {} is not supported yet: its gradient would have no history",
                node.name
            );
        }
        Ok(())
    }

    /// Adds `g` into the leaf's `.grad`: the first gradient becomes `.grad`, later ones are
    /// added in place (`.grad` keeps its storage, its version moves). Under `create_graph` the
    /// first is a recorded clone (`CloneBackward0`) and later ones make a new `.grad = .grad +
    /// g`, as PyTorch's AccumulateGrad does with grad mode on.
    fn accumulate(&mut self, leaf: ObjectId, g: Tensor, graph: GraphUse, arrival: Arrival, sink: Sink) -> Result<()> {
        // A leaf that stopped requiring grad after the graph was built gets nothing, as
        // AccumulateGrad returns early (`set_requires_grad(D, False)` between two backwards).
        if !self.ag.meta.get(&leaf).is_some_and(|m| m.requires_grad) {
            return Ok(());
        }
        let shape = g.shape().to_vec();
        let writes_before = self.grad_writes.len();
        self.accumulate_into(leaf, g, graph, arrival, sink)?;
        // The cells written: the in-place add's, or the whole of a fresh `.grad`.
        let write = match self.grad_writes.get(writes_before) {
            Some(w) => Some((w.storage, w.elements.clone())),
            None => {
                let fresh = self.ag.meta.get(&leaf).and_then(|m| m.grad.clone());
                match fresh {
                    Some(f) => Some((self.storage_id(&f)?, f.layout().storage_indices().into())),
                    None => None,
                }
            }
        };
        self.backward_log.push(BackwardEntry {
            node: "AccumulateGrad".into(),
            line: 0,
            grad_shape: shape,
            into: vec![GradTarget::Leaf(leaf)],
            write,
        });
        Ok(())
    }

    fn accumulate_into(
        &mut self,
        leaf: ObjectId,
        g: Tensor,
        graph: GraphUse,
        arrival: Arrival,
        sink: Sink,
    ) -> Result<()> {
        let current = self.ag.meta.get(&leaf).and_then(|m| m.grad.clone());
        let like = self.ag.meta.get(&leaf).and_then(|m| m.leaf.clone());
        // The version of a new `.grad`: a retained grad's hook clones (version 0); AccumulateGrad
        // steals an owned gradient that obeys the layout contract (its counter, so its version)
        // and otherwise copies it with `empty_strided(..).copy_(g)` (version 1) where the leaf
        // is dense, `clone()` (version 0) where it is not.
        let dense = like.as_ref().is_none_or(|l| l.layout().is_non_overlapping_and_dense());
        let stolen = !graph.create
            && arrival == Arrival::Owned
            && like.as_ref().is_none_or(|l| obeys_layout_contract(g.layout(), l.layout()));
        let first_version = match sink {
            Sink::Retained => 0,
            Sink::Leaf if stolen => self.version(&g),
            Sink::Leaf => u64::from(dense),
        };
        if graph.create {
            let next = self.differentiate(graph, |e| match &current {
                // PyTorch copies into a fresh `.grad` (`CopyBackwards`).
                None => {
                    let c = e.clone_as(&g, crate::torch::format::MemoryFormat::Contiguous)?;
                    e.rename_grad_fn(&c, "CopyBackwards");
                    e.count_steps(&c, first_version);
                    Ok(c)
                }
                Some(acc) => e.add_tensors(acc, &g),
            })?;
            self.ag.meta_mut_by(leaf).grad = Some(next);
            return Ok(());
        }
        match current {
            // AccumulateGrad steals the gradient: `.grad` is that tensor, a view of another
            // gradient's storage too (`cat`'s narrow views share one buffer).
            None if stolen && sink == Sink::Leaf => {
                // `update_grad(new_grad.detach())`: a view's storage, not a view itself.
                let g = self.realize(&g)?;
                let g = match g.is_view() {
                    true => {
                        let d = self.untracked(|e| e.alias(&g))?;
                        self.forget(&d);
                        d
                    }
                    false => g,
                };
                self.ag.meta_mut_by(leaf).grad = Some(g);
            }
            None => {
                // A fresh `.grad` of its own, laid out like the leaf (PyTorch's gradient layout
                // contract).
                let fresh = self.untracked(|e| match &like {
                    Some(l) if l.shape() == g.shape() => {
                        // A new storage holding g, in the leaf's memory order (version 0).
                        let g = e.resolve(&g);
                        let fresh = e.computed_as(g.node(), l.layout().empty_like_preserve())?;
                        e.realize(&fresh)
                    }
                    _ => {
                        let c = e.clone_as(&g, crate::torch::format::MemoryFormat::Contiguous)?;
                        e.realize(&c)
                    }
                })?;
                self.count_steps(&fresh, first_version);
                self.ag.meta_mut_by(leaf).grad = Some(fresh);
            }
            Some(acc) if sink == Sink::Retained => {
                // The hook's `grad + new`: a new tensor at version 0.
                let sum = self.untracked(|e| {
                    let s = e.add_tensors(&acc, &g)?;
                    e.realize(&s)
                })?;
                self.ag.meta_mut_by(leaf).grad = Some(sum);
            }
            Some(acc) => {
                let sum = self.untracked(|e| e.add_tensors(&acc, &g))?;
                let w = self.write(&acc, sum.node())?;
                self.grad_writes.push(w);
            }
        }
        Ok(())
    }

    /// The nodes the last backward ran, in order (for the step's record).
    pub fn take_backward_log(&mut self) -> Vec<BackwardEntry> {
        std::mem::take(&mut self.backward_log)
    }

    /// The writes into `.grad` storages the last backward made (for the step's record).
    pub fn take_grad_writes(&mut self) -> Vec<crate::tensor::Write> {
        std::mem::take(&mut self.grad_writes)
    }
}
