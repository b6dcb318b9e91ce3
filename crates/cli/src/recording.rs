//! `stridelab run` of a recording: a `.json` file written by the Python recorder
//! (`python -m stridelab_record`), read and checked by the core's report layer and printed as
//! the same report a run prints, with tinygrad's view predicted from each recorded layout.

use crate::error::{read_file, Error, Result};
use stridelab_core::share::{self, Shared, SharedRecording};
use stridelab_core::trace::report::recording::{self, Recording};

/// A recording is at most this large (values are capped per tensor by the recorder; the steps
/// and their tensors make up the rest).
const MAX_RECORDING_BYTES: usize = 1 << 30;

/// The recording at `input`, when it names a `.json` file holding one; `None` for anything
/// else (a trace, standard input, a link). A `.json` object that is not a recording is a
/// `decode` error rather than trace text.
pub fn read(input: &str) -> Result<Option<Recording>> {
    let path = std::path::Path::new(input);
    let is_json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if !is_json || !path.is_file() {
        return Ok(None);
    }
    let bytes = read_file(input, MAX_RECORDING_BYTES)?;
    if recording::is_recording(&bytes) {
        return Ok(Some(
            Recording::from_json(&bytes).map_err(|e| Error::new(e.kind(), format!("{input}: {}", e.message())))?,
        ));
    }
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        return Err(Error::new(
            "decode",
            format!("{input}: not a recording (no top-level `recorded`), and not trace text"),
        ));
    }
    Ok(None)
}

/// The recording a link holds (`...#r1....`, made by `stridelab url run.json` or the page's
/// Share link); `None` for anything that is not a recording link.
pub fn from_link(input: &str) -> Result<Option<Recording>> {
    if !share::looks_like_link(input) || std::path::Path::new(input).exists() {
        return Ok(None);
    }
    match share::decode_shared(input) {
        Ok(Shared::Recording(r)) => Ok(Some(Recording::from_json(r.recording.as_bytes())?)),
        _ => Ok(None),
    }
}

/// `stridelab url run.json`: the link that opens the recording at `input` in the page (it
/// travels whole in the link, so at most 1 MiB of it); `None` when `input` is not a recording.
pub fn link(input: &str, base: &str, step: Option<usize>, tensor: Option<String>) -> Result<Option<String>> {
    if read(input)?.is_none() {
        return Ok(None);
    }
    let text = String::from_utf8(read_file(input, MAX_RECORDING_BYTES)?)
        .map_err(|_| Error::new("decode", format!("{input}: not UTF-8 text")))?;
    let shared = SharedRecording { recording: text, step, tensor, view: None };
    Ok(Some(share::checked_recording_link(&shared, base)?))
}

/// The line the text report starts with for a recording: who recorded what, and where a limit
/// cut it.
pub fn header(rep: &serde_json::Value) -> String {
    let r = &rep["recorded"];
    let mut out = format!(
        "recording of {} (torch {}, stridelab_record {}): PyTorch's fields recorded, tinygrad's views predicted\n",
        r["script"].as_str().unwrap_or("a script"),
        r["torch"].as_str().unwrap_or("?"),
        r["recorder"].as_str().unwrap_or("?"),
    );
    if let Some(note) = r["cut"]["note"].as_str() {
        out.push_str(&format!("cut at line {}: {note}\n", r["cut"]["line"]));
    }
    out
}
