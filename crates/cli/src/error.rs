//! The CLI's one error type: what failed, as a kind and a message. Under `--json` it is printed
//! as the report's error object (`{"version": 1, "error": {"kind": ..., "message": ...}}`) on
//! standard output; it always goes to standard error as a line too. The kinds are the core's and
//! the GPU crate's own, plus `io` (a file or stream) and `usage` (arguments).

use std::fmt;
use std::io::{Read, Write};
use std::process::ExitCode;

#[derive(Debug)]
pub struct Error {
    kind: &'static str,
    message: String,
    /// 2 for input the command cannot take (files, links, arguments), 1 for work that failed.
    code: u8,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: &'static str, message: impl Into<String>) -> Self {
        Error { kind, message: message.into(), code: 2 }
    }

    /// An argument the command cannot take.
    pub fn usage(message: impl Into<String>) -> Self {
        Error::new("usage", message)
    }

    /// A file or stream that could not be read or written.
    pub fn io(what: &str, e: &std::io::Error) -> Self {
        Error::new("io", format!("{what}: {e}"))
    }

    /// The same error, as a failure of the work rather than of its input (exit status 1).
    pub fn failed(mut self) -> Self {
        self.code = 1;
        self
    }

    /// Reports the error (JSON on standard output under `json`, a line on standard error
    /// always) and gives the exit status.
    pub fn report(&self, json: bool) -> ExitCode {
        if json {
            let v = serde_json::json!({
                "version": stridelab_core::trace::report::SCHEMA_VERSION,
                "error": { "kind": self.kind, "message": self.message },
            });
            // A closed standard output leaves only the exit status to say what happened.
            let _ = write_stdout(&format!("{v}\n"));
        }
        eprintln!("stridelab: {self}");
        ExitCode::from(self.code)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<stridelab_core::Error> for Error {
    fn from(e: stridelab_core::Error) -> Self {
        let message = match &e {
            stridelab_core::Error::Parse { .. } => e.to_string(),
            other => other.message().to_string(),
        };
        Error::new(e.kind(), message)
    }
}

impl From<stridelab_gpu::Error> for Error {
    fn from(e: stridelab_gpu::Error) -> Self {
        Error::new(e.kind(), format!("wgpu: {e}")).failed()
    }
}

/// Writes `text` to standard output. A reader that went away (`| head`) ends the output
/// quietly: that is not an error of the command.
pub fn write_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::io("standard output", &e).failed()),
    }
}

/// Writes `value` as one line of JSON to standard output as it is serialised (a report of large
/// tensors is never held whole as text); a closed pipe ends the output quietly.
pub fn write_json_stdout(value: &impl serde::Serialize) -> Result<()> {
    let out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = stridelab_core::trace::report::stream::write_json(&value, out)
        .and_then(|()| std::io::stdout().lock().write_all(b"\n"))
        .and_then(|()| std::io::stdout().lock().flush());
    match written {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::io("standard output", &e).failed()),
    }
}

/// Reads all of `reader` (named `what` in errors), refusing more than `max` bytes as it reads:
/// an endless or huge input (`/dev/zero`) is stopped at the limit, never read whole.
pub fn read_limited(what: &str, reader: impl Read, max: usize) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(max as u64 + 1).read_to_end(&mut bytes).map_err(|e| Error::io(what, &e))?;
    if bytes.len() > max {
        return Err(Error::new("limit", format!("{what}: larger than the limit of {max} bytes")));
    }
    Ok(bytes)
}

/// [`read_limited`] of the file at `path`.
pub fn read_file(path: &str, max: usize) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, &e))?;
    read_limited(path, file, max)
}
