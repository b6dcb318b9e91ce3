//! The adapter's behaviour, checked natively: stepping, cell flags, view chains, share links and
//! that every lesson still ends the way its sentence says.

use super::session::{Session, CELL_OVERLAP, CELL_REPEATED, CELL_SELECTED, CELL_WRITTEN};
use super::*;

/// One stepping case: after `step` statements, `tensor` has these PyTorch strides and offset, and
/// its storage's flag bits equal `flags` (one per cell, in order).
struct StepCase {
    trace: &'static str,
    step: usize,
    tensor: &'static str,
    strides: &'static [i64],
    offset: i64,
    flags: &'static [u8],
    error: Option<&'static str>,
}

const S: u8 = CELL_SELECTED;
const W: u8 = CELL_WRITTEN;
const R: u8 = CELL_REPEATED;
const O: u8 = CELL_OVERLAP;

fn check_step(c: &StepCase) {
    let mut s = Session::new(c.trace);
    s.goto(c.step);
    let state = s.state();
    assert_eq!(state["at"], json!(c.step), "{}", c.trace);
    let t = &state["tensors"][c.tensor];
    assert_eq!(t["torch"]["strides"], json!(c.strides), "{} @{}: {t}", c.trace, c.step);
    assert_eq!(t["torch"]["storage_offset"], json!(c.offset), "{} @{}", c.trace, c.step);
    assert_eq!(s.flags(c.tensor), c.flags, "{} @{}", c.trace, c.step);
    assert_eq!(state["error"]["kind"].as_str(), c.error, "{} @{}", c.trace, c.step);
    // The inline storage values are the storage the flags describe.
    let sid = t["torch"]["storage"].as_u64().unwrap_or(u64::MAX).to_string();
    assert_eq!(state["storages"][&sid]["len"], json!(c.flags.len()));
}

#[test]
fn stepping() {
    let writes = "a = zeros(3, 4)\nrow = a[1]\nrow.fill_(1.)\ncol = a[:, 2]\ncol += 5\n";
    let cases = [
        StepCase {
            trace: writes,
            step: 2,
            tensor: "row",
            strides: &[1],
            offset: 4,
            flags: &[0, 0, 0, 0, S, S, S, S, 0, 0, 0, 0],
            error: None,
        },
        StepCase {
            trace: writes,
            step: 3,
            tensor: "row",
            strides: &[1],
            offset: 4,
            flags: &[0, 0, 0, 0, S | W, S | W, S | W, S | W, 0, 0, 0, 0],
            error: None,
        },
        // Step 4 defines col and writes nothing.
        StepCase {
            trace: writes,
            step: 4,
            tensor: "col",
            strides: &[4],
            offset: 2,
            flags: &[0, 0, S, 0, 0, 0, S, 0, 0, 0, S, 0],
            error: None,
        },
        StepCase {
            trace: writes,
            step: 5,
            tensor: "a",
            strides: &[4, 1],
            offset: 0,
            flags: &[S, S, S | W, S, S, S, S | W, S, S, S, S | W, S],
            error: None,
        },
        StepCase {
            trace: "a = arange(3.).reshape(3, 1)\ne = a.expand(3, 2)\ne.add_(1)\n",
            step: 3,
            tensor: "e",
            strides: &[1, 0],
            offset: 0,
            flags: &[S | R | O, S | R | O, S | R | O],
            error: Some("overlap"),
        },
        StepCase {
            trace: "a = arange(3.).reshape(3, 1)\ne = a.expand(3, 2)\ne.add_(1)\n",
            step: 2,
            tensor: "e",
            strides: &[1, 0],
            offset: 0,
            flags: &[S | R, S | R, S | R],
            error: None,
        },
    ];
    for c in &cases {
        check_step(c);
    }
}

