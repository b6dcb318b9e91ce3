//! The crate's one error type. The GPU path must never end in a wgpu validation panic: every
//! failure a caller can cause (a kernel over the adapter's limits, WGSL that does not compile, a
//! spec that disagrees with its shader) is caught first and returned as one of these variants, so
//! the scheduler can split a kernel or the page can show the message.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No adapter matched the request (no driver installed, or the browser has no WebGPU).
    NoAdapter(String),
    /// The adapter refused to create a device.
    RequestDevice(String),
    /// naga could not parse or validate the WGSL; the text is naga's own report.
    Wgsl(String),
    /// A kernel description that cannot run as written: a binding outside the buffer table, an
    /// entry point that does not exist, a shader whose bindings disagree with the spec.
    Kernel { kernel: String, message: String },
    /// A kernel exceeds one of the adapter's limits; `limit` is wgpu's name for it. The caller
    /// may split the kernel and try again.
    Limit { kernel: String, limit: &'static str, requested: u64, allowed: u64 },
    /// A buffer that cannot be created, written or read as asked.
    Buffer(String),
    /// An argument outside its domain (zero repeats, say).
    Invalid(String),
    /// The device reported an error that the checks above did not foresee (out of memory, a
    /// driver validation failure, a lost device).
    Device(String),
    /// A backend's result differs from the reference interpreter's.
    Differs(String),
    /// One of the above, raised by a statement's kernels: the statement's line.
    AtLine { line: usize, error: Box<Error> },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A short machine-readable name for the variant, as the page and the CLI print it.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::NoAdapter(_) => "no-adapter",
            Error::RequestDevice(_) => "request-device",
            Error::Wgsl(_) => "wgsl",
            Error::Kernel { .. } => "kernel",
            Error::Limit { .. } => "limit",
            Error::Buffer(_) => "buffer",
            Error::Invalid(_) => "invalid",
            Error::Device(_) => "device",
            Error::Differs(_) => "differs",
            Error::AtLine { error, .. } => error.kind(),
        }
    }

    pub(crate) fn kernel(kernel: &str, message: impl Into<String>) -> Self {
        Error::Kernel { kernel: kernel.to_owned(), message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoAdapter(m) => write!(f, "no GPU adapter: {m}"),
            Error::RequestDevice(m) => write!(f, "the adapter refused a device: {m}"),
            Error::Wgsl(m) => write!(f, "invalid WGSL: {m}"),
            Error::Kernel { kernel, message } => write!(f, "kernel `{kernel}`: {message}"),
            Error::Limit { kernel, limit, requested, allowed } => write!(
                f,
                "kernel `{kernel}` needs {limit} = {requested} but the adapter allows {allowed}; \
                 split the kernel"
            ),
            Error::Buffer(m) => write!(f, "buffer: {m}"),
            Error::Invalid(m) => write!(f, "invalid argument: {m}"),
            Error::Device(m) => write!(f, "device error: {m}"),
            Error::Differs(m) => f.write_str(m),
            Error::AtLine { line, error } => write!(f, "line {line}: {error}"),
        }
    }
}

impl std::error::Error for Error {}
