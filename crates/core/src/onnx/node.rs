//! Graph nodes and their attributes, with typed accessors so an op's reader can say "`pads` as
//! ints, default none" and get a clear error when a model stores something else there.

use std::collections::BTreeMap;

use super::proto;
use super::tensor::Tensor;
use crate::error::{bail, Error, Result};

/// An attribute value of one of the kinds the supported ops use.
#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    Float(f32),
    Int(i64),
    String(String),
    Tensor(Tensor),
    Floats(Vec<f32>),
    Ints(Vec<i64>),
    Strings(Vec<String>),
}

impl Attribute {
    /// ONNX's name for the attribute kind (`AttributeProto.AttributeType`).
    pub fn kind(&self) -> &'static str {
        match self {
            Attribute::Float(_) => "FLOAT",
            Attribute::Int(_) => "INT",
            Attribute::String(_) => "STRING",
            Attribute::Tensor(_) => "TENSOR",
            Attribute::Floats(_) => "FLOATS",
            Attribute::Ints(_) => "INTS",
            Attribute::Strings(_) => "STRINGS",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    name: String,
    op_type: String,
    domain: String,
    inputs: Vec<String>,
    outputs: Vec<String>,
    attributes: BTreeMap<String, Attribute>,
}

impl Node {
    /// A node built directly (a capture's kernel replays its op this way), not read from a file.
    pub fn new(
        name: &str,
        op_type: &str,
        inputs: Vec<String>,
        outputs: Vec<String>,
        attributes: BTreeMap<String, Attribute>,
    ) -> Node {
        Node {
            name: name.to_string(),
            op_type: op_type.to_string(),
            domain: String::new(),
            inputs,
            outputs,
            attributes,
        }
    }

    /// The node's name; may be empty, since ONNX does not require one.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn op_type(&self) -> &str {
        &self.op_type
    }

    /// The operator set domain; empty (or `ai.onnx`) for standard ONNX ops.
    pub fn domain(&self) -> &str {
        &self.domain
    }

    /// Input value names in order; an empty name is an omitted optional input.
    pub fn inputs(&self) -> &[String] {
        &self.inputs
    }

    pub fn outputs(&self) -> &[String] {
        &self.outputs
    }

    pub fn attributes(&self) -> &BTreeMap<String, Attribute> {
        &self.attributes
    }

    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.get(name)
    }

    /// How messages name the node: by name when it has one, always with its op.
    pub fn describe(&self) -> String {
        if self.name.is_empty() {
            format!("unnamed {} node", self.op_type)
        } else {
            format!("node {:?} ({})", self.name, self.op_type)
        }
    }

    fn typed<'a, T: ?Sized>(
        &'a self,
        name: &str,
        want: &str,
        pick: impl Fn(&'a Attribute) -> Option<&'a T>,
    ) -> Result<Option<&'a T>> {
        match self.attributes.get(name) {
            None => Ok(None),
            Some(a) => match pick(a) {
                Some(v) => Ok(Some(v)),
                None => bail!(Decode, "{}: attribute {name:?} is {}, expected {want}", self.describe(), a.kind()),
            },
        }
    }

    /// An INT attribute, `None` when absent, an error when it has another kind.
    pub fn int(&self, name: &str) -> Result<Option<i64>> {
        self.typed(name, "INT", |a| match a {
            Attribute::Int(v) => Some(v),
            _ => None,
        })
        .map(|v| v.copied())
    }

    pub fn float(&self, name: &str) -> Result<Option<f32>> {
        self.typed(name, "FLOAT", |a| match a {
            Attribute::Float(v) => Some(v),
            _ => None,
        })
        .map(|v| v.copied())
    }

    pub fn string(&self, name: &str) -> Result<Option<&str>> {
        self.typed(name, "STRING", |a| match a {
            Attribute::String(v) => Some(v.as_str()),
            _ => None,
        })
    }

    pub fn ints(&self, name: &str) -> Result<Option<&[i64]>> {
        self.typed(name, "INTS", |a| match a {
            Attribute::Ints(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    pub fn floats(&self, name: &str) -> Result<Option<&[f32]>> {
        self.typed(name, "FLOATS", |a| match a {
            Attribute::Floats(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    pub fn strings(&self, name: &str) -> Result<Option<&[String]>> {
        self.typed(name, "STRINGS", |a| match a {
            Attribute::Strings(v) => Some(v.as_slice()),
            _ => None,
        })
    }

    pub fn tensor(&self, name: &str) -> Result<Option<&Tensor>> {
        self.typed(name, "TENSOR", |a| match a {
            Attribute::Tensor(v) => Some(v),
            _ => None,
        })
    }

    /// An INT attribute with the op's documented default.
    pub fn int_or(&self, name: &str, default: i64) -> Result<i64> {
        Ok(self.int(name)?.unwrap_or(default))
    }

    /// A FLOAT attribute with the op's documented default.
    pub fn float_or(&self, name: &str, default: f32) -> Result<f32> {
        Ok(self.float(name)?.unwrap_or(default))
    }

    pub(crate) fn from_proto(n: &proto::NodeProto, ctx: &str) -> Result<Node> {
        let mut node = Node {
            name: n.name().to_string(),
            op_type: n.op_type().to_string(),
            domain: n.domain().to_string(),
            inputs: n.input.clone(),
            outputs: n.output.clone(),
            attributes: BTreeMap::new(),
        };
        if node.op_type.is_empty() {
            bail!(Decode, "{ctx}{} has no op_type", node.describe());
        }
        for a in &n.attribute {
            let attr = attribute(a, &format!("{ctx}{}: attribute {:?}: ", node.describe(), a.name()))?;
            if node.attributes.insert(a.name().to_string(), attr).is_some() {
                bail!(Decode, "{ctx}{}: attribute {:?} appears twice", node.describe(), a.name());
            }
        }
        Ok(node)
    }
}

fn utf8(bytes: &[u8], ctx: &str) -> Result<String> {
    String::from_utf8(bytes.to_vec()).map_err(|_| Error::Decode(format!("{ctx}string is not UTF-8")))
}

fn attribute(a: &proto::AttributeProto, ctx: &str) -> Result<Attribute> {
    use proto::attribute_proto::AttributeType as T;
    if a.ref_attr_name.is_some() {
        bail!(Unsupported, "{ctx}refers to a function attribute, which only functions may do");
    }
    // The IR requires `type`; reading it (rather than guessing from which field is set) keeps a
    // zero-valued INT apart from an absent one.
    let Ok(kind) = T::try_from(a.r#type.unwrap_or(0)) else {
        bail!(Decode, "{ctx}unknown attribute type code {}", a.r#type.unwrap_or(0));
    };
    Ok(match kind {
        T::Float => Attribute::Float(a.f()),
        T::Int => Attribute::Int(a.i()),
        T::String => Attribute::String(utf8(a.s(), ctx)?),
        T::Tensor => match &a.t {
            Some(t) => Attribute::Tensor(Tensor::from_proto(t, ctx, &super::tensor::ExternalFiles::new())?),
            None => bail!(Decode, "{ctx}is a TENSOR attribute without a tensor"),
        },
        T::Floats => Attribute::Floats(a.floats.clone()),
        T::Ints => Attribute::Ints(a.ints.clone()),
        T::Strings => Attribute::Strings(a.strings.iter().map(|s| utf8(s, ctx)).collect::<Result<_>>()?),
        T::Undefined => bail!(Decode, "{ctx}has no type"),
        other => bail!(Unsupported, "{ctx}has kind {}, which is not supported", other.as_str_name()),
    })
}
