//! A grammar of the Python that traces are written in, driven by the fuzzer's bytes: each byte
//! picks the next production (blocks, functions, classes, exceptions, comprehensions, lists and
//! dicts shared between names, big ints, strings, f-strings, tensors and their views), so every
//! input is a program that parses and runs, and the fuzzer explores what runs rather than what
//! the parser refuses. Programs stay small (a few statements, short loops) so a run is cheap.

/// The fuzzer's bytes as a sequence of choices; past their end every choice is the first.
struct Choices<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Choices<'_> {
    fn pick(&mut self, n: usize) -> usize {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        usize::from(b) % n.max(1)
    }

    fn of<'s>(&mut self, options: &[&'s str]) -> &'s str {
        options[self.pick(options.len())]
    }
}

const NAMES: &[&str] = &["a", "b", "xs", "d", "t", "v", "n", "s"];
const SMALL: &[&str] = &["0", "1", "2", "3", "-1", "5"];

/// The program the bytes describe.
pub fn program(bytes: &[u8]) -> String {
    let mut c = Choices { bytes, at: 0 };
    let mut out = String::from(
        "a = 1\nb = [1, 2]\nxs = b\nd = {'k': b}\nt = torch.arange(6.)\nv = t.view(2, 3)\nn = 2\ns = 'ab'\n",
    );
    let statements = 1 + c.pick(6);
    for _ in 0..statements {
        statement(&mut c, &mut out, 0);
    }
    out
}

fn indent(out: &mut String, depth: usize) {
    out.extend(std::iter::repeat_n("    ", depth));
}

fn block(c: &mut Choices, out: &mut String, depth: usize) {
    let n = 1 + c.pick(2);
    for _ in 0..n {
        statement(c, out, depth + 1);
    }
}

fn statement(c: &mut Choices, out: &mut String, depth: usize) {
    let line = |out: &mut String, text: String| {
        indent(out, depth);
        out.push_str(&text);
        out.push('\n');
    };
    // Compound statements only while shallow: depth bounds the program's size.
    let kinds = if depth >= 2 { 8 } else { 14 };
    match c.pick(kinds) {
        0 => {
            let (name, e) = (c.of(NAMES), expr(c, 0));
            line(out, format!("{name} = {e}"));
        }
        1 => {
            let (name, op, e) = (c.of(NAMES), c.of(&["+=", "-=", "*=", "//=", "%=", "**="]), expr(c, 0));
            line(out, format!("{name} {op} {e}"));
        }
        2 => {
            let (name, m, e) = (c.of(&["xs", "b"]), c.of(&["append", "extend", "insert(0, ", "remove"]), expr(c, 0));
            let call = if m.ends_with(' ') { format!("{name}.{m}{e})") } else { format!("{name}.{m}({e})") };
            line(out, call);
        }
        3 => {
            let (target, key, e) = (c.of(&["xs", "d", "t", "v", "b"]), index(c), expr(c, 0));
            line(out, format!("{target}[{key}] = {e}"));
        }
        4 => {
            let e = expr(c, 0);
            line(out, format!("print({e})"));
        }
        5 => {
            let m = c.of(&[
                "add_(1)",
                "mul_(2)",
                "zero_()",
                "t_()",
                "unsqueeze_(0)",
                "resize_(3)",
                "fill_(n)",
                "clamp_(0, 2)",
            ]);
            let name = c.of(&["t", "v"]);
            line(out, format!("{name}.{m}"));
        }
        6 => {
            let (name, e) = (c.of(&["v", "t", "a"]), view(c));
            line(out, format!("{name} = {e}"));
        }
        7 => line(out, format!("{} = {}.pop()", c.of(NAMES), c.of(&["xs", "b"]))),
        8 => {
            let e = expr(c, 0);
            line(out, format!("if {e}:"));
            block(c, out, depth);
            if c.pick(2) == 1 {
                line(out, "else:".to_string());
                block(c, out, depth);
            }
        }
        9 => {
            let it = c.of(&["range(3)", "xs", "b", "s", "v", "d", "enumerate(b)", "zip(b, s)"]);
            line(out, format!("for i in {it}:"));
            block(c, out, depth);
        }
        10 => {
            let (p, default) = (c.of(&["x", "x, y=2", "*args", "x, **kw", "x, *, k=1"]), expr(c, 1));
            line(out, format!("def f({p}):"));
            block(c, out, depth);
            indent(out, depth + 1);
            out.push_str(&format!("return {default}\n"));
            let arg = expr(c, 1);
            line(out, format!("a = f({arg})"));
        }
        11 => {
            let attr = expr(c, 1);
            line(out, "class C:".to_string());
            indent(out, depth + 1);
            out.push_str(&format!("k = {attr}\n"));
            indent(out, depth + 1);
            out.push_str("def __init__(self, z=[]):\n");
            indent(out, depth + 2);
            out.push_str("self.z = z\n");
            indent(out, depth + 2);
            out.push_str("z.append(self.k)\n");
            line(out, format!("{} = C().z", c.of(&["a", "xs"])));
        }
        12 => {
            line(out, "try:".to_string());
            block(c, out, depth);
            line(
                out,
                format!(
                    "except {} as e:",
                    c.of(&["Exception", "RuntimeError", "(IndexError, KeyError)", "ValueError"])
                ),
            );
            indent(out, depth + 1);
            out.push_str("s = str(e)\n");
            if c.pick(2) == 1 {
                line(out, "finally:".to_string());
                block(c, out, depth);
            }
        }
        _ => {
            let (name, e) = (c.of(NAMES), expr(c, 0));
            line(out, format!("while {name} and n < 4:"));
            indent(out, depth + 1);
            out.push_str("n += 1\n");
            indent(out, depth + 1);
            out.push_str(&format!("{name} = {e}\n"));
        }
    }
}

