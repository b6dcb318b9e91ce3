//! Share links: every trace survives the trip through a link, links stay short enough to paste,
//! and nothing a stranger pastes can make decoding panic or allocate without bound.

// A failed unwrap here is a failed test, which is what it should be.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use proptest::prelude::*;
use stridelab_core::share::{
    checked_recording_link, decode, decode_shared, encode, encode_recording, link, looks_like_link, Shared,
    SharedRecording, SharedTrace, Shown, DEFAULT_BASE,
};
use stridelab_core::Error;

/// The one round-trip check: every accepted spelling of the link decodes back to `s`, and the
/// fragment has the documented shape. Returns the fragment for size checks.
fn assert_round_trip(s: &SharedTrace) -> String {
    let fragment = encode(s);
    let data = fragment.strip_prefix("v1.").unwrap_or_else(|| panic!("untagged: {fragment}"));
    assert!(data.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{data}");
    let full = link(s, DEFAULT_BASE);
    assert_eq!(full, format!("{DEFAULT_BASE}#{fragment}"));
    for spelling in [fragment.clone(), format!("#{fragment}"), full, format!("  {fragment}\n")] {
        assert_eq!(decode(&spelling).as_ref(), Ok(s), "{spelling}");
        assert!(looks_like_link(&spelling), "{spelling}");
    }
    fragment
}

/// The one failure check: decoding `input` fails with exactly `message`, as a decode error.
fn assert_decode_error(input: &str, message: &str) {
    assert_eq!(decode(input), Err(Error::Decode(message.to_string())), "{input:.80}");
}

/// A v1 fragment around raw deflate bytes, to reach the checks behind base64.
fn fragment_of_deflate(deflated: &[u8]) -> String {
    format!("v1.{}", URL_SAFE_NO_PAD.encode(deflated))
}

/// A v1 fragment around a hand-made payload, to reach the payload parser's checks.
fn fragment_of_payload(payload: &[u8]) -> String {
    fragment_of_deflate(&miniz_oxide::deflate::compress_to_vec(payload, 10))
}

fn state(trace: &str, step: Option<usize>, tensor: Option<&str>, backend: Option<&str>) -> SharedTrace {
    SharedTrace {
        trace: trace.to_string(),
        step,
        tensor: tensor.map(str::to_string),
        backend: backend.map(str::to_string),
        view: None,
        shown: Shown::PyTorch,
    }
}

#[test]
fn round_trips() {
    let hundred_lines: String = (0..100).map(|i| format!("t{i} = ones(4, 4)[{i} % 4:]\n")).collect();
    let cases = [
        SharedTrace::default(),
        state("a = ones(4)\na.zero_()", None, None, None),
        state("a = ones(4)\nb = a.view((2, 2))", Some(1), Some("b"), Some("tinygrad")),
        state("", Some(0), Some(""), Some("")),
        state("x = 1", Some(usize::MAX), None, Some("torch")),
        state("x = 1", Some(127), Some("x"), None),
        state("x = 1", Some(128), None, None),
        state("# a comment with a # and é, 張量 and 🙂\n\n\tb = 2  \r\n", None, Some("張量"), None),
        state(&hundred_lines, Some(99), Some("t99"), Some("wgpu")),
        state(&"\0".repeat(5000), None, None, None),
        SharedTrace { shown: Shown::WithTinygrad, ..state("a = ones(4)", Some(1), Some("a"), None) },
    ];
    for case in &cases {
        assert_round_trip(case);
    }
}

/// The tinygrad-and-bridge choice is one flag bit with no field: a link without it (every link
/// written before it existed) opens on PyTorch alone.
#[test]
fn the_tinygrad_choice_is_a_flag_bit() {
    let off = state("a = ones(4)", None, None, None);
    let on = SharedTrace { shown: Shown::WithTinygrad, ..off.clone() };
    assert_eq!(decode(&encode(&off)).unwrap().shown, Shown::PyTorch);
    assert_eq!(decode(&encode(&on)).unwrap().shown, Shown::WithTinygrad);
    let payload = |s: &SharedTrace| {
        let data = URL_SAFE_NO_PAD.decode(encode(s).trim_start_matches("v1.")).unwrap();
        miniz_oxide::inflate::decompress_to_vec(&data).unwrap()
    };
    assert_eq!(payload(&on)[0], payload(&off)[0] | (1 << 4));
    assert_eq!(payload(&on)[1..], payload(&off)[1..]);
}

#[test]
fn decode_errors() {
    let valid = encode(&state("a = ones(4)\na.zero_()", Some(1), Some("a"), None));
    let data = valid.trim_start_matches("v1.");
    let deflated = URL_SAFE_NO_PAD.decode(data).unwrap();
    let mut stray = deflated.clone();
    stray.push(0);
    let ten_continuations = [0x80u8; 10];
    let too_big = [&[1u8][..], &[0xff; 9], &[0x02]].concat();
    let cases: Vec<(String, &str)> = vec![
        ("".into(), "link is empty"),
        (" # ".into(), "link is empty"),
        ("trace.txt".into(), "not a trace link: expected a fragment like v1.<data>"),
        ("v.AAAA".into(), "not a trace link: expected a fragment like v1.<data>"),
        ("v9.AAAA".into(), "link version v9 is not supported (this build reads v1)"),
        (
            "http://x/#v99999999999999999999.AA".into(),
            "link version v99999999999999999999 is not supported (this build reads v1)",
        ),
        ("v1.ab$d".into(), "bad base64 in link at position 5"),
        ("#v1.abé$".into(), "bad base64 in link at position 5"),
        ("v1.ab\u{1F642}".into(), "bad base64 in link at position 5"),
        ("v1.abc=".into(), "bad base64 in link at position 6"),
        ("v1.A".into(), "bad base64 in link at position 3"),
        // 'B' leaves a set bit after the last whole byte, which encode never writes.
        ("v1.AB".into(), "bad base64 in link at position 4"),
        (format!("v1.{}", "A".repeat((2 << 20) + 4)), "link is longer than the 2 MiB limit"),
        (fragment_of_deflate(&deflated[..deflated.len() - 3]), "link payload is truncated"),
        (fragment_of_deflate(&[]), "link payload is truncated"),
        (fragment_of_deflate(&[0xff, 0xff]), "link payload is not valid deflate data"),
        (fragment_of_deflate(&stray), "link has stray data after its payload (1 byte)"),
        (fragment_of_payload(&[]), "link payload is truncated"),
        (fragment_of_payload(&[0x20]), "link payload sets unknown flags 0x20"),
        (fragment_of_payload(&[0x01, 0x80]), "link payload is truncated"),
        (
            fragment_of_payload(&[&[1u8][..], &ten_continuations].concat()),
            "link payload has a number too large for 64 bits",
        ),
        (fragment_of_payload(&too_big), "link payload has a number too large for 64 bits"),
        (fragment_of_payload(&[0x02, 5, b'a']), "link payload is truncated"),
        (fragment_of_payload(&[0x02, 1, 0xff]), "tensor name is not UTF-8"),
        (fragment_of_payload(&[0x04, 2, 0xc3, 0x28]), "backend name is not UTF-8"),
        (fragment_of_payload(&[0x00, b'a', 0xff]), "trace is not UTF-8"),
    ];
    for (input, message) in &cases {
        assert_decode_error(input, message);
    }
}

/// 100 MiB of zeros as one fixed-Huffman deflate block: a literal zero, then copies of 258 bytes
/// from distance 1. Built by hand because deflating 100 MiB takes seconds in a debug build.
fn zeros_bomb(len: usize) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        n: u32,
    }
    impl Bits {
        // Deflate packs fields from the low bit; Huffman codes go most significant bit first.
        fn push(&mut self, value: u64, n: u32) {
            self.acc |= value << self.n;
            self.n += n;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
        }
        fn code(&mut self, code: u64, n: u32) {
            let reversed = (0..n).fold(0, |r, i| r | ((code >> i) & 1) << (n - 1 - i));
            self.push(reversed, n);
        }
    }
    let mut bits = Bits { out: Vec::new(), acc: 0, n: 0 };
    bits.push(1, 1); // last block
    bits.push(1, 2); // fixed Huffman codes
    bits.code(0b0011_0000, 8); // literal 0
    let mut written = 1;
    while written + 258 <= len {
        bits.code(0b1100_0101, 8); // length symbol 285: 258 bytes
        bits.code(0, 5); // distance symbol 0: distance 1
        written += 258;
    }
    for _ in written..len {
        bits.code(0b0011_0000, 8);
    }
    bits.code(0, 7); // end of block
    bits.push(0, 7);
    bits.out
}

