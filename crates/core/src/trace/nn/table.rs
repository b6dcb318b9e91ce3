//! The built-in modules that are one functional call, as rows: each names the module, its
//! functional and its constructor's parameters (by the functional's keyword names), so a
//! module's facts are written once and its argument rules are the functional's
//! (`modules.rs` builds and runs them, `modules/repr.rs` prints them).

use crate::error::{bail, Result};
use crate::trace::nn::layer::Functional;
use crate::trace::python::value::Value;
use crate::uop::buffer::Scalar;

/// A module that is one functional call: its name in `nn`, the functional it calls, the names
/// of the tensors its forward takes, its constructor's parameters in order with their
/// defaults as PyTorch prints them (`None` for a parameter PyTorch's repr omits, `""` for a
/// required one), what it does besides the call, and how PyTorch prints it.
pub struct Row {
    pub name: &'static str,
    pub function: &'static str,
    pub inputs: &'static [&'static str],
    pub params: &'static [(&'static str, Option<&'static str>)],
    pub kind: Kind,
    pub repr: Printed,
}

/// What a functional module does besides calling its functional.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Call,
    /// `nn.Identity`: takes any constructor arguments and returns its input.
    Identity,
    /// A dropout: checks `p` when made and passes the module's training mode.
    Dropout,
    /// A pad module over its last `dims` dims: `F.pad` with its `mode`.
    Pad {
        dims: usize,
        mode: &'static str,
    },
    /// `nn.Upsample` (`mode` from its arguments) or an `Upsampling*2d` (its mode fixed).
    Upsample {
        mode: Option<&'static str>,
        align_corners: bool,
    },
}

/// How PyTorch's `extra_repr` writes a functional module's parameters.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Printed {
    /// `name=value` for each parameter with a shown default.
    Params,
    /// As `Params` without `inplace`, then `inplace=True` when set (the activations).
    InplaceWhenSet,
    /// Nothing (`nn.Hardswish` has no `extra_repr`).
    Nothing,
    /// The values alone (`Hardshrink(0.5)`).
    Values,
    /// `scale_factor=..` (or `size=..` without one), then `mode=..`.
    Upsample,
    /// `kernel_size=.., stride=.., padding=..`, with `dilation` and `ceil_mode` for max pools.
    Pool,
    MaxPool,
}

const fn call(
    name: &'static str,
    function: &'static str,
    params: &'static [(&'static str, Option<&'static str>)],
) -> Row {
    Row { name, function, inputs: INPUT, params, kind: Kind::Call, repr: Printed::Params }
}

/// An activation: `inplace` shows only when set.
const fn activation(
    name: &'static str,
    function: &'static str,
    params: &'static [(&'static str, Option<&'static str>)],
) -> Row {
    Row { repr: Printed::InplaceWhenSet, ..call(name, function, params) }
}

const fn loss(
    name: &'static str,
    function: &'static str,
    params: &'static [(&'static str, Option<&'static str>)],
) -> Row {
    Row { inputs: INPUT_TARGET, ..call(name, function, params) }
}

const INPUT: &[&str] = &["input"];
const INPUT_TARGET: &[&str] = &["input", "target"];
const INPLACE: &[(&str, Option<&str>)] = &[("inplace", Some("False"))];
const LOSS: &[(&str, Option<&str>)] = &[("size_average", None), ("reduce", None), ("reduction", None)];
const WEIGHTED_LOSS: &[(&str, Option<&str>)] =
    &[("weight", None), ("size_average", None), ("reduce", None), ("reduction", None)];
const MARGIN_LOSS: &[(&str, Option<&str>)] =
    &[("margin", None), ("size_average", None), ("reduce", None), ("reduction", None)];
const OUTPUT_SIZE: &[(&str, Option<&str>)] = &[("output_size", Some(""))];
const PADDING: &[(&str, Option<&str>)] = &[("padding", Some(""))];
const CONSTANT_PADDING: &[(&str, Option<&str>)] = &[("padding", Some("")), ("value", Some(""))];
const SIZE_SCALE: &[(&str, Option<&str>)] = &[("size", None), ("scale_factor", None)];

