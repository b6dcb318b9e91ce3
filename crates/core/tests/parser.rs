//! Table-driven checks of the trace parser: every construct of the language, its refusals and
//! limits, and the hand-written acceptance traces.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use stridelab_core::trace::lang::ast::{
    BoolOp, CompKind, Expr, ExprKind, FPart, FuncDef, Program, Star, Stmt, StmtKind, Target, UnaryOp, YieldKind,
};
use stridelab_core::trace::lang::parser::parse;
use stridelab_core::Error;

/// An S-expression rendering of an expression; with `spans`, every node carries `@line:col`.
fn expr(e: &Expr, spans: bool) -> String {
    let list = |items: &[Expr]| items.iter().map(|i| expr(i, spans)).collect::<Vec<_>>().join(" ");
    let opt = |o: &Option<Box<Expr>>| o.as_ref().map_or("_".to_string(), |e| expr(e, spans));
    let body = match &e.kind {
        ExprKind::Name(n) => n.clone(),
        ExprKind::Int(v) => v.to_string(),
        ExprKind::BigInt(v) => v.clone(),
        ExprKind::Float(v) => format!("{v:?}f"),
        ExprKind::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::None => "None".to_string(),
        ExprKind::Ellipsis => "...".to_string(),
        ExprKind::Tuple(items) => format!("(tuple {})", list(items)),
        ExprKind::List(items) => format!("[{}]", list(items)),
        ExprKind::Dict(pairs) => format!(
            "{{{}}}",
            pairs.iter().map(|(k, v)| format!("{}: {}", expr(k, spans), expr(v, spans))).collect::<Vec<_>>().join(" ")
        ),
        ExprKind::Unary { op, operand } => {
            let op = match op {
                UnaryOp::Neg => "neg",
                UnaryOp::Pos => "pos",
                UnaryOp::Invert => "inv",
                UnaryOp::Not => "not",
            };
            format!("({op} {})", expr(operand, spans))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            format!("({} {} {})", op.symbol(), expr(lhs, spans), expr(rhs, spans))
        }
        ExprKind::Compare { first, rest } => {
            let mut s = format!("(cmp {}", expr(first, spans));
            for (op, e) in rest {
                s += &format!(" {} {}", op.symbol(), expr(e, spans));
            }
            s + ")"
        }
        ExprKind::Call { func, args, kwargs } => {
            let mut s = format!("(call {}", expr(func, spans));
            for a in args {
                s += &format!(" {}", expr(a, spans));
            }
            for (k, v) in kwargs {
                s += &format!(" {k}={}", expr(v, spans));
            }
            s + ")"
        }
        ExprKind::Attr { value, name } => format!("(. {} {name})", expr(value, spans)),
        ExprKind::Index { value, items } => format!("(idx {} {})", expr(value, spans), list(items)),
        ExprKind::Slice { start, stop, step } => {
            format!("(: {} {} {})", opt(start), opt(stop), opt(step))
        }
        ExprKind::BoolOp { op, values } => {
            format!("({} {})", if *op == BoolOp::And { "and" } else { "or" }, list(values))
        }
        ExprKind::IfExp { test, body, orelse } => {
            format!("(ifexp {} {} {})", expr(test, spans), expr(body, spans), expr(orelse, spans))
        }
        ExprKind::Comp { kind, elt, generators } => {
            let mut s = format!(
                "({} {}",
                match kind {
                    CompKind::List => "listcomp",
                    CompKind::Generator => "genexp",
                    CompKind::Dict => "dictcomp",
                },
                expr(elt, spans)
            );
            for g in generators {
                s += &format!(" (for {} {}", target(&g.target), expr(&g.iter, spans));
                for c in &g.ifs {
                    s += &format!(" (if {})", expr(c, spans));
                }
                s += ")";
            }
            s + ")"
        }
        ExprKind::FString(parts) => {
            let parts: Vec<String> = parts
                .iter()
                .map(|p| match p {
                    FPart::Lit(t) => format!("{t:?}"),
                    FPart::Expr { expr: e, conv, spec, debug } => format!(
                        "{{{}{}{}{}}}",
                        debug.as_deref().map(|d| format!("{d:?} ")).unwrap_or_default(),
                        expr(e, spans),
                        conv.map(|c| format!("!{c}")).unwrap_or_default(),
                        if spec.is_empty() { String::new() } else { format!(":{spec}") }
                    ),
                })
                .collect();
            format!("(f {})", parts.join(" "))
        }
        ExprKind::Lambda(f) => format!("(lambda [{}] {})", params(f, spans), block(&f.body, spans)),
        ExprKind::Starred { value, star } => {
            format!("({} {})", if *star == Star::Items { "*" } else { "**" }, expr(value, spans))
        }
    };
    if spans {
        format!("{body}@{}:{}", e.span.line, e.span.column)
    } else {
        body
    }
}

fn target(t: &Target) -> String {
    match t {
        Target::Name(n) => n.clone(),
        Target::Tuple(items) => format!("({})", items.iter().map(target).collect::<Vec<_>>().join(" ")),
        Target::Star(n) => format!("*{n}"),
    }
}