#[test]
fn deflate_bomb_is_refused_quickly() {
    let bomb = zeros_bomb(100 << 20);
    // The bomb is genuine: an inflater allowed 4 MiB fills it with zeros and still wants more.
    let err = miniz_oxide::inflate::decompress_to_vec_with_limit(&bomb, 4 << 20).unwrap_err();
    assert_eq!(err.status, miniz_oxide::inflate::TINFLStatus::HasMoreOutput);
    assert_eq!(err.output.len(), 4 << 20);
    assert!(err.output.iter().all(|&b| b == 0));
    // And a small one built the same way is a valid payload, so the limit is what refuses it.
    let small = fragment_of_deflate(&zeros_bomb(1000));
    assert_eq!(decode(&small).map(|s| s.trace.len()), Ok(999));

    let started = Instant::now();
    assert_decode_error(&fragment_of_deflate(&bomb), "link payload inflates past the 1 MiB limit");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "took {took:?}");
}

/// Where the shared acceptance cases live: beside the checkout, or named by the environment.
fn acceptance_file() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("STRIDELAB_ACCEPTANCE_DIR") {
        return Some(PathBuf::from(dir).join("torch_public.json"));
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|dir| dir.join("shared/acceptance/torch_public.json"))
        .find(|path| path.is_file())
}

