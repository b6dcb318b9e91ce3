//! What a model run is fed: dataset images (`--mnist`, `--cifar`) for an image model's input,
//! and any input by name (`--input NAME=FILE.npy`, `--input NAME=random:SEED[:HIGH]`), checked
//! against what the model or capture declares. Also reads an ONNX model with the external
//! weight files beside it.

use std::path::Path;

use clap::Args;
use stridelab_core::model::{self, HostTensor};
use stridelab_core::onnx;
use stridelab_core::DType;

use crate::error::{read_file, Error, Result};

/// The largest dataset or `.npy` file read: the readers refuse more decoded bytes than this.
const MAX_DATA_BYTES: usize = stridelab_core::data::MAX_DECODED_LEN;
/// The largest ONNX model, external weights file or capture weights file read.
pub const MAX_MODEL_BYTES: usize = 1 << 30;

/// The values a model runs on.
#[derive(Args)]
pub struct Feed {
    /// An MNIST-style IDX image file (raw or gzip), fed as float32 pixels / 255 in (N, 1, H, W)
    /// to the model's image input.
    #[arg(long, conflicts_with = "cifar")]
    mnist: Option<String>,
    /// A CIFAR-10 binary batch (raw or gzip), fed as (N, 3, 32, 32).
    #[arg(long)]
    cifar: Option<String>,
    /// Use only the first N images.
    #[arg(long)]
    first: Option<usize>,
    /// An input by name: `NAME=FILE.npy` (any bool, int or float array; ints and floats are
    /// converted to the declared width) or `NAME=random:SEED[:HIGH]` (the declared shape, its
    /// symbolic dims 1: floats standard normal, ints in [0, HIGH), default 10). Repeatable.
    #[arg(long = "input", value_name = "NAME=SOURCE")]
    inputs: Vec<String>,
}

/// A model input as declared: its name, the dtype the engine computes it in, and its dims
/// (`None` for a symbolic or unknown one).
pub struct Port {
    pub name: String,
    pub dtype: DType,
    pub dims: Option<Vec<Option<usize>>>,
}

impl Port {
    pub fn of_model(m: &onnx::Model) -> Vec<Port> {
        m.inputs()
            .iter()
            .map(|v| Port {
                name: v.name().to_string(),
                dtype: v.elem_type().engine_dtype(),
                dims: v.shape().map(|d| {
                    d.iter()
                        .map(|d| match d {
                            onnx::Dim::Fixed(n) => Some(*n),
                            _ => None,
                        })
                        .collect()
                }),
            })
            .collect()
    }

    /// Whether a value has the port's dtype and fits its dims.
    fn fits(&self, t: &HostTensor) -> bool {
        t.dtype() == self.dtype
            && self.dims.as_ref().is_none_or(|dims| {
                dims.len() == t.shape().len() && dims.iter().zip(t.shape()).all(|(d, &n)| d.is_none_or(|d| d == n))
            })
    }

    fn describe(&self) -> String {
        let dims = match &self.dims {
            None => "any shape".to_string(),
            Some(d) => {
                let d: Vec<String> = d.iter().map(|n| n.map_or("?".to_string(), |n| n.to_string())).collect();
                format!("[{}]", d.join(", "))
            }
        };
        format!("{:?} ({} {dims})", self.name, self.dtype)
    }
}

fn file_name(path: &str) -> &str {
    Path::new(path).file_name().and_then(|n| n.to_str()).unwrap_or(path)
}

/// Reads an ONNX model and the external weight files it names, from the model's folder.
pub fn read_onnx(path: &str) -> Result<(onnx::Model, Vec<u8>, onnx::ExternalFiles)> {
    let bytes = read_file(path, MAX_MODEL_BYTES)?;
    let name = file_name(path);
    let dir = Path::new(path).parent().unwrap_or(Path::new("."));
    let mut files = onnx::ExternalFiles::new();
    for loc in onnx::external_locations(name, &bytes)? {
        let p = dir.join(&loc);
        files.insert(loc, read_file(&p.to_string_lossy(), MAX_MODEL_BYTES)?);
    }
    let model = onnx::read_model_with(name, &bytes, &files)?;
    Ok((model, bytes, files))
}

impl Feed {
    /// Whether anything at all is fed.
    fn is_empty(&self) -> bool {
        self.mnist.is_none() && self.cifar.is_none() && self.inputs.is_empty()
    }