/// (trace, step, tensor, expected rows as (op, strides, storage_offset, is_view)).
type ChainCase = (&'static str, usize, &'static str, &'static [(&'static str, &'static [i64], i64, bool)]);

#[test]
fn view_chains() {
    let cases: &[ChainCase] = &[
        (
            "a = arange(12.).reshape(3, 4)\nb = a.t()[1:]\n",
            2,
            "b",
            &[
                ("arange(12.)", &[1], 0, false),
                (".reshape(3, 4)", &[4, 1], 0, true),
                (".t()", &[1, 4], 0, true),
                ("[1:]", &[1, 4], 1, true),
            ],
        ),
        ("a = arange(6.)\nf = a.flip(0)\n", 2, "f", &[("arange(6.)", &[1], 0, false), (".flip(0)", &[1], 0, false)]),
        // A name bound by unpacking ends with the pick of its output.
        (
            "x = arange(24.).reshape(2, 12)\nq, k, v = x.chunk(3, dim=-1)\n",
            2,
            "k",
            &[("arange(24.)", &[1], 0, false), (".reshape(2, 12)", &[12, 1], 0, true), ("[1]", &[12, 1], 4, true)],
        ),
        // Before `b` is defined there is no chain.
        ("a = arange(6.)\nb = a[2:]\n", 1, "b", &[]),
    ];
    for (trace, step, name, rows) in cases {
        let mut s = Session::new(trace);
        s.goto(*step);
        let chain = s.chain(name);
        let got: Vec<(String, Json, Json, Json)> = chain
            .as_array()
            .map(|rows| {
                rows.iter()
                    .map(|r| {
                        let t = &r["tensor"]["torch"];
                        (
                            r["op"].as_str().unwrap_or("").to_string(),
                            t["strides"].clone(),
                            t["storage_offset"].clone(),
                            t["is_view"].clone(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let want: Vec<(String, Json, Json, Json)> =
            rows.iter().map(|(op, st, off, v)| (op.to_string(), json!(st), json!(off), json!(v))).collect();
        assert_eq!(got, want, "{trace}");
    }
}

#[test]
fn chunked_lesson_shows_output_and_write() {
    let l = lessons::LESSONS.iter().find(|l| l.id == "chunk-qkv").expect("the chunk lesson");
    let mut s = Session::new(l.trace);
    s.goto(s.step_count());
    let chain = s.chain("q");
    let last = chain.as_array().and_then(|r| r.last()).cloned().unwrap_or_default();
    assert_eq!(
        last["tensor"]["torch"]["output_of"],
        json!({"op": "chunk", "index": 0, "count": 3, "multi_output_node": "SplitBackward0"})
    );
    let out = s.outline();
    let storage = &out["tensors"]["x"]["torch"]["storage"];
    for (name, offset) in [("q", 0), ("k", 4), ("v", 8)] {
        let t = &out["tensors"][name]["torch"];
        assert_eq!((&t["storage"], &t["strides"], &t["storage_offset"]), (storage, &json!([12, 1]), &json!(offset)));
    }
    let step = &s.state()["step"];
    assert_eq!(step["writes"]["elements"], json!([0, 1, 2, 3, 12, 13, 14, 15]), "{step}");
    assert_eq!(step["tensors_changed"], json!(["x", "q"]), "{step}");
}

#[test]
fn dtype_view_lesson_shows_one_storage_two_dtypes() {
    let l = lessons::LESSONS.iter().find(|l| l.id == "dtype-view").expect("the dtype-view lesson");
    let mut s = Session::new(l.trace);
    s.goto(s.step_count());
    let out = s.outline().clone();
    let (x, i, u) = (&out["tensors"]["x"], &out["tensors"]["i"], &out["tensors"]["u"]);
    assert_eq!(x["torch"]["storage"], i["torch"]["storage"]);
    assert_eq!(x["torch"]["storage"], u["torch"]["storage"]);
    assert_eq!((&i["dtype"], &u["dtype"], &u["shape"]), (&json!("int32"), &json!("uint8"), &json!([12])));
    // i += 1 moved every float by one unit in the last place: 1.0 became 1 + 2^-23.
    let x0 = s.state()["step"].clone();
    assert_eq!(x0["tensors_changed"], json!(["x", "i", "u"]), "{x0}");
    assert_eq!(x["values"][0], json!(1.0000001_f32), "{x}");
    assert_eq!(i["values"][0], json!(1_065_353_217), "{i}");
}

#[test]
fn share_round_trips_and_rejects() {
    let cases: &[(&str, Option<usize>, Option<&str>)] =
        &[("a = arange(4.)\n", Some(1), Some("a")), ("x = ones(2)  # <img src=x onerror=alert(1)>\n", None, None)];
    for (trace, step, tensor) in cases {
        let fragment = share_encode(trace, *step, tensor.map(str::to_string), None, None, None);
        let back = decode_json(&format!("http://127.0.0.1:8080/#{fragment}"));
        assert_eq!(back["trace"], json!(trace));
        assert_eq!(back["step"], json!(step));
        assert_eq!(back["tensor"], json!(tensor));
        assert_eq!(back["shown"], json!("pytorch"));
        let fragment = share_encode(trace, *step, None, None, None, Some("tinygrad".into()));
        assert_eq!(decode_json(&fragment)["shown"], json!("tinygrad"));
    }
    for junk in ["#v1.!!!", "#v9.AAAA", "#"] {
        assert!(decode_json(junk)["error"].is_string(), "{junk}");
    }
}

#[test]
fn lessons_end_as_they_claim() {
    for l in lessons::LESSONS {
        let s = Session::new(l.trace);
        let out = s.outline();
        assert_eq!(out["error"]["kind"].as_str(), l.error(), "lesson {}: {}", l.id, out["error"]);
        assert!(s.step_count() > 1, "lesson {}", l.id);
        assert!(!l.claims.is_empty(), "lesson {} claims nothing the tests can check", l.id);
        assert_eq!(l.verify(), Vec::<String>::new(), "lesson {}: {}", l.id, l.explain);
        // Narration is shown at the step of its line: each line must be a statement that runs.
        let lines: Vec<&Json> = out["steps"].as_array().into_iter().flatten().map(|s| &s["line"]).collect();
        assert!(!l.narration.is_empty(), "lesson {} has no narration", l.id);
        for (line, _) in l.narration {
            assert!(lines.contains(&&json!(line)), "lesson {}: no statement runs on line {line}", l.id);
        }
    }
    let gallery = lessons_json();
    for (l, j) in lessons::LESSONS.iter().zip(gallery.as_array().into_iter().flatten()) {
        let fragment = j["fragment"].as_str().unwrap_or("");
        assert_eq!(decode_json(fragment)["trace"], json!(l.trace));
    }
}

#[test]
fn channels_last_lesson_shows_what_it_says() {
    let Some(l) = lessons::LESSONS.iter().find(|l| l.id == "channels-last") else { panic!("no channels-last lesson") };
    let session = Session::new(l.trace);
    let out = session.outline();
    for (name, format, strides) in [
        ("cl", "channels_last", json!([24, 1, 12, 3])),
        ("a", "channels_last", json!([24, 1, 12, 3])),
        ("b", "channels_last", json!([24, 1, 12, 3])),
        ("c", "contiguous", json!([24, 8, 4, 1])),
    ] {
        assert_eq!(out["tensors"][name]["torch"]["memory_format"], json!(format), "{name}");
        assert_eq!(out["tensors"][name]["torch"]["strides"], strides, "{name}");
    }
}

#[test]
fn forward_steps_match_replay() {
    let traces = [
        "a = zeros(3, 4)\nrow = a[1]\nrow.fill_(1.)\ncol = a[:, 2]\ncol += 5\nb = a.t().clone()\n",
        "a = arange(3.).reshape(3, 1)\ne = a.expand(3, 2)\ne.add_(1)\n",
    ];
    for trace in traces {
        let mut stepping = Session::new(trace);
        stepping.goto(0);
        for k in 1..=stepping.step_count() {
            stepping.goto(k);
            // A fresh session stands at the end, so going to k < end replays the prefix.
            let mut replay = Session::new(trace);
            replay.goto(k);
            assert_eq!(stepping.state(), replay.state(), "{trace} @{k}");
        }
    }
}

/// The advanced-indexing lesson: the read is a storage of its own, both writes land in x.
#[test]
fn advanced_index_lesson_reads_copy_and_writes_through() {
    let l = lessons::LESSONS.iter().find(|l| l.id == "advanced-index").expect("the advanced-index lesson");
    let mut s = Session::new(l.trace);
    let out = s.state();
    let x = &out["tensors"]["x"];
    let y = &out["tensors"]["y"];
    assert_ne!(x["torch"]["storage"], y["torch"]["storage"], "y = x[idx] is a copy");
    assert_eq!(x["values"], serde_json::json!([0.0, -1.0, 2.0, -1.0, 0.0, 5.0, 0.0, 7.0]));
    assert_eq!(y["values"], serde_json::json!([101.0, 103.0]));
    assert_eq!(out["tensors"]["v"]["torch"]["storage"], x["torch"]["storage"]);
}

/// The loop lesson: steps are executed statements, each knowing its iteration and its output.
#[test]
fn loop_lesson_steps_each_iteration() {
    let l = lessons::LESSONS.iter().find(|l| l.id == "loop-views").expect("the loop lesson");
    let mut s = Session::new(l.trace);
    // x; then per row: the for binding, the write, the print; then the final for test.
    assert_eq!(s.step_count(), 1 + 3 * 3 + 1);
    s.goto(7);
    let out = s.state();
    assert_eq!(out["step"]["iterations"], serde_json::json!([[2, 2]]));
    assert_eq!(out["step"]["output"], "after row 1: x._version = 4\n");
    assert_eq!(
        out["tensors"]["x"]["values"],
        serde_json::json!([1.0, 1.0, 1.0, 1.0, 0.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0])
    );
    // Back and forth lands on the same state.
    s.goto(2);
    s.goto(7);
    assert_eq!(s.state()["tensors"]["x"], out["tensors"]["x"]);
}

/// The saved-version lesson: the write's step says a saved tensor is stale, before backward.
#[test]
fn saved_version_lesson_predicts_the_backward_error() {
    let l = lessons::LESSONS.iter().find(|l| l.id == "saved-version").expect("the saved-version lesson");
    let mut s = Session::new(l.trace);
    s.goto(3);
    let out = s.state();
    let stale = out["step"]["stale"].as_array().cloned().unwrap_or_default();
    assert_eq!(stale.len(), 1, "{}", out["step"]);
    assert!(stale[0].as_str().unwrap_or("").contains("SigmoidBackward0"), "{stale:?}");
    s.goto(4);
    let out = s.state();
    assert_eq!(out["error"]["kind"], "autograd");
    assert!(out["error"]["message"].as_str().unwrap_or("").contains("is at version 1; expected version 0"));
    assert_eq!(out["tensors"]["y"]["autograd"]["grad_fn"], "MulBackward0");
}

#[test]
fn a_lesson_whose_text_contradicts_the_report_fails() {
    // The bridge lesson as it once read: "for a transpose or select it disagrees".
    let l = lessons::Lesson {
        id: "wrong",
        title: "",
        explain: "",
        trace: "a = arange(12.).reshape(3, 4)\ns = a[1]\nc = a.flip(0)\nc += 1\n",
        claims: &[
            lessons::Claim::BridgeLayout("s", lessons::Bridge::Differs),
            lessons::Claim::Shares("c", "a"),
            lessons::Claim::SeenBy(4, &["a", "c"]),
            lessons::Claim::Fails(4, "overlap"),
        ],
        narration: &[],
        tensor: "s",
    };
    let wrong = l.verify();
    assert_eq!(wrong.len(), 4, "{wrong:?}");
    assert!(wrong[0].contains("agree with PyTorch's"), "{wrong:?}");
    assert!(wrong[2].contains("[\"c\"]"), "{wrong:?}");
}

#[test]
fn a_write_step_shows_the_bridge_write_plan() {
    let l = lessons::LESSONS.iter().find(|l| l.id == "bridge-reshape-write").expect("the lesson");
    let mut s = Session::new(l.trace);
    s.goto(3);
    let state = s.state();
    let b = &state["step"]["bridge"];
    // b = a.t().reshape(12) is a view of a in the bridge: a write through it scatters into a at
    // the transposed positions.
    assert_eq!(b["write"]["path"], "scatter", "{b}");
    assert_eq!(b["write"]["positions"], json!([0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]), "{b}");
    assert_eq!(b["write"]["through_mirror"], true, "{b}");
    assert_eq!((&b["extra"], &b["missed"], &b["diverges"]), (&json!(["a"]), &json!([]), &json!(true)), "{b}");
    assert_eq!(state["tensors"]["a"]["bridge"]["diverges"], true);
    assert_eq!(state["bridge"]["tensors"]["a"]["values"][0], 100.0);
    // b's values agree, so the page's state leaves them out.
    assert!(state["bridge"]["tensors"]["b"]["values"].is_null());
    assert_eq!(s.bridge_divergences(), vec![3]);
    // A write the bridge makes the way PyTorch does: the same cells, assigned whole.
    let mut s = Session::new("a = zeros(4)\na += 1\n");
    s.goto(2);
    let b = s.state()["step"]["bridge"].clone();
    assert_eq!(
        (&b["write"]["path"], &b["write"]["positions"], &b["diverges"]),
        (&json!("assign"), &Json::Null, &json!(false)),
        "{b}"
    );
    assert!(s.bridge_divergences().is_empty());
}

/// A large trace's step and cells reach the page cut, with the true lengths beside them: values
/// and written cells to `PAGE_VALUES` (what the panels show), the selected tensor's cells to
/// `PAGE_LIST`. The message stays small however large the tensors.
#[test]
fn large_tensors_reach_the_page_cut_with_their_totals() {
    use super::session::{PAGE_LIST, PAGE_VALUES};
    let mut s = Session::new("a = zeros(1024, 1024)\nb = a[::2, 1::2]\nb += 1\n");
    let state = s.state();
    let a = &state["tensors"]["a"];
    assert_eq!(a["values"].as_array().map(Vec::len), Some(PAGE_VALUES), "{}", a["values_total"]);
    assert_eq!(a["values_total"], json!(1 << 20));
    let writes = &state["step"]["writes"];
    assert_eq!(writes["elements"].as_array().map(Vec::len), Some(PAGE_VALUES));
    assert_eq!(writes["elements_total"], json!(1 << 18));
    let cells = s.tensor_cells("b");
    assert_eq!(cells["cells"].as_array().map(Vec::len), Some(PAGE_LIST));
    assert_eq!(cells["cells_total"], json!(1 << 18));
    // b[0, 0] is a's cell 1; the first row of b steps by 2.
    assert_eq!(cells["cells"][0], json!(1));
    assert_eq!(cells["cells"][1], json!(3));
    // The flags still cover every cell of the storage: the map is drawn from them.
    assert_eq!(s.flags("b").len(), 1 << 20);
    assert!(state.to_string().len() < 1 << 20, "{} bytes", state.to_string().len());
}

/// Lists at or under the limit travel whole, with no `_total`.
#[test]
fn small_tensors_reach_the_page_whole() {
    let mut s = Session::new("a = arange(12.).reshape(3, 4)\n");
    let state = s.state();
    assert_eq!(state["tensors"]["a"]["values"].as_array().map(Vec::len), Some(12));
    assert!(state["tensors"]["a"].get("values_total").is_none());
}

/// The page's run computes nothing larger than it may keep: an intermediate the interpreter
/// would hold (a broadcast read through a transpose, never stored) is held to the page's
/// 64 MiB per storage, so no trace within the page's limits takes the tab past its memory.
/// The command-line tool's run computes the same trace (its limit is 2^26 elements).
#[test]
fn the_page_holds_intermediates_to_its_storage_limit() {
    let src = "a = zeros(4096, 1)\nb = zeros(1, 8192)\nc = (a + b).t().sum()\n";
    let mut s = Session::new(src);
    let state = s.state();
    assert_eq!(state["error"]["kind"], "limit", "{}", state["error"]);
    assert_eq!(state["error"]["line"], 3, "{}", state["error"]);
    let message = state["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("would hold 128.0 MiB, past the limit of 64.0 MiB per value in the page"), "{message}");
    let cli = stridelab_core::trace::interp::runner::Run::new().run_text(src);
    assert!(cli.error.is_none(), "{:?}", cli.error);
    // At the page's limit itself the same trace runs.
    let mut s = Session::new("a = zeros(4096, 1)\nb = zeros(1, 4096)\nc = (a + b).t().sum()\n");
    assert!(s.state()["error"].is_null(), "{}", s.state()["error"]);
}

/// A recording of a real PyTorch run (tests/browser/recording/alias.py, recorded by
/// `python -m stridelab_record`) steps as a trace does: each step's tensors, the storage its
/// records cover, the step's writes and observers, and the autograd graph going stale at the
/// write that makes it so.
#[test]
fn a_recording_steps_through_what_pytorch_recorded() {
    use super::recording::RecordingSession;
    let rec = include_str!("../../../tests/browser/recording/alias.json");
    let mut s = RecordingSession::new(rec).unwrap();
    assert_eq!(s.step_count(), 8);
    assert_eq!(s.at(), 8);
    // The script as written: its comments and lines no step ran are there too.
    let source = s.source();
    assert_eq!(source.lines().nth(8), Some("b[0] += 10"), "{source}");
    assert!(source.starts_with("# A short PyTorch program"), "{source}");
    s.goto(4);
    let st = s.state();
    assert_eq!(st["step"]["source"], json!("b[0] += 10"));
    assert_eq!(st["step"]["tensors_changed"], json!(["a", "b"]));
    assert_eq!(st["tensors"]["b"]["torch"]["strides"], json!([1, 3]));
    assert_eq!(st["tensors"]["b"]["predicted"], json!(true));
    assert_eq!(st["storages"]["0"]["values"], json!([10.0, 1.0, 2.0, 13.0, 4.0, 5.0]));
    assert_eq!(st["error"], Json::Null);
    assert_eq!(s.flags("b"), [S | W, S, S, S | W, S, S]);
    assert_eq!(s.tensor_cells("b")["cells"], json!([0, 3, 1, 4, 2, 5]));
    assert_eq!(s.chain("b")[0]["op"], json!("line 8: b = a.t()"));
    assert_eq!(s.cell(0, 3), json!(13.0));
    // Before the in-place write, every saved tensor is at the version it was saved at.
    s.goto(6);
    let st = s.state();
    let graph = st["autograd_graph"].as_array().unwrap();
    assert_eq!(graph.len(), 2, "{graph:?}");
    assert!(graph.iter().all(|n| n["saved"].as_array().unwrap().iter().all(|x| x["stale"] == false)));
    // The write makes SigmoidBackward0's saved result stale, and the step says so.
    s.goto(7);
    let st = s.state();
    assert!(st["step"]["stale"][0].as_str().unwrap().contains("SigmoidBackward0"), "{}", st["step"]);
    assert_eq!(s.flags("y"), [S | W; 6]);
    // The last step is PyTorch's error, at its line.
    s.goto(8);
    let st = s.state();
    assert_eq!(st["error"]["line"], json!(13));
    assert_eq!(st["error"]["kind"], json!("autograd"));
    assert!(RecordingSession::new("{\"version\": 1}").is_err());
    // A module's parameters are bound by the line that made the module.
    let module = rec.replacen("\"defines\":[\"w\"]", "\"defines\":[\"model\"]", 1);
    let mut m = RecordingSession::new(&module).unwrap();
    m.goto(5);
    assert_eq!(m.chain("w")[0]["op"], json!("line 10: w = torch.ones(3, requires_grad=True)"));
}

/// A recording's link reads back as a recording, a trace's as a trace.
#[test]
fn recording_links_read_back() {
    let rec = include_str!("../../../tests/browser/recording/alias.json");
    let made: Json = serde_json::from_str(&share_encode_recording(rec, Some(4), Some("b".into()), None)).unwrap();
    let fragment = made["fragment"].as_str().unwrap();
    assert!(fragment.starts_with("r1."), "{fragment}");
    let back = decode_json(fragment);
    assert_eq!(back["recording"], json!(rec));
    assert_eq!(back["step"], json!(4));
    assert_eq!(back["tensor"], json!("b"));
}

/// A source that does not parse says so (and where) without running; one that parses, or fails
/// while running, has no parse error.
#[test]
fn a_half_typed_line_is_a_parse_error() {
    let s = Session::new("a = arange(6.)\nw = a.sum().item(\n");
    let e = s.parse_error().expect("a parse error");
    assert_eq!(e["kind"], json!("parse"), "{e}");
    assert_eq!(e["line"], json!(2), "{e}");
    assert_eq!(Session::parse_error_of("a = arange(6.)\nw = a.sum().item(\n"), Some(e));
    assert!(Session::new("a = arange(6.)\n").parse_error().is_none());
    assert!(Session::parse_error_of("a = arange(6.)\n").is_none());
    assert!(Session::new("a = arange(6.)\nb = a.veiw(3, 2)\n").parse_error().is_none());
}
