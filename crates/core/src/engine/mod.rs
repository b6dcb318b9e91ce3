//! The engine's typed API: the ops both front ends (the trace language and the ONNX lowering)
//! build on, each computing all three models (PyTorch's layout, tinygrad's tracker, the
//! bridge's report) over the [`Engine`](crate::tensor::Engine)'s lazy graph.
//!
//! Front ends bind their own names and arguments and call these methods; they never call each
//! other. [`views`] holds the view and movement ops, [`matmul`] PyTorch's matmul,
//! [`elementwise`] the composite elementwise ops written over the op table's primitives,
//! [`reduce`] the reductions, [`stats`] `var`, `std` and the vector norms, [`loss`] the losses of `torch.nn.functional`, [`concat`] `cat` and `stack`, [`nn`] the neural-network ops ([`linear`] `F.linear`, [`window_grad`] the gradients of convolution and pooling),
//! [`split`] the multi-output views (`split`, `chunk`, `unbind`, `tensor_split`, ...),
//! [`aliases`] views PyTorch names apart (`adjoint`, `H`, `atleast_2d`, ...), [`scatter`] the
//! functional scatter ops (`select_scatter`, `slice_scatter`, ...),
//! [`copies`] the copies that look like views (`repeat`, `roll`, `rot90`, ...), [`matrix`]
//! `tril`/`triu`, `diag`, `diag_embed` and `eye`, [`scan`] `cumsum` and `cumprod`, [`pad`] `F.pad` in its four modes, [`norm`] the layer, RMS and group normalizations, [`einsum`] `torch.einsum`, [`linalg`] the factorizing linear algebra (`det`, `inv`, `solve`, `cholesky`), [`special`] the special functions evaluated on the host (`lgamma`, `digamma`, `polygamma`, `zeta`), [`indexing`] advanced indexing, with
//! [`index_read`] (`index_select`, `gather`, `take`), [`index_write`] (`scatter*`, `index_*`,
//! `put`) and [`masked`] (`masked_*`) the index ops, [`random`] the random
//! tensors (numbers drawn on the host, entering the graph as buffers), [`bridge`] tinygrad's
//! PyTorch bridge as a second execution (its view table, write path and missing checks).

pub mod aliases;
pub mod autograd;
pub mod autograd_graph;
pub mod backward;
pub mod bridge;
pub mod concat;
pub mod copies;
pub mod data_shaped;
pub mod einsum;
pub mod elementwise;
pub mod gather;
pub mod grad;
pub(crate) mod grad_version;
pub mod index_read;
pub mod index_write;
pub mod indexing;
pub mod linalg;
pub mod linear;
pub mod loss;
pub mod masked;
pub mod matmul;
pub mod matrix;
pub mod meta;
pub mod nn;
pub mod norm;
pub mod order_stats;
pub mod pad;
pub mod random;
pub mod reclaim;
pub mod reduce;
pub mod scan;
pub mod scatter;
pub mod special;
pub mod split;
pub mod stats;
pub mod views;
pub mod window_grad;
pub mod write;
