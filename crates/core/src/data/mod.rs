//! Dataset readers: MNIST-style IDX files and CIFAR-10 binary batches, raw or gzip.
//!
//! The core does no I/O, so every reader takes the file's bytes plus a name used only in error
//! messages. Dataset files come from outside (a download, a drag-and-drop), so nothing here trusts
//! them: every structural problem, short file or hash mismatch is an
//! [`Error::Decode`](crate::Error::Decode) naming the file, and decompression is capped so a
//! small gzip cannot expand without bound.

mod cifar;
mod decode;
mod idx;
mod tensor;

pub use cifar::{read_cifar, Cifar, CIFAR_CLASSES, CIFAR_IMAGE_LEN, CIFAR_RECORD_LEN};
pub use decode::{gunzip, is_gzip, sha256_hex, GZIP_MAGIC, MAX_DECODED_LEN};
pub use idx::{read_idx, Idx};
pub use tensor::{dataset_tensor, decode_dataset, DatasetKind};
