//! The report written to a stream as JSON, its long value lists formatted on every core.
//!
//! A report of real sizes is mostly numbers: a nanoGPT step lists about 90 million floats (PyTorch's
//! values, gradients and the bridge's), and formatting them one by one through serde is most of
//! the time it takes to write. [`write_json`] serializes with serde as always, but a [`Values`]
//! list of at least [`SPLIT_MIN`] elements writes its elements itself: serde has written the
//! `[`, the elements are formatted in parts on scoped threads and written to the same stream in
//! order, and serde writes the `]`. That is sound because `serde_json`'s serializer writes every
//! byte straight to its writer (it buffers nothing), and both write through the one shared
//! stream. The bytes are exactly serde_json's: the same number formatters (zmij, itoa), which
//! a test compares element for element.
//!
//! [`Values`]: super::Values

use crate::uop::buffer::Data;
use serde::Serialize;
use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;

/// Lists shorter than this are serialized element by element, as serde does.
pub const SPLIT_MIN: usize = 1 << 16;

/// Elements per part: one thread formats one part at a time.
const PART: usize = 1 << 17;

type Stream = Rc<RefCell<dyn Write>>;

thread_local! {
    /// The stream [`write_json`] is writing on this thread, while it runs.
    static STREAM: RefCell<Option<Stream>> = const { RefCell::new(None) };
    /// The first error writing elements met (serde only carries it as text).
    static FAILED: RefCell<Option<io::Error>> = const { RefCell::new(None) };
}

/// The writer serde is given: every write goes to the shared stream.
struct Shared(Stream);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

/// Writes `value` as compact JSON to `out` and flushes it; long value lists are formatted in
/// parallel. The bytes are those of `serde_json::to_writer`.
pub fn write_json<W: Write + 'static>(value: &impl Serialize, out: W) -> io::Result<()> {
    let stream: Stream = Rc::new(RefCell::new(out));
    let previous = STREAM.with(|s| s.replace(Some(stream.clone())));
    let written = serde_json::to_writer(Shared(stream.clone()), value).map_err(|e| match e.io_error_kind() {
        Some(kind) => io::Error::new(kind, e.to_string()),
        None => io::Error::other(e.to_string()),
    });
    STREAM.with(|s| s.replace(previous));
    if let Some(e) = FAILED.with(|f| f.take()) {
        return Err(e);
    }
    written?;
    let flushed = stream.borrow_mut().flush();
    flushed
}

/// The stream being written, when a [`write_json`] call runs on this thread.
pub(super) fn current() -> Option<Stream> {
    STREAM.with(|s| s.borrow().clone())
}

/// Writes `d`'s elements, comma-separated, to `out`: the inside of its JSON list. An error is
/// kept for [`write_json`] to return as it was (a closed pipe ends the run quietly).
pub(super) fn write_elements(out: &Stream, d: &Data) -> Result<(), String> {
    write_parts(out, d).map_err(|e| {
        let text = e.to_string();
        FAILED.with(|f| f.borrow_mut().get_or_insert(e).kind());
        text
    })
}

fn write_parts(out: &Stream, d: &Data) -> io::Result<()> {
    let threads = parallelism();
    let n = d.len();
    let mut start = 0;
    while start < n {
        let end = (start + PART * threads).min(n);
        let parts: Vec<(usize, usize)> = (start..end).step_by(PART).map(|a| (a, (a + PART).min(end))).collect();
        let texts: Vec<Vec<u8>> = if parts.len() == 1 {
            vec![format_part(d, parts[0])]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = parts.iter().map(|&r| scope.spawn(move || format_part(d, r))).collect();
                // A formatting thread only pushes bytes into its own vector; it cannot panic
                // but by running out of memory, which aborts anyway.
                handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
            })
        };
        let mut w = out.borrow_mut();
        for text in &texts {
            w.write_all(text)?;
        }
        start = end;
    }
    Ok(())
}

