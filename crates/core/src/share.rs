//! Traces shared by link. The whole trace and the viewer's state travel in the URL fragment,
//! which browsers never send to a server, so sharing needs no backend and leaks nothing.
//!
//! A fragment is `v<version>.<base64url without padding>`. The version tag comes first so that
//! every link ever handed out stays readable: decoding dispatches on it, and a new layout is a new
//! arm beside the old ones, never a change to them.
//!
//! v1 is raw deflate (best level) of this payload, built to be small for the short traces people
//! paste into chats:
//!
//! ```text
//! flags: u8          bit 0 step, bit 1 tensor, bit 2 backend, bit 3 view, bit 4 tinygrad and
//!                    the bridge shown (no field); other bits must be zero
//! step: varint       LEB128, present with bit 0
//! tensor: varint len, UTF-8 bytes, present with bit 1
//! backend: varint len, UTF-8 bytes, present with bit 2
//! view: varint len, UTF-8 bytes, present with bit 3
//! trace: UTF-8 bytes, the rest of the payload (it is last, so it needs no length)
//! ```
//!
//! A recording (the report JSON `python -m stridelab_record` writes) travels the same way under
//! its own tag, `r<version>.`: r1 is v1's payload with the recording's JSON text in place of the
//! trace and no backend (a recording has no kernels). A trace link is never read as a recording
//! or the other way round: [`decode`] refuses an `r1.` link and says what it is.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;
use serde::{Deserialize, Serialize};

use crate::error::{bail, Result};

/// What a link carries: the trace's text and where the viewer stood in it.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct SharedTrace {
    pub trace: String,
    /// The statement the viewer had selected.
    pub step: Option<usize>,
    /// The tensor the viewer had selected, by name.
    pub tensor: Option<String>,
    /// The backend the viewer was showing.
    pub backend: Option<String>,
    /// The page's open tab (`inspect`, `kernels`, ...), so a link opens where it was shared.
    pub view: Option<String>,
    /// Whether tinygrad's views and the bridge were shown beside PyTorch's story.
    #[serde(default)]
    pub shown: Shown,
}

/// What the viewer shows beside PyTorch's story.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Shown {
    /// PyTorch alone (the page's default).
    #[default]
    PyTorch,
    /// tinygrad's view stacks and the bridge's run too.
    WithTinygrad,
}

/// A recording shared by link: its JSON text, as the recorder wrote it, and where the viewer
/// stood in it. The text is not read here: the page and the CLI check it with the report layer's
/// reader (`trace::report::recording`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SharedRecording {
    pub recording: String,
    /// The step the viewer had selected.
    pub step: Option<usize>,
    /// The tensor the viewer had selected, by name.
    pub tensor: Option<String>,
    /// The page's open tab.
    pub view: Option<String>,
}

/// What a link holds: a trace to run, or a recording of a real PyTorch run to show.
#[derive(Clone, Debug, PartialEq)]
pub enum Shared {
    Trace(SharedTrace),
    Recording(SharedRecording),
}

/// Where the playground is served during development; the CLI prints links against it unless told
/// otherwise.
pub const DEFAULT_BASE: &str = "http://127.0.0.1:8080/";

/// The version this build writes. Older tags stay in [`decode_fragment`]'s match forever.
const CURRENT_VERSION: u32 = 1;
/// The version of recording links this build writes and reads (`r1.`).
const CURRENT_RECORDING_VERSION: u32 = 1;
const RECORDING_TAG: char = 'r';
/// The versions [`decode_fragment`] reads, as its errors name them.
const READABLE_VERSIONS: &str = "v1";

/// Decoded payloads above this are refused: a trace is text a person wrote, and a deflate bomb
/// must not make a browser tab allocate without bound.
const MAX_PAYLOAD: usize = 1 << 20;

/// Longest data part accepted before base64 decoding. A 1 MiB payload that does not compress at
/// all deflates to stored blocks of about 1 MiB, which is ~1.4 MiB of base64; anything longer
/// cannot be a link this build wrote, and refusing it bounds the work done on pasted junk.
const MAX_DATA_CHARS: usize = 2 << 20;

/// miniz_oxide's strongest setting (its "uber" level): links are encoded once and read by
/// people, so bytes matter more than microseconds.
const DEFLATE_LEVEL: u8 = 10;

