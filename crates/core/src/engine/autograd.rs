//! Recording autograd's graph: the engine's side of [`crate::autograd`] (when a node is
//! recorded, the in-place rules and their errors, and which saved tensors a write made stale).
//! `backward.rs` runs the graph backward.

use crate::autograd::{op_name, Autograd, Edge, GradOp, Node, NodeId, Route, Saved, Side};
use crate::error::{bail, Error, Result};
use crate::tensor::{Engine, Tensor};
use crate::uop::buffer::Scalar;

pub use super::autograd_graph::{NodeView, SavedView};

/// What a backward does with the graph it walks (`retain_graph=`, `create_graph=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GraphUse {
    /// Keep the saved tensors for another backward.
    pub retain: bool,
    /// Record the gradients themselves, so that they can be differentiated again.
    pub create: bool,
}

/// Where a tensor's `requires_grad` is switched from: PyTorch words its integer-dtype refusal
/// differently at each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GradSwitch {
    /// C++'s `set_requires_grad`: a factory's `requires_grad=`, `nn.Parameter`, copies.
    Native,
    /// `t.requires_grad_(b)`.
    Method,
    /// `t.requires_grad = b`.
    Attribute,
}

impl Engine {
    pub fn autograd(&self) -> &Autograd<Tensor> {
        &self.ag
    }

    pub fn set_grad_enabled(&mut self, on: bool) {
        self.ag.enabled = on;
    }

    pub fn grad_enabled(&self) -> bool {
        self.ag.enabled
    }

    /// `torch.autograd.set_detect_anomaly(...)` and the `detect_anomaly()` block.
    pub fn set_anomaly(&mut self, mode: crate::autograd::Anomaly) {
        self.ag.anomaly = mode;
    }

    pub fn anomaly(&self) -> crate::autograd::Anomaly {
        self.ag.anomaly
    }

    /// `requires_grad=` on a factory, `t.requires_grad_(b)`, `t.requires_grad = b`: only leaves
    /// of floating dtype.
    pub fn set_requires_grad(&mut self, t: &Tensor, on: bool, from: GradSwitch) -> Result<()> {
        if on && !t.dtype().is_float() {
            bail!(
                Autograd,
                "{}",
                match from {
                    GradSwitch::Native => "Only Tensors of floating point and complex dtype can require gradients",
                    GradSwitch::Method => "only Tensors of floating point dtype can require gradients",
                    GradSwitch::Attribute => "only Tensors of floating point and complex dtype can require gradients",
                }
            );
        }
        if !self.ag.is_leaf(t) {
            if !on {
                bail!(
                    Autograd,
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
                );
            }
            return Ok(());
        }
        let m = self.ag.meta_mut(t);
        m.requires_grad = on;
        m.leaf = Some(t.clone());
        Ok(())
    }

    /// Marks `t` as an `nn.Parameter` (a leaf that requires grad, printed as one).
    pub fn make_parameter(&mut self, t: &Tensor) -> Result<()> {
        self.set_requires_grad(t, true, GradSwitch::Native)?;
        self.ag.meta_mut(t).parameter = true;
        Ok(())
    }

    /// Whether `t` is an `nn.Parameter`.
    pub fn is_parameter(&self, t: &Tensor) -> bool {
        self.ag.meta(t).is_some_and(|m| m.parameter)
    }

    /// `t.retain_grad()`.
    pub fn retain_grad(&mut self, t: &Tensor) -> Result<()> {
        if !self.ag.requires_grad(t) {
            bail!(Autograd, "can't retain_grad on Tensor that has requires_grad=False");
        }
        if !self.ag.is_leaf(t) {
            self.ag.meta_mut(t).retains_grad = true;
        }
        Ok(())
    }

    /// `t.grad`.
    pub fn grad(&self, t: &Tensor) -> Option<Tensor> {
        self.ag.meta(t).and_then(|m| m.grad.clone())
    }

    /// `t.grad = g` (None clears it).
    pub fn set_grad(&mut self, t: &Tensor, g: Option<Tensor>) -> Result<()> {
        if let Some(g) = &g {
            if g.shape() != t.shape() {
                bail!(Shape, "assigned grad has data of a different size");
            }
            if g.dtype() != t.dtype() {
                bail!(DType, "assigned grad has data of a different type");
            }
        }
        self.ag.meta_mut(t).grad = g;
        Ok(())
    }

    /// The name of `t`'s grad_fn.
    pub fn grad_fn_name(&self, t: &Tensor) -> Option<&str> {
        self.ag.grad_fn(t).map(|n| self.ag.node(n).name.as_str())
    }