/// A pad module of `dims` dims: the padding alone is printed, or with its value.
const fn pad(name: &'static str, dims: usize, mode: &'static str) -> Row {
    Row { kind: Kind::Pad { dims, mode }, repr: Printed::Values, ..call(name, "pad", PADDING) }
}

const fn constant_pad(name: &'static str, dims: usize) -> Row {
    Row { kind: Kind::Pad { dims, mode: "constant" }, ..call(name, "pad", CONSTANT_PADDING) }
}

const fn upsampling(name: &'static str, mode: &'static str, align_corners: bool) -> Row {
    Row {
        kind: Kind::Upsample { mode: Some(mode), align_corners },
        repr: Printed::Upsample,
        ..call(name, "interpolate", SIZE_SCALE)
    }
}
const MAX_OUTPUT_SIZE: &[(&str, Option<&str>)] = &[("output_size", Some("")), ("return_indices", None)];

/// The table of functional modules.
pub const FUNCTIONAL: &[Row] = &[
    activation("ReLU", "relu", INPLACE),
    call("Sigmoid", "sigmoid", &[]),
    call("Tanh", "tanh", &[]),
    call("GELU", "gelu", &[("approximate", Some("'none'"))]),
    activation("LeakyReLU", "leaky_relu", &[("negative_slope", Some("0.01")), ("inplace", Some("False"))]),
    call("Softmax", "softmax", &[("dim", Some("None"))]),
    call("LogSoftmax", "log_softmax", &[("dim", Some("None"))]),
    call("Softmin", "softmin", &[("dim", Some("None"))]),
    call("Flatten", "flatten", &[("start_dim", Some("1")), ("end_dim", Some("-1"))]),
    Row { kind: Kind::Identity, ..call("Identity", "", &[]) },
    Row { kind: Kind::Dropout, ..call("Dropout", "dropout", &[("p", Some("0.5")), ("inplace", Some("False"))]) },
    Row {
        repr: Printed::MaxPool,
        ..call(
            "MaxPool2d",
            "max_pool2d",
            &[
                ("kernel_size", Some("")),
                ("stride", Some("None")),
                ("padding", Some("0")),
                ("dilation", Some("1")),
                ("return_indices", None),
                ("ceil_mode", Some("False")),
            ],
        )
    },
    Row {
        repr: Printed::Pool,
        ..call(
            "AvgPool2d",
            "avg_pool2d",
            &[
                ("kernel_size", Some("")),
                ("stride", Some("None")),
                ("padding", Some("0")),
                ("ceil_mode", None),
                ("count_include_pad", None),
                ("divisor_override", None),
            ],
        )
    },
    activation("ReLU6", "relu6", INPLACE),
    activation("SiLU", "silu", INPLACE),
    activation("Mish", "mish", INPLACE),
    activation("SELU", "selu", INPLACE),
    activation("ELU", "elu", &[("alpha", Some("1.0")), ("inplace", Some("False"))]),
    activation("CELU", "celu", &[("alpha", Some("1.0")), ("inplace", Some("False"))]),
    activation(
        "Hardtanh",
        "hardtanh",
        &[("min_val", Some("-1.0")), ("max_val", Some("1.0")), ("inplace", Some("False"))],
    ),
    activation("Threshold", "threshold", &[("threshold", Some("")), ("value", Some("")), ("inplace", Some("False"))]),
    Row { repr: Printed::Nothing, ..call("Hardswish", "hardswish", INPLACE) },
    Row { repr: Printed::Nothing, ..call("Hardsigmoid", "hardsigmoid", INPLACE) },
    call("LogSigmoid", "logsigmoid", &[]),
    call("Softsign", "softsign", &[]),
    call("Tanhshrink", "tanhshrink", &[]),
    call("Softplus", "softplus", &[("beta", Some("1.0")), ("threshold", Some("20.0"))]),
    call("GLU", "glu", &[("dim", Some("-1"))]),
    Row { repr: Printed::Values, ..call("Hardshrink", "hardshrink", &[("lambd", Some("0.5"))]) },
    Row { repr: Printed::Values, ..call("Softshrink", "softshrink", &[("lambd", Some("0.5"))]) },
    call("AdaptiveAvgPool1d", "adaptive_avg_pool1d", OUTPUT_SIZE),
    call("AdaptiveAvgPool2d", "adaptive_avg_pool2d", OUTPUT_SIZE),
    call("AdaptiveAvgPool3d", "adaptive_avg_pool3d", OUTPUT_SIZE),
    call("AdaptiveMaxPool1d", "adaptive_max_pool1d", MAX_OUTPUT_SIZE),
    call("AdaptiveMaxPool2d", "adaptive_max_pool2d", MAX_OUTPUT_SIZE),
    call("AdaptiveMaxPool3d", "adaptive_max_pool3d", MAX_OUTPUT_SIZE),
    pad("ZeroPad1d", 1, "constant"),
    pad("ZeroPad2d", 2, "constant"),
    pad("ZeroPad3d", 3, "constant"),
    constant_pad("ConstantPad1d", 1),
    constant_pad("ConstantPad2d", 2),
    constant_pad("ConstantPad3d", 3),
    pad("ReflectionPad1d", 1, "reflect"),
    pad("ReflectionPad2d", 2, "reflect"),
    pad("ReflectionPad3d", 3, "reflect"),
    pad("ReplicationPad1d", 1, "replicate"),
    pad("ReplicationPad2d", 2, "replicate"),
    pad("ReplicationPad3d", 3, "replicate"),
    pad("CircularPad1d", 1, "circular"),
    pad("CircularPad2d", 2, "circular"),
    pad("CircularPad3d", 3, "circular"),
    Row {
        kind: Kind::Upsample { mode: None, align_corners: false },
        repr: Printed::Upsample,
        ..call(
            "Upsample",
            "interpolate",
            &[
                ("size", None),
                ("scale_factor", None),
                ("mode", Some("'nearest'")),
                ("align_corners", None),
                ("recompute_scale_factor", None),
            ],
        )
    },
    upsampling("UpsamplingNearest2d", "nearest", false),
    upsampling("UpsamplingBilinear2d", "bilinear", true),
    call("PixelShuffle", "pixel_shuffle", &[("upscale_factor", Some(""))]),
    call("PixelUnshuffle", "pixel_unshuffle", &[("downscale_factor", Some(""))]),
    call("ChannelShuffle", "channel_shuffle", &[("groups", Some(""))]),
    Row { inputs: &["x1", "x2"], ..call("CosineSimilarity", "cosine_similarity", &[("dim", None), ("eps", None)]) },
    Row {
        inputs: &["x1", "x2"],
        ..call("PairwiseDistance", "pairwise_distance", &[("p", None), ("eps", None), ("keepdim", None)])
    },
    loss(
        "CrossEntropyLoss",
        "cross_entropy",
        &[
            ("weight", None),
            ("size_average", None),
            ("ignore_index", None),
            ("reduce", None),
            ("reduction", None),
            ("label_smoothing", None),
        ],
    ),
    loss("MSELoss", "mse_loss", LOSS),
    loss("L1Loss", "l1_loss", LOSS),
    loss(
        "NLLLoss",
        "nll_loss",
        &[("weight", None), ("size_average", None), ("ignore_index", None), ("reduce", None), ("reduction", None)],
    ),
    loss(
        "BCEWithLogitsLoss",
        "binary_cross_entropy_with_logits",
        &[("weight", None), ("size_average", None), ("reduce", None), ("reduction", None), ("pos_weight", None)],
    ),
    loss("BCELoss", "binary_cross_entropy", WEIGHTED_LOSS),
    loss("HuberLoss", "huber_loss", &[("reduction", None), ("delta", None)]),
    loss(
        "SmoothL1Loss",
        "smooth_l1_loss",
        &[("size_average", None), ("reduce", None), ("reduction", None), ("beta", None)],
    ),
    loss("KLDivLoss", "kl_div", &[("size_average", None), ("reduce", None), ("reduction", None), ("log_target", None)]),
    loss("SoftMarginLoss", "soft_margin_loss", LOSS),
    loss("MultiLabelSoftMarginLoss", "multilabel_soft_margin_loss", WEIGHTED_LOSS),
    loss("HingeEmbeddingLoss", "hinge_embedding_loss", MARGIN_LOSS),
    loss(
        "PoissonNLLLoss",
        "poisson_nll_loss",
        &[
            ("log_input", None),
            ("full", None),
            ("size_average", None),
            ("eps", None),
            ("reduce", None),
            ("reduction", None),
        ],
    ),
    Row {
        inputs: &["input", "target", "var"],
        ..loss("GaussianNLLLoss", "gaussian_nll_loss", &[("full", None), ("eps", None), ("reduction", None)])
    },
    Row { inputs: &["input1", "input2", "target"], ..loss("MarginRankingLoss", "margin_ranking_loss", MARGIN_LOSS) },
    Row {
        inputs: &["input1", "input2", "target"],
        ..loss("CosineEmbeddingLoss", "cosine_embedding_loss", MARGIN_LOSS)
    },
    Row {
        inputs: &["anchor", "positive", "negative"],
        ..loss(
            "TripletMarginLoss",
            "triplet_margin_loss",
            &[
                ("margin", None),
                ("p", None),
                ("eps", None),
                ("swap", None),
                ("size_average", None),
                ("reduce", None),
                ("reduction", None),
            ],
        )
    },
];