/// How many threads format at once (one where threads cannot be started, as in the page).
fn parallelism() -> usize {
    if cfg!(target_arch = "wasm32") {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// Elements `a..b` of `d` as JSON text, each preceded by a comma but the list's first.
fn format_part(d: &Data, (a, b): (usize, usize)) -> Vec<u8> {
    let mut out = Vec::with_capacity((b - a) * 12);
    match d {
        Data::F32(v) => floats(&mut out, a, v[a..b].iter().copied()),
        Data::F64(v) => floats(&mut out, a, v[a..b].iter().copied()),
        Data::F16(v) => floats(&mut out, a, v[a..b].iter().map(|x| x.to_f32())),
        Data::BF16(v) => floats(&mut out, a, v[a..b].iter().map(|x| x.to_f32())),
        Data::I64(v) => ints(&mut out, a, &v[a..b]),
        Data::I32(v) => ints(&mut out, a, &v[a..b]),
        Data::I16(v) => ints(&mut out, a, &v[a..b]),
        Data::I8(v) => ints(&mut out, a, &v[a..b]),
        Data::U8(v) => ints(&mut out, a, &v[a..b]),
        Data::Bool(v) => {
            for (i, &x) in v[a..b].iter().enumerate() {
                comma(&mut out, a + i);
                out.push(if x { b'1' } else { b'0' });
            }
        }
    }
    out
}

fn comma(out: &mut Vec<u8>, at: usize) {
    if at > 0 {
        out.push(b',');
    }
}

/// A float as the report writes it: the shortest text that reads back as the same value
/// (serde_json's formatter), and "nan" / "inf" / "-inf" as strings, which JSON cannot carry
/// as numbers.
trait JsonFloat: Copy {
    fn put(self, buf: &mut zmij::Buffer, out: &mut Vec<u8>);
}

macro_rules! json_float {
    ($t:ty) => {
        impl JsonFloat for $t {
            fn put(self, buf: &mut zmij::Buffer, out: &mut Vec<u8>) {
                if self.is_finite() {
                    out.extend_from_slice(buf.format_finite(self).as_bytes());
                } else if self.is_nan() {
                    out.extend_from_slice(b"\"nan\"");
                } else if self > 0.0 {
                    out.extend_from_slice(b"\"inf\"");
                } else {
                    out.extend_from_slice(b"\"-inf\"");
                }
            }
        }
    };
}
json_float!(f32);
json_float!(f64);

fn floats<T: JsonFloat>(out: &mut Vec<u8>, a: usize, v: impl Iterator<Item = T>) {
    let mut buf = zmij::Buffer::new();
    for (i, x) in v.enumerate() {
        comma(out, a + i);
        x.put(&mut buf, out);
    }
}

fn ints<T: itoa::Integer + Copy>(out: &mut Vec<u8>, a: usize, v: &[T]) {
    let mut buf = itoa::Buffer::new();
    for (i, &x) in v.iter().enumerate() {
        comma(out, a + i);
        out.extend_from_slice(buf.format(x).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::report::Values;
    use std::sync::{Arc, Mutex};

    /// A `Write` the test can read back after `write_json` has consumed it.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().map_err(|_| io::Error::other("poisoned"))?.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn long_lists_are_written_as_serde_writes_them() {
        let n = 3 * PART + 17;
        let special = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0, 1e-45, f32::MAX, 0.1, -3.5e-7];
        let f32s: Vec<f32> =
            (0..n).map(|i| special.get(i % 97).copied().unwrap_or(i as f32 * 1.37e-3 - 40.0)).collect();
        let f64s: Vec<f64> = (0..SPLIT_MIN).map(|i| (i as f64).sqrt() * -1e300 + f64::from(i as u32 % 3)).collect();
        let halfs: Vec<crate::uop::half::F16> =
            f32s.iter().take(SPLIT_MIN + 3).map(|&x| crate::uop::half::F16::from_f32(x)).collect();
        let ints: Vec<i64> = (0..SPLIT_MIN as i64 * 2).map(|i| i * i64::MAX / 1_000_003 - 7).collect();
        let bools: Vec<bool> = (0..SPLIT_MIN + 1).map(|i| i % 3 == 0).collect();
        let value = (
            "a \u{0} string",
            Values(Data::F32(f32s)),
            [Values(Data::F64(f64s)), Values(Data::F16(halfs))],
            Some(Values(Data::I64(ints))),
            Values(Data::Bool(bools)),
            Values(Data::F32(vec![1.5, f32::NAN])),
        );
        let expected = serde_json::to_vec(&value).expect("serializes");
        let sink = Sink::default();
        write_json(&value, sink.clone()).expect("writes");
        let got = sink.0.lock().expect("not poisoned").clone();
        assert!(got == expected, "the streamed JSON differs from serde_json's");
        // Outside `write_json` the lists are serialized element by element, as before.
        assert!(current().is_none());
    }
}
