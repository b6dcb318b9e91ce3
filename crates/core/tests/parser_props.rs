//! Property checks of the trace parser: arbitrary text and token soup never panic and every
//! position reported lies in the input; generated trees survive printing and re-parsing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use stridelab_core::trace::lang::ast::{BinOp, Expr, ExprKind, Program, Span, Stmt, StmtKind, UnaryOp};
use stridelab_core::trace::lang::parser::parse;
use stridelab_core::Error;

/// Whether `span` names a character of `src`, or the end of a line (1-based, chars).
fn valid(src: &str, span: Span) -> bool {
    let Some(line) = src.split('\n').nth(span.line.wrapping_sub(1)) else {
        return false;
    };
    span.column >= 1 && span.column <= line.chars().count() + 1
}

fn expr_spans(e: &Expr, out: &mut Vec<Span>) {
    out.push(e.span);
    let mut each = |items: &[Expr]| items.iter().for_each(|i| expr_spans(i, out));
    match &e.kind {
        ExprKind::Tuple(items) | ExprKind::List(items) => each(items),
        ExprKind::Unary { operand, .. } => expr_spans(operand, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            expr_spans(lhs, out);
            expr_spans(rhs, out);
        }
        ExprKind::Call { func, args, kwargs } => {
            expr_spans(func, out);
            args.iter().for_each(|a| expr_spans(a, out));
            kwargs.iter().for_each(|(_, v)| expr_spans(v, out));
        }
        ExprKind::Attr { value, .. } => expr_spans(value, out),
        ExprKind::Index { value, items } => {
            expr_spans(value, out);
            items.iter().for_each(|i| expr_spans(i, out));
        }
        ExprKind::Slice { start, stop, step } => {
            for part in [start, stop, step].into_iter().flatten() {
                expr_spans(part, out);
            }
        }
        _ => {}
    }
}

fn stmt_exprs(s: &Stmt) -> Vec<&Expr> {
    match &s.kind {
        StmtKind::Assign { value, .. } => vec![value],
        StmtKind::AugAssign { target, value, .. } => vec![target, value],
        StmtKind::SetItem { target, index, value } => {
            let mut v = vec![target, value];
            v.extend(index.iter());
            v
        }
        StmtKind::Expr(e) => vec![e],
        StmtKind::If { test, .. } | StmtKind::While { test, .. } | StmtKind::Assert { test, .. } => vec![test],
        StmtKind::For { iter, .. } => vec![iter],
        StmtKind::Return(Some(e)) => vec![e],
        _ => Vec::new(),
    }
}

/// Parses `src` and checks that whatever comes back points inside it.
fn check_positions(src: &str) -> Result<(), TestCaseError> {
    match parse(src) {
        Ok(program) => {
            for stmt in &program.stmts {
                let mut spans = vec![stmt.span];
                for e in stmt_exprs(stmt) {
                    expr_spans(e, &mut spans);
                }
                for span in spans {
                    prop_assert!(valid(src, span), "span {span:?} outside {src:?}");
                }
            }
        }
        Err(Error::Parse { line, column, message }) => {
            prop_assert!(valid(src, Span { line, column }), "error {line}:{column} ({message}) outside {src:?}");
            prop_assert!(!message.is_empty());
        }
        Err(Error::Limit(_)) => {}
        Err(other) => prop_assert!(false, "unexpected error kind {other:?}"),
    }
    Ok(())
}