    /// A view's autograd state: it shares its base's history through a view node (recorded by
    /// the view op) and remembers whether it was made under `no_grad`. A float view made in
    /// grad mode of a base that does not require grad remembers its base too, as PyTorch's
    /// view metadata does: it requires grad once the base does, an in-place write into it
    /// then rebases the base, and its history is regenerated after the base's changes.
    pub(crate) fn note_view(&mut self, base: &Tensor, view: &Tensor) {
        if self.ag.depth > 0 {
            return;
        }
        if !self.ag.requires_grad(base) && (!self.ag.enabled || !base.dtype().is_float()) {
            return;
        }
        // The view shares the history of its source's differentiable base, or of the source.
        let src_meta = self.ag.meta(base).cloned();
        let diff_base = src_meta.as_ref().and_then(|m| m.diff_base.clone()).unwrap_or_else(|| base.clone());
        let multi = src_meta.is_some_and(|m| m.multi_output);
        let no_grad = !self.ag.enabled;
        let version = self.ids.version(view.counter);
        let m = self.ag.meta_mut(view);
        m.diff_base = Some(diff_base);
        m.multi_output |= multi;
        m.no_grad_view |= no_grad;
        m.view_version = version;
        if no_grad {
            m.requires_grad = true;
        }
    }

    /// Runs `f` without recording (the ops an op is built from, and gradients themselves).
    pub(crate) fn untracked<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.ag.depth += 1;
        let r = f(self);
        self.ag.depth -= 1;
        r
    }

    /// Records the node for `out = op(inputs)` when grad mode is on, this is the outermost op,
    /// and some input requires grad. `operands` are what the formula reads; `saved` the indices
    /// of those PyTorch saves (checked for in-place changes at backward).
    pub(crate) fn record(
        &mut self,
        out: &Tensor,
        op: GradOp,
        inputs: &[Option<&Tensor>],
        operands: Vec<Option<Tensor>>,
        saved: &[usize],
    ) {
        self.record_holding(out, op, inputs, operands, saved, false);
    }

    /// [`Engine::record`]; `scalar_saved` says the node also saves a wrapped Python scalar.
    pub(crate) fn record_holding(
        &mut self,
        out: &Tensor,
        op: GradOp,
        inputs: &[Option<&Tensor>],
        operands: Vec<Option<Tensor>>,
        saved: &[usize],
        scalar_saved: bool,
    ) {
        if !self.ag.enabled || self.ag.depth > 0 || !out.dtype().is_float() {
            return;
        }
        for t in inputs.iter().flatten() {
            self.refresh_view(t);
        }
        let next: Vec<Option<Edge>> = inputs.iter().map(|t| t.and_then(|t| self.ag.edge(t))).collect();
        // An input that requires grad through its base alone (a view made before the base did)
        // has no edge, yet its result has a node, as PyTorch's has (the gradient then stops).
        if next.iter().all(Option::is_none) && !inputs.iter().flatten().any(|t| self.ag.requires_grad(t)) {
            return;
        }
        let id = self.ag.next_id();
        let saved: Vec<Saved<Tensor>> = saved
            .iter()
            .filter_map(|&i| operands.get(i).cloned().flatten().map(|t| (i, t)))
            .map(|(operand, t)| {
                let producer = t.same_object(out).then_some(id);
                // A saved result is computed now, once: what the statement does with it next
                // reads the stored values instead of computing them again (a loss from
                // `log_softmax`, a product with `sigmoid`). It would be stored at the statement's
                // end anyway; one that cannot be stays pending and fails there as before.
                let t = match producer {
                    Some(_) => self.realize(&t).unwrap_or(t),
                    None => t,
                };
                Saved { counter: t.counter, version: self.ids.version(t.counter), tensor: t, operand, producer }
            })
            .collect();
        let holds_saved = scalar_saved || !saved.is_empty();
        self.ag.nodes.push(Node {
            name: op.name(),
            op,
            next,
            operands,
            saved,
            shape: out.shape().to_vec(),
            freed: false,
            holds_saved,
            line: 0,
        });
        let m = self.ag.meta_mut(out);
        m.requires_grad = true;
        m.grad_fn = Some(id);
    }

    /// Records `out` as the output of call `call` of the trace's `torch.autograd.Function`
    /// `class` (its forward ran untracked), with the tensors `ctx.save_for_backward` saved.
    /// Returns the node, or `None` when nothing is recorded (grad mode off, no input requires
    /// grad, an integer output).
    pub fn record_function(
        &mut self,
        out: &Tensor,
        inputs: &[Option<&Tensor>],
        saved: Vec<Tensor>,
        class: &str,
        call: usize,
    ) -> Option<NodeId> {
        let which: Vec<usize> = (0..saved.len()).collect();
        let operands = saved.into_iter().map(Some).collect();
        self.record(out, GradOp::Custom { class: class.to_string(), call }, inputs, operands, &which);
        let node = self.ag.grad_fn(out)?;
        matches!(self.ag.node(node).op, GradOp::Custom { call: c, .. } if c == call).then(|| {
            self.ag.functions = true;
            node
        })
    }

    /// Records `out`, made by an op that only moves, repeats or drops `input`'s elements (zeros
    /// elsewhere), as one node named `name`. Where each output element came from is found by
    /// running the same op (`map`) on a probe of the input ([`Engine::probe`]).
    pub(crate) fn record_index_map(
        &mut self,
        out: &Tensor,
        input: &Tensor,
        name: &'static str,
        map: impl FnOnce(&mut Self, &Tensor) -> Result<Tensor>,
    ) -> Result<()> {
        if !self.index_map_wanted(out, &[input]) {
            return Ok(());
        }
        let positions = self.untracked(|e| {
            let probe = e.probe(input.shape())?;
            map(e, &probe)
        })?;
        self.record_index_maps(out, name, &[(input, Route::FromOutput, positions)]);
        Ok(())
    }

    /// Whether autograd records `out = op(inputs)` (grad mode, outermost, an input requiring
    /// grad, a float result).
    pub(crate) fn index_map_wanted(&self, out: &Tensor, inputs: &[&Tensor]) -> bool {
        self.ag.enabled
            && self.ag.depth == 0
            && out.dtype().is_float()
            && out.numel() > 0
            && inputs.iter().any(|t| self.ag.requires_grad(t))
    }

    /// The flat positions + 1 of a tensor of `shape`, as int64: run through an op that moves
    /// elements, it says where each came from (0: nowhere).
    pub(crate) fn probe(&mut self, shape: &[usize]) -> Result<Tensor> {
        let n = i64::try_from(shape.iter().product::<usize>()).unwrap_or(i64::MAX);
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let probe =
            self.arange(Scalar::Int(1), Scalar::Int(n + 1), Scalar::Int(1), Some(crate::dtype::DType::Int64))?;
        self.reshape(&probe, &dims)
    }

    /// Records an index-map node over several inputs, each with its map and route.
    pub(crate) fn record_index_maps(&mut self, out: &Tensor, name: &'static str, inputs: &[(&Tensor, Route, Tensor)]) {
        let op = GradOp::IndexMap { name, inputs: inputs.iter().map(|(t, r, _)| (*r, t.shape().to_vec())).collect() };
        let edges: Vec<Option<&Tensor>> = inputs.iter().map(|(t, _, _)| Some(*t)).collect();
        let maps = inputs.iter().map(|(_, _, m)| Some(m.clone())).collect();
        self.record(out, op, &edges, maps, &[]);
    }

    /// Records a binary elementwise op, saving what PyTorch's formula saves.
    pub(crate) fn record_binary(
        &mut self,
        op: crate::uop::BinaryOp,
        a: &crate::tensor::Operand,
        b: &crate::tensor::Operand,
        out: &Tensor,
    ) {
        use crate::tensor::Operand;
        use crate::uop::BinaryOp as B;
        if !matches!(
            op,
            B::Add
                | B::Sub
                | B::Mul
                | B::Div
                | B::Pow
                | B::Max
                | B::Min
                | B::Fmod
                | B::Mod
                | B::Atan2
                | B::Hypot
                | B::Copysign
        ) {
            return;
        }
        let (ta, tb) = match (a, b) {
            (Operand::Tensor(x), Operand::Tensor(y)) => (Some(x.clone()), Some(y.clone())),
            (Operand::Tensor(x), Operand::Scalar(_)) => (Some(x.clone()), None),
            (Operand::Scalar(_), Operand::Tensor(y)) => (None, Some(y.clone())),
            _ => return,
        };
        let scalar = match (a, b) {
            (Operand::Scalar(v), _) => Some((*v, Side::Left)),
            (_, Operand::Scalar(v)) => Some((*v, Side::Right)),
            _ => None,
        };
        // Autograd saves what the gradients it will compute need: `mul` saves `other` for
        // `self`'s gradient and `self` for `other`'s.
        let needs = |t: &Option<Tensor>| t.as_ref().is_some_and(|t| self.ag.requires_grad(t));
        let (need_a, need_b) = (needs(&ta), needs(&tb));
        let mut saved: Vec<usize> = Vec::new();
        let mut scalar_saved = false;
        match op {
            B::Mul => {
                if need_a {
                    saved.push(1);
                    scalar_saved |= tb.is_none();
                }
                if need_b {
                    saved.push(0);
                    scalar_saved |= ta.is_none();
                }
            }
            B::Div => {
                if need_a || need_b {
                    saved.push(1);
                    scalar_saved |= tb.is_none();
                }
                if need_b {
                    saved.push(0);
                }
            }
            B::Max | B::Min => saved.extend([0, 1]),
            B::Pow if scalar.is_none() => {
                saved.extend([0, 1]);
                if need_b {
                    saved.push(2);
                }
            }
            B::Pow => saved.extend([0, 1, 2]),
            // `other`'s gradient is `-grad * (self / other)` rounded: both, when it needs one.
            B::Fmod | B::Mod if need_b => saved.extend([0, 1]),
            B::Atan2 => saved.extend([0, 1]),
            B::Hypot => saved.extend([0, 1, 2]),
            B::Copysign => saved.extend([0, 2]),
            _ => {}
        }
        let operands = vec![ta.clone(), tb.clone(), Some(out.clone())];
        // Pow keeps its result only when the exponent is a tensor (the formula recomputes it
        // otherwise); hypot and copysign read theirs.
        let keeps_out = (op == B::Pow && tb.is_some()) || matches!(op, B::Hypot | B::Copysign);
        let operands = if keeps_out { operands } else { vec![ta.clone(), tb.clone(), None] };
        self.record_holding(
            out,
            GradOp::Binary { op, scalar },
            &[ta.as_ref(), tb.as_ref()],
            operands,
            &saved,
            scalar_saved,
        );
    }

    /// Records a unary elementwise op, saving its input or its result as PyTorch does.
    pub(crate) fn record_unary(&mut self, op: crate::uop::UnaryOp, x: &Tensor, out: &Tensor) {
        use crate::uop::UnaryOp as U;
        let saved: &[usize] = match op {
            U::Exp | U::Sqrt | U::Relu | U::Sigmoid | U::Tanh | U::Tan | U::Expm1 | U::Exp2 => &[1],
            U::Neg | U::Floor | U::Ceil | U::Round | U::Trunc | U::Sign => &[],
            U::Not => return,
            _ => &[0],
        };
        let operands = vec![Some(x.clone()), Some(out.clone())];
        self.record(out, GradOp::Unary(op), &[Some(x)], operands, saved);
    }

    /// The checks an in-place op on `t` makes first, in PyTorch's order (`check_inplace`): a
    /// view made by a multi-output op or under `no_grad` is refused (`handle_view_on_rebase`),
    /// then a view that requires grad of a leaf, then a leaf that requires grad.
    pub fn check_inplace(&self, t: &Tensor) -> Result<()> {
        if !self.ag.enabled || self.ag.depth > 0 {
            return Ok(());
        }
        let requires = self.ag.requires_grad(t);
        if let Some((m, base)) = self.ag.meta(t).and_then(|m| m.diff_base.as_ref().map(|b| (m, b))) {
            if m.multi_output || m.no_grad_view {
                let prefix = match self.grad_fn_name(t) {
                    Some(name) => {
                        let index = t.output_of().map_or(0, |o| o.index);
                        format!("Output {index} of {} is a view and is being modified inplace.", op_name(name))
                    }
                    None => "A view was created in no_grad mode and is being modified inplace with grad mode enabled."
                        .into(),
                };
                let suffix = if m.multi_output {
                    "This view is the output of a function that returns multiple views. Such functions do not allow the output views to be modified inplace. You should replace the inplace operation by an out-of-place one."
                } else {
                    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
                };
                bail!(Autograd, "{prefix} {suffix}");
            }
            if requires && self.ag.is_leaf(base) {
                bail!(Autograd, "a view of a leaf Variable that requires grad is being used in an in-place operation.");
            }
        }
        if requires && self.ag.is_leaf(t) {
            bail!(Autograd, "a leaf Variable that requires grad is being used in an in-place operation.");
        }
        Ok(())
    }

    /// After an in-place op wrote `new` (computed out of place from `old`, the target's value
    /// before) into `target`: the target's history becomes the op's node. For a view, the base's
    /// history becomes `CopySlices` of it, and the view's an `AsStridedBackward0` of the base.
    pub fn rebase_inplace(&mut self, target: &Tensor, new: &Tensor) {
        if !self.ag.enabled || self.ag.depth > 0 {
            return;
        }
        let Some(fn_node) = self.ag.grad_fn(new) else { return };
        let diff_base = self.ag.meta(target).and_then(|m| m.diff_base.clone());
        match diff_base.as_ref() {
            None => {
                let m = self.ag.meta_mut(target);
                m.requires_grad = true;
                m.grad_fn = Some(fn_node);
            }
            Some(base) => {
                let base = base.clone();
                let base_edge = self.ag.edge(&base);
                let mut next = vec![base_edge];
                next.extend(self.ag.node(fn_node).next.iter().skip(1).copied());
                let op =
                    GradOp::CopySlices { base: base.layout().clone(), view: target.layout().clone(), func: fn_node };
                let id = self.ag.next_id();
                self.ag.nodes.push(Node {
                    name: "CopySlices".into(),
                    op,
                    next,
                    operands: Vec::new(),
                    saved: Vec::new(),
                    shape: base.shape().to_vec(),
                    freed: false,
                    holds_saved: false,
                    line: 0,
                });
                let m = self.ag.meta_mut(&base);
                m.requires_grad = true;
                m.grad_fn = Some(id);
                let view_op = GradOp::View { input: base.layout().clone(), output: target.layout().clone() };
                let vid = self.ag.next_id();
                self.ag.nodes.push(Node {
                    name: "AsStridedBackward0".into(),
                    op: view_op,
                    next: vec![Some(Edge::Node(id))],
                    operands: Vec::new(),
                    saved: Vec::new(),
                    shape: target.shape().to_vec(),
                    freed: false,
                    holds_saved: false,
                    line: 0,
                });
                let version = self.ids.version(target.counter);
                let m = self.ag.meta_mut(target);
                m.requires_grad = true;
                m.grad_fn = Some(vid);
                m.view_version = version;
            }
        }
    }

    /// The base of a view whose history PyTorch would look at again after a write through its
    /// base (`VariableHooks::grad_fn`): `None` for a tensor that is no view, and for a view with
    /// no history whose base needs no gradient (nothing to regenerate or refuse).
    fn stale_candidate(&self, t: &Tensor) -> Option<Tensor> {
        let m = self.ag.meta(t)?;
        let base = m.diff_base.clone()?;
        (m.grad_fn.is_some() || self.ag.requires_grad(&base)).then_some(base)
    }

    /// The name of `t`'s `grad_fn` as PyTorch finds it now: a view that [`Engine::refresh_view`]
    /// would regenerate is an `AsStridedBackward0`.
    pub(crate) fn grad_fn_name_now(&self, t: &Tensor) -> Option<&str> {
        let regenerates = self.stale_candidate(t).is_some()
            && self
                .ag
                .meta(t)
                .is_some_and(|m| m.view_version != self.ids.version(t.counter) && !m.no_grad_view && !m.multi_output);
        match regenerates {
            true => Some("AsStridedBackward0"),
            false => self.grad_fn_name(t),
        }
    }

    /// A view whose base (or a sibling view) was written in place since its `grad_fn` was set
    /// gets a new one, `AsStridedBackward0` of the base's current history, as PyTorch
    /// regenerates it.
    pub fn refresh_view(&mut self, t: &Tensor) {
        let Some(base) = self.stale_candidate(t) else { return };
        let Some(m) = self.ag.meta(t) else { return };
        let now = self.ids.version(t.counter);
        // A view PyTorch cannot regenerate (a multi-output view's, one made under no_grad)
        // keeps its stale history, for `stale_view_error` to refuse when it is used.
        if m.view_version == now || m.no_grad_view || m.multi_output {
            return;
        }
        let next = vec![self.ag.edge(&base)];
        let id = self.ag.next_id();
        self.ag.nodes.push(Node {
            name: "AsStridedBackward0".into(),
            op: GradOp::View { input: base.layout().clone(), output: t.layout().clone() },
            next,
            operands: Vec::new(),
            saved: Vec::new(),
            shape: t.shape().to_vec(),
            freed: false,
            holds_saved: false,
            line: 0,
        });
        let m = self.ag.meta_mut(t);
        m.grad_fn = Some(id);
        m.requires_grad = true;
        m.view_version = now;
    }

    /// PyTorch's refusal to use a view whose history cannot be regenerated: an output of a
    /// multi-output view op, or a view made under `no_grad`, after its base (or another view of
    /// it) was written in place.
    pub fn stale_view_error(&self, t: &Tensor) -> Option<Error> {
        self.stale_candidate(t)?;
        let m = self.ag.meta(t)?;
        if m.view_version == self.ids.version(t.counter) {
            return None;
        }
        if m.multi_output {
            let index = t.output_of().map_or(0, |o| o.index);
            let op = self.grad_fn_name(t).map_or(String::new(), op_name);
            return Some(Error::Autograd(format!(
                "Output {index} of {op} is a view and its base or another view of its base has been modified inplace. This view is the output of a function that returns multiple views. Such functions do not allow the output views to be modified inplace. You should replace the inplace operation by an out-of-place one."
            )));
        }
        if m.no_grad_view {
            return Some(Error::Autograd(
                "A view was created in no_grad mode and its base or another view of its base has been modified inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).".into(),
            ));
        }
        None
    }

    /// A tensor's saved copies of `from` are `to` from now on (an in-place op whose formula
    /// reads its result saved the value it computed; the result is the target it wrote).
    pub fn retarget_saved(&mut self, t: &Tensor, from: &Tensor, to: &Tensor) {
        let Some(n) = self.ag.grad_fn(t) else { return };
        let version = self.ids.version(to.counter);
        let node = &mut self.ag.nodes[n.index()];
        for s in &mut node.saved {
            if s.tensor.same_object(from) {
                *s = Saved { tensor: to.clone(), counter: to.counter, version, operand: s.operand, producer: Some(n) };
            }
        }
        for o in node.operands.iter_mut().flatten() {
            if o.same_object(from) {
                *o = to.clone();
            }
        }
    }

    /// Before an in-place op writes `target` with `value` computed from it: the nodes the op
    /// recorded (reachable from `value` but not from the target's history) keep their `self`
    /// (operand 0) as a copy of the target's values before the write, as PyTorch's in-place
    /// ops save `original_self`; the same tensor passed as another argument stays the target
    /// itself, so a backward through it still finds it modified.
    pub fn keep_originals(&mut self, target: &Tensor, value: &Tensor) -> Result<()> {
        let before = self.reachable(&[target]);
        let fresh: Vec<NodeId> = self.reachable(&[value]).into_iter().filter(|n| !before.contains(n)).collect();
        let reads_self = |e: &Self, n: NodeId| {
            e.ag.node(n).operands.first().cloned().flatten().is_some_and(|o| o.same_object(target))
        };
        if !fresh.iter().any(|&n| reads_self(self, n)) {
            return Ok(());
        }
        let copy = self.untracked(|e| e.copy(target))?;
        let copy = self.realize(&copy)?;
        let version = self.ids.version(copy.counter);
        for n in fresh {
            if !reads_self(self, n) {
                continue;
            }
            let node = &mut self.ag.nodes[n.index()];
            node.operands[0] = Some(copy.clone());
            for s in node.saved.iter_mut().filter(|s| s.operand == 0) {
                *s = Saved { tensor: copy.clone(), counter: copy.counter, version, operand: 0, producer: None };
            }
        }
        Ok(())
    }

    /// `t`'s history becomes `node` (an in-place metadata op recorded its view there).
    pub(crate) fn take_history(&mut self, t: &Tensor, node: NodeId) {
        let m = self.ag.meta_mut(t);
        m.requires_grad = true;
        m.grad_fn = Some(node);
    }

    /// `t.data = src`: the object `t` (its autograd state and its version counter kept) now
    /// holds `src`'s storage and layout, sharing the storage but not `src`'s version counter.
    pub fn set_data(&mut self, t: &Tensor, src: &Tensor) -> Result<Tensor> {
        if self.ag.requires_grad(t) && !src.dtype().is_float() {
            bail!(Autograd, "data set to a tensor that requires gradients must be floating point or complex dtype");
        }
        let new = self.untracked(|e| e.alias(src))?.into_object(t);
        if let Some(m) = self.ag.meta.get_mut(&t.object) {
            if m.leaf.is_some() {
                m.leaf = Some(new.clone());
            }
        }
        Ok(new)
    }

    /// Gives `t`'s node PyTorch's name for the op that made it (a composite's last node).
    /// What `t`'s node saves, as PyTorch's node of that name does (an op built from others
    /// saves what its parts need; the version check at backward follows PyTorch's list).
    pub fn declare_saved(&mut self, t: &Tensor, tensors: &[Tensor]) {
        let Some(n) = self.ag.grad_fn(t) else { return };
        let saved = tensors
            .iter()
            .map(|x| Saved {
                tensor: x.clone(),
                counter: x.counter,
                version: self.ids.version(x.counter),
                operand: usize::MAX,
                producer: x.same_object(t).then_some(n),
            })
            .collect();
        let node = &mut self.ag.nodes[n.index()];
        node.saved = saved;
        node.holds_saved = true;
    }

    /// Marks the nodes a composition recorded for `outputs` as one PyTorch node: every node
    /// reachable from the outputs' `grad_fn`s that is newer than all of `inputs`' (so the
    /// composition made it). The gradients these nodes send one input meet in PyTorch's single
    /// formula, not in the input's buffer: their sum is a fresh tensor (see `backward`).
    pub fn group_as_one_node(&mut self, outputs: &[&Tensor], inputs: &[&Tensor]) {
        // An input passed twice (`addcmul_(s, s)`) has two edges in PyTorch's node too, whose
        // gradients its buffer sums: the composition's own sums stand for those.
        if inputs.iter().enumerate().any(|(i, a)| inputs[..i].iter().any(|b| b.same_object(a))) {
            return;
        }
        let bound = inputs.iter().filter_map(|t| self.ag.grad_fn(t)).max();
        let newer = |n: &NodeId| bound.is_none_or(|b| *n > b);
        let mut stack: Vec<NodeId> = outputs.iter().filter_map(|t| self.ag.grad_fn(t)).filter(newer).collect();
        let Some(&group) = stack.first() else { return };
        while let Some(n) = stack.pop() {
            if self.ag.groups.insert(n, group) == Some(group) {
                continue;
            }
            for e in self.ag.node(n).next.iter().flatten() {
                if let Edge::Node(m) = e {
                    if newer(m) {
                        stack.push(*m);
                    }
                }
            }
        }
    }

    pub fn rename_grad_fn(&mut self, t: &Tensor, name: &str) {
        if let Some(n) = self.ag.grad_fn(t) {
            self.ag.nodes[n.index()].name = name.to_string();
        }
    }

    /// Names the node of one output of a multi-output view op (`unbind`, `split`, `chunk`)
    /// and marks the output, which PyTorch refuses to modify in place.
    pub(crate) fn name_multi_output(&mut self, t: &Tensor, name: &str) {
        self.rename_grad_fn(t, name);
        // Every output PyTorch made a view of (in grad mode, of a float tensor) is marked, whether
        // or not its base requires grad yet.
        if self.ag.meta(t).is_some_and(|m| m.diff_base.is_some()) {
            self.ag.meta_mut(t).multi_output = true;
        }
    }

    /// Whether an in-place write into `target` from `inputs` is something autograd records.
    pub fn inplace_tracked(&self, target: &Tensor, inputs: &[&Tensor]) -> bool {
        self.ag.enabled
            && self.ag.depth == 0
            && (self.ag.requires_grad(target)
                || self.ag.meta(target).and_then(|m| m.diff_base.as_ref()).is_some_and(|b| self.ag.requires_grad(b))
                || inputs.iter().any(|t| self.ag.requires_grad(t)))
    }

    /// The start of a tracked in-place write into `target`: PyTorch's refusals, then a copy of
    /// the values it holds now (what the op's formula reads as its old value).
    /// The start of a tracked in-place write whose formula never reads the old value (fills,
    /// copies, additions, puts): PyTorch's refusals only; the target stands for its old value
    /// (its shape and dtype are all the formula uses).
    pub fn begin_inplace_unread(&mut self, target: &Tensor) -> Result<Tensor> {
        self.check_inplace(target)?;
        Ok(target.clone())
    }

    /// [`Engine::begin_inplace_unread`] when autograd records a write into `target` from
    /// `inputs` ([`Engine::inplace_tracked`]); `None` when it does not.
    pub fn begin_tracked_unread(&mut self, target: &Tensor, inputs: &[&Tensor]) -> Result<Option<Tensor>> {
        if self.inplace_tracked(target, inputs) {
            self.begin_inplace_unread(target).map(Some)
        } else {
            Ok(None)
        }
    }

    pub fn begin_inplace(&mut self, target: &Tensor) -> Result<Tensor> {
        self.check_inplace(target)?;
        let old = self.untracked(|e| e.copy(target))?;
        self.realize(&old)
    }

    /// The end of a tracked in-place write of `op` into `target`: the node is recorded on a
    /// fresh handle (inputs: the target's old history, then `others`), then the target's
    /// history becomes it (`CopySlices` for a view).
    pub fn finish_inplace(&mut self, target: &Tensor, op: GradOp, old: Tensor, others: &[Option<&Tensor>]) {
        self.finish_inplace_with(target, op, old, others, Vec::new());
    }

    /// [`Engine::finish_inplace`] with more operands for the formula (an index's tensors),
    /// after `[old, others.., None]`.
    pub fn finish_inplace_with(
        &mut self,
        target: &Tensor,
        op: GradOp,
        old: Tensor,
        others: &[Option<&Tensor>],
        extra: Vec<Option<Tensor>>,
    ) {
        let handle = self.fresh_handle(target);
        let mut inputs: Vec<Option<&Tensor>> = vec![Some(target)];
        inputs.extend_from_slice(others);
        let mut operands: Vec<Option<Tensor>> = vec![Some(old)];
        operands.extend(others.iter().map(|t| t.cloned()));
        // A binary op's formula may read its result: the target after the write.
        operands.push(if matches!(op, GradOp::Binary { .. }) { Some(target.clone()) } else { None });
        operands.extend(extra);
        use crate::uop::BinaryOp as B;
        // `mul_` and `div_` save the old value only for `other`'s gradient (PyTorch saves `self`
        // when `other` requires grad), and `other` itself for `self`'s.
        let other_needs = others.first().copied().flatten().is_some_and(|t| self.ag.requires_grad(t));
        let saved: Vec<usize> = match &op {
            GradOp::Binary { op: B::Mul | B::Div, .. } if !other_needs => vec![1],
            GradOp::Binary { op: B::Fmod | B::Mod, .. } if !other_needs => Vec::new(),
            GradOp::Binary { op: B::Mul | B::Div | B::Atan2 | B::Fmod | B::Mod, .. } => vec![0, 1],
            GradOp::Binary { op: B::Hypot, .. } => vec![0, 1, 2],
            GradOp::Binary { op: B::Copysign, .. } => vec![0, 2],
            _ => Vec::new(),
        };
        self.record(&handle, op, &inputs, operands, &saved);
        // An argument that is the target itself (`y.atan2_(y)`) was saved before the op's own
        // write bumped its version: a backward through the node then finds it modified.
        if let Some(n) = self.ag.grad_fn(&handle) {
            let node = &mut self.ag.nodes[n.index()];
            for s in node.saved.iter_mut() {
                if (1..=others.len()).contains(&s.operand) && s.tensor.same_object(target) {
                    s.version = s.version.saturating_sub(1);
                }
            }
        }
        self.rebase_inplace(target, &handle);
    }

    /// The same tensor under a new Python object (where an in-place op's node is recorded
    /// before the target takes it over).
    fn fresh_handle(&mut self, t: &Tensor) -> Tensor {
        let object = self.ids.fresh_object();
        t.clone().into_fresh_owner(object, t.counter)
    }

    /// After `target` took `value`'s values (`exp_`, `relu_`, ...): its history becomes the
    /// node that computed `value`.
    pub fn rebase_onto(&mut self, target: &Tensor, value: &Tensor) {
        if self.ag.grad_fn(value).is_some() {
            self.rebase_inplace(target, value);
        }
    }

    /// `t.detach()` and `.data`: a tensor outside the graph.
    pub fn forget(&mut self, t: &Tensor) {
        self.ag.meta.remove(&t.object);
    }

    /// Realizes what this statement's nodes keep, so nothing they read is pending afterwards.
    pub(crate) fn autograd_end_statement(&mut self) -> Result<()> {
        let start = self.ag.statement_start;
        let mut nodes = std::mem::take(&mut self.ag.nodes);
        let mut result = Ok(());
        for n in nodes.iter_mut().skip(start) {
            for t in n.operands.iter_mut().flatten() {
                match self.realize(t) {
                    Ok(r) => *t = r,
                    Err(e) => result = Err(e),
                }
            }
            for s in &mut n.saved {
                if let Ok(r) = self.realize(&s.tensor) {
                    s.tensor = r;
                }
            }
        }
        self.ag.statement_start = nodes.len();
        self.ag.view_name = None;
        self.ag.nodes = nodes;
        // A gradient can only be lazy if the statement left something pending.
        if !self.has_pending() {
            return result;
        }
        // Realizing runs the graph's interpreter, which never reads autograd's facts.
        let mut meta = std::mem::take(&mut self.ag.meta);
        let realized = meta.values_mut().filter_map(|m| m.grad.as_mut()).try_for_each(|g| self.realize_mut(g));
        self.ag.meta = meta;
        realized?;
        result
    }

    /// Labels the nodes the current statement recorded with its trace line.
    pub fn label_nodes(&mut self, line: usize) {
        let start = self.ag.statement_start;
        for n in &mut self.ag.nodes[start..] {
            n.line = line;
        }
    }
}
