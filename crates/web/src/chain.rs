//! The view chain of a tensor: from the tensor that owns its storage to the tensor itself, one row
//! per op, each row with all three models (PyTorch layout, tinygrad views, the bridge).
//!
//! The core keeps no op history on tensors, so the chain is read off the trace's own syntax: a
//! definition such as `b = a.t()[1:]` is the postfix chain `a`, `.t()`, `[1:]`, and `a` in turn is
//! followed back to its own definition. Each prefix is then evaluated as a statement of its own,
//! right where the definition ran, so every row is exactly what the runner computes.
//!
//! A name bound by unpacking (`q, k, v = x.chunk(3, -1)`) ends its chain with the pick of its
//! output (`[0]`); that row's tensor carries `torch.output_of`, which output of which op it is.

use serde_json::{json, Value as Json};
use stridelab_core::trace::lang::ast::{
    BoolOp, CompKind, Expr, ExprKind, FPart, Program, Star, Stmt, StmtKind, Target, UnaryOp,
};
use stridelab_core::trace::report::{report_value, ReportOptions, ValueList};

/// How many definitions back a chain is followed; deeper chains keep their nearest links.
const MAX_DEPTH: usize = 16;

/// The rows of `name`'s chain as defined by the first `upto` statements, root first. Each row is
/// `{op, expr, tensor}` where `tensor` has the report's per-tensor fields; rows whose prefix is
/// not a tensor (a module name such as `torch`) are left out.
pub fn chain(program: &Program, upto: usize, name: &str) -> Json {
    let mut rows = Vec::new();
    collect(program, upto.min(program.stmts.len()), name, MAX_DEPTH, &mut rows);
    Json::Array(rows)
}

/// The index of the statement among the first `upto` that last defined `name` by assignment (on
/// its own or unpacked): all a chain depends on, so callers can cache chains by it.
pub fn definition(program: &Program, upto: usize, name: &str) -> Option<usize> {
    program.stmts[..upto.min(program.stmts.len())].iter().rposition(|s| defines(s, name))
}

fn collect(program: &Program, upto: usize, name: &str, depth: usize, rows: &mut Vec<Json>) {
    let Some(def) = definition(program, upto, name) else {
        return;
    };
    let StmtKind::Assign { targets, value, unpack } = &program.stmts[def].kind else {
        return;
    };
    // `a, b = value` binds `value[0]` and `value[1]`; the last target of a name wins.
    let picked = unpack.then(|| targets.iter().rposition(|t| t == name)).flatten().map(|i| pick(value, i));
    let (root, ops) = postfix(value);
    if let ExprKind::Name(base) = &root.kind {
        if depth > 0 {
            collect(program, def, base, depth - 1, rows);
        }
    }
    // The root row is the previous definition's last row whenever that chain produced one.
    let skip_root = matches!(root.kind, ExprKind::Name(_)) && !rows.is_empty();
    let mut links: Vec<(&Expr, String)> = Vec::new();
    if !skip_root {
        links.push((root, unparse(root)));
    }
    links.extend(ops.iter().map(|e| (*e, op_label(e))));
    if let Some(p) = &picked {
        links.push((p, op_label(p)));
    }
    let mut stmts = program.stmts[..def].to_vec();
    let span = program.stmts[def].span;
    for (i, (e, _)) in links.iter().enumerate() {
        stmts.push(Stmt {
            span,
            source: unparse(e),
            kind: StmtKind::Assign { targets: vec![temp(i)], value: (*e).clone(), unpack: false },
        });
    }
    // The page's registered files, so prefixes that read `dataset(name)` evaluate as they ran.
    let mut run = crate::files::page_run();
    run.run_program(&Program { stmts, imports: program.imports.clone() });
    // The rows show layouts, not values: none are listed (a large tensor's would be most of the
    // report).
    let tensors = report_value(&mut run, ReportOptions { values: ValueList::First(0), ..ReportOptions::default() });
    for (i, (e, op)) in links.iter().enumerate() {
        if let Some(t) = tensors["tensors"].get(temp(i)) {
            let mut t = t.clone();
            if let Some(o) = t.as_object_mut() {
                o.remove("values");
                o.remove("values_total");
            }
            rows.push(json!({"op": op, "expr": unparse(e), "line": span.line, "tensor": t}));
        }
    }
}