pub fn row(f: Functional) -> &'static Row {
    // Every `Functional` is made from its row: the table is its definition.
    FUNCTIONAL.iter().find(|r| r.name == f.0).unwrap_or(&FUNCTIONAL[0])
}

/// A pad module's `padding`: an int repeated for both sides of each of its `dims` dims, or
/// that many pairs, as PyTorch's `_ntuple` makes it.
pub fn pad_config(config: &mut [(&'static str, Value)], dims: usize) -> Result<()> {
    for (_, v) in config.iter_mut().filter(|(k, _)| *k == "padding") {
        if let Value::Scalar(Scalar::Int(n)) = v {
            *v = Value::Tuple(vec![Value::Scalar(Scalar::Int(*n)); 2 * dims]);
        }
        let n = v.items().map_or(0, |items| items.len());
        if n != 2 * dims {
            bail!(Value, "expected padding to be a single integer value or a list of {} values to match the number of padding dims", 2 * dims);
        }
    }
    Ok(())
}

/// An upsampling module's config: `scale_factor` as floats (PyTorch stores `float(s)`), and
/// the mode and corner alignment the `Upsampling*2d` classes fix.
pub fn upsample_config(
    config: &mut Vec<(&'static str, Value)>,
    mode: Option<&'static str>,
    align_corners: bool,
) -> Result<()> {
    for (_, v) in config.iter_mut().filter(|(k, _)| *k == "scale_factor") {
        let float = |x: &Value| x.as_scalar("scale_factor").map(|s| Value::Scalar(Scalar::Float(s.as_f64())));
        let as_floats = match &*v {
            Value::None => Value::None,
            Value::Tuple(items) => Value::Tuple(items.iter().map(float).collect::<Result<_>>()?),
            other => float(other)?,
        };
        *v = as_floats;
    }
    if let Some(mode) = mode {
        config.push(("mode", Value::Str(mode.into())));
    }
    if align_corners {
        config.push(("align_corners", Value::Scalar(Scalar::Bool(true))));
    }
    Ok(())
}