/// A parameter list: `a b=2 *args c **kw` (a bare `*` where keyword-only ones start).
fn params(f: &FuncDef, spans: bool) -> String {
    let mut out = Vec::new();
    for (i, (p, d)) in f.params.iter().enumerate() {
        if i == f.positional {
            out.push(f.var_args.as_ref().map_or("*".to_string(), |a| format!("*{a}")));
        }
        out.push(match d {
            Some(d) => format!("{p}={}", expr(d, spans)),
            None => p.clone(),
        });
    }
    if f.positional == f.params.len() {
        if let Some(a) = &f.var_args {
            out.push(format!("*{a}"));
        }
    }
    if let Some(k) = &f.var_kwargs {
        out.push(format!("**{k}"));
    }
    out.join(" ")
}

fn block(stmts: &[Stmt], spans: bool) -> String {
    format!("{{{}}}", stmts.iter().map(|s| stmt(s, spans)).collect::<Vec<_>>().join("; "))
}

fn stmt(s: &Stmt, spans: bool) -> String {
    let body = match &s.kind {
        StmtKind::Assign { targets, value, unpack: false } => {
            format!("(= {} {})", targets[0], expr(value, spans))
        }
        StmtKind::Assign { targets, value, .. } => {
            format!("(= ({}) {})", targets.join(" "), expr(value, spans))
        }
        StmtKind::Unpack { target: t, value } => format!("(unpack {} {})", target(t), expr(value, spans)),
        StmtKind::AugAssign { target, op, value } => {
            format!("({}= {} {})", op.symbol(), expr(target, spans), expr(value, spans))
        }
        StmtKind::SetItem { target, index, value } => {
            let items = index.iter().map(|i| expr(i, spans)).collect::<Vec<_>>().join(" ");
            format!("(setitem {} [{items}] {})", expr(target, spans), expr(value, spans))
        }
        StmtKind::Expr(e) => expr(e, spans),
        StmtKind::If { test, body, orelse } => {
            format!("(if {} {} {})", expr(test, spans), block(body, spans), block(orelse, spans))
        }
        StmtKind::For { target: t, iter, body, orelse } if orelse.is_empty() => {
            format!("(for {} {} {})", target(t), expr(iter, spans), block(body, spans))
        }
        StmtKind::For { target: t, iter, body, orelse } => {
            format!("(for {} {} {} else {})", target(t), expr(iter, spans), block(body, spans), block(orelse, spans))
        }
        StmtKind::While { test, body, orelse } if orelse.is_empty() => {
            format!("(while {} {})", expr(test, spans), block(body, spans))
        }
        StmtKind::While { test, body, orelse } => {
            format!("(while {} {} else {})", expr(test, spans), block(body, spans), block(orelse, spans))
        }
        StmtKind::With { items, body } => {
            let items: Vec<String> = items
                .iter()
                .map(|(e, n)| {
                    format!("{}{}", expr(e, spans), n.as_ref().map(|n| format!(" as {n}")).unwrap_or_default())
                })
                .collect();
            format!("(with [{}] {})", items.join(" "), block(body, spans))
        }
        StmtKind::Class { name, bases, body } => {
            let bases: Vec<String> = bases.iter().map(|b| expr(b, spans)).collect();
            format!("(class {name} [{}] {})", bases.join(" "), block(body, spans))
        }
        StmtKind::Def(f) => format!("(def {} [{}] {})", f.name, params(f, spans), block(&f.body, spans)),
        StmtKind::Try { body, handlers, orelse, finally } => {
            let handlers: Vec<String> = handlers
                .iter()
                .map(|h| {
                    format!(
                        "(except {}{} {})",
                        h.types.as_ref().map_or("_".to_string(), |t| expr(t, spans)),
                        h.name.as_ref().map(|n| format!(" as {n}")).unwrap_or_default(),
                        block(&h.body, spans)
                    )
                })
                .collect();
            format!(
                "(try {} {} {} {})",
                block(body, spans),
                handlers.join(" "),
                block(orelse, spans),
                block(finally, spans)
            )
        }
        StmtKind::Raise(v) => {
            format!("(raise{})", v.as_ref().map(|e| format!(" {}", expr(e, spans))).unwrap_or_default())
        }
        StmtKind::Return(v) => {
            format!("(return{})", v.as_ref().map(|e| format!(" {}", expr(e, spans))).unwrap_or_default())
        }
        StmtKind::Pass => "pass".to_string(),
        StmtKind::Break => "break".to_string(),
        StmtKind::Continue => "continue".to_string(),
        StmtKind::Assert { test, msg } => {
            format!(
                "(assert {}{})",
                expr(test, spans),
                msg.as_ref().map(|m| format!(" {}", expr(m, spans))).unwrap_or_default()
            )
        }
        StmtKind::Del(names) => format!("(del {})", names.join(" ")),
        StmtKind::DelItem { target, index } => format!("(del {:?}[{}])", target.kind, index.len()),
        StmtKind::Global(names) => format!("(global {})", names.join(" ")),
        StmtKind::Yield { value, kind, bind } => format!(
            "({}yield{}{})",
            bind.as_ref().map(|t| format!("{} = ", target(t))).unwrap_or_default(),
            if *kind == YieldKind::From { " from" } else { "" },
            value.as_ref().map(|e| format!(" {}", expr(e, spans))).unwrap_or_default()
        ),
        StmtKind::SetAttr { target, name, value } => {
            format!("(setattr {} {name} {})", expr(target, spans), expr(value, spans))
        }
    };
    if spans {
        format!("{body}@{}:{}", s.span.line, s.span.column)
    } else {
        body
    }
}