fn temp(i: usize) -> String {
    format!("__chain{i}")
}

/// Whether `s` binds `name` by assignment, alone or as one of the names it unpacks into.
fn defines(s: &Stmt, name: &str) -> bool {
    matches!(&s.kind, StmtKind::Assign { targets, .. } if targets.iter().any(|t| t == name))
}

/// `value[i]`: the output an unpacking assignment binds to its `i`-th name.
fn pick(value: &Expr, i: usize) -> Expr {
    let index = Expr { span: value.span, kind: ExprKind::Int(i as i64) };
    Expr { span: value.span, kind: ExprKind::Index { value: Box::new(value.clone()), items: vec![index] } }
}

/// Splits `a.t()[1:]` into its root `a` and the successive postfix expressions, innermost first.
fn postfix(e: &Expr) -> (&Expr, Vec<&Expr>) {
    let mut ops = Vec::new();
    let mut cur = e;
    loop {
        let inner = match &cur.kind {
            ExprKind::Call { func, .. } => match &func.kind {
                ExprKind::Attr { value, .. } => value,
                _ => break,
            },
            ExprKind::Index { value, .. } | ExprKind::Attr { value, .. } => value,
            _ => break,
        };
        ops.push(cur);
        cur = inner;
    }
    ops.reverse();
    (cur, ops)
}

/// The name at the root of a postfix chain, if it is one (`a` in `a[1:].add_(1)`).
pub fn root_name(e: &Expr) -> Option<&str> {
    match &postfix(e).0.kind {
        ExprKind::Name(n) => Some(n),
        _ => None,
    }
}

/// A chain row's label: the op alone, without the receiver (`.t()`, `[1:]`).
fn op_label(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Call { func, args, kwargs } => match &func.kind {
            ExprKind::Attr { name, .. } => format!(".{name}({})", arguments(args, kwargs)),
            _ => unparse(e),
        },
        ExprKind::Index { items, .. } => format!("[{}]", list(items)),
        ExprKind::Attr { name, .. } => format!(".{name}"),
        _ => unparse(e),
    }
}

fn list(items: &[Expr]) -> String {
    items.iter().map(unparse).collect::<Vec<_>>().join(", ")
}

fn arguments(args: &[Expr], kwargs: &[(String, Expr)]) -> String {
    let mut parts: Vec<String> = args.iter().map(unparse).collect();
    parts.extend(kwargs.iter().map(|(k, v)| format!("{k}={}", unparse(v))));
    parts.join(", ")
}

