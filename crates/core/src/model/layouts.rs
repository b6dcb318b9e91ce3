//! Every value of a model as PyTorch would hold it: the engine lowers each ONNX node to the
//! PyTorch op it is, so each value has PyTorch's sizes, strides, storage offset and view-ness
//! (a Reshape of a contiguous tensor is a view, a Transpose then Reshape a copy; Split, Slice,
//! Squeeze, Unsqueeze and Expand are views), and a view's chain back to the value that owns
//! its storage.

use std::collections::HashMap;

use crate::tensor::Tensor;
use crate::DType;

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueRole {
    Input,
    Weight,
    /// Output `index` of node `node` (in the model's node order).
    Computed {
        node: usize,
        index: usize,
    },
}

/// One value's layout.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueLayout {
    pub name: String,
    pub role: ValueRole,
    pub shape: Vec<usize>,
    pub dtype: DType,
    pub strides: Vec<i64>,
    pub storage_offset: i64,
    /// PyTorch's `_is_view()`.
    pub is_view: bool,
    /// The value that owns the storage this one reads (itself when it owns it); `None` when
    /// the owner is a tensor inside a node's lowering that no value names.
    pub storage_of: Option<String>,
    /// For a view: the values it was taken from, nearest first, up to the storage's owner.
    pub view_chain: Vec<String>,
}

/// A node as the model lists it: its name (may be empty), op and value names.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeInfo {
    pub name: String,
    pub op: String,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
}

/// Every named value (inputs, weights, each node's outputs; in definition order) with its
/// PyTorch layout and view chain, given the model's `nodes`.
pub(super) fn layouts(values: &[(String, Tensor, ValueRole)], nodes: &[NodeInfo]) -> Vec<ValueLayout> {
    // The first value naming each Python object.
    let mut by_object: HashMap<crate::identity::ObjectId, &str> = HashMap::new();
    for (name, t, _) in values {
        by_object.entry(t.object_id()).or_insert(name.as_str());
    }
    let root = |t: &Tensor| t.base.as_ref().map_or(t.object_id(), |b| b.object_id());
    let tensors: HashMap<&str, (&Tensor, ValueRole)> = values.iter().map(|(n, t, r)| (n.as_str(), (t, *r))).collect();
    values
        .iter()
        .map(|(name, t, role)| {
            let owner = root(t);
            let mut chain = Vec::new();
            if t.is_view() {
                // Walk back through the producing nodes while the input read shares the
                // storage's owner.
                let mut at = (name.as_str(), *role);
                while let ValueRole::Computed { node, .. } = at.1 {
                    let parent = nodes[node].inputs.iter().find_map(|i| {
                        let (p, r) = tensors.get(i.as_str())?;
                        (root(p) == owner && i != at.0).then_some((i.as_str(), *r))
                    });
                    let Some(p) = parent else { break };
                    chain.push(p.0.to_string());
                    if tensors.get(p.0).is_some_and(|(pt, _)| pt.object_id() == owner) {
                        break;
                    }
                    at = p;
                }
            }
            ValueLayout {
                name: name.clone(),
                role: *role,
                shape: t.shape().to_vec(),
                dtype: t.dtype(),
                strides: t.layout().strides().to_vec(),
                storage_offset: t.layout().offset(),
                is_view: t.is_view(),
                storage_of: by_object.get(&owner).map(|s| s.to_string()),
                view_chain: chain,
            }
        })
        .collect()
}