#[test]
fn hand_cases_fit_in_a_short_link() {
    // Always measured: traces shaped like the hand cases, so the bound holds without the file.
    let mut sources: Vec<(String, String)> = [
        "a = ones(4)\na.zero_()",
        "a = arange(12).view(3, 4)\nb = a.t()\nb.contiguous().view(12)",
        "x = ones(2, 3)\ny = x.expand(4, 2, 3)\ny.add_(1)",
        "a = arange(16).view(4, 4)\nb = a[1:3, ::2]\nc = b.transpose(0, 1)\nc.mul_(2)\nd = a.view(2, 8)",
    ]
    .iter()
    .enumerate()
    .map(|(i, src)| (format!("inline/{i}"), src.to_string()))
    .collect();
    match acceptance_file() {
        Some(path) => {
            let text = std::fs::read_to_string(&path).unwrap();
            let json: serde_json::Value = serde_json::from_str(&text).unwrap();
            let before = sources.len();
            for case in json["cases"].as_array().unwrap() {
                let name = case["name"].as_str().unwrap();
                if name.starts_with("hand/") {
                    sources.push((name.to_string(), case["source"].as_str().unwrap().to_string()));
                }
            }
            assert!(sources.len() > before, "no hand/ cases in {}", path.display());
        }
        None => eprintln!("shared/acceptance/torch_public.json not found; inline cases only"),
    }
    for (name, source) in &sources {
        let s = state(source, Some(source.lines().count().saturating_sub(1)), Some("a"), None);
        let fragment = assert_round_trip(&s);
        assert!(fragment.len() <= 200, "{name}: {} chars: {fragment}", fragment.len());
    }
}

#[test]
fn what_counts_as_a_link() {
    let valid = encode(&state("a = ones(4)", None, None, None));
    let cases = [
        (valid.clone(), true),
        (format!("#{valid}"), true),
        (format!("https://example.org/play/#{valid}"), true),
        // Broken links are still links, so the CLI says why they do not decode.
        ("#v9.junk".to_string(), true),
        ("http://127.0.0.1:8080/#nonsense".to_string(), true),
        // A bare tag that does not decode is as likely a file name.
        ("v1.trace".to_string(), false),
        ("v2.AAAA".to_string(), false),
        ("trace.txt".to_string(), false),
        ("traces/v1.txt".to_string(), false),
        (format!("dir/{valid}"), false),
        ("file:///tmp/a.trace".to_string(), false),
        ("".to_string(), false),
    ];
    for (arg, expected) in &cases {
        assert_eq!(looks_like_link(arg), *expected, "{arg}");
    }
}

