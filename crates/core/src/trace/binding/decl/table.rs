//! The rows: one per op. Adding an op is a row here and its handler in `handlers.rs`; the
//! binding, the reference, "did you mean", `stridelab ops` and the name test follow.
//!
//! Columns: name, where PyTorch exposes it, other names, PyTorch's signature, its autograd
//! node (or `Grad::None` where PyTorch's result has no gradient), the handler, and where
//! PyTorch's kernel fixes its result's memory format, that format (see [`Format`]).

use super::handlers as h;
use super::row::{Decl, Format, Grad, Space};

macro_rules! decls {
    ($($name:literal [$($space:ident),*] [$($alias:literal),*] $sig:literal => $grad:expr, $run:path $(, $format:ident)?;)*) => {
        pub const DECLS: &[Decl] = &[
            $(Decl {
                name: $name,
                spaces: &[$(Space::$space),*],
                aliases: &[$($alias),*],
                sig: $sig,
                grad: $grad,
                run: $run,
                format: decls!(@format $($format)?),
            },)*
        ];
    };
    (@format) => { Format::AsComputed };
    (@format $format:ident) => { Format::$format };
}

const NONE: Grad = Grad::None;
const COMPOSITE: Grad = Grad::Composite;

decls! {
    "isnan" [Torch, Method] [] "(Tensor input)" => NONE, h::isnan;
    "isinf" [Torch, Method] [] "(Tensor input)" => NONE, h::isinf;
    "isposinf" [Torch, Method] [] "(Tensor input)" => NONE, h::isposinf;
    "isneginf" [Torch, Method] [] "(Tensor input)" => NONE, h::isneginf;
    "isfinite" [Torch, Method] [] "(Tensor input)" => NONE, h::isfinite;
    "isreal" [Torch, Method] [] "(Tensor input)" => NONE, h::isreal;
    "signbit" [Torch, Method] [] "(Tensor input)" => NONE, h::signbit;
    "logical_and" [Torch, Method, Inplace] [] "(Tensor input, Tensor other)" => NONE, h::logical_and;
    "logical_or" [Torch, Method, Inplace] [] "(Tensor input, Tensor other)" => NONE, h::logical_or;
    "logical_xor" [Torch, Method, Inplace] [] "(Tensor input, Tensor other)" => NONE, h::logical_xor;
    "nan_to_num" [Torch, Method, Inplace] [] "(Tensor input, float? nan=0.0, float? posinf=None, float? neginf=None)" => Grad::Node("NanToNumBackward0"), h::nan_to_num;
    "xlogy" [Torch, Method, Inplace, Special] [] "(Any input, Any other)" => Grad::Node("XlogyBackward0"), h::xlogy;
    "logaddexp" [Torch, Method] [] "(Tensor input, Tensor other)" => Grad::Node("LogaddexpBackward0"), h::logaddexp;
    "logaddexp2" [Torch, Method] [] "(Tensor input, Tensor other)" => Grad::Node("Logaddexp2Backward0"), h::logaddexp2;
    "sinc" [Torch, Method, Inplace, Special] [] "(Tensor input)" => Grad::Node("SincBackward0"), h::sinc;
    "deg2rad" [Torch, Method, Inplace] [] "(Tensor input)" => Grad::Node("Deg2RadBackward0"), h::deg2rad;
    "rad2deg" [Torch, Method, Inplace] [] "(Tensor input)" => Grad::Node("Rad2DegBackward0"), h::rad2deg;
    "sgn" [Torch, Method, Inplace] [] "(Tensor input)" => Grad::Node("SgnBackward0"), h::sgn;
    "positive" [Torch, Method] [] "(Tensor input)" => COMPOSITE, h::positive;
    "logit" [Torch, Method, Inplace, Special] [] "(Tensor input, float? eps=None)" => Grad::Node("LogitBackward0"), h::logit;
    "float_power" [Torch, Method] [] "(Any input, Any exponent)" => Grad::Node("PowBackward0"), h::float_power;
    "heaviside" [Torch, Method, Inplace] [] "(Tensor input, Tensor values)" => NONE, h::heaviside;
    "ndtr" [Special] [] "(Tensor input)" => COMPOSITE, h::ndtr;
    "entr" [Special] [] "(Tensor input)" => Grad::Node("SpecialEntrBackward0"), h::entr;
    "round" [Torch, Method, Inplace, Special] [] "(Tensor input, *, int decimals=0)" => COMPOSITE, h::round;
    "selu" [Torch, Functional] [] "(Tensor input, bool inplace=False)" => Grad::Node("EluBackward0"), h::selu;
    "celu" [Torch, Functional] [] "(Tensor input, float alpha=1.0, bool inplace=False)" => Grad::Node("CeluBackward0"), h::celu;
    "softsign" [Functional] [] "(Tensor input)" => COMPOSITE, h::softsign;
    "tanhshrink" [Functional] [] "(Tensor input)" => COMPOSITE, h::tanhshrink;
    "softshrink" [Functional] [] "(Tensor input, float lambd=0.5)" => Grad::Node("SoftshrinkBackward0"), h::softshrink;
    "hardshrink" [Torch, Method, Functional] [] "(Tensor input, float lambd=0.5)" => Grad::Node("HardshrinkBackward0"), h::hardshrink;
    "threshold" [Torch, Functional] [] "(Tensor input, Scalar threshold, Scalar value, bool inplace=False)" => Grad::Node("ThresholdBackward0"), h::threshold;
    "glu" [Functional] [] "(Tensor input, int dim=-1)" => Grad::Node("GluBackward0"), h::glu;
    "prelu" [Torch, Functional] [] "(Tensor input, Tensor weight)" => Grad::Node("PreluKernelBackward0"), h::prelu;
    "count_nonzero" [Torch, Method] [] "(Tensor input, int[]? dim=None)" => NONE, h::count_nonzero;
    "nansum" [Torch, Method] [] "(Tensor input, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)" => Grad::Node("NansumBackward0"), h::nansum;
    "nanmean" [Torch, Method] [] "(Tensor input, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)" => COMPOSITE, h::nanmean;
    "diff" [Torch, Method] [] "(Tensor input, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None)" => COMPOSITE, h::diff;
    "trace" [Torch, Method] [] "(Tensor input)" => Grad::Node("TraceBackward0"), h::trace;
    "isclose" [Torch, Method] [] "(Tensor input, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False)" => NONE, h::isclose;
    "allclose" [Torch, Method] [] "(Tensor input, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False)" => NONE, h::allclose;
    "equal" [Torch, Method] [] "(Tensor input, Tensor other)" => NONE, h::equal;
    "outer" [Torch, Method] ["ger"] "(Tensor input, Tensor vec2)" => COMPOSITE, h::outer;
    "inner" [Torch, Method] [] "(Tensor input, Tensor other)" => COMPOSITE, h::inner;
    "addmm" [Torch, Method, Inplace] [] "(Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1)" => Grad::Node("AddmmBackward0"), h::addmm;
    "addmv" [Torch, Method, Inplace] [] "(Tensor input, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1)" => Grad::Node("AddmvBackward0"), h::addmv;
    "baddbmm" [Torch, Method, Inplace] [] "(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1)" => Grad::Node("BaddbmmBackward0"), h::baddbmm;
    "addbmm" [Torch, Method, Inplace] [] "(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1)" => Grad::Node("AddbmmBackward0"), h::addbmm;
    "addr" [Torch, Method, Inplace] [] "(Tensor input, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1)" => Grad::Node("AddrBackward0"), h::addr;
    "dist" [Torch, Method] [] "(Tensor input, Tensor other, Scalar p=2)" => Grad::Node("DistBackward0"), h::dist;
    "vdot" [Torch, Method] [] "(Tensor input, Tensor other)" => COMPOSITE, h::vdot;
    "layer_norm" [Functional] [] "(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05)" => Grad::Node("NativeLayerNormBackward0"), h::layer_norm, Contiguous;
    "rms_norm" [Functional] [] "(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None)" => COMPOSITE, h::rms_norm, Contiguous;
    "group_norm" [Functional] [] "(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05)" => COMPOSITE, h::group_norm;
    "normalize" [Functional] [] "(Tensor input, float p=2.0, int dim=1, float eps=1e-12)" => COMPOSITE, h::normalize;
    "cosine_similarity" [Torch, Functional] [] "(Tensor x1, Tensor x2, int dim=1, float eps=1e-08)" => COMPOSITE, h::cosine_similarity;
    "pairwise_distance" [Torch, Functional] [] "(Tensor x1, Tensor x2, float p=2.0, float eps=1e-06, bool keepdim=False)" => Grad::Node("NormBackward1"), h::pairwise_distance;
    "embedding" [Functional] [] "(Tensor input, Tensor weight, int? padding_idx=None, float? max_norm=None, float norm_type=2.0, bool scale_grad_by_freq=False, bool sparse=False)" => Grad::Node("EmbeddingBackward0"), h::embedding, Contiguous;
    "l1_loss" [Functional] [] "(Tensor input, Tensor target, Any size_average=None, Any reduce=None, str reduction='mean')" => COMPOSITE, h::l1_loss;
    "smooth_l1_loss" [Functional] [] "(Tensor input, Tensor target, Any size_average=None, Any reduce=None, str reduction='mean', float beta=1.0)" => Grad::Node("SmoothL1LossBackward0"), h::smooth_l1_loss;
    "huber_loss" [Functional] [] "(Tensor input, Tensor target, str reduction='mean', float delta=1.0)" => Grad::Node("HuberLossBackward0"), h::huber_loss;
    "kl_div" [Functional] [] "(Tensor input, Tensor target, Any size_average=None, Any reduce=None, str reduction='mean', bool log_target=False)" => COMPOSITE, h::kl_div;
    "hstack" [Torch] [] "(Tensor[] tensors)" => COMPOSITE, h::hstack;
    "vstack" [Torch] ["row_stack"] "(Tensor[] tensors)" => COMPOSITE, h::vstack;
    "dstack" [Torch] [] "(Tensor[] tensors)" => COMPOSITE, h::dstack;
    "column_stack" [Torch] [] "(Tensor[] tensors)" => COMPOSITE, h::column_stack;
    "meshgrid" [Torch] [] "(Tensor... tensors, *, str? indexing=None)" => COMPOSITE, h::meshgrid;
    "tril_indices" [Torch] [] "(int row, int col, int offset=0, *, ScalarType? dtype=None)" => NONE, h::tril_indices;
    "triu_indices" [Torch] [] "(int row, int col, int offset=0, *, ScalarType? dtype=None)" => NONE, h::triu_indices;
    "pixel_shuffle" [Torch, Functional] [] "(Tensor input, int upscale_factor)" => Grad::Node("PixelShuffleBackward0"), h::pixel_shuffle, Suggested;
    "pixel_unshuffle" [Torch, Functional] [] "(Tensor input, int downscale_factor)" => Grad::Node("PixelUnshuffleBackward0"), h::pixel_unshuffle;
    "adaptive_avg_pool2d" [Functional] [] "(Tensor input, Any output_size)" => COMPOSITE, h::adaptive_avg_pool2d, Suggested;
    "scaled_dot_product_attention" [Functional] [] "(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, float? scale=None, bool enable_gqa=False)" => COMPOSITE, h::scaled_dot_product_attention;
    "einsum" [Torch] [] "(str equation, Tensor... operands)" => COMPOSITE, h::einsum;
    "median" [Torch, Method] [] "(Tensor input, int? dim=None, bool keepdim=False)" => COMPOSITE, h::median;
    "kthvalue" [Torch, Method] [] "(Tensor input, int k, int dim=-1, bool keepdim=False)" => COMPOSITE, h::kthvalue;
    "mode" [Torch, Method] [] "(Tensor input, int dim=-1, bool keepdim=False)" => COMPOSITE, h::mode;
    "quantile" [Torch, Method] [] "(Tensor input, Any q, int? dim=None, bool keepdim=False, *, str interpolation='linear')" => COMPOSITE, h::quantile;
    "aminmax" [Torch, Method] [] "(Tensor input, *, int? dim=None, bool keepdim=False)" => COMPOSITE, h::aminmax;
    "searchsorted" [Torch] [] "(Tensor sorted_sequence, Any input, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None)" => NONE, h::searchsorted;
    "bucketize" [Torch] [] "(Any input, Tensor boundaries, *, bool out_int32=False, bool right=False)" => NONE, h::bucketize;
    "cdist" [Torch] [] "(Tensor x1, Tensor x2, float p=2.0, Any compute_mode=None)" => Grad::Node("CdistBackward0"), h::cdist;
    "batch_norm" [Functional] [] "(Tensor input, Tensor? running_mean, Tensor? running_var, Tensor? weight=None, Tensor? bias=None, bool training=False, float momentum=0.1, float eps=1e-05)" => COMPOSITE, h::batch_norm;
    "interpolate" [Functional] [] "(Tensor input, Any size=None, Any scale_factor=None, str mode='nearest', Any align_corners=None, bool? recompute_scale_factor=None, bool antialias=False)" => COMPOSITE, h::interpolate, Suggested;
    "conv1d" [Torch, Functional] [] "(Tensor input, Tensor weight, Tensor? bias=None, Any stride=1, Any padding=0, Any dilation=1, int groups=1)" => COMPOSITE, h::conv1d;
    "unfold" [Functional] [] "(Tensor input, Any kernel_size, Any dilation=1, Any padding=0, Any stride=1)" => COMPOSITE, h::unfold;
    "softmin" [Functional] [] "(Tensor input, int? dim=None, Any _stacklevel=3, *, ScalarType? dtype=None)" => COMPOSITE, h::softmin;
    "clamp_min" [Torch, Method, Inplace] [] "(Tensor input, Any min)" => COMPOSITE, h::clamp_min;
    "clamp_max" [Torch, Method, Inplace] [] "(Tensor input, Any max)" => COMPOSITE, h::clamp_max;
    "soft_margin_loss" [Functional] [] "(Tensor input, Tensor target, Any size_average=None, Any reduce=None, str reduction='mean')" => Grad::Node("SoftMarginLossBackward0"), h::soft_margin_loss;
    "margin_ranking_loss" [Functional] [] "(Tensor input1, Tensor input2, Tensor target, float margin=0.0, Any size_average=None, Any reduce=None, str reduction='mean')" => COMPOSITE, h::margin_ranking_loss;
    "hinge_embedding_loss" [Functional] [] "(Tensor input, Tensor target, float margin=1.0, Any size_average=None, Any reduce=None, str reduction='mean')" => COMPOSITE, h::hinge_embedding_loss;
    "poisson_nll_loss" [Functional] [] "(Tensor input, Tensor target, bool log_input=True, bool full=False, Any size_average=None, float eps=1e-08, Any reduce=None, str reduction='mean')" => COMPOSITE, h::poisson_nll_loss;
    "det" [Torch, Method, Linalg] [] "(Tensor A)" => NONE, h::det;
    "slogdet" [Torch, Method, Linalg] [] "(Tensor A)" => NONE, h::slogdet;
    "logdet" [Torch, Method] [] "(Tensor A)" => NONE, h::logdet;
    "inv" [Linalg] [] "(Tensor A)" => NONE, h::inv;
    "inverse" [Torch, Method] [] "(Tensor A)" => NONE, h::inv;
    "solve" [Linalg] [] "(Tensor A, Tensor B, *, bool left=True)" => NONE, h::solve;
    "cholesky" [Torch, Method, Linalg] [] "(Tensor A, *, bool upper=False)" => NONE, h::cholesky;
    "matrix_norm" [Linalg] [] "(Tensor A, Any ord='fro', int[] dim=(-2, -1), bool keepdim=False, *, ScalarType? dtype=None)" => COMPOSITE, h::matrix_norm;
    "vecdot" [Linalg] [] "(Tensor x, Tensor y, *, int dim=-1)" => COMPOSITE, h::vecdot;
    "multi_dot" [Linalg] [] "(Tensor[] tensors)" => COMPOSITE, h::multi_dot;
    "matrix_power" [Torch, Method, Linalg] [] "(Tensor A, int n)" => COMPOSITE, h::matrix_power;
    "cross" [Torch, Method] [] "(Tensor input, Tensor other, int? dim=None)" => COMPOSITE, h::cross;
    "cross" [Linalg] [] "(Tensor input, Tensor other, *, int dim=-1)" => COMPOSITE, h::linalg_cross;
    "kron" [Torch, Method] [] "(Tensor input, Tensor other)" => COMPOSITE, h::kron;
    "expand_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "diagonal_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "as_strided_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "permute_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "unbind_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "unfold_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "squeeze_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "unsqueeze_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "transpose_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "view_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "t_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "alias_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "split_with_sizes_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "split_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "detach_copy" [Torch] [] "(Tensor input, Any... args, Any** kwargs)" => COMPOSITE, h::view_copy;
    "unsafe_chunk" [Torch, Method] [] "(Tensor input, Any... args)" => COMPOSITE, h::unsafe_split;
    "unsafe_split" [Torch, Method] [] "(Tensor input, Any... args)" => COMPOSITE, h::unsafe_split;
    "__radd__" [Method] [] "(Tensor input, Any other)" => COMPOSITE, h::reflected;
    "__rsub__" [Method] [] "(Tensor input, Any other)" => COMPOSITE, h::reflected;
    "__rmul__" [Method] [] "(Tensor input, Any other)" => COMPOSITE, h::reflected;
    "__rdiv__" [Method] [] "(Tensor input, Any other)" => COMPOSITE, h::reflected;
    "__rtruediv__" [Method] [] "(Tensor input, Any other)" => COMPOSITE, h::reflected;
    "__rfloordiv__" [Method] [] "(Tensor input, Any other)" => COMPOSITE, h::reflected;
    "__rmod__" [Method] [] "(Tensor input, Any other)" => COMPOSITE, h::reflected;
    "__rpow__" [Method] [] "(Tensor input, Any other)" => COMPOSITE, h::reflected;
    "__rmatmul__" [Method] [] "(Tensor input, Any other)" => COMPOSITE, h::reflected;
    "__rand__" [Method] [] "(Tensor input, Any other)" => COMPOSITE, h::reflected;
    "__ror__" [Method] [] "(Tensor input, Any other)" => COMPOSITE, h::reflected;
    "__rxor__" [Method] [] "(Tensor input, Any other)" => COMPOSITE, h::reflected;
    "rsub" [Torch] [] "(Tensor input, Any other, *, Scalar alpha=1)" => COMPOSITE, h::rsub;
    "conj" [Torch, Method] [] "(Tensor input)" => COMPOSITE, h::itself;
    "resolve_conj" [Torch, Method] [] "(Tensor input)" => COMPOSITE, h::itself;
    "resolve_neg" [Torch, Method] [] "(Tensor input)" => COMPOSITE, h::itself;
    "conj_physical" [Torch, Method, Inplace] [] "(Tensor input)" => COMPOSITE, h::itself;
    "fill" [Torch] [] "(Tensor input, Any value)" => COMPOSITE, h::fill;
    "zero_" [Torch] [] "(Tensor input)" => COMPOSITE, h::zero_;
    "scalar_tensor" [Torch] [] "(Scalar s, *, ScalarType? dtype=None)" => NONE, h::scalar_tensor;
    "lgamma" [Torch, Method, Inplace, Special] ["gammaln"] "(Tensor input)" => COMPOSITE, h::lgamma;
    "digamma" [Torch, Method, Inplace, Special] ["psi"] "(Tensor input)" => COMPOSITE, h::digamma;
    "polygamma" [Torch, Special] [] "(int n, Tensor input)" => COMPOSITE, h::polygamma;
    "polygamma" [Method, Inplace] [] "(Tensor input, int n)" => COMPOSITE, h::polygamma_method;
    "mvlgamma" [Torch, Method, Inplace] ["multigammaln"] "(Tensor input, int p)" => COMPOSITE, h::mvlgamma;
    "zeta" [Special] [] "(Tensor input, Tensor other)" => COMPOSITE, h::zeta;
    "xlog1py" [Special] [] "(Tensor input, Tensor other)" => COMPOSITE, h::xlog1py;
    "log_ndtr" [Special] [] "(Tensor input)" => COMPOSITE, h::log_ndtr;
    "angle" [Torch, Method] [] "(Tensor input)" => COMPOSITE, h::angle;
    "ldexp" [Torch, Method, Inplace] [] "(Tensor input, Tensor other)" => COMPOSITE, h::ldexp;
    "diagflat" [Torch, Method] [] "(Tensor input, int offset=0)" => COMPOSITE, h::diagflat;
    "block_diag" [Torch] [] "(Tensor... tensors)" => COMPOSITE, h::block_diag;
    "cartesian_prod" [Torch] [] "(Tensor... tensors)" => COMPOSITE, h::cartesian_prod;
    "combinations" [Torch] [] "(Tensor input, int r=2, bool with_replacement=False)" => COMPOSITE, h::combinations;
    "tensordot" [Torch] [] "(Tensor a, Tensor b, Any dims=2)" => COMPOSITE, h::tensordot;
    "trapezoid" [Torch] ["trapz"] "(Tensor y, Tensor? x=None, *, Scalar dx=1, int dim=-1)" => COMPOSITE, h::trapezoid;
    "cumulative_trapezoid" [Torch] [] "(Tensor y, Tensor? x=None, *, Scalar dx=1, int dim=-1)" => COMPOSITE, h::cumulative_trapezoid;
    "diagonal" [Linalg] [] "(Tensor A, *, int offset=0, int dim1=-2, int dim2=-1)" => COMPOSITE, h::linalg_diagonal;
    "vander" [Linalg] [] "(Tensor x, *, int? N=None)" => COMPOSITE, h::vander;
    "constant_pad_nd" [Torch] [] "(Tensor input, int[] pad, Scalar value=0)" => Grad::Node("ConstantPadNdBackward0"), h::constant_pad_nd;
    "max_pool1d" [Torch, Functional] [] "(Tensor input, Any kernel_size, Any stride=None, Any padding=0, Any dilation=1, bool ceil_mode=False, bool return_indices=False)" => COMPOSITE, h::max_pool1d;
    "avg_pool1d" [Torch, Functional] [] "(Tensor input, Any kernel_size, Any stride=None, Any padding=0, bool ceil_mode=False, bool count_include_pad=True)" => COMPOSITE, h::avg_pool1d;
    "adaptive_avg_pool1d" [Torch, Functional] [] "(Tensor input, Any output_size)" => COMPOSITE, h::adaptive_avg_pool1d, Suggested;
    "adaptive_avg_pool3d" [Functional] [] "(Tensor input, Any output_size)" => COMPOSITE, h::adaptive_avg_pool3d, Suggested;
    "channel_shuffle" [Torch, Functional] ["native_channel_shuffle"] "(Tensor input, int groups)" => COMPOSITE, h::channel_shuffle;
    "sum_to_size" [Method] [] "(Tensor input, Any... size)" => COMPOSITE, h::sum_to_size;
    "cov" [Torch, Method] [] "(Tensor input, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None)" => COMPOSITE, h::cov;
    "corrcoef" [Torch, Method] [] "(Tensor input)" => COMPOSITE, h::corrcoef;
    "cummax" [Torch, Method] [] "(Tensor input, int dim)" => COMPOSITE, h::cummax;
    "cummin" [Torch, Method] [] "(Tensor input, int dim)" => COMPOSITE, h::cummin;
    "logcumsumexp" [Torch, Method] [] "(Tensor input, int dim)" => COMPOSITE, h::logcumsumexp;
    "isin" [Torch] [] "(Any elements, Any test_elements, *, bool assume_unique=False, bool invert=False)" => NONE, h::isin;
    "gcd" [Torch, Method, Inplace] [] "(Tensor input, Tensor other)" => NONE, h::gcd;
    "lcm" [Torch, Method, Inplace] [] "(Tensor input, Tensor other)" => NONE, h::lcm;
    "bitwise_left_shift" [Torch, Method, Inplace] [] "(Tensor input, Tensor other)" => NONE, h::bitwise_left_shift;
    "bitwise_right_shift" [Torch, Method, Inplace] [] "(Tensor input, Tensor other)" => NONE, h::bitwise_right_shift;
    "frexp" [Torch, Method] [] "(Tensor input)" => NONE, h::frexp;
    "unravel_index" [Torch] [] "(Tensor indices, Any shape)" => NONE, h::unravel_index;
    "inv_ex" [Linalg] [] "(Tensor A, *, bool check_errors=False)" => NONE, h::inv_ex;
    "cholesky_ex" [Linalg] [] "(Tensor A, *, bool upper=False, bool check_errors=False)" => NONE, h::cholesky_ex;
    "solve_ex" [Linalg] [] "(Tensor A, Tensor B, *, bool left=True, bool check_errors=False)" => NONE, h::solve_ex;
    "native_layer_norm" [Torch] [] "(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps)" => COMPOSITE, h::native_layer_norm;
    "native_group_norm" [Torch] [] "(Tensor input, Tensor? weight, Tensor? bias, int N, int C, int HxW, int group, float eps)" => COMPOSITE, h::native_group_norm;
    "native_batch_norm" [Torch] [] "(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps)" => COMPOSITE, h::native_batch_norm;
    "instance_norm" [Torch, Functional] [] "(Tensor input, Tensor? running_mean=None, Tensor? running_var=None, Tensor? weight=None, Tensor? bias=None, bool use_input_stats=True, float momentum=0.1, float eps=1e-05)" => COMPOSITE, h::instance_norm, Contiguous;
    "local_response_norm" [Functional] [] "(Tensor input, int size, float alpha=0.0001, float beta=0.75, float k=1.0)" => COMPOSITE, h::local_response_norm;
    "bilinear" [Torch, Functional] [] "(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None)" => COMPOSITE, h::bilinear;
    "pdist" [Torch, Functional] [] "(Tensor input, float p=2.0)" => COMPOSITE, h::pdist;
    "renorm" [Torch, Method, Inplace] [] "(Tensor input, Scalar p, int dim, Scalar maxnorm)" => COMPOSITE, h::renorm, Contiguous;
    "cosine_embedding_loss" [Functional] [] "(Tensor input1, Tensor input2, Tensor target, float margin=0.0, Any size_average=None, Any reduce=None, str reduction='mean')" => COMPOSITE, h::cosine_embedding_loss;
    "triplet_margin_loss" [Functional] [] "(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, float p=2.0, float eps=1e-06, bool swap=False, Any size_average=None, Any reduce=None, str reduction='mean')" => COMPOSITE, h::triplet_margin_loss;
    "multilabel_soft_margin_loss" [Functional] [] "(Tensor input, Tensor target, Tensor? weight=None, Any size_average=None, Any reduce=None, str reduction='mean')" => COMPOSITE, h::multilabel_soft_margin_loss;
    "gaussian_nll_loss" [Functional] [] "(Tensor input, Tensor target, Tensor var, bool full=False, float eps=1e-06, str reduction='mean')" => COMPOSITE, h::gaussian_nll_loss;
    "nanmedian" [Torch, Method] [] "(Tensor input, int? dim=None, bool keepdim=False)" => COMPOSITE, h::median;
    "nanquantile" [Torch, Method] [] "(Tensor input, Any q, int? dim=None, bool keepdim=False, *, str interpolation='linear')" => COMPOSITE, h::quantile;
    "__getitem__" [Method] [] "(Tensor input, Any idx)" => COMPOSITE, h::getitem;
    "erfinv" [Torch, Method, Inplace, Special] [] "(Tensor input)" => COMPOSITE, h::erfinv;
    "i0" [Torch, Method, Inplace, Special] [] "(Tensor input)" => COMPOSITE, h::i0;
    "igamma" [Torch, Method, Inplace, Special] ["gammainc"] "(Tensor input, Tensor other)" => COMPOSITE, h::igamma;
    "igammac" [Torch, Method, Inplace, Special] ["gammaincc"] "(Tensor input, Tensor other)" => COMPOSITE, h::igammac;
    "nextafter" [Torch, Method, Inplace] [] "(Tensor input, Tensor other)" => NONE, h::nextafter;
    "index_reduce" [Torch, Method, Inplace] [] "(Tensor input, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True)" => COMPOSITE, h::index_reduce;
    "unique_consecutive" [Torch, Method] [] "(Tensor input, bool return_inverse=False, bool return_counts=False, int? dim=None)" => NONE, h::unique_consecutive;
    "histc" [Torch, Method] [] "(Tensor input, int bins=100, Scalar min=0, Scalar max=0)" => NONE, h::histc;
    "broadcast_shapes" [Torch] [] "(Any... shapes)" => NONE, h::broadcast_shapes;
    "adaptive_max_pool1d" [Torch, Functional] [] "(Tensor input, Any output_size, bool return_indices=False)" => COMPOSITE, h::adaptive_max_pool1d;
    "adaptive_max_pool2d" [Functional] [] "(Tensor input, Any output_size, bool return_indices=False)" => COMPOSITE, h::adaptive_max_pool2d, Suggested;
    "adaptive_max_pool3d" [Functional] [] "(Tensor input, Any output_size, bool return_indices=False)" => COMPOSITE, h::adaptive_max_pool3d, Suggested;
}
