//! Writing ONNX: a graph described by its nodes, float32 initializers and the input and output
//! signature, encoded as a `ModelProto` that [`super::read_model`] (and any ONNX runtime) reads.
//! The training plan exports its trained models with it.

use prost::Message;

use super::proto::{
    attribute_proto::AttributeType, tensor_proto::DataType, tensor_shape_proto::dimension::Value as DimValue,
    tensor_shape_proto::Dimension, type_proto, AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};

/// The IR version written (ONNX 1.8's, which every runtime of the last years reads).
const IR_VERSION: i64 = 7;

/// A node attribute's value.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    Int(i64),
    Ints(Vec<i64>),
    Float(f32),
}

/// A dimension of a graph input or output: fixed, or named (`batch`).
#[derive(Clone, Debug, PartialEq)]
pub enum DimSpec {
    Fixed(usize),
    Named(&'static str),
}

/// A float32 graph under construction.
#[derive(Clone, Debug, Default)]
pub struct GraphBuilder {
    graph: GraphProto,
}

fn value_info(name: &str, dims: &[DimSpec]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| Dimension {
            value: Some(match d {
                DimSpec::Fixed(n) => DimValue::DimValue(*n as i64),
                DimSpec::Named(p) => DimValue::DimParam((*p).to_string()),
            }),
            ..Default::default()
        })
        .collect();
    let tensor = type_proto::Tensor { elem_type: Some(DataType::Float as i32), shape: Some(TensorShapeProto { dim }) };
    ValueInfoProto {
        name: Some(name.to_string()),
        r#type: Some(TypeProto { value: Some(type_proto::Value::TensorType(tensor)), ..Default::default() }),
        ..Default::default()
    }
}

impl GraphBuilder {
    pub fn new(name: &str) -> GraphBuilder {
        GraphBuilder { graph: GraphProto { name: Some(name.to_string()), ..Default::default() } }
    }

    pub fn input(&mut self, name: &str, dims: &[DimSpec]) {
        self.graph.input.push(value_info(name, dims));
    }

    pub fn output(&mut self, name: &str, dims: &[DimSpec]) {
        self.graph.output.push(value_info(name, dims));
    }

    /// A float32 initializer, stored little-endian in `raw_data`.
    pub fn initializer(&mut self, name: &str, dims: &[usize], data: &[f32]) {
        self.graph.initializer.push(TensorProto {
            name: Some(name.to_string()),
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type: Some(DataType::Float as i32),
            raw_data: Some(data.iter().flat_map(|v| v.to_le_bytes()).collect()),
            ..Default::default()
        });
    }

    pub fn node(&mut self, op: &str, inputs: &[&str], output: &str, attrs: Vec<(&str, AttrValue)>) {
        let attribute = attrs
            .into_iter()
            .map(|(name, v)| {
                let mut a = AttributeProto { name: Some(name.to_string()), ..Default::default() };
                match v {
                    AttrValue::Int(i) => {
                        a.i = Some(i);
                        a.set_type(AttributeType::Int);
                    }
                    AttrValue::Ints(is) => {
                        a.ints = is;
                        a.set_type(AttributeType::Ints);
                    }
                    AttrValue::Float(f) => {
                        a.f = Some(f);
                        a.set_type(AttributeType::Float);
                    }
                }
                a
            })
            .collect();
        self.graph.node.push(NodeProto {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![output.to_string()],
            name: Some(format!("{op}_{}", self.graph.node.len())),
            op_type: Some(op.to_string()),
            attribute,
            ..Default::default()
        });
    }

    /// The model's protobuf bytes, importing the default domain at `opset`.
    pub fn encode(self, producer: &str, opset: i64) -> Vec<u8> {
        let model = ModelProto {
            ir_version: Some(IR_VERSION),
            opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(opset) }],
            producer_name: Some(producer.to_string()),
            graph: Some(self.graph),
            ..Default::default()
        };
        model.encode_to_vec()
    }
}