    fn images(&self) -> Result<Option<HostTensor>> {
        let first = self.first;
        Ok(match (self.mnist.as_deref(), self.cifar.as_deref()) {
            (Some(p), _) => Some(model::idx_images(file_name(p), &read_file(p, MAX_DATA_BYTES)?, first)?),
            (None, Some(p)) => Some(model::cifar_images(file_name(p), &read_file(p, MAX_DATA_BYTES)?, first)?),
            (None, None) => None,
        })
    }

    /// One value per port, in the ports' order: each `--input` by its name, the images for the
    /// one float input left. Every port must be fed once; the error lists what the model takes.
    pub fn resolve(&self, ports: &[Port], what: &str) -> Result<Vec<(String, HostTensor)>> {
        let takes = || ports.iter().map(Port::describe).collect::<Vec<_>>().join(", ");
        if self.is_empty() {
            return Err(Error::usage(format!(
                "{what} takes {}; give --input NAME=FILE.npy or NAME=random:SEED (or --mnist/--cifar for an image input)",
                takes()
            )));
        }
        let mut fed: Vec<Option<HostTensor>> = ports.iter().map(|_| None).collect();
        for spec in &self.inputs {
            let Some((name, source)) = spec.split_once('=') else {
                return Err(Error::usage(format!("--input {spec:?}: expected NAME=FILE.npy or NAME=random:SEED")));
            };
            let Some(i) = ports.iter().position(|p| p.name == name) else {
                return Err(Error::usage(format!(
                    "--input {spec:?}: {what} has no input {name:?}; it takes {}",
                    takes()
                )));
            };
            if fed[i].is_some() {
                return Err(Error::usage(format!("input {name:?} is given twice")));
            }
            fed[i] = Some(value(&ports[i], source)?);
        }
        if let Some(images) = self.images()? {
            let open: Vec<usize> =
                (0..ports.len()).filter(|&i| fed[i].is_none() && ports[i].dtype.is_float()).collect();
            let [i] = open.as_slice() else {
                return Err(Error::usage(format!(
                    "images feed one float input, but {what} has {} left unfed ({})",
                    open.len(),
                    takes()
                )));
            };
            fed[*i] = Some(images);
        }
        ports
            .iter()
            .zip(fed)
            .map(|(p, v)| match v {
                Some(v) if p.fits(&v) => Ok((p.name.clone(), v)),
                Some(v) => Err(Error::new(
                    "shape",
                    format!("{what}: input {} was given {} {:?}", p.describe(), v.dtype(), v.shape()),
                )),
                None => Err(Error::usage(format!("input {:?} is not fed; {what} takes {}", p.name, takes()))),
            })
            .collect()
    }
}

/// The value of one `--input` source for `port`.
fn value(port: &Port, source: &str) -> Result<HostTensor> {
    if let Some(rest) = source.strip_prefix("random:") {
        let (seed, high) = match rest.split_once(':') {
            Some((s, h)) => (s, Some(h)),
            None => (rest, None),
        };
        let bad = || Error::usage(format!("input {:?}: random:{rest}: expected random:SEED[:HIGH]", port.name));
        let seed: u64 = seed.parse().map_err(|_| bad())?;
        let high: Option<u64> = high.map(str::parse).transpose().map_err(|_| bad())?;
        let Some(dims) = &port.dims else {
            return Err(Error::usage(format!("input {:?} declares no shape; feed it an .npy file", port.name)));
        };
        let shape: Vec<usize> = dims.iter().map(|d| d.unwrap_or(1)).collect();
        return Ok(model::seeded_input(&shape, port.dtype, seed, high)?);
    }
    let t = model::read_npy(file_name(source), &read_file(source, MAX_DATA_BYTES)?)?.for_model(&port.name)?;
    let same_kind = |d: DType| (d.is_float(), d == DType::Bool);
    if same_kind(t.dtype()) != same_kind(port.dtype) {
        return Err(Error::new(
            "dtype",
            format!("input {:?}: {source} holds {}, the model takes {}", port.name, t.dtype(), port.dtype),
        ));
    }
    let t = if t.dtype() == port.dtype {
        t
    } else {
        let data = t.data().cast(port.dtype);
        HostTensor::new(t.shape().to_vec(), data)?
    };
    Ok(t)
}