fn index(c: &mut Choices) -> String {
    match c.pick(4) {
        0 => c.of(SMALL).to_string(),
        1 => "'k'".to_string(),
        2 => format!("{}:{}", c.of(SMALL), c.of(SMALL)),
        _ => format!("{}, ::{}", c.of(SMALL), c.of(&["1", "2", "-1"])),
    }
}

fn view(c: &mut Choices) -> String {
    let base = c.of(&["t", "v"]);
    let op = c.of(&[
        "view(-1)",
        "t()",
        "transpose(0, -1)",
        "reshape(3, -1)",
        "flip(0)",
        "expand(2, -1)",
        "unsqueeze(1)",
        "narrow(0, 0, 1)",
        "as_strided((2, 2), (1, 2), 1)",
        "unfold(0, 2, 1)",
        "diagonal()",
        "contiguous()",
        "chunk(2)[0]",
        "split(1)[-1]",
        "unbind(0)[0]",
    ]);
    format!("{base}.{op}")
}

fn expr(c: &mut Choices, depth: usize) -> String {
    let leaf = depth >= 2;
    match c.pick(if leaf { 8 } else { 18 }) {
        0 => c.of(SMALL).to_string(),
        1 => c.of(NAMES).to_string(),
        2 => c.of(&["2**64", "-(10**30)", "2**63 - 1", "9223372036854775807 + 1", "1 << 70"]).to_string(),
        3 => c.of(&["0.5", "float('nan')", "float('inf')", "-0.0", "1e308 * 10", "1e-320"]).to_string(),
        4 => c.of(&["'x'", "''", "'ab' * 3", "'%d' % 3", "'{}{}'.format(1, 2)", "f'{a!r:>4}'"]).to_string(),
        5 => c.of(&["None", "True", "False", "[]", "{}", "()"]).to_string(),
        6 => c.of(&["t.sum()", "t[0]", "v.shape", "t.tolist()", "v.stride()", "t.max()", "t.argmax()"]).to_string(),
        7 => c.of(&["len(xs)", "(xs is b)", "(d['k'] is b)", "(id(xs) == id(b))", "sorted(b)", "list(d)"]).to_string(),
        8 => {
            let (x, op, y) = (
                expr(c, depth + 1),
                c.of(&["+", "-", "*", "/", "//", "%", "**", "==", "<", "and", "or", "in", "@"]),
                expr(c, depth + 1),
            );
            format!("({x} {op} {y})")
        }
        9 => format!("[{}, {}]", expr(c, depth + 1), expr(c, depth + 1)),
        10 => format!("{{'k': {}, 'j': {}}}", expr(c, depth + 1), expr(c, depth + 1)),
        11 => format!("[{} for i in range({}) if i % 2]", expr(c, depth + 1), c.of(SMALL)),
        12 => format!("(lambda q: {})({})", expr(c, depth + 1), expr(c, depth + 1)),
        13 => {
            let f = c.of(&[
                "len", "str", "repr", "int", "float", "abs", "round", "sum", "min", "max", "list", "tuple", "dict",
                "bool", "type",
            ]);
            format!("{f}({})", expr(c, depth + 1))
        }
        14 => format!("torch.tensor({})", expr(c, depth + 1)),
        15 => view(c),
        16 => format!("({} if {} else {})", expr(c, depth + 1), expr(c, depth + 1), expr(c, depth + 1)),
        _ => format!("{} * {}", c.of(&["xs", "[b]", "s", "t"]), c.of(SMALL)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every input is a program that parses (what it then does is the fuzzer's business).
    #[test]
    fn programs_parse() {
        for seed in 0..500u32 {
            let bytes: Vec<u8> =
                (0..64).map(|i| (seed.wrapping_mul(2_654_435_761).rotate_left(i % 32) >> (i % 7)) as u8).collect();
            let src = program(&bytes);
            assert!(crate::trace::lang::parser::parse(&src).is_ok(), "{src}");
        }
    }

    /// The programs run: most reach their end or a Python error, not the first statement's.
    #[test]
    fn programs_run() {
        let start = std::time::Instant::now();
        let (mut ran, mut total) = (0, 0);
        for seed in 0..300u32 {
            let bytes: Vec<u8> =
                (0..48).map(|i| (seed.wrapping_mul(40_503).rotate_left(i % 32) >> (i % 5)) as u8).collect();
            let run = crate::trace::interp::runner::Run::run_source(&program(&bytes));
            total += 1;
            ran += usize::from(run.error.as_ref().is_none_or(|e| e.line > 8));
        }
        eprintln!("{ran} of {total} programs ran past their prelude in {:?}", start.elapsed());
        assert!(ran * 2 > total, "{ran} of {total}");
    }
}