const FLAG_STEP: u8 = 1 << 0;
const FLAG_TENSOR: u8 = 1 << 1;
const FLAG_BACKEND: u8 = 1 << 2;
const FLAG_VIEW: u8 = 1 << 3;
const FLAG_TINYGRAD: u8 = 1 << 4;
const V1_FLAGS: u8 = FLAG_STEP | FLAG_TENSOR | FLAG_BACKEND | FLAG_VIEW | FLAG_TINYGRAD;

/// The fragment for `s`, without the leading `#`: `v1.<base64url-nopad(raw deflate(payload))>`.
///
/// Traces whose payload exceeds 1 MiB encode, but [`decode`] refuses them.
pub fn encode(s: &SharedTrace) -> String {
    let payload = payload_v1(s);
    let deflated = miniz_oxide::deflate::compress_to_vec(&payload, DEFLATE_LEVEL);
    let mut out = format!("v{CURRENT_VERSION}.");
    URL_SAFE_NO_PAD.encode_string(&deflated, &mut out);
    out
}

/// `base` followed by `#` and [`encode`]'s fragment.
pub fn link(s: &SharedTrace, base: &str) -> String {
    let fragment = encode(s);
    let mut out = String::with_capacity(base.len() + 1 + fragment.len());
    out.push_str(base);
    out.push('#');
    out.push_str(&fragment);
    out
}

/// The fragment for a recording, without the leading `#`: `r1.<base64url-nopad(raw deflate(payload))>`.
pub fn encode_recording(s: &SharedRecording) -> String {
    let payload = payload_v1(&recording_payload(s));
    let deflated = miniz_oxide::deflate::compress_to_vec(&payload, DEFLATE_LEVEL);
    let mut out = format!("{RECORDING_TAG}{CURRENT_RECORDING_VERSION}.");
    URL_SAFE_NO_PAD.encode_string(&deflated, &mut out);
    out
}

/// `base#r1....` for a recording, refused with a `limit` error when its payload is over the
/// 1 MiB a link may carry (a larger recording is shared as its file).
pub fn checked_recording_link(s: &SharedRecording, base: &str) -> Result<String> {
    let len = payload_v1(&recording_payload(s)).len();
    if len > MAX_PAYLOAD {
        bail!(
            Limit,
            "the recording is {len} bytes, over the {} MiB a link may carry: share the file instead",
            MAX_PAYLOAD >> 20
        );
    }
    Ok(format!("{base}#{}", encode_recording(s)))
}

/// The v1 payload's fields for a recording: its text where a trace's goes, no backend.
fn recording_payload(s: &SharedRecording) -> SharedTrace {
    SharedTrace {
        trace: s.recording.clone(),
        step: s.step,
        tensor: s.tensor.clone(),
        backend: None,
        view: s.view.clone(),
        shown: Shown::PyTorch,
    }
}

/// Reads a link of either kind back (a full URL, `#...` or the bare fragment): a trace link
/// (`v1.`) or a recording link (`r1.`).
pub fn decode_shared(link_or_fragment: &str) -> Result<Shared> {
    let fragment = match link_or_fragment.split_once('#') {
        Some((_, fragment)) => fragment,
        None => link_or_fragment,
    }
    .trim();
    let Some((digits, data)) = split_tag(fragment, RECORDING_TAG) else {
        return decode_fragment(fragment).map(Shared::Trace);
    };
    match digits.parse::<u32>().ok() {
        Some(1) => {
            let payload = inflate(&unbase64(data, fragment.len() - data.len())?)?;
            let s = parse_payload_v1(&payload)?;
            if s.backend.is_some() {
                bail!(Decode, "recording link sets a backend (a recording has no kernels)");
            }
            Ok(Shared::Recording(SharedRecording { recording: s.trace, step: s.step, tensor: s.tensor, view: s.view }))
        }
        _ => bail!(Decode, "recording link version r{digits} is not supported (this build reads r1)"),
    }
}

/// [`link`], refused with a `limit` error when [`decode`] would refuse the link: a payload over
/// 1 MiB (a trace over the 1 MiB a run accepts always is).
pub fn checked_link(s: &SharedTrace, base: &str) -> Result<String> {
    let len = payload_v1(s).len();
    if len > MAX_PAYLOAD {
        bail!(Limit, "the link's payload would be {len} bytes, over the {} MiB a link may carry", MAX_PAYLOAD >> 20);
    }
    Ok(link(s, base))
}

/// Reads a link back. Accepts a full URL, `#v1....` or `v1....`; surrounding whitespace is
/// ignored, since links are copied out of chats and terminals.
pub fn decode(link_or_fragment: &str) -> Result<SharedTrace> {
    let fragment = match link_or_fragment.split_once('#') {
        Some((_, fragment)) => fragment,
        None => link_or_fragment,
    };
    decode_fragment(fragment.trim())
}