/// Python source for an expression, as the trace language would read it back.
pub fn unparse(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(n) => n.clone(),
        ExprKind::Int(i) => i.to_string(),
        ExprKind::BigInt(digits) => digits.clone(),
        ExprKind::Float(x) => {
            let s = x.to_string();
            if s.contains(['.', 'e', 'i', 'N']) {
                s
            } else {
                format!("{s}.")
            }
        }
        ExprKind::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::None => "None".to_string(),
        ExprKind::Ellipsis => "...".to_string(),
        ExprKind::Tuple(items) if items.len() == 1 => format!("({},)", unparse(&items[0])),
        ExprKind::Tuple(items) => format!("({})", list(items)),
        ExprKind::List(items) => format!("[{}]", list(items)),
        ExprKind::Dict(pairs) => {
            let pairs: Vec<String> = pairs.iter().map(|(k, v)| format!("{}: {}", unparse(k), unparse(v))).collect();
            format!("{{{}}}", pairs.join(", "))
        }
        ExprKind::Unary { op, operand } => {
            let op = match op {
                UnaryOp::Neg => "-",
                UnaryOp::Pos => "+",
                UnaryOp::Invert => "~",
                UnaryOp::Not => "not ",
            };
            format!("{op}{}", unparse(operand))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            format!("({} {} {})", unparse(lhs), op.symbol(), unparse(rhs))
        }
        ExprKind::Compare { first, rest } => {
            let mut text = format!("({}", unparse(first));
            for (op, e) in rest {
                text.push_str(&format!(" {} {}", op.symbol(), unparse(e)));
            }
            text + ")"
        }
        ExprKind::Call { func, args, kwargs } => {
            format!("{}({})", unparse(func), arguments(args, kwargs))
        }
        ExprKind::Attr { value, name } => format!("{}.{name}", unparse(value)),
        ExprKind::Index { value, items } => format!("{}[{}]", unparse(value), list(items)),
        ExprKind::Slice { start, stop, step } => {
            let part = |p: &Option<Box<Expr>>| p.as_deref().map(unparse).unwrap_or_default();
            match step {
                Some(_) => format!("{}:{}:{}", part(start), part(stop), part(step)),
                None => format!("{}:{}", part(start), part(stop)),
            }
        }
        ExprKind::BoolOp { op, values } => {
            let sep = match op {
                BoolOp::And => " and ",
                BoolOp::Or => " or ",
            };
            format!("({})", values.iter().map(unparse).collect::<Vec<_>>().join(sep))
        }
        ExprKind::IfExp { test, body, orelse } => {
            format!("({} if {} else {})", unparse(body), unparse(test), unparse(orelse))
        }
        ExprKind::Comp { kind, elt, generators } => {
            // A dict comprehension's element is its `(key, value)` pair.
            let mut text = match (&elt.kind, kind) {
                (ExprKind::Tuple(kv), CompKind::Dict) if kv.len() == 2 => {
                    format!("{}: {}", unparse(&kv[0]), unparse(&kv[1]))
                }
                _ => unparse(elt),
            };
            for g in generators {
                text.push_str(&format!(" for {} in {}", target(&g.target), unparse(&g.iter)));
                for c in &g.ifs {
                    text.push_str(&format!(" if {}", unparse(c)));
                }
            }
            match kind {
                CompKind::List => format!("[{text}]"),
                CompKind::Generator => format!("({text})"),
                CompKind::Dict => format!("{{{text}}}"),
            }
        }
        ExprKind::Starred { value, star } => {
            format!("{}{}", if *star == Star::Items { "*" } else { "**" }, unparse(value))
        }
        ExprKind::Lambda(f) => {
            let mut params: Vec<String> = f
                .params
                .iter()
                .map(|(p, d)| d.as_ref().map_or_else(|| p.clone(), |d| format!("{p}={}", unparse(d))))
                .collect();
            match &f.var_args {
                Some(a) => params.insert(f.positional, format!("*{a}")),
                None if f.positional < f.params.len() => params.insert(f.positional, "*".into()),
                None => {}
            }
            if let Some(k) = &f.var_kwargs {
                params.push(format!("**{k}"));
            }
            let body = match f.body.first().map(|s| &s.kind) {
                Some(StmtKind::Return(Some(e))) => unparse(e),
                _ => "None".into(),
            };
            format!("(lambda {}: {body})", params.join(", "))
        }
        ExprKind::FString(parts) => {
            let mut text = String::new();
            for p in parts {
                match p {
                    FPart::Lit(s) => text.push_str(&s.replace('{', "{{").replace('}', "}}")),
                    FPart::Expr { expr, conv, spec, debug } => {
                        text.push('{');
                        match debug {
                            Some(d) => text.push_str(d),
                            None => text.push_str(&unparse(expr)),
                        }
                        if let Some(c) = conv {
                            text.push('!');
                            text.push(*c);
                        }
                        if !spec.is_empty() {
                            text.push(':');
                            text.push_str(spec);
                        }
                        text.push('}');
                    }
                }
            }
            format!("f{text:?}")
        }
    }
}

fn target(t: &Target) -> String {
    match t {
        Target::Name(n) => n.clone(),
        Target::Tuple(items) => format!("({})", items.iter().map(target).collect::<Vec<_>>().join(", ")),
        Target::Star(n) => format!("*{n}"),
    }
}
