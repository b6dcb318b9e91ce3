//! A check on WGSL text: whether every loop of a shader provably ends. The renderer writes only
//! such loops, and the runtime builds a shader without wgpu's per-iteration loop guard only when
//! this check holds, whoever wrote the shader (captures included).

/// Whether every loop in `src` provably ends because it is a counted `for`:
/// `for (var x: i32 = A; x < N; x = x + S)` with integer literals `N` and `S > 0`, `N + S` within
/// i32 (so the step cannot wrap), and `x` assigned, stepped or borrowed nowhere else in the loop.
/// `loop` and `while` are refused outright. Comments are ignored; anything unrecognised is
/// refused, so a `true` holds for any WGSL, not just the renderer's.
pub fn loops_are_counted(src: &str) -> bool {
    let code = strip_comments(src);
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let keyword = |at: usize, word: &str| !code[..at].ends_with(ident) && !code[at + word.len()..].starts_with(ident);
    if ["loop", "while"].iter().any(|w| code.match_indices(w).any(|(at, _)| keyword(at, w))) {
        return false;
    }
    code.match_indices("for").filter(|&(at, _)| keyword(at, "for")).all(|(at, _)| {
        let Some(header) = code[at + "for".len()..].trim_start().strip_prefix('(') else { return false };
        let Some(end) = header.find(')') else { return false };
        let parts: Vec<&str> = header[..end].split(';').map(str::trim).collect();
        let [init, cond, step] = parts[..] else { return false };
        let Some((x, ty)) = init.strip_prefix("var ").and_then(|r| r.split('=').next()).and_then(|d| d.split_once(':'))
        else {
            return false;
        };
        let (x, literal) = (x.trim(), |t: &str| t.trim().trim_end_matches('i').parse::<i64>().ok());
        let bound = cond.strip_prefix(x).and_then(|r| r.trim().strip_prefix('<')).and_then(literal);
        let stride = step
            .strip_prefix(x)
            .and_then(|r| r.trim().strip_prefix('='))
            .and_then(|r| r.trim().strip_prefix(x))
            .and_then(|r| r.trim().strip_prefix('+'))
            .and_then(literal);
        let ends = matches!((bound, stride), (Some(n), Some(s)) if s > 0 && n + s <= i64::from(i32::MAX));
        let Some(close) = matching_brace(&header[end..]) else { return false };
        ty.trim() == "i32" && ends && writes_of(&header[..end + close], x) == 1
    })
}

/// `src` without its `//` and (nested) `/* */` comments.
fn strip_comments(src: &str) -> String {
    let (mut out, mut rest, mut depth) = (String::with_capacity(src.len()), src, 0usize);
    while !rest.is_empty() {
        if rest.starts_with("/*") {
            depth += 1;
            rest = &rest[2..];
        } else if depth > 0 && rest.starts_with("*/") {
            depth -= 1;
            rest = &rest[2..];
        } else if depth == 0 && rest.starts_with("//") {
            rest = rest.find('\n').map_or("", |n| &rest[n..]);
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            if depth == 0 {
                out.push(c);
            }
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The length of `s` up to and including the `}` that closes its first `{`.
fn matching_brace(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => return Some(i + 1),
            '}' => depth = depth.checked_sub(1)?,
            _ => {}
        }
    }
    None
}

/// How many times identifier `x` is assigned, stepped or borrowed in `src` (`x = `, `x += `,
/// `x++`, `&x`, ...): a counted loop's counter, within its loop, only in its own step.
fn writes_of(src: &str, x: &str) -> usize {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    src.match_indices(x)
        .filter(|&(at, _)| {
            let before = src[..at].chars().next_back();
            let after = src[at + x.len()..].trim_start();
            if before.is_some_and(ident) || after.starts_with(ident) {
                return false;
            }
            let assigned = after.starts_with('=') && !after.starts_with("==");
            let compound = ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"]
                .iter()
                .any(|op| after.starts_with(op));
            assigned || compound || before == Some('&')
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counted_loops() {
        let cases: &[(&str, bool)] = &[
            ("fn f() { for (var i: i32 = 0; i < 4; i = i + 1) { x = i; } }", true),
            ("for (var k0: i32 = 0; k0 < 256; k0 = k0 + 16) { for (var kk: i32 = 0; kk < 16; kk = kk + 1) {} }", true),
            // Each loop is its counter's scope, so two loops may reuse a name.
            ("for (var e: i32 = 0; e < 2; e = e + 1) {} for (var e: i32 = 0; e < 2; e = e + 1) {}", true),
            ("for (var i: i32 = 0; i < 4; i = i + 1) { let bi = 0; i0 = 1; if (i == 2) {} }", true),
            ("loop { break; }", false),
            ("while (x < 3) {}", false),
            ("for (var i: i32 = 0; i < n; i = i + 1) {}", false),
            ("for (var i: i32 = 0; i < 4; i = i - 1) {}", false),
            ("for (var i: i32 = 0; i < 4; i = i + 0) {}", false),
            ("for (var i: i32 = 0; i < 4; i = i + 1) { i = 0; }", false),
            ("for (var i: i32 = 0; i < 4; i = i + 1) { i -= 1; }", false),
            ("for (var i: i32 = 0; i < 4; i = i + 1) { let p = &i; }", false),
            ("for (var i: i32 = 0; i < 4; i = i + 1) {", false),
            ("loop{ break; }", false),
            ("for(var i: i32 = 0; i < 4; i = i - 1) {}", false),
            ("for (var i: u32 = 0u; i < 4u; i = i + 1u) {}", false),
            ("for (var i: i32 = 0; i < 2147483647; i = i + 2) {}", false),
            // Comments are not code: a reason sentence may say "loop", and a comment hides nothing.
            ("// the loop for rows\nfor (var i: i32 = 0; i < 4; i = i + 1) { /* i = 0; */ }", true),
        ];
        for (src, want) in cases {
            assert_eq!(loops_are_counted(src), *want, "{src}");
        }
        for (name, text) in crate::codegen::wgsl_helpers::HELPERS {
            assert!(loops_are_counted(text), "helper {name}");
        }
    }
}