/// Whether a command-line argument is a link rather than a file path.
///
/// A leading `#` or a URL with a fragment is a link even when it is broken, so that the CLI
/// reports why it does not decode instead of looking for a file. A bare `v1....` is a link only
/// when it decodes, because `v1.trace` is as plausible a file name as it is a fragment.
pub fn looks_like_link(arg: &str) -> bool {
    let arg = arg.trim();
    if arg.starts_with('#') {
        return true;
    }
    if let Some((before, _)) = arg.split_once('#') {
        if before.contains("://") {
            return true;
        }
    }
    match split_tag(arg, 'v').or_else(|| split_tag(arg, RECORDING_TAG)) {
        Some((_, data)) if !data.is_empty() && data.bytes().all(is_base64url) => decode_shared(arg).is_ok(),
        _ => false,
    }
}

fn is_base64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// Splits `<letter><digits>.<data>` (`v1.` a trace, `r1.` a recording) into the version text
/// (without the letter) and the data.
fn split_tag(fragment: &str, letter: char) -> Option<(&str, &str)> {
    let (tag, data) = fragment.split_once('.')?;
    let digits = tag.strip_prefix(letter)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((digits, data))
}

fn decode_fragment(fragment: &str) -> Result<SharedTrace> {
    if fragment.is_empty() {
        bail!(Decode, "link is empty");
    }
    let Some((digits, data)) = split_tag(fragment, 'v') else {
        if split_tag(fragment, RECORDING_TAG).is_some() {
            bail!(Decode, "this link holds a recording of a PyTorch run, not a trace: open it in the page or with `stridelab run`");
        }
        bail!(Decode, "not a trace link: expected a fragment like v{CURRENT_VERSION}.<data>");
    };
    // Any digit string is a version; one too large for u32 is just as unsupported.
    let version = digits.parse::<u32>().ok();
    match version {
        Some(1) => {
            // Positions count from the start of the fragment, which is what the user sees.
            let payload = inflate(&unbase64(data, fragment.len() - data.len())?)?;
            parse_payload_v1(&payload)
        }
        _ => bail!(Decode, "link version v{digits} is not supported (this build reads {READABLE_VERSIONS})"),
    }
}

/// `offset` is where `data` starts in the fragment, so that errors point into what was pasted.
fn unbase64(data: &str, offset: usize) -> Result<Vec<u8>> {
    use base64::DecodeError;
    if data.len() > MAX_DATA_CHARS {
        bail!(Decode, "link is longer than the {} MiB limit", MAX_DATA_CHARS >> 20);
    }
    // Checked here rather than left to the decoder so that everything before the reported
    // position is ASCII, and a byte offset is also the character position the user sees.
    if let Some(at) = data.bytes().position(|b| !is_base64url(b)) {
        bail!(Decode, "bad base64 in link at position {}", offset + at);
    }
    match URL_SAFE_NO_PAD.decode(data) {
        Ok(bytes) => Ok(bytes),
        // Set bits after the last whole byte, which encode never writes.
        Err(DecodeError::InvalidLastSymbol(at, _)) => {
            bail!(Decode, "bad base64 in link at position {}", offset + at)
        }
        // Without padding only a length of 4k+1 is impossible: its last character is alone.
        Err(DecodeError::InvalidLength(len)) => {
            bail!(Decode, "bad base64 in link at position {}", offset + len.saturating_sub(1))
        }
        Err(DecodeError::InvalidByte(at, _)) => {
            bail!(Decode, "bad base64 in link at position {}", offset + at)
        }
        Err(DecodeError::InvalidPadding) => bail!(Decode, "bad base64 in link: padding"),
    }
}