const SOUP: &[&str] = &[
    "a",
    "b",
    "x1",
    "torch",
    "é",
    "view",
    "0",
    "1",
    "12.",
    ".5",
    "1e-3",
    "0x1f",
    "1_0",
    "99999999999999999999",
    "'s'",
    "\"t\"",
    "'un",
    "r'\\d'",
    "f'x'",
    "True",
    "None",
    "...",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ";",
    ".",
    "=",
    "==",
    "+=",
    "**=",
    "<<=",
    "+",
    "-",
    "*",
    "**",
    "/",
    "//",
    "%",
    "@",
    "&",
    "|",
    "^",
    "~",
    "<",
    "<=",
    "!=",
    "<<",
    ":=",
    "->",
    "#c",
    "\\",
    "\n",
    "\n  ",
    "\r\n",
    "\t",
    "import",
    "from",
    "as",
    "def",
    "lambda",
    "not",
    "and",
    "if",
    "for",
    "in",
    "$",
    "\u{a0}",
    "\0",
    "dim=",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec((prop::sample::select(SOUP), prop::sample::select(&["", " ", "  "][..])), 0..40)
        .prop_map(|parts| parts.into_iter().map(|(t, sep)| format!("{t}{sep}")).collect())
}

proptest! {
    #[test]
    fn random_text_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check_positions(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn random_ascii_never_panics(src in "[ -~\n\t]{0,120}") {
        check_positions(&src)?;
    }

    #[test]
    fn token_soup_never_panics(src in soup()) {
        check_positions(&src)?;
    }

    #[test]
    fn print_then_parse_round_trips(stmts in prop::collection::vec(stmt(), 1..6)) {
        let text: Vec<String> = stmts.iter().map(print_stmt).collect();
        let src = text.join("\n");
        let parsed = parse(&src);
        prop_assert!(parsed.is_ok(), "{src:?} did not parse: {parsed:?}");
        let mut program = parsed.unwrap();
        check_positions(&src)?;
        // Each statement's source is its printed line, and each name's span points at it.
        for (stmt, line) in program.stmts.iter().zip(&text) {
            prop_assert_eq!(&stmt.source, line);
            let mut names = Vec::new();
            for e in stmt_exprs(stmt) {
                collect_names(e, &mut names);
            }
            for (name, span) in names {
                let row = src.split('\n').nth(span.line - 1).unwrap_or("");
                let at: String = row.chars().skip(span.column - 1).take(name.chars().count()).collect();
                prop_assert_eq!(at, name);
            }
        }
        program.stmts.iter_mut().for_each(strip_stmt);
        prop_assert_eq!(program, Program { stmts, imports: Vec::new() });
    }
}

fn collect_names(e: &Expr, out: &mut Vec<(String, Span)>) {
    if let ExprKind::Name(n) = &e.kind {
        out.push((n.clone(), e.span));
    }
    let mut children = Vec::new();
    expr_children(e, &mut children);
    for c in children {
        collect_names(c, out);
    }
}

fn expr_children<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match &e.kind {
        ExprKind::Tuple(items) | ExprKind::List(items) => out.extend(items.iter()),
        ExprKind::Unary { operand, .. } => out.push(operand),
        ExprKind::Binary { lhs, rhs, .. } => out.extend([&**lhs, &**rhs]),
        ExprKind::Call { func, args, kwargs } => {
            out.push(func);
            out.extend(args.iter());
            out.extend(kwargs.iter().map(|(_, v)| v));
        }
        ExprKind::Attr { value, .. } => out.push(value),
        ExprKind::Index { value, items } => {
            out.push(value);
            out.extend(items.iter());
        }
        ExprKind::Slice { start, stop, step } => out.extend([start, stop, step].into_iter().flatten().map(|b| &**b)),
        _ => {}
    }
}

fn strip_expr(e: &mut Expr) {
    e.span = Span::default();
    match &mut e.kind {
        ExprKind::Tuple(items) | ExprKind::List(items) => items.iter_mut().for_each(strip_expr),
        ExprKind::Unary { operand, .. } => strip_expr(operand),
        ExprKind::Binary { lhs, rhs, .. } => {
            strip_expr(lhs);
            strip_expr(rhs);
        }
        ExprKind::Call { func, args, kwargs } => {
            strip_expr(func);
            args.iter_mut().for_each(strip_expr);
            kwargs.iter_mut().for_each(|(_, v)| strip_expr(v));
        }
        ExprKind::Attr { value, .. } => strip_expr(value),
        ExprKind::Index { value, items } => {
            strip_expr(value);
            items.iter_mut().for_each(strip_expr);
        }
        ExprKind::Slice { start, stop, step } => {
            for part in [start, stop, step].into_iter().flatten() {
                strip_expr(part);
            }
        }
        _ => {}
    }
}

