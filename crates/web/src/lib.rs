//! The playground's first wasm module: the page's ES modules (and its engine worker) call these
//! functions with strings and get JSON strings (or byte arrays) back. All tensor semantics stay in
//! the core; this crate only holds the open trace between calls and shapes the core's answers for
//! the panels. Everything the first render does not need (datasets, models, training, a
//! statement's kernels on WebGPU) is in `stridelab-web-runtime`, the second module, fetched when a
//! tab or a link first needs it: this one is the page's first load.

pub mod chain;
pub mod files;
pub mod lessons;
pub mod recording;
pub mod session;

use serde_json::{json, Value as Json};
use stridelab_core::share::{self, Shared, SharedRecording, SharedTrace, Shown};
use wasm_bindgen::prelude::*;

/// Panics become readable console errors instead of "unreachable executed"; the page catches the
/// thrown error and keeps working.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The error (JSON, as a run reports it) of a source that does not parse, or `undefined` when it
/// parses. Nothing runs: the page asks before replacing the open trace, which it keeps on screen
/// while a line is half typed.
#[wasm_bindgen(js_name = parseError)]
pub fn parse_error(src: &str) -> Option<String> {
    session::Session::parse_error_of(src).map(|e| e.to_string())
}

/// The trace the page has open.
#[wasm_bindgen]
pub struct Session {
    inner: session::Session,
}

#[wasm_bindgen]
impl Session {
    /// Runs `src` whole and stands on its last statement.
    #[wasm_bindgen(constructor)]
    pub fn new(src: &str) -> Session {
        Session { inner: session::Session::new(src) }
    }

    /// The full run's report (`error`, final `tensors`, every `steps[i]`).
    pub fn outline(&self) -> String {
        self.inner.outline().to_string()
    }

    #[wasm_bindgen(js_name = stepCount)]
    pub fn step_count(&self) -> usize {
        self.inner.step_count()
    }

    /// The steps at which the bridge's run parts from PyTorch's.
    #[wasm_bindgen(js_name = bridgeDivergences)]
    pub fn bridge_divergences(&self) -> Vec<u32> {
        self.inner.bridge_divergences()
    }
}

/// The stepping methods a trace's and a recording's sessions both export, under the same names
/// (the panels call either): wasm-bindgen exports inherent methods only, so one macro writes
/// both blocks.
macro_rules! stepping {
    ($session:ty) => {
        #[wasm_bindgen]
        impl $session {
            pub fn at(&self) -> usize {
                self.inner.at()
            }

            /// Stands after the first `k` steps and returns the state the panels draw.
            pub fn goto(&mut self, k: usize) -> String {
                self.inner.goto(k);
                self.inner.state().to_string()
            }

            /// `{storage, cells, tinygrad}` for one tensor at the current step.
            pub fn cells(&self, name: &str) -> String {
                self.inner.tensor_cells(name).to_string()
            }

            /// One flag byte per cell of the tensor's storage (bits: 1 selected, 2 repeated,
            /// 4 written, 8 overlap).
            pub fn flags(&self, name: &str) -> Vec<u8> {
                self.inner.flags(name)
            }

            /// The value of one storage cell as JSON.
            pub fn cell(&self, storage: usize, index: usize) -> String {
                self.inner.cell(storage, index).to_string()
            }

            /// The tensor's view chain, root first.
            pub fn chain(&mut self, name: &str) -> String {
                self.inner.chain(name).to_string()
            }
        }
    };
}

stepping!(Session);
stepping!(RecordingSession);

/// A recording of a real PyTorch run the page has open (`python -m stridelab_record`'s JSON),
/// answering as [`Session`] does: the panels step through it the same way.
#[wasm_bindgen]
pub struct RecordingSession {
    inner: recording::RecordingSession,
}

#[wasm_bindgen]
impl RecordingSession {
    /// Reads and checks the recording's JSON text (throws the reader's `decode` error) and stands
    /// on its last step.
    #[wasm_bindgen(constructor)]
    pub fn new(json: &str) -> Result<RecordingSession, JsError> {
        match recording::RecordingSession::new(json) {
            Ok(inner) => Ok(RecordingSession { inner }),
            Err(e) => Err(JsError::new(&format!("this is not a recording the page can read: {}", e.message()))),
        }
    }