/// Raw inflate capped at [`MAX_PAYLOAD`]. This is miniz_oxide's size-limited loop, written out so
/// that data after the end of the deflate stream is refused rather than silently ignored: a link
/// with junk pasted onto its end should fail, not pass for the intact one.
fn inflate(mut input: &[u8]) -> Result<Vec<u8>> {
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let mut out = vec![0u8; input.len().saturating_mul(4).clamp(64, MAX_PAYLOAD)];
    let mut decomp = Box::<DecompressorOxide>::default();
    let mut out_pos = 0;
    loop {
        let (status, consumed, produced) = decompress(&mut decomp, input, &mut out, out_pos, flags);
        out_pos += produced;
        input = input.get(consumed..).unwrap_or_default();
        match status {
            TINFLStatus::Done => {
                if !input.is_empty() {
                    bail!(
                        Decode,
                        "link has stray data after its payload ({} byte{})",
                        input.len(),
                        if input.len() == 1 { "" } else { "s" }
                    );
                }
                out.truncate(out_pos);
                return Ok(out);
            }
            TINFLStatus::HasMoreOutput => {
                if out.len() >= MAX_PAYLOAD {
                    bail!(Decode, "link payload inflates past the {} MiB limit", MAX_PAYLOAD >> 20);
                }
                let grown = out.len().saturating_mul(2).min(MAX_PAYLOAD);
                out.resize(grown, 0);
            }
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
                bail!(Decode, "link payload is truncated")
            }
            _ => bail!(Decode, "link payload is not valid deflate data"),
        }
    }
}

fn payload_v1(s: &SharedTrace) -> Vec<u8> {
    let optional = |field: &Option<String>| field.as_ref().map_or(0, |t| 10 + t.len());
    let mut out =
        Vec::with_capacity(1 + 10 + optional(&s.tensor) + optional(&s.backend) + optional(&s.view) + s.trace.len());
    let mut flags = 0;
    if s.step.is_some() {
        flags |= FLAG_STEP;
    }
    if s.tensor.is_some() {
        flags |= FLAG_TENSOR;
    }
    if s.backend.is_some() {
        flags |= FLAG_BACKEND;
    }
    if s.view.is_some() {
        flags |= FLAG_VIEW;
    }
    if s.shown == Shown::WithTinygrad {
        flags |= FLAG_TINYGRAD;
    }
    out.push(flags);
    if let Some(step) = s.step {
        // usize is at most 64 bits on every target Rust supports.
        put_varint(&mut out, step as u64);
    }
    for text in [&s.tensor, &s.backend, &s.view].into_iter().flatten() {
        put_varint(&mut out, text.len() as u64);
        out.extend_from_slice(text.as_bytes());
    }
    out.extend_from_slice(s.trace.as_bytes());
    out
}

fn parse_payload_v1(payload: &[u8]) -> Result<SharedTrace> {
    let mut r = Reader { rest: payload };
    let flags = r.byte()?;
    if flags & !V1_FLAGS != 0 {
        bail!(Decode, "link payload sets unknown flags {:#04x}", flags & !V1_FLAGS);
    }
    let step = if flags & FLAG_STEP != 0 {
        let step = r.varint()?;
        // A link made on a 64-bit machine may name a step a 32-bit (wasm) build cannot hold.
        match usize::try_from(step) {
            Ok(step) => Some(step),
            Err(_) => bail!(Decode, "link step {step} is too large"),
        }
    } else {
        None
    };
    let tensor = if flags & FLAG_TENSOR != 0 { Some(r.text("tensor name")?) } else { None };
    let backend = if flags & FLAG_BACKEND != 0 { Some(r.text("backend name")?) } else { None };
    let view = if flags & FLAG_VIEW != 0 { Some(r.text("view name")?) } else { None };
    let trace = utf8(r.rest.to_vec(), "trace")?;
    let shown = if flags & FLAG_TINYGRAD != 0 { Shown::WithTinygrad } else { Shown::PyTorch };
    Ok(SharedTrace { trace, step, tensor, backend, view, shown })
}

fn utf8(bytes: Vec<u8>, what: &str) -> Result<String> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(_) => bail!(Decode, "{what} is not UTF-8"),
    }
}

/// LEB128: seven bits a byte, low bits first; the high bit says another byte follows.
fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

struct Reader<'a> {
    rest: &'a [u8],
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8> {
        let Some((&first, rest)) = self.rest.split_first() else {
            bail!(Decode, "link payload is truncated");
        };
        self.rest = rest;
        Ok(first)
    }

    fn varint(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            let bits = u64::from(byte & 0x7f);
            // The tenth byte may only carry the single bit left of a u64.
            if shift == 63 && bits > 1 {
                break;
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        bail!(Decode, "link payload has a number too large for 64 bits")
    }

    fn text(&mut self, what: &str) -> Result<String> {
        let len = self.varint()?;
        let Some(len) = usize::try_from(len).ok().filter(|&len| len <= self.rest.len()) else {
            bail!(Decode, "link payload is truncated");
        };
        let (text, rest) = self.rest.split_at(len);
        self.rest = rest;
        utf8(text.to_vec(), what)
    }
}