fn strip_stmt(s: &mut Stmt) {
    s.span = Span::default();
    s.source = String::new();
    match &mut s.kind {
        StmtKind::Assign { value, .. } => strip_expr(value),
        StmtKind::AugAssign { target, value, .. } => {
            strip_expr(target);
            strip_expr(value);
        }
        StmtKind::SetItem { target, index, value } => {
            strip_expr(target);
            strip_expr(value);
            index.iter_mut().for_each(strip_expr);
        }
        StmtKind::Expr(e) => strip_expr(e),
        _ => unreachable!("only simple statements are generated"),
    }
}

// Generation: trees as the parser would build them (no negative literals, slices only as
// index items), with default spans, printed with enough parentheses to be unambiguous.

fn e(kind: ExprKind) -> Expr {
    Expr { span: Span::default(), kind }
}

fn name() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,4}".prop_filter("not a keyword", |n| {
        !matches!(
            n.as_str(),
            "and"
                | "as"
                | "def"
                | "del"
                | "elif"
                | "else"
                | "for"
                | "from"
                | "if"
                | "in"
                | "is"
                | "not"
                | "or"
                | "pass"
                | "try"
                | "with"
                | "async"
                | "await"
                | "break"
                | "class"
                | "raise"
                | "while"
                | "yield"
                | "assert"
                | "except"
                | "global"
                | "import"
                | "lambda"
                | "return"
                | "finally"
                | "continue"
                | "nonlocal"
        )
    })
}

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        name().prop_map(|n| e(ExprKind::Name(n))),
        (0..=i64::MAX).prop_map(|v| e(ExprKind::Int(v))),
        (0.0f64..1e20).prop_map(|v| e(ExprKind::Float(v))),
        any::<bool>().prop_map(|b| e(ExprKind::Bool(b))),
        "[a-z '\"\\\\\n\t]{0,5}".prop_map(|s| e(ExprKind::Str(s))),
        Just(e(ExprKind::None)),
        Just(e(ExprKind::Ellipsis)),
    ]
}

const BINOPS: [BinOp; 19] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::FloorDiv,
    BinOp::Mod,
    BinOp::Pow,
    BinOp::MatMul,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::Shl,
    BinOp::Shr,
];

fn expr() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(4, 40, 4, |inner| {
        let boxed = |x: Option<Expr>| x.map(Box::new);
        let slice = (prop::option::of(inner.clone()), prop::option::of(inner.clone()), prop::option::of(inner.clone()))
            .prop_map(move |(a, b, c)| e(ExprKind::Slice { start: boxed(a), stop: boxed(b), step: boxed(c) }));
        let item = prop_oneof![inner.clone(), slice];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| e(ExprKind::Tuple(v))),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| e(ExprKind::List(v))),
            (prop::sample::select(&[UnaryOp::Neg, UnaryOp::Pos, UnaryOp::Invert][..]), inner.clone())
                .prop_map(|(op, x)| e(ExprKind::Unary { op, operand: Box::new(x) })),
            (prop::sample::select(&BINOPS[..]), inner.clone(), inner.clone())
                .prop_map(|(op, l, r)| e(ExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) })),
            (
                inner.clone(),
                prop::collection::vec(inner.clone(), 0..3),
                prop::collection::btree_map(name(), inner.clone(), 0..3)
            )
                .prop_map(|(f, args, kw)| e(ExprKind::Call {
                    func: Box::new(f),
                    args,
                    kwargs: kw.into_iter().collect()
                })),
            (inner.clone(), name()).prop_map(|(v, name)| e(ExprKind::Attr { value: Box::new(v), name })),
            (inner.clone(), prop::collection::vec(item, 1..4))
                .prop_map(|(v, items)| e(ExprKind::Index { value: Box::new(v), items })),
        ]
    })
}