fn render(p: &Program, view: &str) -> String {
    let parts: Vec<String> = match view {
        "src" => p.stmts.iter().map(|s| s.source.clone()).collect(),
        "at" => p.stmts.iter().map(|s| stmt(s, true)).collect(),
        _ => p.stmts.iter().map(|s| stmt(s, false)).collect(),
    };
    parts.join(" | ")
}

/// Runs a table of cases. The expectation picks what is compared:
/// `err L:C message` (a parse error there, whose message contains `message`),
/// `limit message`, `src ...` (each statement's source text), `at ...` (the tree with spans),
/// or the tree itself; statements are separated by ` | `.
fn check<S: AsRef<str>, E: AsRef<str>>(cases: &[(S, E)]) {
    let mut failures = Vec::new();
    for (src, want) in cases {
        let (src, want) = (src.as_ref(), want.as_ref());
        let got = match parse(src) {
            Ok(p) => {
                if let Some(rest) = want.strip_prefix("src ") {
                    (render(&p, "src"), rest.to_string())
                } else if let Some(rest) = want.strip_prefix("at ") {
                    (render(&p, "at"), rest.to_string())
                } else {
                    (render(&p, ""), want.to_string())
                }
            }
            Err(Error::Parse { line, column, message }) => {
                let got = format!("err {line}:{column} {message}");
                let ok = want.strip_prefix("err ").is_some_and(|w| {
                    let (pos, msg) = w.split_once(' ').unwrap_or((w, ""));
                    pos == format!("{line}:{column}") && message.contains(msg)
                });
                (got, if ok { format!("err {line}:{column} {message}") } else { want.into() })
            }
            Err(Error::Limit(message)) => {
                let ok = want.strip_prefix("limit ").is_some_and(|w| message.contains(w));
                let got = format!("limit {message}");
                (got.clone(), if ok { got } else { want.into() })
            }
            Err(other) => (format!("other {other}"), want.to_string()),
        };
        if got.0 != got.1 {
            let shown: String = src.chars().take(80).collect();
            failures.push(format!("{shown:?}\n   want: {}\n    got: {}", got.1, got.0));
        }
    }
    assert!(failures.is_empty(), "{} failing cases:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn statements() {
    check(&[
        ("a = ones(4)", "(= a (call ones 4))"),
        ("a, b = x", "(= (a b) x)"),
        ("(a, b) = x", "(= (a b) x)"),
        ("[a, b] = b, a", "(= (a b) (tuple b a))"),
        ("x = 1, 2", "(= x (tuple 1 2))"),
        ("x = 1,", "(= x (tuple 1))"),
        ("a += 1", "(+= a 1)"),
        ("a -= 1", "(-= a 1)"),
        ("a *= 2", "(*= a 2)"),
        ("a /= 2", "(/= a 2)"),
        ("a //= 2", "(//= a 2)"),
        ("a %= 2", "(%= a 2)"),
        ("a **= 2", "(**= a 2)"),
        ("a @= b", "(@= a b)"),
        ("a &= b", "(&= a b)"),
        ("a |= b", "(|= a b)"),
        ("a ^= b", "(^= a b)"),
        ("a[1:] *= 2", "(*= (idx a (: 1 _ _)) 2)"),
        ("a += 1, 2", "(+= a (tuple 1 2))"),
        ("a[1] = 99", "(setitem a [1] 99)"),
        ("a[1, 2:] = b[0]", "(setitem a [1 (: 2 _ _)] (idx b 0))"),
        ("a[0][1] = 2", "(setitem (idx a 0) [1] 2)"),
        ("a.t()[0] = 5", "(setitem (call (. a t)) [0] 5)"),
        ("a.add_(1)", "(call (. a add_) 1)"),
        ("a", "a"),
        ("a, b", "(tuple a b)"),
        ("a = 1; b = 2", "(= a 1) | (= b 2)"),
        ("a = 1;", "(= a 1)"),
        ("a = 1 ;  \n\n  # c\nb", "(= a 1) | b"),
        ("", ""),
        ("\n\n# only a comment\n   \n", ""),
        ("import torch\nimport torch.nn.functional as F, numpy as np\nx = 1", "(= x 1)"),
        ("from torch import *\nfrom torch.nn import functional as F\nfrom . import a", ""),
        ("from torch import (zeros,\n ones as o,)\nx = zeros(1)", "(= x (call zeros 1))"),
        ("import torch; a = torch.ones(2)", "(= a (call (. torch ones) 2))"),
        ("x = (\n  1 +\n  2\n)", "(= x (+ 1 2))"),
        ("x = 1 + \\\n  2", "(= x (+ 1 2))"),
        ("x = 1\r\ny = 2\r\n", "(= x 1) | (= y 2)"),
        ("a = f(1,  # one\n      2)  # two", "(= a (call f 1 2))"),
    ]);
}

#[test]
fn blocks() {
    check(&[
        ("if a:\n    b\nelif c:\n    d\nelse:\n    e", "(if a {b} {(if c {d} {e})})"),
        ("if a: b; c\nd", "(if a {b; c} {}) | d"),
        (
            "for i in range(3):\n    x[i] += i\n\n    # c\n    y = i",
            "(for i (call range 3) {(+= (idx x i) i); (= y i)})",
        ),
        ("for i, (a, b) in enumerate(z):\n  pass", "(for (i (a b)) (call enumerate z) {pass})"),
        (
            "while n < 3:\n    n += 1\n    if n: break\n    continue",
            "(while (< n 3) {(+= n 1); (if n {break} {}); continue})",
        ),
        (
            "with torch.no_grad(), g() as h:\n    x.sub_(1)",
            "(with [(call (. torch no_grad)) (call g) as h] {(call (. x sub_) 1)})",
        ),
        ("def f(a, b=2, *, c=3): pass", "(def f [a b=2 * c=3] {pass})"),
        ("def f(a, *rest, k, **kw): pass", "(def f [a *rest k **kw] {pass})"),
        ("def f(a, /, b): pass", "(def f [a b] {pass})"),
        ("def f(**kw, a): pass", "err 1:13 arguments cannot follow var-keyword argument"),
        ("def f(*a, *b): pass", "err 1:11 * argument may appear only once"),
        (
            "try:\n    a\nexcept (E, F) as e:\n    b\nexcept:\n    raise\nelse:\n    c\nfinally:\n    d",
            "(try {a} (except (tuple E F) as e {b}) (except _ {(raise)}) {c} {d})",
        ),
        ("try:\n    a\nfinally:\n    raise E('m') from x", "(try {a}  {} {(raise (call E \"m\"))})"),
        ("def f(a: int, b=2) -> int:\n    return a * b", "(def f [a b=2] {(return (* a b))})"),
        ("def f():\n    return", "(def f [] {(return)})"),
        ("assert a, 'm'\ndel a, b", "(assert a \"m\") | (del a b)"),
        ("if a:\n\tb\n\tc", "(if a {b; c} {})"),
        ("if a:\n    if b:\n        c\nd", "(if a {(if b {c} {})} {}) | d"),
    ]);
}

#[test]
fn python_expressions() {
    check(&[
        ("a and b or not c", "(or (and a b) (not c))"),
        ("not a == b", "(not (== a b))"),
        ("a in b", "(in a b)"),
        ("a not in b", "(not in a b)"),
        ("a is not None", "(is not a None)"),
        ("x = a if b else c if d else e", "(= x (ifexp b a (ifexp d c e)))"),
        ("[x * 2 for x in y if x for z in w]", "(listcomp (* x 2) (for x y (if x)) (for z w))"),
        ("sum(t for t in ts)", "(call sum (genexp t (for t ts)))"),
        ("(a for a, b in p)", "(genexp a (for (a b) p))"),
        ("f'a{x}b{y!r:>4}{{z}}'", "(f \"a\" {x} \"b\" {y!r:>4} \"{z}\")"),
        ("f'{x = }' 'tail'", "(f {\"x = \" x} \"tail\")"),
        ("'a' f'{1 + 2:.2f}'", "(f \"a\" {(+ 1 2):.2f})"),
        ("f'{d[\"k\"]}'", "(f {(idx d \"k\")})"),
        ("class A: pass", "(class A [] {pass})"),
        (
            "class N(nn.Module):\n    def f(self, x):\n        return x",
            "(class N [(. nn Module)] {(def f [self x] {(return x)})})",
        ),
    ]);
}

#[test]
fn refused_statements() {
    check(&[
        ("class A:\nx = 1", "err 2:1 expected an indented block after class definition on line 1"),
        ("try: a", "err 1:7 expected 'except' or 'finally' block"),
        ("try:\n    a\nexcept:\n    b\nexcept E:\n    c", "err 5:1 default 'except:' must be last"),
        ("return a", "err 1:1 'return' outside function"),
        ("break", "err 1:1 'break' outside loop"),
        ("def f():\n    break", "err 2:5 'break' outside loop"),
        ("for i in x:\n    def f():\n        continue", "err 3:9 'continue' outside loop"),
        ("for i in x:\na", "err 2:1 expected an indented block after 'for' statement on line 1"),
        ("if a:\n    b\n  c", "err 3:3 unindent does not match any outer indentation level"),
        ("if a:\n    b\nelse:\nc", "err 4:1 expected an indented block after 'else' statement on line 3"),
        ("for i in x: a\nelse: b", "(for i x {a} else {b})"),
        ("while c:\n    break\nelse:\n    b", "(while c {break} else {b})"),
        ("def f(*a): pass", "(def f [*a] {pass})"),
        ("def f():\n    global a, b\n    a = 1", "(def f [] {(global a b); (= a 1)})"),
        ("@torch.no_grad()\n@d\ndef f(): pass", "(def f [] {pass})"),
        ("@d\nclass A: pass", "err 2:1 class decorators are not supported"),
        ("@d\nx = 1", "err 2:1 invalid syntax"),
        ("def f(a=1, b): pass", "err 1:12 parameter without a default follows parameter with a default"),
        ("def f(a, a): pass", "err 1:10 duplicate argument 'a'"),
        ("del f(a)", "err 1:5 deleting function call is not supported"),
        ("del a[0], b", "err 1:5 deleting subscript is not supported"),
        ("x = f'{}'", "err 1:7 f-string: empty expression not allowed"),
        ("x = f'{a'", "err 1:7 f-string: expecting '}'"),
        ("x = f'a}'", "err 1:8 f-string: single '}' is not allowed"),
        ("x = f'{a!z}'", "err 1:9 invalid conversion character"),
        ("x = f'{a +}'", "err 1:11 invalid syntax"),
        ("x = a if b", "err 1:11 expected 'else' after 'if' expression"),
        ("f = lambda x, y=2: x * y", "(= f (lambda [x y=2] {(return (* x y))}))"),
        ("f = lambda: 0", "(= f (lambda [] {(return 0)}))"),
        ("f = lambda *a, **k: a", "(= f (lambda [*a **k] {(return a)}))"),
        ("a.b = 1", "(setattr a b 1)"),
        ("a.b += 1", "(+= (. a b) 1)"),
        ("a = b = c", "err 1:7 chained assignment"),
        ("a[0] = b[0] = 1", "err 1:13 chained assignment"),
        ("f() = 1", "err 1:1 cannot assign to function call"),
        ("1 = a", "err 1:1 cannot assign to literal"),
        ("None = a", "err 1:1 cannot assign to None"),
        ("a + b = 1", "err 1:1 cannot assign to expression"),
        ("a, b += 1", "err 1:1 'tuple' is an illegal expression for augmented assignment"),
        ("f() += 1", "err 1:1 'function call' is an illegal expression"),
        ("a, = x", "(= (a) x)"),
        ("() = x", "err 1:1 unpacking into an empty target is not supported"),
        ("a, b[0] = x", "err 1:4 cannot unpack into subscript"),
        ("a, (b.c, d) = x", "err 1:5 cannot unpack into attribute"),
        ("x: int = 1", "err 1:2 annotated assignments are not supported"),
        ("a <<= 1", "err 1:3 '<<=' is not supported"),
        ("a = 1;; b", "err 1:7 invalid syntax"),
        ("; a", "err 1:1 invalid syntax"),
        ("a b", "err 1:3 invalid syntax"),
        ("import", "err 1:7 invalid syntax"),
        ("import torch as", "err 1:16 invalid syntax"),
        ("from torch zeros", "err 1:12 invalid syntax"),
        ("x = 1\n  y = 2", "err 2:3 unexpected indent"),
        ("  x = 1", "err 1:3 unexpected indent"),
        ("else: a", "err 1:1 invalid syntax"),
    ]);
}

#[test]
fn expressions() {
    check(&[
        // Precedence, lowest to highest.
        ("a < b | c", "(< a (| b c))"),
        ("a | b ^ c", "(| a (^ b c))"),
        ("a ^ b & c", "(^ a (& b c))"),
        ("a & b + c", "(& a (+ b c))"),
        ("a & b << c + d", "(& a (<< b (+ c d)))"),
        ("a >> b | c", "(| (>> a b) c)"),
        ("-2 ** 70 << 1", "(<< (neg (** 2 70)) 1)"),
        ("a + b * c", "(+ a (* b c))"),
        ("a - b - c", "(- (- a b) c)"),
        ("a / b // c % d @ e", "(@ (% (// (/ a b) c) d) e)"),
        ("-a * b", "(* (neg a) b)"),
        ("-2**2", "(neg (** 2 2))"),
        ("2**-1", "(** 2 (neg 1))"),
        ("2**3**2", "(** 2 (** 3 2))"),
        ("-a.b", "(neg (. a b))"),
        ("~a + +b", "(+ (inv a) (pos b))"),
        ("- - a", "(neg (neg a))"),
        ("a.b ** c[0]", "(** (. a b) (idx c 0))"),
        ("(a + b) * c", "(* (+ a b) c)"),
        ("a == b", "(== a b)"),
        ("a != b", "(!= a b)"),
        ("a <= b", "(<= a b)"),
        ("a >= b", "(>= a b)"),
        ("a > b + 1", "(> a (+ b 1))"),
        ("(a < b) < c", "(< (< a b) c)"),
        ("a, (b, c) = f(x)", "(unpack (a (b c)) (call f x))"),
        ("[a, [b, (c, d)]] = x", "(unpack (a (b (c d))) x)"),
        ("a < b < c", "(cmp a < b < c)"),
        ("a == b != c is not d", "(cmp a == b != c is not d)"),
        ("0 <= i + 1 < n | m", "(cmp 0 <= (+ i 1) < (| n m))"),
        ("a < (b < c) < d", "(cmp a < (< b c) < d)"),
        ("not a < b in c", "(not (cmp a < b in c))"),
        ("x = a < b and b < c < d", "(= x (and (< a b) (cmp b < c < d)))"),
        // Postfix forms.
        ("torch.arange(6.).reshape(2, 3).T", "(. (call (. (call (. torch arange) 6.0f) reshape) 2 3) T)"),
        ("f(1, x, dim=1, keepdim=True)", "(call f 1 x dim=1 keepdim=True)"),
        ("f(out=a,)", "(call f out=a)"),
        ("f()", "(call f)"),
        ("f(a)(b)", "(call (call f a) b)"),
        ("f(a == b)", "(call f (== a b))"),
        ("a[1, ::2, None, ..., -1]", "(idx a 1 (: _ _ 2) None ... (neg 1))"),
        ("a[:]", "(idx a (: _ _ _))"),
        ("a[::]", "(idx a (: _ _ _))"),
        ("a[1:2:3]", "(idx a (: 1 2 3))"),
        ("a[:-1]", "(idx a (: _ (neg 1) _))"),
        ("a[i+1:]", "(idx a (: (+ i 1) _ _))"),
        ("a[1,]", "(idx a 1)"),
        ("a[(1, 2)]", "(idx a (tuple 1 2))"),
        ("a[[0, 2]]", "(idx a [0 2])"),
        ("a[b[0]:]", "(idx a (: (idx b 0) _ _))"),
        ("a[0][1]", "(idx (idx a 0) 1)"),
        // Atoms.
        ("1_000 + 0x10 + 0b1 + 0o17 + 0X_f", "(+ (+ (+ (+ 1000 16) 1) 15) 15)"),
        // Python's ints have no size limit: literals past 64 bits are big ints (decimal digits).
        ("x = 9223372036854775808", "(= x 9223372036854775808)"),
        ("x = 0xffffffffffffffffff", "(= x 4722366482869645213695)"),
        ("x = 1_0000_0000_0000_0000_0000", "(= x 100000000000000000000)"),
        ("x = 9223372036854775807", "(= x 9223372036854775807)"),
        ("00 + 0", "(+ 0 0)"),
        (
            "12. + .5 + 1e-3 + 2.5E+2 + 1_0.2_5 + 1.e2 + 0e0",
            "(+ (+ (+ (+ (+ (+ 12.0f 0.5f) 0.001f) 250.0f) 10.25f) 100.0f) 0.0f)",
        ),
        ("1e400", "inff"),
        ("True, False, None", "(tuple True False None)"),
        ("'a' + \"b\"", "(+ \"a\" \"b\")"),
        (r#"'it\'s' "\"q\"" '\n\t\\' '\x41\u00e9\101' '\d'"#, r#""it's\"q\"\n\t\\AéA\\d""#),
        (r"r'\d\'' R'\\'", r#""\\d\\'\\\\""#),
        ("u'x'", "\"x\""),
        ("'é' + 'x'", "(+ \"é\" \"x\")"),
        ("'a\\\nb'", "\"ab\""),
        ("()", "(tuple )"),
        ("(1,)", "(tuple 1)"),
        ("(1, 2)", "(tuple 1 2)"),
        ("(1, 2,)", "(tuple 1 2)"),
        ("((0, 1), (0, 9),)", "(tuple (tuple 0 1) (tuple 0 9))"),
        ("(a)", "a"),
        ("[]", "[]"),
        ("[1, [2, 3]]", "[1 [2 3]]"),
        ("[1, 2,]", "[1 2]"),
        ("...", "..."),
        ("élan = 1", "(= élan 1)"),
        ("match = type", "(= match type)"),
        ("a = (\n1,\n2,\n)", "(= a (tuple 1 2))"),
        ("d = {\"lr\": 0.1, k: [1],}", "(= d {\"lr\": 0.1f k: [1]})"),
        ("d = {}", "(= d {})"),
    ]);
}

#[test]
fn refused_expressions() {
    check(&[
        ("{1, 2}", "err 1:3 set displays are not supported"),
        ("{k: 1 for k in a}", "(dictcomp (tuple k 1) (for k a))"),
        ("{k: v for k, v in d.items() if v}", "(dictcomp (tuple k v) (for (k v) (call (. d items)) (if v)))"),
        ("{1: 2, k: v for k in a}", "err 1:13 invalid syntax"),
        ("f(*a)", "(call f (* a))"),
        ("f(x, *a, y=1, **k)", "(call f x (* a) (** k) y=1)"),
        ("x = (*a, 1)", "(= x (tuple (* a) 1))"),
        ("x = [*a, *b]", "(= x [(* a) (* b)])"),
        ("f(**k, *a)", "err 1:8 iterable argument unpacking follows keyword argument unpacking"),
        ("f(**k, a)", "err 1:8 positional argument follows keyword argument unpacking"),
        ("x = *a", "err 1:5 can't use starred expression here"),
        ("a, *b = c", "(unpack (a *b) c)"),
        ("*a, (b, c) = d", "(unpack (*a (b c)) d)"),
        ("a, *b, *c = d", "err 1:8 multiple starred expressions in assignment"),
        ("for a, *b in c: pass", "(for (a *b) c {pass})"),
        ("for *b in c: pass", "err 1:8 starred assignment target must be in a list or tuple"),
        ("yield 1", "err 1:1 'yield' outside function"),
        ("x = yield 1", "err 1:5 'yield' outside function"),
        ("def f():\n    yield", "(def f [] {(yield)})"),
        ("def f():\n    yield a, b", "(def f [] {(yield (tuple a b))})"),
        ("def f():\n    x = yield 1", "(def f [] {(x = yield 1)})"),
        ("def f():\n    x, y = yield", "(def f [] {((x y) = yield)})"),
        ("def f():\n    yield from g()", "(def f [] {(yield from (call g))})"),
        (
            "def f():\n    x = yield from g()",
            "err 2:9 'x = yield from ...' is not supported; only 'yield from ...' alone",
        ),
        (
            "def f():\n    print((yield))",
            "err 2:12 'yield' is supported as a statement of its own only ('yield x', 'x = yield y', 'yield from xs')",
        ),
        (
            "def f():\n    try:\n        yield 1\n    finally:\n        pass",
            "err 3:9 'yield' inside 'try' is not supported",
        ),
        ("class C:\n    yield 1", "err 2:5 'yield' outside function"),
        ("(a := 1)", "err 1:4 ':=' is not supported"),
        ("f(dim=1, 2)", "err 1:10 positional argument follows keyword argument"),
        ("f(dim=1, dim=2)", "err 1:10 keyword argument repeated: dim"),
        ("f(a.b=1)", "err 1:3 expression cannot contain assignment"),
        ("f(1 2)", "err 1:5 invalid syntax. Perhaps you forgot a comma?"),
        ("[1 2]", "err 1:4 Perhaps you forgot a comma?"),
        ("a[1 2]", "err 1:5 Perhaps you forgot a comma?"),
        ("(1 2)", "err 1:4 Perhaps you forgot a comma?"),
        ("f(1; 2)", "err 1:4 expected ')'"),
        ("a[1 = 2]", "err 1:5 expected ']'"),
        ("a[]", "err 1:3 invalid syntax"),
        ("a.1", "err 1:2 invalid syntax"),
        ("a.", "err 1:3 invalid syntax"),
        ("x = ", "err 1:5 invalid syntax"),
        ("x = \n", "err 1:5 invalid syntax"),
        ("a +", "err 1:4 invalid syntax"),
        ("1j", "err 1:1 complex numbers are not supported"),
        ("b'x'", "err 1:1 bytes literals are not supported"),
        ("'''x'''", "err 1:1 triple-quoted strings are not supported"),
        ("x = 012", "err 1:5 leading zeros"),
        ("1__0", "err 1:1 invalid decimal literal"),
        ("1_", "err 1:1 invalid decimal literal"),
        ("1e", "err 1:1 invalid decimal literal"),
        ("1abc", "err 1:1 invalid decimal literal"),
        ("0x", "err 1:1 invalid hexadecimal literal"),
        ("0b2", "err 1:1 invalid binary literal"),
        ("0o8", "err 1:1 invalid octal literal"),
        ("'\\x4'", "err 1:1 truncated \\x escape"),
        ("'\\N{DASH}'", "err 1:1 \\N{...} escapes are not supported"),
    ]);
}

#[test]
fn lexical_errors() {
    check(&[
        ("a = 'abc", "err 1:5 unterminated string literal"),
        ("a = \"abc\nb = 1", "err 1:5 unterminated string literal"),
        ("x = 1\ny = 'é", "err 2:5 unterminated string literal"),
        ("a = f(1))", "err 1:9 unmatched ')'"),
        ("]", "err 1:1 unmatched ']'"),
        ("a = f(1]", "err 1:8 closing parenthesis ']' does not match opening parenthesis '('"),
        ("a = f(1,\n]", "err 2:1 does not match opening parenthesis '(' on line 1"),
        ("a = f(1,\n  2", "err 1:6 '(' was never closed"),
        ("a = [(1, 2)", "err 1:5 '[' was never closed"),
        ("x = $", "err 1:5 invalid character '$' (U+0024)"),
        ("é = 1 €", "err 1:7 invalid character '€' (U+20AC)"),
        ("x = 1\u{a0}+ 2", "err 1:6 invalid non-printable character U+00A0"),
        ("x = 1 \\ 2", "err 1:7 unexpected character after line continuation"),
        ("x = 1 \\", "err 1:7 unexpected EOF while parsing"),
        // The first error in reading order wins, whether the parser's or the lexer's.
        ("a b\nc = 'x", "err 1:3 invalid syntax"),
        ("a = 'x\nb c", "err 1:5 unterminated string literal"),
    ]);
}

#[test]
fn spans_and_sources() {
    check(&[
        ("a = b + c", "at (= a (+ b@1:5 c@1:9)@1:5)@1:1"),
        ("x = -a.t()[1:]", "at (= x (neg (idx (call (. a@1:6 t)@1:6)@1:6 (: 1@1:12 _ _)@1:12)@1:6)@1:5)@1:1"),
        ("a = 1; b = (2,)", "at (= a 1@1:5)@1:1 | (= b (tuple 2@1:13)@1:12)@1:8"),
        ("f(k=v)", "at (call f@1:1 k=v@1:5)@1:1@1:1"),
        ("\n\n  \n# c\nq", "at q@5:1@5:1"),
        ("é = 'ü' + b", "at (= é (+ \"ü\"@1:5 b@1:11)@1:5)@1:1"),
        ("a = x[::2, ...]", "at (= a (idx x@1:5 (: _ _ 2@1:9)@1:7 ...@1:12)@1:5)@1:1"),
        ("a = f(1,\n      2)\nb = 3", "at (= a (call f@1:5 1@1:7 2@2:7)@1:5)@1:1 | (= b 3@3:5)@3:1"),
        ("a = 1  # set a\nb = a  ", "src a = 1 | b = a"),
        ("a = 1;b = 2 ; c", "src a = 1 | b = 2 | c"),
        ("a = f(1,  # one\n      2)", "src a = f(1, 2)"),
        ("a = f(\n  1,\n  2\n)", "src a = f(1, 2)"),
        ("a = [\n  1,\n  2,\n]", "src a = [1, 2,]"),
        ("a = 1 + \\\n    2", "src a = 1 + 2"),
        ("import torch\nx = torch.ones(2)", "src x = torch.ones(2)"),
    ]);
}

/// Depth and size limits: at the limit a trace parses, one past it is refused without
/// exhausting the stack.
#[test]
fn limits() {
    let nest = |open: &str, close: &str, n: usize| format!("x = {}1{}", open.repeat(n), close.repeat(n));
    let stmts = |n: usize| "a = 1\n".repeat(n);
    let deep_list = format!("(= x {}1{})", "[".repeat(200), "]".repeat(200));
    let chain = |n: usize| format!("x = 1{}", " + 1".repeat(n));
    let methods = |n: usize| format!("x = a{}", ".t()".repeat(n));
    let long_line = format!("x = [{}]", "1, ".repeat(300_000));
    let sum = format!("(= x {}1{})", "(+ ".repeat(200), " 1)".repeat(200));
    let cases: Vec<(String, String)> = vec![
        (nest("(", ")", 200), "(= x 1)".into()),
        (nest("(", ")", 201), "err 1:205 nested too deeply".into()),
        (nest("(", ")", 100_000), "err 1:205 nested too deeply".into()),
        (nest("[", "]", 200), deep_list),
        (nest("[", "]", 201), "err 1:205 nested too deeply".into()),
        (nest("-", "", 201), "err 1:205 nested too deeply".into()),
        (nest("f(", ")", 201), "err 1:".to_string() + &(5 + 200 * 2 + 1).to_string() + " nested too deeply"),
        (nest("a[", "]", 201), "err 1:".to_string() + &(5 + 200 * 2 + 1).to_string() + " nested too deeply"),
        (
            format!("x = {}1", "2**".repeat(201)),
            "err 1:".to_string() + &(5 + 200 * 3 + 1).to_string() + " nested too deeply",
        ),
        (chain(200), sum),
        (chain(201), "err 1:5 nested too deeply".into()),
        (chain(100_000), "err 1:5 nested too deeply".into()),
        (methods(100), format!("(= x {}a{})", "(call (. ".repeat(100), " t))".repeat(100))),
        (methods(101), "err 1:5 nested too deeply".into()),
        (stmts(10_000), "src ".to_string() + &vec!["a = 1"; 10_000].join(" | ")),
        (stmts(10_001), "limit trace has more than 10000 statements".into()),
        (format!("import torch\n{}", stmts(10_000)), "src ".to_string() + &vec!["a = 1"; 10_000].join(" | ")),
        (long_line.clone(), format!("(= x [{}])", vec!["1"; 300_000].join(" "))),
        (
            format!("{long_line}{}", " ".repeat((1 << 20) - long_line.len())),
            format!("(= x [{}])", vec!["1"; 300_000].join(" ")),
        ),
        (
            format!("{long_line}{}", " ".repeat((1 << 20) + 1 - long_line.len())),
            "limit trace is longer than 1 MiB".into(),
        ),
    ];
    // Unoptimized builds keep every local in its own stack slot, about 10 KiB per bracket level
    // (release needs about 1.2 KiB, so 200 levels fit easily in wasm's 1 MiB default stack);
    // give the debug run room instead of relying on the 2 MiB test-thread default.
    let runner = std::thread::Builder::new().stack_size(8 << 20);
    runner.spawn(move || check(&cases)).unwrap().join().unwrap();
}

/// Every hand-written acceptance trace parses, one statement per line, each statement's source
/// being its line.
#[test]
fn acceptance_traces() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/acceptance");
    let dir = if dir.is_dir() { dir } else { std::path::PathBuf::from("/work/shared/acceptance") };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("skipped: no acceptance directory at {}", dir.display());
        return;
    };
    let mut cases = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        // The trace sample (check_traces.py's files); the catalogue and bridge records hold
        // whole Python snippets and non-standard JSON numbers, and have their own checkers.
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !matches!(name, "torch_public.json" | "tinygrad_public.json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable acceptance file");
        let json: serde_json::Value = serde_json::from_str(&text).expect("acceptance file is JSON");
        let list = json.get("cases").and_then(|c| c.as_array()).expect("a 'cases' array");
        for case in list {
            if let Some(src) = case.get("source").and_then(|s| s.as_str()) {
                let lines: Vec<&str> = src
                    .lines()
                    .map(|l| l.trim_end())
                    .filter(|l| !l.is_empty() && !l.trim_start().starts_with('#'))
                    .collect();
                cases.push((src.to_string(), format!("src {}", lines.join(" | "))));
            }
        }
    }
    assert!(!cases.is_empty(), "no acceptance traces found in {}", dir.display());
    check(&cases);
}