/// A recording travels under its own tag with the viewer's state, and neither kind of link is
/// ever read as the other.
#[test]
fn recording_links() {
    let rec = SharedRecording {
        recording: r#"{"version": 1, "recorded": {"recorder": "0.1.0", "torch": "2.5"}, "tensors": {}}"#.to_string(),
        step: Some(3),
        tensor: Some("b".to_string()),
        view: Some("inspect".to_string()),
    };
    let fragment = encode_recording(&rec);
    assert!(fragment.starts_with("r1."), "{fragment}");
    let full = checked_recording_link(&rec, DEFAULT_BASE).unwrap();
    assert_eq!(full, format!("{DEFAULT_BASE}#{fragment}"));
    for spelling in [fragment.clone(), format!("#{fragment}"), full] {
        assert_eq!(decode_shared(&spelling), Ok(Shared::Recording(rec.clone())), "{spelling}");
        assert!(looks_like_link(&spelling), "{spelling}");
    }
    assert_decode_error(
        &fragment,
        "this link holds a recording of a PyTorch run, not a trace: open it in the page or with `stridelab run`",
    );
    let trace = state("a = ones(4)", Some(1), None, None);
    assert_eq!(decode_shared(&encode(&trace)), Ok(Shared::Trace(trace)));
    assert_eq!(
        decode_shared("r2.AAAA"),
        Err(Error::Decode("recording link version r2 is not supported (this build reads r1)".to_string()))
    );
    let big = SharedRecording { recording: "x".repeat((1 << 20) + 1), ..SharedRecording::default() };
    assert!(matches!(checked_recording_link(&big, DEFAULT_BASE), Err(Error::Limit(_))));
}

fn any_state() -> impl Strategy<Value = SharedTrace> {
    (any::<String>(), any::<Option<usize>>(), any::<Option<String>>(), any::<Option<String>>(), any::<Option<String>>())
        .prop_map(|(trace, step, tensor, backend, view)| SharedTrace {
            trace,
            step,
            tensor,
            backend,
            view,
            shown: Shown::PyTorch,
        })
}

/// Whatever decodes must be a state that round-trips; whatever does not is a decode error.
fn assert_decodes_sanely(input: &str) {
    let _ = looks_like_link(input);
    match decode(input) {
        Ok(s) => assert_eq!(decode(&encode(&s)), Ok(s)),
        Err(e) => assert_eq!(e.kind(), "decode", "{e}"),
    }
}

proptest! {
    #[test]
    fn any_state_round_trips(s in any_state()) {
        assert_round_trip(&s);
    }

    #[test]
    fn random_strings_never_panic(text in any::<String>(), tagged in "v[0-9]{1,3}\\.[A-Za-z0-9_-]{0,64}") {
        assert_decodes_sanely(&text);
        assert_decodes_sanely(&format!("v1.{text}"));
        assert_decodes_sanely(&format!("#{tagged}"));
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        assert_decodes_sanely(&fragment_of_deflate(&bytes));
        assert_decodes_sanely(&fragment_of_payload(&bytes));
    }

    #[test]
    fn mangled_links_never_panic(
        s in any_state(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<char>()), 0..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let fragment = encode(&s);
        let mut chars: Vec<char> = fragment.chars().collect();
        for (at, c) in &edits {
            let i = at.index(chars.len());
            chars[i] = *c;
        }
        let mangled: String = chars.iter().collect();
        assert_decodes_sanely(&mangled);
        let truncated: String = fragment.chars().take(cut.index(fragment.len() + 1)).collect();
        assert_decodes_sanely(&truncated);
        // Flipping bits inside the deflate data reaches deeper than swapping characters.
        let mut deflated = URL_SAFE_NO_PAD.decode(&fragment[3..]).unwrap();
        for (at, c) in &edits {
            let i = at.index(deflated.len());
            deflated[i] ^= *c as u8;
        }
        assert_decodes_sanely(&fragment_of_deflate(&deflated));
    }
}
