//! The lesson gallery: short built-in traces that each teach one fact about aliasing.
//!
//! They live in Rust rather than in the page so that the test suite runs every one of them, and
//! each carries its sentence's claims as data ([`Claim`]): which tensors share a storage, what a
//! write is seen by, which line fails with which kind, where the bridge parts from PyTorch.
//! [`Lesson::verify`] checks them against the report, so a lesson whose text and panels disagree
//! fails the test command.

use serde_json::Value as Json;

use crate::session::Session;

#[derive(Clone, Copy, Debug)]
pub struct Lesson {
    pub id: &'static str,
    pub title: &'static str,
    /// One line saying what to look at.
    pub explain: &'static str,
    pub trace: &'static str,
    /// What the explanation says, as facts of the report. A lesson that fails names its line
    /// and kind here ([`Claim::Fails`]); one without that claim must run to the end.
    pub claims: &'static [Claim],
    /// What to look at after each statement, by its line: shown beside the stepper while the
    /// lesson is open.
    pub narration: &'static [(usize, &'static str)],
    /// The tensor to select when the lesson opens.
    pub tensor: &'static str,
}

/// Whether tinygrad's PyTorch bridge agrees with PyTorch on something.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bridge {
    Agrees,
    Differs,
}

/// One fact a lesson's text states, checked against the run's report (tensors as they end).
#[derive(Clone, Copy, Debug)]
pub enum Claim {
    /// The two tensors share one PyTorch storage.
    Shares(&'static str, &'static str),
    /// The first has a PyTorch storage apart from the second's.
    Apart(&'static str, &'static str),
    /// PyTorch's strides and storage_offset of the tensor.
    Layout(&'static str, &'static [i64], i64),
    /// tinygrad's last view of the tensor: its strides and offset, and whether it is masked.
    Tinygrad(&'static str, &'static [i64], i64, Masked),
    /// The tensor's values (PyTorch's).
    Values(&'static str, &'static [f64]),
    /// The first write on the line is seen by exactly these tensors (in any order).
    SeenBy(usize, &'static [&'static str]),
    /// The trace fails on the line with an error of this kind.
    Fails(usize, &'static str),
    /// The bridge's strides and offset for the tensor, against PyTorch's.
    BridgeLayout(&'static str, Bridge),
    /// The values the bridge's run ends with for the tensor, against PyTorch's.
    BridgeValues(&'static str, Bridge),
    /// In the bridge's run, the first write on the line is seen by exactly these tensors.
    BridgeSeenBy(usize, &'static [&'static str]),
    /// The bridge runs the line (where PyTorch raises) and writes.
    BridgeRuns(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Masked {
    Yes,
    No,
}

impl Lesson {
    /// Whether the lesson is about tinygrad or its bridge (a claim on either): the page shows
    /// them while it is open.
    pub fn compares(&self) -> bool {
        self.claims.iter().any(|c| {
            matches!(
                c,
                Claim::Tinygrad(..)
                    | Claim::BridgeLayout(..)
                    | Claim::BridgeValues(..)
                    | Claim::BridgeSeenBy(..)
                    | Claim::BridgeRuns(..)
            )
        })
    }

    /// The kind of error the lesson ends on, if it is about one.
    pub fn error(&self) -> Option<&'static str> {
        self.claims.iter().find_map(|c| match c {
            Claim::Fails(_, kind) => Some(*kind),
            _ => None,
        })
    }

    /// The claims the report contradicts, each as a sentence (empty when the lesson holds).
    pub fn verify(&self) -> Vec<String> {
        let out = Session::new(self.trace).outline().clone();
        let mut wrong: Vec<String> = self.claims.iter().filter_map(|c| check(c, &out).err()).collect();
        if self.error().is_none() && !out["error"].is_null() {
            wrong.push(format!("the trace fails: {}", out["error"]));
        }
        if out["tensors"].get(self.tensor).is_none() {
            wrong.push(format!("it selects {}, which the trace does not end with", self.tensor));
        }
        wrong
    }
}

fn check(c: &Claim, out: &Json) -> Result<(), String> {
    let t = |name: &str| out["tensors"].get(name).cloned().ok_or_else(|| format!("no tensor {name}"));
    let expect = |ok: bool, what: String| if ok { Ok(()) } else { Err(what) };
    let step_at = |line: usize| {
        out["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| s["line"] == line && (s["writes"].is_object() || s["bridge"]["write"].is_object()))
            .cloned()
            .ok_or_else(|| format!("no write on line {line}"))
    };
    let same_names = |got: &Json, want: &[&str]| {
        let mut got: Vec<&str> = got.as_array().into_iter().flatten().filter_map(Json::as_str).collect();
        let mut want = want.to_vec();
        got.sort_unstable();
        want.sort_unstable();
        got == want
    };
    match *c {
        Claim::Shares(a, b) | Claim::Apart(a, b) => {
            let same = t(a)?["torch"]["storage"] == t(b)?["torch"]["storage"];
            let want = matches!(c, Claim::Shares(..));
            expect(same == want, format!("{a} and {b} {} one storage", if same { "share" } else { "do not share" }))
        }
        Claim::Layout(name, strides, offset) => {
            let torch = &t(name)?["torch"];
            expect(
                torch["strides"] == serde_json::json!(strides) && torch["storage_offset"] == offset,
                format!("{name} has strides {} and offset {}", torch["strides"], torch["storage_offset"]),
            )
        }
        Claim::Tinygrad(name, strides, offset, masked) => {
            let v = t(name)?["views"].as_array().and_then(|v| v.last()).cloned().unwrap_or_default();
            let ok = v["strides"] == serde_json::json!(strides)
                && v["offset"] == offset
                && v["mask"].is_null() == (masked == Masked::No);
            expect(ok, format!("tinygrad's last view of {name} is {v}"))
        }
        Claim::Values(name, values) => {
            let v = &t(name)?["values"];
            expect(*v == serde_json::json!(values), format!("{name} holds {v}"))
        }
        Claim::SeenBy(line, names) => {
            let s = step_at(line)?;
            expect(
                same_names(&s["tensors_changed"], names),
                format!("line {line}'s write is seen by {}", s["tensors_changed"]),
            )
        }
        Claim::Fails(line, kind) => {
            let e = &out["error"];
            expect(e["line"] == line && e["kind"] == kind, format!("the trace ends with error {e}"))
        }
        Claim::BridgeLayout(name, b) => {
            let same = t(name)?["bridge"]["matches_torch"] == true;
            expect(same == (b == Bridge::Agrees), format!("the bridge's strides and offset for {name} {}", agree(same)))
        }
        Claim::BridgeValues(name, b) => {
            let same = t(name)?["bridge"]["values_match_torch"] == true;
            expect(same == (b == Bridge::Agrees), format!("the bridge's values for {name} {}", agree(same)))
        }
        Claim::BridgeSeenBy(line, names) => {
            let s = step_at(line)?;
            let got = &s["bridge"]["tensors_changed"];
            expect(same_names(got, names), format!("the bridge's write on line {line} is seen by {got}"))
        }
        Claim::BridgeRuns(line) => {
            let s = step_at(line)?;
            expect(
                s["bridge"]["write"].is_object() && s["bridge"]["error"].is_null() && s["bridge"]["diverges"] == true,
                format!("the bridge on line {line}: {}", s["bridge"]),
            )
        }
    }
}

fn agree(same: bool) -> &'static str {
    if same {
        "agree with PyTorch's"
    } else {
        "differ from PyTorch's"
    }
}

pub const LESSONS: &[Lesson] = &[
    Lesson {
        id: "share",
        title: "Views share storage",
        explain: "b and d are views of a: one storage. c = a.flip(0) is a copy in PyTorch (a view in tinygrad), so b += 100 is seen by a and b and not by c; d, made afterwards, reads the new values.",
        trace: "# Views share storage; copies do not.\na = arange(12.).reshape(3, 4)\nb = a.t()[1:]\nc = a.flip(0)\nb += 100\nd = a[None, :, ::2]\n",
        claims: &[Claim::Shares("b", "a"), Claim::Shares("d", "a"), Claim::Apart("c", "a"), Claim::SeenBy(5, &["a", "b"])],
        narration: &[(2, "a owns a 12-element storage, row-major: strides (4, 1)."), (3, "b is a view: a transpose then a slice, strides (1, 4) and offset 1 into a's storage."), (4, "flip is a copy in PyTorch: c gets a storage of its own."), (5, "The write lands in a's storage: a and b see it, c does not."), (6, "d is another view of a, made after the write: it reads the new values.")],
        tensor: "b",
    },
    Lesson {
        id: "reshape-copies",
        title: "reshape sometimes copies, view refuses",
        explain: "After a transpose the elements are not in row-major order: reshape quietly copies, view raises.",
        trace: "a = arange(6.).reshape(2, 3)\nt = a.t()\nr = t.reshape(6)\nr[0] = -1\nv = t.view(6)\n",
        claims: &[Claim::Shares("t", "a"), Claim::Apart("r", "a"), Claim::SeenBy(4, &["r"]), Claim::Fails(5, "view")],
        narration: &[(2, "t is a view of a with strides (1, 3): not row-major."), (3, "Row-major order of t is not a's order, so reshape copies: r has its own storage."), (4, "The write changes r only; a and t keep their values."), (5, "view never copies: it refuses, since no strides express t as 6 row-major elements.")],
        tensor: "r",
    },
    Lesson {
        id: "strides",
        title: "Strides of permute, transpose and expand",
        explain: "permute and transpose only reorder strides; expand gives the new dimension stride 0, so every row reads the same cells.",
        trace: "a = arange(24.).reshape(2, 3, 4)\np = a.permute(2, 0, 1)\nt = a.transpose(0, 2)\nr = arange(3.).reshape(3, 1)\ne = r.expand(3, 4)\n",
        claims: &[Claim::Layout("p", &[1, 12, 4], 0), Claim::Layout("t", &[1, 4, 12], 0), Claim::Layout("e", &[1, 0], 0), Claim::Shares("e", "r")],
        narration: &[(2, "permute reorders the strides: (12, 4, 1) becomes (1, 12, 4)."), (3, "transpose(0, 2) swaps the first and last strides."), (4, "r is a column: shape (3, 1)."), (5, "expand gives the new columns stride 0: every row reads one cell four times.")],
        tensor: "e",
    },
    Lesson {
        id: "offsets",
        title: "storage_offset of slices and select",
        explain: "A slice or select starts part-way into the same storage: storage_offset says where.",
        trace: "a = arange(20.).reshape(4, 5)\ns = a[1:, 2:]\nrow = a.select(0, 2)\ncol = a[:, 3]\nx = s[1]\n",
        claims: &[Claim::Layout("s", &[5, 1], 7), Claim::Layout("row", &[1], 10), Claim::Layout("col", &[5], 3), Claim::Layout("x", &[1], 12), Claim::Shares("x", "a")],
        narration: &[(2, "The slice starts at row 1, column 2: offset 1·5 + 2 = 7."), (3, "select(0, 2) drops the first dim: offset 2·5 = 10, strides (1,)."), (4, "A column: offset 3, stride 5."), (5, "Indexing a view composes: s's offset 7 plus one row of 5 is 12.")],
        tensor: "s",
    },
    Lesson {
        id: "writes",
        title: "Writes through a view, and who sees them",
        explain: "Step through: each in-place write marks the cells it touched and lists every tensor that observed it.",
        trace: "a = zeros(3, 4)\nrow = a[1]\ncol = a[:, 2]\nrow.fill_(1.)\ncol += 5\nb = a.clone()\na.zero_()\n",
        claims: &[Claim::SeenBy(4, &["a", "row", "col"]), Claim::SeenBy(5, &["a", "row", "col"]), Claim::SeenBy(7, &["a", "row", "col"]), Claim::Apart("b", "a")],
        narration: &[(2, "row is a view of a's second row."), (3, "col is a view of a's third column; it crosses row at cell 6."), (4, "fill_ writes cells 4-7: a, row and col (through cell 6) all see it."), (5, "col += 5 writes cells 2, 6 and 10: row sees cell 6 change."), (6, "clone copies: b has its own storage."), (7, "zero_ on a reaches row and col, not the copy b.")],
        tensor: "a",
    },
    Lesson {
        id: "overlap-expand",
        title: "In-place on an expanded tensor",
        explain: "Several elements of e share one cell (stride 0), so PyTorch refuses an in-place op that would write them all.",
        trace: "a = arange(3.).reshape(3, 1)\ne = a.expand(3, 4)\ne.add_(1)\n",
        claims: &[Claim::Layout("e", &[1, 0], 0), Claim::Fails(3, "overlap")],
        narration: &[(2, "expand: stride 0 on the new dim, so e's 12 elements live in a's 3 cells."), (3, "An in-place add would write each cell four times: PyTorch refuses.")],
        tensor: "e",
    },
    Lesson {
        id: "overlap-transpose",
        title: "a += a.t() overlaps",
        explain: "The input a.t() reads cells that the same statement writes, in another order: PyTorch raises instead of giving a result that depends on the loop order.",
        trace: "a = arange(9.).reshape(3, 3)\na += a.t()\n",
        claims: &[Claim::Fails(2, "overlap")],
        narration: &[(2, "a.t() reads the cells a += writes, in another order: PyTorch refuses the partial overlap.")],
        tensor: "a",
    },
    Lesson {
        id: "chunk-qkv",
        title: "q, k, v = x.chunk(3): three views, one storage",
        explain: "chunk splits the last dim of x into three views with x's strides (12, 1) and offsets 0, 4 and 8; q.mul_(-1) writes cells 0-3 and 12-15 of that storage, so x changes too while k and v do not.",
        trace: "# A fused QKV projection, split into its three parts.\nx = arange(24.).reshape(2, 12)\nq, k, v = x.chunk(3, dim=-1)\nq.mul_(-1)\n",
        claims: &[Claim::Layout("q", &[12, 1], 0), Claim::Layout("k", &[12, 1], 4), Claim::Layout("v", &[12, 1], 8), Claim::Shares("k", "x"), Claim::SeenBy(4, &["x", "q"])],
        narration: &[(2, "x: 2 rows of 12, strides (12, 1)."), (3, "chunk makes three views of x with offsets 0, 4 and 8, all strides (12, 1)."), (4, "q's cells are 0-3 and 12-15: x changes there, k and v do not.")],
        tensor: "q",
    },
    Lesson {
        id: "flip-pad",
        title: "flip and pad: copies in PyTorch, views in tinygrad",
        explain: "PyTorch gives f and p storages of their own; tinygrad keeps them as views of a, with a negative stride and a mask for the padding.",
        trace: "a = arange(6.).reshape(2, 3)\nf = a.flip(1)\np = pad(a, (1, 1))\n",
        claims: &[Claim::Apart("f", "a"), Claim::Apart("p", "a"), Claim::Tinygrad("f", &[3, -1], 2, Masked::No), Claim::Tinygrad("p", &[3, 1], -1, Masked::Yes)],
        narration: &[(2, "PyTorch copies a flip; tinygrad keeps a view with stride -1 and offset 2."), (3, "pad copies in PyTorch; tinygrad's view masks the padding (offset -1, valid only inside).")],
        tensor: "p",
    },
    Lesson {
        id: "bridge",
        title: "Where the bridge's strides and offset go wrong",
        explain: "tinygrad's PyTorch bridge reports the row-major strides of a tensor's shape, whatever its layout: for the transpose t, the column c and the expanded e it disagrees with PyTorch; a row such as s = a[1] is row-major already, so there it agrees (offset 4 in both).",
        trace: "a = arange(12.).reshape(3, 4)\nt = a.t()\ns = a[1]\nc = a[:, 1]\ne = a[0:1].expand(3, 4)\n",
        claims: &[Claim::BridgeLayout("t", Bridge::Differs), Claim::BridgeLayout("c", Bridge::Differs), Claim::BridgeLayout("e", Bridge::Differs), Claim::BridgeLayout("s", Bridge::Agrees), Claim::Layout("s", &[1], 4)],
        narration: &[(2, "The bridge reports (3, 1) for t, the row-major strides of its shape; PyTorch says (1, 4)."), (3, "A row of a is row-major already: the bridge and PyTorch agree (offset 4)."), (4, "A column: PyTorch's stride is 4, the bridge reports 1."), (5, "Expanded rows: PyTorch's stride 0 becomes the bridge's row-major 4.")],
        tensor: "t",
    },
    Lesson {
        id: "bridge-reshape-write",
        title: "The bridge writes through a reshape PyTorch copied",
        explain: "a.t().reshape(12) cannot be a view in PyTorch, so b is a copy and b += 100 leaves a alone. The bridge keeps b as a view of a (a reshape of a transpose): its write builds a flat index into a, scatters and replaces a, so a changes too. The tensors list marks a '≠ values'; the Values panel shows the bridge's a.",
        trace: "a = arange(12.).reshape(3, 4)\nb = a.t().reshape(12)\nb += 100\n",
        claims: &[
            Claim::Apart("b", "a"),
            Claim::SeenBy(3, &["b"]),
            Claim::BridgeSeenBy(3, &["a", "b"]),
            Claim::BridgeValues("a", Bridge::Differs),
            Claim::BridgeValues("b", Bridge::Agrees),
        ],
        narration: &[(2, "PyTorch copies here; the bridge keeps b as a view of a (a reshape of a transpose)."), (3, "PyTorch's write changes b only. The bridge's write scatters into a at b's flat positions: a diverges.")],
        tensor: "a",
    },
    Lesson {
        id: "bridge-unfold",
        title: "A write through unfold misses its source in the bridge",
        explain: "unfold is a view in PyTorch, so w.zero_() zeroes a as well. The bridge has no unfold view: w is a tensor of its own, its write reaches only w, and a keeps its values there.",
        trace: "a = arange(10.)\nw = a.unfold(0, 4, 2)\nw.zero_()\n",
        claims: &[
            Claim::Shares("w", "a"),
            Claim::SeenBy(3, &["a", "w"]),
            Claim::BridgeSeenBy(3, &["w"]),
            Claim::BridgeValues("a", Bridge::Differs),
        ],
        narration: &[(2, "unfold is a view in PyTorch; in the bridge it is a tensor of its own."), (3, "PyTorch zeroes a's cells through w; the bridge changes w only.")],
        tensor: "a",
    },
    Lesson {
        id: "bridge-lazy",
        title: "A clone in the bridge sees later writes",
        explain: "In PyTorch c = a.clone() copies a's values then and there, so a.mul_(10) leaves c alone. tinygrad keeps every bridge tensor a lazy graph until it is read back, and a += 1 made a's storage a buffer that later assigns write in place: c still reads that buffer, so it ends with a's new values. The tensors list marks c '≠ values'.",
        trace: "a = arange(6.).reshape(2, 3)\na += 1\nc = a.clone()\na.mul_(10)\n",
        claims: &[
            Claim::Apart("c", "a"),
            Claim::SeenBy(4, &["a"]),
            Claim::BridgeSeenBy(4, &["a", "c"]),
            Claim::BridgeValues("c", Bridge::Differs),
            Claim::BridgeValues("a", Bridge::Agrees),
        ],
        narration: &[(2, "The bridge assigns into a's base: from now on it is a buffer that writes change in place."), (3, "PyTorch copies a's values into c; the bridge's c is a graph that reads a's buffer when it is realized."), (4, "PyTorch's write changes a only. In the bridge, c reads the buffer after the write: c diverges.")],
        tensor: "c",
    },
    Lesson {
        id: "bridge-overlap",
        title: "The bridge writes where PyTorch refuses",
        explain: "Every element of b reads one of a's three cells, so PyTorch refuses b += ... . The bridge checks no overlap: it computes the value whole and scatters it into a, where the last duplicate wins, so a ends as [3, 4, 5].",
        trace: "a = zeros(3)\nb = a.expand(2, 3)\nb += arange(6.).reshape(2, 3)\n",
        claims: &[Claim::Fails(3, "overlap"), Claim::BridgeRuns(3), Claim::BridgeValues("a", Bridge::Differs)],
        narration: &[(2, "b reads a's 3 cells, each twice."), (3, "PyTorch refuses the write; the bridge scatters 6 values into 3 cells, the later duplicates winning.")],
        tensor: "a",
    },
    Lesson {
        id: "bridge-contiguous",
        title: "contiguous() is the tensor itself in the bridge",
        explain: "a is a transpose, so PyTorch's a.contiguous() copies it and b += 1 leaves a alone. The bridge reports row-major strides for every tensor, so contiguous() returns a itself: b is a, and the write changes a.",
        trace: "a = arange(6.).reshape(2, 3).t()\nb = a.contiguous()\nb += 1\n",
        claims: &[
            Claim::Apart("b", "a"),
            Claim::SeenBy(3, &["b"]),
            Claim::BridgeSeenBy(3, &["a", "b"]),
            Claim::BridgeValues("a", Bridge::Differs),
        ],
        narration: &[(2, "PyTorch copies the transpose; the bridge returns a itself."), (3, "PyTorch's write changes the copy only; the bridge's changes a.")],
        tensor: "a",
    },
    Lesson {
        id: "channels-last",
        title: "channels_last: same values, N-H-W-C memory order",
        explain: "cl holds x's values with strides (24, 1, 12, 3), so the format column reads channels_last. An elementwise result is laid out like the first operand whose strides decide the order: a = cl + 1 and b = cl + ones(...) stay channels_last, while c = ones(...) + cl is contiguous.",
        trace: "x = arange(48.).reshape(2, 3, 2, 4)\ncl = x.contiguous(memory_format=torch.channels_last)\na = cl + 1\nb = cl + ones(2, 3, 2, 4)\nc = ones(2, 3, 2, 4) + cl\n",
        claims: &[Claim::Layout("cl", &[24, 1, 12, 3], 0), Claim::Layout("a", &[24, 1, 12, 3], 0), Claim::Layout("b", &[24, 1, 12, 3], 0), Claim::Layout("c", &[24, 8, 4, 1], 0)],
        narration: &[(2, "Same values, memory in N-H-W-C order: strides (24, 1, 12, 3)."), (3, "An elementwise result takes the layout of its operand: channels_last."), (4, "cl decides the order here too."), (5, "The first operand is contiguous, so the result is contiguous.")],
        tensor: "a",
    },
    Lesson {
        id: "dtype-view",
        title: "One storage read as two dtypes",
        explain: "i = x.view(torch.int32) reads x's bytes as int32: the same storage and strides, no copy. i += 1 adds one to each float's bit pattern, so x moves by one unit in the last place and both versions step. u = x.view(torch.uint8) reads the same 12 bytes as 12 elements.",
        trace: "x = torch.tensor([1., 2., -0.5])\ni = x.view(torch.int32)\nu = x.view(torch.uint8)\ni += 1\n",
        claims: &[Claim::Shares("i", "x"), Claim::Shares("u", "x"), Claim::SeenBy(4, &["x", "i", "u"])],
        narration: &[(2, "The same 12 bytes read as three int32: one storage, no copy."), (3, "The same bytes as 12 uint8."), (4, "Adding 1 to each bit pattern moves every float by one unit in the last place: x, i and u all change.")],
        tensor: "i",
    },
    Lesson {
        id: "idx-header",
        title: "A file header is a storage offset",
        explain: "An IDX file opens with a 16-byte header (magic, count, rows, cols): slicing it off makes images a view of the raw bytes at storage_offset 16, with no copy.",
        trace: "raw = dataset(\"mnist-t10k-images-1k\")\nimages = raw[0x10:].reshape(-1, 1, 28, 28)\nfirst = images[0, 0]\n",
        claims: &[Claim::Shares("images", "raw"), Claim::Layout("images", &[784, 784, 28, 1], 16)],
        narration: &[(1, "The raw file: 16 header bytes, then 1,000 images of 784 bytes."), (2, "Slicing off the header is offset 16; the reshape is a view."), (3, "The first image: offset 16, strides (28, 1).")],
        tensor: "images",
    },
    Lesson {
        id: "advanced-index",
        title: "Advanced indexing: reads copy, writes go through",
        explain: "x[idx] with a tensor index reads into a new storage, so y += 100 leaves x alone. x[idx] = -1 is index_put_ into x's own storage, and so is v[v > 3] = 0 through the view v = x[::2]: step through and watch which cells of x each write marks.",
        trace: "x = torch.arange(8.)
idx = torch.tensor([1, 3])
y = x[idx]          # a copy: new storage
y += 100            # x does not change
x[idx] = -1         # index_put_ into x
v = x[::2]          # a view of x
v[v > 3] = 0        # a mask write through the view lands in x
",
        claims: &[Claim::Apart("y", "x"), Claim::SeenBy(4, &["y"]), Claim::SeenBy(5, &["x"]), Claim::Shares("v", "x"), Claim::SeenBy(7, &["x", "v"])],
        narration: &[(3, "A tensor index reads into a new storage."), (4, "y is a copy: x does not change."), (5, "index_put_ writes x's cells 1 and 3."), (6, "v is a view: every other cell of x."), (7, "The mask write goes through v into x.")],
        tensor: "x",
    },
    Lesson {
        id: "seeded-randn",
        title: "A seeded randn from a bug report",
        explain: "torch.manual_seed(0) makes randn draw exactly the numbers PyTorch's CPU generator draws. w = x.t() is a view, so clamp_ through w zeroes the negative cells of x; print shows x as PyTorch prints it.",
        trace: "import torch
torch.manual_seed(0)
x = torch.randn(4, 4)
w = x.t()
w.clamp_(min=0)
print(x)
",
        claims: &[Claim::Shares("w", "x"), Claim::SeenBy(5, &["x", "w"])],
        narration: &[(2, "Seeding PyTorch's CPU generator."), (3, "The same 16 numbers PyTorch draws."), (4, "w is a view of x, transposed."), (5, "clamp_ through w zeroes x's negative cells."), (6, "print shows x as PyTorch prints it.")],
        tensor: "x",
    },
    Lesson {
        id: "loop-views",
        title: "A loop writing through views, one step per iteration",
        explain: "Each executed statement is a step, and the step says which iteration it is. row is a view of x, so row[i:] += i + 1 lands in x; it is a read, an add_ and a copy back (setitem), so x's version moves by two each time.",
        trace: "x = torch.zeros(3, 4)
for i, row in enumerate(x):
    row[i:] += i + 1
    print(f\"after row {i}: x._version = {x._version}\")
",
        claims: &[Claim::SeenBy(3, &["x", "row"])],
        narration: &[(2, "Each iteration binds row to a view of one row of x."), (3, "A read, an add and a copy back into x: its version moves by two."), (4, "print shows the version after each iteration.")],
        tensor: "x",
    },
    Lesson {
        id: "saved-version",
        title: "A write that breaks backward, seen before backward",
        explain: "sigmoid saves its output for backward. y.mul_(2) writes that output in place and bumps its version: the step already says the saved tensor is stale, and backward() two lines later fails with PyTorch's message.",
        trace: "x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)\ny = x.sigmoid()\ny.mul_(2)          # y is saved by SigmoidBackward0: now stale\ny.sum().backward() # fails, as in PyTorch\n",
        claims: &[Claim::Fails(4, "autograd")],
        narration: &[(2, "sigmoid saves its output y for backward: version 0."), (3, "The in-place write bumps y's version to 1: the saved tensor is stale, and the step says so."), (4, "backward finds version 1 where it saved version 0, and raises PyTorch's error.")],
        tensor: "y",
    },
    Lesson {
        id: "data-bypass",
        title: ".data skips the version counter: a silently wrong gradient",
        explain: "y.data shares y's storage but not its version counter, so zeroing it leaves nothing stale and backward runs: x.grad comes out as zeros instead of e. detach() shares the counter and would have failed instead.",
        trace: "x = torch.ones(3, requires_grad=True)\ny = x.exp()\ny.data.zero_()     # same storage, new version counter\ny.sum().backward() # no error\ng = x.grad         # zeros: wrong, and nothing said so\n",
        claims: &[Claim::Values("g", &[0.0, 0.0, 0.0])],
        narration: &[(2, "exp saves its output y for backward."), (3, ".data shares y's storage but not its version counter: nothing is marked stale."), (4, "backward runs with the zeroed values."), (5, "The gradient is zeros instead of e, and nothing said so.")],
        tensor: "g",
    },
    Lesson {
        id: "leaf-inplace",
        title: "Optimizer steps write leaves under no_grad",
        explain: "A leaf that requires grad refuses in-place writes while autograd records; under torch.no_grad() the same write is an optimizer step that bumps w's version. The last line, outside no_grad, is refused.",
        trace: "w = torch.ones(3, requires_grad=True)\n(w * 2).sum().backward()\nwith torch.no_grad():\n    w -= 0.1 * w.grad\nw += 1\n",
        claims: &[Claim::Fails(5, "autograd")],
        narration: &[(2, "backward fills w.grad."), (3, "Under no_grad, autograd records nothing."), (4, "An optimizer step: the leaf is written in place, its version moves."), (5, "Outside no_grad, an in-place write to a leaf that requires grad is refused.")],
        tensor: "w",
    },
    Lesson {
        id: "unbind-inplace",
        title: "Outputs of unbind refuse in-place writes",
        explain: "unbind, split and chunk return views that share one backward node; PyTorch forbids writing one of them in place while autograd records, and so does the trace.",
        trace: "x = torch.ones(2, 3, requires_grad=True)\ny = x * 1\na, b = y.unbind()\na.mul_(2)\n",
        claims: &[Claim::Shares("a", "y"), Claim::Fails(4, "autograd")],
        narration: &[(2, "y is not a leaf: it has a grad_fn."), (3, "unbind returns views that share one backward node."), (4, "Writing one of them in place is refused while autograd records.")],
        tensor: "a",
    },
    Lesson {
        id: "backward-twice",
        title: "A second backward through freed saved tensors",
        explain: "backward() frees what each node saved, unless retain_graph=True. MulBackward0 saved x twice; the first backward used and freed them, so the second one through the same graph is refused. The autograd graph marks freed nodes with a dashed border.",
        trace: "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()\ny.backward()        # frees what MulBackward0 saved\ng = x.grad          # 2x\ny.backward()        # fails: the saved tensors are gone\n",
        claims: &[Claim::Values("g", &[2.0, 4.0]), Claim::Fails(5, "autograd")],
        narration: &[(2, "MulBackward0 saves both operands (x, twice)."), (3, "backward uses them, then frees them: retain_graph was not given."), (4, "x.grad holds 2x."), (5, "A second backward needs the freed tensors, and PyTorch refuses it.")],
        tensor: "y",
    },
    Lesson {
        id: "no-grad-view",
        title: "A view made under no_grad cannot be written with grad on",
        explain: "Under torch.no_grad() a view of y records no backward node. Written in place once grad mode is back, autograd could not route y's gradient through that write, so PyTorch refuses it (and the trace does, at the same line).",
        trace: "x = torch.ones(4, requires_grad=True)\ny = x * 1\nwith torch.no_grad():\n    v = y[:2]       # a view made where autograd records nothing\nv.mul_(2)           # refused with grad mode on\n",
        claims: &[Claim::Shares("v", "y"), Claim::Fails(5, "autograd")],
        narration: &[(2, "y has a grad_fn (MulBackward0)."), (4, "v is a view of y, made while autograd records nothing."), (5, "Writing it in place with grad mode on is refused.")],
        tensor: "v",
    },
    Lesson {
        id: "detach-shares-version",
        title: "detach() shares the version counter: the write is caught",
        explain: "detach() gives a tensor over the same storage with the same version counter (unlike .data). Zeroing it bumps the version exp saved, so backward fails with PyTorch's message instead of returning a wrong gradient.",
        trace: "x = torch.ones(3, requires_grad=True)\ny = x.exp()\nd = y.detach()\nd.zero_()           # same storage, same version counter\ny.sum().backward()  # fails: the saved y is stale\n",
        claims: &[Claim::Shares("d", "y"), Claim::Fails(5, "autograd")],
        narration: &[(2, "exp saves its output y for backward."), (3, "d shares y's storage and its version counter."), (4, "The write bumps the shared version: the saved y is stale, and the step says so."), (5, "backward finds the new version and fails.")],
        tensor: "d",
    },
    Lesson {
        id: "create-graph",
        title: "Gradients of gradients (create_graph=True)",
        explain: "With create_graph=True the gradient is computed with recorded ops, so it has a grad_fn of its own and can be differentiated again: here a penalty on the gradient, as in gradient-penalty training. The autograd graph of g shows the nodes its formula recorded.",
        trace: "x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)\ny = (x ** 3).sum()\ng, = torch.autograd.grad(y, x, create_graph=True)  # 3x^2, with history\n(g * g).sum().backward()                           # d/dx sum(9x^4) = 36x^3\nh = x.grad\n",
        claims: &[Claim::Values("g", &[0.75, 3.0, 6.75]), Claim::Values("h", &[4.5, 36.0, 121.5])],
        narration: &[(2, "y = sum(x^3)."), (3, "The gradient 3x^2, computed with recorded ops: g has a grad_fn."), (4, "Backward through g's own graph."), (5, "36x^3, the gradient of the penalty.")],
        tensor: "g",
    },
];