fn target() -> impl Strategy<Value = Expr> {
    prop_oneof![
        name().prop_map(|n| e(ExprKind::Name(n))),
        (name(), prop::collection::vec(expr(), 1..3))
            .prop_map(|(n, items)| e(ExprKind::Index { value: Box::new(e(ExprKind::Name(n))), items })),
    ]
}

fn stmt() -> impl Strategy<Value = Stmt> {
    let kind = prop_oneof![
        (prop::collection::vec(name(), 1..4), expr()).prop_map(|(targets, value)| StmtKind::Assign {
            unpack: targets.len() > 1,
            targets,
            value
        }),
        (target(), prop::sample::select(&BINOPS[..8]), expr())
            .prop_map(|(target, op, value)| { StmtKind::AugAssign { target, op, value } }),
        (name(), prop::collection::vec(expr(), 1..3), expr())
            .prop_map(|(n, index, value)| { StmtKind::SetItem { target: e(ExprKind::Name(n)), index, value } }),
        expr().prop_map(StmtKind::Expr),
    ];
    kind.prop_map(|kind| Stmt { span: Span::default(), source: String::new(), kind })
}

fn print_list(items: &[Expr]) -> String {
    items.iter().map(print).collect::<Vec<_>>().join(", ")
}

fn print(x: &Expr) -> String {
    match &x.kind {
        ExprKind::Name(n) => n.clone(),
        ExprKind::Int(v) => v.to_string(),
        ExprKind::BigInt(v) => v.clone(),
        ExprKind::Float(v) => format!("{v:?}"),
        ExprKind::Bool(b) => if *b { "True" } else { "False" }.into(),
        ExprKind::Str(s) => {
            let body: String = s
                .chars()
                .map(|c| match c {
                    '\\' => "\\\\".into(),
                    '\'' => "\\'".into(),
                    '\n' => "\\n".into(),
                    '\t' => "\\t".into(),
                    c => c.to_string(),
                })
                .collect();
            format!("'{body}'")
        }
        ExprKind::None => "None".into(),
        ExprKind::Ellipsis => "...".into(),
        ExprKind::Tuple(items) if items.len() == 1 => format!("({},)", print(&items[0])),
        ExprKind::Tuple(items) => format!("({})", print_list(items)),
        ExprKind::List(items) => format!("[{}]", print_list(items)),
        ExprKind::Unary { op, operand } => {
            let op = match op {
                UnaryOp::Neg => "-",
                UnaryOp::Pos => "+",
                UnaryOp::Invert => "~",
                UnaryOp::Not => "not ",
            };
            format!("({op}({}))", print(operand))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            format!("(({}) {} ({}))", print(lhs), op.symbol(), print(rhs))
        }
        ExprKind::Call { func, args, kwargs } => {
            let mut parts: Vec<String> = args.iter().map(print).collect();
            parts.extend(kwargs.iter().map(|(k, v)| format!("{k}={}", print(v))));
            format!("({})({})", print(func), parts.join(", "))
        }
        ExprKind::Attr { value, name } => format!("({}).{name}", print(value)),
        ExprKind::Index { value, items } => format!("({})[{}]", print(value), print_list(items)),
        ExprKind::Slice { start, stop, step } => {
            let part = |p: &Option<Box<Expr>>| p.as_ref().map_or(String::new(), |p| print(p));
            match step {
                Some(_) => format!("{}:{}:{}", part(start), part(stop), part(step)),
                None => format!("{}:{}", part(start), part(stop)),
            }
        }
        _ => unreachable!("not generated"),
    }
}

fn print_stmt(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Assign { targets, value, .. } => format!("{} = {}", targets.join(", "), print(value)),
        StmtKind::AugAssign { target, op, value } => {
            format!("{} {}= {}", print(target), op.symbol(), print(value))
        }
        StmtKind::SetItem { target, index, value } => {
            format!("{}[{}] = {}", print(target), print_list(index), print(value))
        }
        StmtKind::Expr(x) => print(x),
        _ => unreachable!("only simple statements are generated"),
    }
}