    /// `{recorded, error, steps, source}`: who recorded what, and the source its steps ran.
    pub fn about(&self) -> String {
        self.inner.about().to_string()
    }

    #[wasm_bindgen(js_name = stepCount)]
    pub fn step_count(&self) -> usize {
        self.inner.step_count()
    }

    /// None: a recording has no bridge run.
    #[wasm_bindgen(js_name = bridgeDivergences)]
    pub fn bridge_divergences(&self) -> Vec<u32> {
        Vec::new()
    }
}

/// The URL fragment (without `#`) for a recording and the viewer's state: `{fragment}`, or
/// `{error}` when the recording is too large for a link (it is then shared as its file).
#[wasm_bindgen(js_name = shareEncodeRecording)]
pub fn share_encode_recording(
    recording: &str,
    step: Option<usize>,
    tensor: Option<String>,
    view: Option<String>,
) -> String {
    let s = SharedRecording { recording: recording.to_string(), step, tensor, view };
    match share::checked_recording_link(&s, "") {
        Ok(link) => json!({"fragment": link.trim_start_matches('#')}).to_string(),
        Err(e) => json!({"error": e.to_string()}).to_string(),
    }
}

/// The URL fragment (without `#`) for a trace and the viewer's state.
#[wasm_bindgen(js_name = shareEncode)]
pub fn share_encode(
    trace: &str,
    step: Option<usize>,
    tensor: Option<String>,
    backend: Option<String>,
    view: Option<String>,
    shown: Option<String>,
) -> String {
    let shown = match shown.as_deref() {
        Some("tinygrad") => Shown::WithTinygrad,
        _ => Shown::PyTorch,
    };
    share::encode(&SharedTrace { trace: trace.to_string(), step, tensor, backend, view, shown })
}

/// A link or fragment read back: `{trace, step, tensor, backend, view}` for a trace,
/// `{recording, step, tensor, view}` for a recording (its JSON text, read by
/// [`RecordingSession`]), or `{error}`.
#[wasm_bindgen(js_name = shareDecode)]
pub fn share_decode(link: &str) -> String {
    decode_json(link).to_string()
}

fn decode_json(link: &str) -> Json {
    match share::decode_shared(link) {
        Ok(Shared::Trace(s)) => {
            let shown = match s.shown {
                Shown::PyTorch => "pytorch",
                Shown::WithTinygrad => "tinygrad",
            };
            json!({"trace": s.trace, "step": s.step, "tensor": s.tensor, "backend": s.backend, "view": s.view,
                "shown": shown})
        }
        Ok(Shared::Recording(r)) => {
            json!({"recording": r.recording, "step": r.step, "tensor": r.tensor, "view": r.view})
        }
        Err(e) => json!({"error": e.to_string()}),
    }
}

/// The lesson gallery as JSON, each lesson with its share fragment.
pub fn lessons_json() -> Json {
    Json::Array(
        lessons::LESSONS
            .iter()
            .map(|l| {
                let fragment = share::encode(&SharedTrace {
                    trace: l.trace.to_string(),
                    step: None,
                    tensor: Some(l.tensor.to_string()),
                    backend: None,
                    view: None,
                    shown: Shown::PyTorch,
                });
                let narration: serde_json::Map<String, Json> =
                    l.narration.iter().map(|(line, text)| (line.to_string(), json!(text))).collect();
                json!({"id": l.id, "title": l.title, "explain": l.explain, "trace": l.trace, "tensor": l.tensor,
                    "narration": narration, "fragment": fragment, "compare": l.compares()})
            })
            .collect(),
    )
}

/// Every op the trace language runs, from the op tables, as JSON (`[{name, forms, signature,
/// grad}]`): the page's op reference (`stridelab ops --json` prints the same list).
#[wasm_bindgen(js_name = opReference)]
pub fn op_reference() -> String {
    stridelab_core::trace::report::ops_json().to_string()
}

#[wasm_bindgen]
pub fn lessons() -> String {
    lessons_json().to_string()
}

/// Registers a file (e.g. a dataset the page fetched) for `dataset(name)` in traces.
#[wasm_bindgen(js_name = registerFile)]
pub fn register_file(name: &str, bytes: Vec<u8>) {
    files::register_file(name, bytes);
}

#[cfg(test)]
mod tests;
