//! The lesson gallery: short built-in traces that each teach one fact about aliasing.
//!
//! They live in Rust rather than in the page so that the test suite runs every one of them and
//! checks that it still shows what its sentence claims (the error it is about, or none).

use serde::Serialize;

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Lesson {
    pub id: &'static str,
    pub title: &'static str,
    /// One line saying what to look at.
    pub explain: &'static str,
    pub trace: &'static str,
    /// The error kind the trace is meant to end on, if it is about an error.
    pub error: Option<&'static str>,
    /// The tensor to select when the lesson opens.
    pub tensor: &'static str,
}

pub const LESSONS: &[Lesson] = &[
    Lesson {
        id: "share",
        title: "Views share storage",
        explain: "b and d are views of a: writing through b changes a and d, which read the same storage. c = a.flip(0) is a copy in PyTorch (a view in tinygrad), so it keeps its values.",
        trace: "# Views share storage; copies do not.\na = arange(12.).reshape(3, 4)\nb = a.t()[1:]\nc = a.flip(0)\nb += 100\nd = a[None, :, ::2]\n",
        error: None,
        tensor: "b",
    },
    Lesson {
        id: "reshape-copies",
        title: "reshape sometimes copies, view refuses",
        explain: "After a transpose the elements are not in row-major order: reshape quietly copies, view raises.",
        trace: "a = arange(6.).reshape(2, 3)\nt = a.t()\nr = t.reshape(6)\nr[0] = -1\nv = t.view(6)\n",
        error: Some("view"),
        tensor: "r",
    },
    Lesson {
        id: "strides",
        title: "Strides of permute, transpose and expand",
        explain: "permute and transpose only reorder strides; expand gives the new dimension stride 0, so every row reads the same cells.",
        trace: "a = arange(24.).reshape(2, 3, 4)\np = a.permute(2, 0, 1)\nt = a.transpose(0, 2)\nr = arange(3.).reshape(3, 1)\ne = r.expand(3, 4)\n",
        error: None,
        tensor: "e",
    },
    Lesson {
        id: "offsets",
        title: "storage_offset of slices and select",
        explain: "A slice or select starts part-way into the same storage: storage_offset says where.",
        trace: "a = arange(20.).reshape(4, 5)\ns = a[1:, 2:]\nrow = a.select(0, 2)\ncol = a[:, 3]\nx = s[1]\n",
        error: None,
        tensor: "s",
    },
    Lesson {
        id: "writes",
        title: "Writes through a view, and who sees them",
        explain: "Step through: each in-place write marks the cells it touched and lists every tensor that observed it.",
        trace: "a = zeros(3, 4)\nrow = a[1]\ncol = a[:, 2]\nrow.fill_(1.)\ncol += 5\nb = a.clone()\na.zero_()\n",
        error: None,
        tensor: "a",
    },
    Lesson {
        id: "overlap-expand",
        title: "In-place on an expanded tensor",
        explain: "Several elements of e share one cell (stride 0), so PyTorch refuses an in-place op that would write them all.",
        trace: "a = arange(3.).reshape(3, 1)\ne = a.expand(3, 4)\ne.add_(1)\n",
        error: Some("overlap"),
        tensor: "e",
    },
    Lesson {
        id: "overlap-transpose",
        title: "a += a.t() overlaps",
        explain: "The input a.t() reads cells that the same statement writes, in another order: PyTorch raises instead of giving a result that depends on the loop order.",
        trace: "a = arange(9.).reshape(3, 3)\na += a.t()\n",
        error: Some("overlap"),
        tensor: "a",
    },
    Lesson {
        id: "chunk-qkv",
        title: "q, k, v = x.chunk(3): three views, one storage",
        explain: "chunk splits the last dim of x into three views with x's strides (12, 1) and offsets 0, 4 and 8; q.mul_(-1) writes cells 0-3 and 12-15 of that storage, so x changes too while k and v do not.",
        trace: "# A fused QKV projection, split into its three parts.\nx = arange(24.).reshape(2, 12)\nq, k, v = x.chunk(3, dim=-1)\nq.mul_(-1)\n",
        error: None,
        tensor: "q",
    },
    Lesson {
        id: "flip-pad",
        title: "flip and pad: copies in PyTorch, views in tinygrad",
        explain: "PyTorch gives f and p storages of their own; tinygrad keeps them as views of a, with a negative stride and a mask for the padding.",
        trace: "a = arange(6.).reshape(2, 3)\nf = a.flip(1)\np = pad(a, (1, 1))\n",
        error: None,
        tensor: "p",
    },
    Lesson {
        id: "bridge",
        title: "Where the bridge's strides and offset go wrong",
        explain: "tinygrad's PyTorch bridge reports contiguous strides and only counts slice offsets: for a transpose or select it disagrees with PyTorch.",
        trace: "a = arange(12.).reshape(3, 4)\nt = a.t()\ns = a[1]\nc = a[:, 1]\ne = a[0:1].expand(3, 4)\n",
        error: None,
        tensor: "t",
    },
    Lesson {
        id: "channels-last",
        title: "channels_last: same values, N-H-W-C memory order",
        explain: "cl holds x's values with strides (24, 1, 12, 3), so the format column reads channels_last. An elementwise result is laid out like the first operand whose strides decide the order: a = cl + 1 and b = cl + ones(...) stay channels_last, while c = ones(...) + cl is contiguous.",
        trace: "x = arange(48.).reshape(2, 3, 2, 4)\ncl = x.contiguous(memory_format=torch.channels_last)\na = cl + 1\nb = cl + ones(2, 3, 2, 4)\nc = ones(2, 3, 2, 4) + cl\n",
        error: None,
        tensor: "a",
    },
    Lesson {
        id: "dtype-view",
        title: "One storage read as two dtypes",
        explain: "i = x.view(torch.int32) reads x's bytes as int32: the same storage and strides, no copy. i += 1 adds one to each float's bit pattern, so x moves by one unit in the last place and both versions step. u = x.view(torch.uint8) reads the same 12 bytes as 12 elements.",
        trace: "x = torch.tensor([1., 2., -0.5])\ni = x.view(torch.int32)\nu = x.view(torch.uint8)\ni += 1\n",
        error: None,
        tensor: "i",
    },
    Lesson {
        id: "idx-header",
        title: "A file header is a storage offset",
        explain: "An IDX file opens with a 16-byte header (magic, count, rows, cols): slicing it off makes images a view of the raw bytes at storage_offset 16, with no copy.",
        trace: "raw = dataset(\"mnist-t10k-images-1k\")\nimages = raw[0x10:].reshape(-1, 1, 28, 28)\nfirst = images[0, 0]\n",
        error: None,
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
        error: None,
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
        error: None,
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
        error: None,
        tensor: "x",
    },
    Lesson {
        id: "saved-version",
        title: "A write that breaks backward, seen before backward",
        explain: "sigmoid saves its output for backward. y.mul_(2) writes that output in place and bumps its version: the step already says the saved tensor is stale, and backward() two lines later fails with PyTorch's message.",
        trace: "x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)\ny = x.sigmoid()\ny.mul_(2)          # y is saved by SigmoidBackward0: now stale\ny.sum().backward() # fails, as in PyTorch\n",
        error: Some("autograd"),
        tensor: "y",
    },
    Lesson {
        id: "data-bypass",
        title: ".data skips the version counter: a silently wrong gradient",
        explain: "y.data shares y's storage but not its version counter, so zeroing it leaves nothing stale and backward runs: x.grad comes out as zeros instead of e. detach() shares the counter and would have failed instead.",
        trace: "x = torch.ones(3, requires_grad=True)\ny = x.exp()\ny.data.zero_()     # same storage, new version counter\ny.sum().backward() # no error\ng = x.grad         # zeros: wrong, and nothing said so\n",
        error: None,
        tensor: "g",
    },
    Lesson {
        id: "leaf-inplace",
        title: "Optimizer steps write leaves under no_grad",
        explain: "A leaf that requires grad refuses in-place writes while autograd records; under torch.no_grad() the same write is an optimizer step that bumps w's version. The last line, outside no_grad, is refused.",
        trace: "w = torch.ones(3, requires_grad=True)\n(w * 2).sum().backward()\nwith torch.no_grad():\n    w -= 0.1 * w.grad\nw += 1\n",
        error: Some("autograd"),
        tensor: "w",
    },
    Lesson {
        id: "unbind-inplace",
        title: "Outputs of unbind refuse in-place writes",
        explain: "unbind, split and chunk return views that share one backward node; PyTorch forbids writing one of them in place while autograd records, and so does the trace.",
        trace: "x = torch.ones(2, 3, requires_grad=True)\ny = x * 1\na, b = y.unbind()\na.mul_(2)\n",
        error: Some("autograd"),
        tensor: "a",
    },
];
