//! The import graph of the library crates, checked for file-level circles and layering.
//!
//! Each `.rs` file under a crate's `src/` is one node, named by its module path (`lib.rs` and
//! `main.rs` are the crate root, `a/mod.rs` is `a`). An edge `a -> b` is a `crate::...`,
//! `super::...` or `self::...` path in `a`, or a relative one whose first segment names a child
//! module `a` declares with `mod child;` (`use child::X`, `pub use child::*`, `child::f()`), in
//! each case outside comments, strings and `#[cfg(test)]` items, whose longest prefix that names
//! a file module is `b`; edges to the crate root and to the file itself are dropped. Any
//! strongly connected component of more than one file is an import circle, and every edge a
//! layering rule forbids is reported with the rule's reason.
//!
//! `cargo xtask imports` prints the findings; the tests below fail with the same text.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The crates whose sources are checked, relative to the workspace root.
pub const CRATES: &[&str] = &["crates/core", "crates/gpu", "crates/web", "crates/web-runtime"];

/// One layering rule: a module under `from` must not import a module under `forbidden`.
pub struct Rule {
    pub krate: &'static str,
    pub from: &'static str,
    pub forbidden: &'static str,
    pub reason: &'static str,
}

const fn rule(from: &'static str, forbidden: &'static str, reason: &'static str) -> Rule {
    Rule { krate: "crates/core", from, forbidden, reason }
}

const GRAPH: &str = "the graph sits below every front end and the engine that records into it";
const FRONT_ENDS: &str = "the front ends (trace text, ONNX models, captures) never import each other";
const KERNELS: &str = "kernels are built from the engine's events, not from the trace language";
const PLANS: &str = "the training plan and the capture plan are runtimes of their own over shared leaves (sgemm, random, the ONNX writer)";
const LANG: &str = "the language is text to syntax: nothing in it knows what a name means";
const PYTHON: &str = "Python's values and builtins sit below the torch binding: they call torch ops and operators by name through the RunContext and print modules through layer::Repr";
const VALUE_TYPES: &str = "what a module and an optimizer are is generic over the value type, so Python's values can hold them without a circle";
const BINDING: &str = "the torch binding sits below nn, optim and the runner: they call it, it never calls them";
const NN: &str = "modules and optimizers are called by the runner, never the other way";
const REPORT: &str = "the report reads a finished run; the runner does not know how it is reported";

/// The layering of the core. Prefixes match whole module path segments (`trace` matches
/// `trace::interp::runner`, not `tracer`).
pub const RULES: &[Rule] = &[
    rule("uop", "tensor", GRAPH),
    rule("uop", "engine", GRAPH),
    rule("uop", "trace", GRAPH),
    rule("uop", "model", GRAPH),
    rule("uop", "capture", GRAPH),
    rule("uop", "onnx", GRAPH),
    rule("trace", "model", FRONT_ENDS),
    rule("trace", "onnx", FRONT_ENDS),
    rule("trace", "capture", FRONT_ENDS),
    rule("model", "trace", FRONT_ENDS),
    rule("onnx", "trace", FRONT_ENDS),
    rule("capture", "trace", FRONT_ENDS),
    rule("schedule", "trace", KERNELS),
    rule("codegen", "trace", KERNELS),
    rule("uop", "train", GRAPH),
    rule("trace", "train", FRONT_ENDS),
    rule("train", "trace", PLANS),
    rule("train", "engine", PLANS),
    rule("train", "capture", PLANS),
    rule("capture", "train", PLANS),
    rule("trace::lang", "trace::python", LANG),
    rule("trace::lang", "trace::binding", LANG),
    rule("trace::lang", "trace::nn", LANG),
    rule("trace::lang", "trace::interp", LANG),
    rule("trace::lang", "trace::report", LANG),
    rule("trace::python", "trace::binding", PYTHON),
    rule("trace::python", "trace::nn::modules", PYTHON),
    rule("trace::python", "trace::nn::optim", PYTHON),
    rule("trace::python", "trace::interp", PYTHON),
    rule("trace::python", "trace::report", PYTHON),
    rule("trace::nn::layer", "trace::python", VALUE_TYPES),
    rule("trace::nn::layer", "trace::binding", VALUE_TYPES),
    rule("trace::nn::optimizer", "trace::python", VALUE_TYPES),
    rule("trace::nn::optimizer", "trace::binding", VALUE_TYPES),
    rule("trace::binding", "trace::nn", BINDING),
    rule("trace::binding", "trace::interp", BINDING),
    rule("trace::binding", "trace::report", BINDING),
    rule("trace::nn", "trace::interp", NN),
    rule("trace::nn", "trace::report", NN),
    rule("trace::interp", "trace::report", REPORT),
];

/// A module path, `[]` for the crate root.
type ModPath = Vec<String>;

/// Where one import was written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Site {
    pub line: usize,
    pub path: String,
}

/// One crate's file modules and the edges between them, each with the first place it is written.
#[derive(Debug, Default)]
pub struct Graph {
    /// Module path -> the file's path as given.
    pub files: BTreeMap<ModPath, String>,
    pub edges: BTreeMap<ModPath, BTreeMap<ModPath, Site>>,
}

fn show(m: &[String]) -> String {
    if m.is_empty() {
        "crate".to_string()
    } else {
        m.join("::")
    }
}

/// The module path of a file given relative to `src/`, e.g. `uop/mod.rs` -> `uop`.
fn module_path(rel: &str) -> ModPath {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: ModPath = stem.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// Rust source as identifiers, `::` and single punctuation, each with its line; comments,
/// string, byte-string, raw-string and char literals dropped, lifetimes kept as identifiers.
fn tokenize(src: &str) -> Vec<(Tok, usize)> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(chars[i] == '\n');
                    i += 1;
                }
            }
        } else if let Some(end) = raw_string_end(&chars, i) {
            line += chars[i..end].iter().filter(|&&c| c == '\n').count();
            i = end;
        } else if c == '"' || (c == 'b' && at(i + 1) == '"') {
            i += if c == 'b' { 2 } else { 1 };
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                line += usize::from(at(i) == '\n');
                i += 1;
            }
            i += 1;
        } else if c == '\'' || (c == 'b' && at(i + 1) == '\'') {
            let start = if c == 'b' { i + 1 } else { i };
            // A char literal closes within a few characters; a lifetime or label does not.
            if at(start + 1) == '\\' {
                let mut j = start + 3;
                while j < chars.len() && chars[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if at(start + 2) == '\'' {
                i = start + 3;
            } else {
                i = start + 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Tok::Ident(chars[start..i].iter().collect()), line));
        } else if c == ':' && at(i + 1) == ':' {
            out.push((Tok::PathSep, line));
            i += 2;
        } else {
            out.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    out
}

/// The end of a raw (byte) string literal starting at `i`, if one starts there.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') || (i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')) {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"' && chars[j + 1..].iter().take(hashes).filter(|&&c| c == '#').count() == hashes {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(chars.len())
}

/// What one file imports, and which of its child modules are test-only (`#[cfg(test)] mod x;`).
struct Scan {
    /// (line, path as written, path resolved against the file's module).
    paths: Vec<(usize, String, ModPath)>,
    test_children: Vec<String>,
}

/// A path as written (its segments, leading `crate`, `self` or `super`s included) resolved
/// against `scope` (the module it is written in): `None` for one that starts with any other
/// name; that is relative, an edge only if the name is a child module `scope` declares.
fn resolve(scope: &[String], written: &[String]) -> Option<ModPath> {
    let (mut base, rest) = match written.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &written[1..]),
        Some("self") => (scope.to_vec(), &written[1..]),
        Some("super") => (scope.to_vec(), written),
        _ => return None,
    };
    let supers = rest.iter().take_while(|s| *s == "super").count();
    for _ in 0..supers {
        base.pop();
    }
    base.extend(rest[supers..].iter().cloned());
    Some(base)
}

fn is_punct(t: Option<&(Tok, usize)>, c: char) -> bool {
    matches!(t, Some((Tok::Punct(p), _)) if *p == c)
}

/// The index just past the bracketed group opening at `i` (`(`, `[` or `{`), or the end.
fn skip_group(toks: &[(Tok, usize)], i: usize) -> usize {
    let mut depth = 0usize;
    let mut j = i;
    while j < toks.len() {
        match toks[j].0 {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    toks.len()
}

/// The index just past the item starting at `i`: its `;` or `,`, or its first top-level
/// `{ ... }`; an unmatched closing bracket (the end of the enclosing item) is left in place.
fn skip_item(toks: &[(Tok, usize)], mut i: usize) -> usize {
    while i < toks.len() {
        match toks[i].0 {
            Tok::Punct(';' | ',') => return i + 1,
            Tok::Punct(')' | ']' | '}') => return i,
            Tok::Punct('{') => return skip_group(toks, i),
            Tok::Punct('(' | '[') => i = skip_group(toks, i),
            _ => i += 1,
        }
    }
    i
}

/// Parses a use tree or expression path after `prefix` (positioned just past a `::`),
/// pushing every complete path; returns the index after it.
fn parse_tree(toks: &[(Tok, usize)], mut i: usize, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let depth = prefix.len();
    loop {
        match toks.get(i).map(|t| &t.0) {
            Some(Tok::Ident(s)) if s != "self" => {
                prefix.push(s.clone());
                i += 1;
                if matches!(toks.get(i).map(|t| &t.0), Some(Tok::PathSep)) {
                    i += 1;
                    continue;
                }
                out.push(prefix.clone());
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                loop {
                    match toks.get(i).map(|t| &t.0) {
                        None => break,
                        Some(Tok::Punct('}')) => {
                            i += 1;
                            break;
                        }
                        Some(Tok::Punct(',')) => i += 1,
                        Some(Tok::Ident(s)) if s == "as" => i += 2,
                        _ => {
                            let before = i;
                            i = parse_tree(toks, i, prefix, out);
                            if i == before {
                                i += 1;
                            }
                        }
                    }
                }
            }
            // `self` in a group, `*`, or the end of the path (`::<`, `(`, ...): the prefix itself.
            Some(Tok::Ident(_)) => {
                out.push(prefix.clone());
                i += 1;
            }
            _ => out.push(prefix.clone()),
        }
        break;
    }
    prefix.truncate(depth);
    i
}

fn scan(src: &str, module: &[String]) -> Scan {
    let toks = tokenize(src);
    let mut scan = Scan { paths: Vec::new(), test_children: Vec::new() };
    // Inline modules open in this file: (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut cfg_test = false;
    // Child modules declared with `mod x;` (full paths), and the paths that start with a plain
    // name, each with the module it is written in: kept once the whole file has been read.
    let mut children: BTreeSet<ModPath> = BTreeSet::new();
    let mut relative: Vec<(usize, String, ModPath, Vec<String>)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let (tok, line) = (&toks[i].0, toks[i].1);
        match tok {
            Tok::Punct('#') => {
                let open = if is_punct(toks.get(i + 1), '!') { i + 2 } else { i + 1 };
                if is_punct(toks.get(open), '[') {
                    let end = skip_group(&toks, open);
                    let body: Vec<&Tok> = toks[open + 1..end.saturating_sub(1)].iter().map(|t| &t.0).collect();
                    let test = [Tok::Ident("cfg".into()), Tok::Punct('('), Tok::Ident("test".into()), Tok::Punct(')')];
                    cfg_test |= body.len() == 4 && body.iter().zip(&test).all(|(a, b)| *a == b);
                    i = end;
                    continue;
                }
                i += 1;
            }
            Tok::Ident(s) if s == "pub" => {
                i += if is_punct(toks.get(i + 1), '(') { skip_group(&toks, i + 1) - i } else { 1 };
                continue;
            }
            Tok::Ident(s) if cfg_test => {
                cfg_test = false;
                if s == "mod" && is_punct(toks.get(i + 2), ';') {
                    if let Some((Tok::Ident(name), _)) = toks.get(i + 1) {
                        scan.test_children.push(name.clone());
                    }
                }
                i = skip_item(&toks, i);
                continue;
            }
            Tok::Ident(s) if s == "mod" && is_punct(toks.get(i + 2), ';') => {
                if let Some((Tok::Ident(name), _)) = toks.get(i + 1) {
                    let mut child: ModPath = module.to_vec();
                    child.extend(inline.iter().map(|(n, _)| n.clone()));
                    child.push(name.clone());
                    children.insert(child);
                }
                i += 3;
            }
            // `use ::extern_crate::...` names no module of this crate.
            Tok::Ident(s) if s == "use" && matches!(toks.get(i + 1), Some((Tok::PathSep, _))) => {
                i = parse_tree(&toks, i + 2, &mut Vec::new(), &mut Vec::new()).max(i + 2);
                continue;
            }
            Tok::Ident(s) if s == "mod" && is_punct(toks.get(i + 2), '{') => {
                if let Some((Tok::Ident(name), _)) = toks.get(i + 1) {
                    depth += 1;
                    inline.push((name.clone(), depth));
                    i += 3;
                    continue;
                }
                i += 1;
            }
            // A path's first segment: not after `::` (a later segment) or `.` (a method's turbofish).
            Tok::Ident(_)
                if matches!(toks.get(i + 1), Some((Tok::PathSep, _)))
                    && !(i > 0 && matches!(toks[i - 1].0, Tok::PathSep | Tok::Punct('.'))) =>
            {
                let mut segments = Vec::new();
                let mut j = i;
                while let Some((Tok::Ident(seg), _)) = toks.get(j) {
                    if ((seg == "crate" || seg == "self") && j == i) || seg == "super" {
                        segments.push(seg.clone());
                        if matches!(toks.get(j + 1), Some((Tok::PathSep, _))) {
                            j += 2;
                            continue;
                        }
                    }
                    break;
                }
                let mut leaves = Vec::new();
                let end = parse_tree(&toks, j, &mut Vec::new(), &mut leaves);
                let mut scope: ModPath = module.to_vec();
                scope.extend(inline.iter().map(|(n, _)| n.clone()));
                for leaf in leaves {
                    let full: Vec<String> = segments.iter().chain(&leaf).cloned().collect();
                    let written = full.join("::");
                    match resolve(&scope, &full) {
                        Some(path) => scan.paths.push((line, written, path)),
                        None if !full.is_empty() => relative.push((line, written, scope.clone(), full)),
                        None => {}
                    }
                }
                i = end.max(i + 1);
                continue;
            }
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Tok::Punct('}') => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
        cfg_test = false;
    }
    for (line, written, mut scope, full) in relative {
        scope.push(full[0].clone());
        if children.contains(&scope) {
            scope.extend(full[1..].iter().cloned());
            scan.paths.push((line, written, scope));
        }
    }
    scan.paths.sort_by_key(|p| p.0);
    scan
}

impl Graph {
    /// Builds the graph of a crate from its files: (path relative to `src/`, source text).
    pub fn build(files: &[(String, String)]) -> Graph {
        let mut scans = BTreeMap::new();
        let mut test_only: BTreeSet<ModPath> = BTreeSet::new();
        for (rel, text) in files {
            let module = module_path(rel);
            let s = scan(text, &module);
            for child in &s.test_children {
                let mut m = module.clone();
                m.push(child.clone());
                test_only.insert(m);
            }
            scans.insert(module, (rel.clone(), s));
        }
        scans.retain(|m, _| !test_only.iter().any(|t| m.starts_with(t)));
        let mut graph = Graph::default();
        for (m, (rel, _)) in &scans {
            graph.files.insert(m.clone(), rel.clone());
        }
        for (m, (_, s)) in &scans {
            let targets = graph.edges.entry(m.clone()).or_default();
            for (line, written, path) in &s.paths {
                let target = (0..=path.len()).rev().map(|n| &path[..n]).find(|p| graph.files.contains_key(*p));
                if let Some(t) = target.filter(|t| !t.is_empty() && *t != m.as_slice()) {
                    targets.entry(t.to_vec()).or_insert(Site { line: *line, path: written.clone() });
                }
            }
        }
        graph
    }

    /// Reads every `.rs` file under `src`.
    pub fn read(src: &Path) -> Result<Graph, String> {
        let mut files = Vec::new();
        let mut dirs = vec![src.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for entry in entries {
                let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                    let rel = path.strip_prefix(src).map_err(|e| e.to_string())?;
                    files.push((rel.to_string_lossy().replace('\\', "/"), text));
                }
            }
        }
        Ok(Graph::build(&files))
    }

    /// Every strongly connected component of more than one module, each sorted, in order.
    pub fn circles(&self) -> Vec<Vec<ModPath>> {
        let nodes: Vec<&ModPath> = self.files.keys().collect();
        let index_of: BTreeMap<&ModPath, usize> = nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
        let succ: Vec<Vec<usize>> = nodes
            .iter()
            .map(|m| self.edges.get(*m).map(|t| t.keys().filter_map(|k| index_of.get(k).copied()).collect()))
            .map(Option::unwrap_or_default)
            .collect();
        let mut out: Vec<Vec<ModPath>> = tarjan(&succ)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let mut c: Vec<ModPath> = c.into_iter().map(|i| nodes[i].clone()).collect();
                c.sort();
                c
            })
            .collect();
        out.sort();
        out
    }
}

/// Tarjan's strongly connected components, iteratively (no recursion depth limit).
fn tarjan(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succ.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comps = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if let Some(&w) = succ[v].get(*k) {
                *k += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comps.push(comp);
            }
        }
    }
    comps
}

fn under(m: &[String], prefix: &str) -> bool {
    let p: Vec<&str> = prefix.split("::").collect();
    m.len() >= p.len() && m.iter().zip(&p).all(|(a, b)| a == b)
}

/// The findings for one crate (`krate` as in [`CRATES`], `src` its source folder), one
/// paragraph per circle or forbidden edge; empty when the crate is clean.
pub fn findings(krate: &str, graph: &Graph, rules: &[Rule]) -> Vec<String> {
    let file = |m: &ModPath| format!("{krate}/src/{}", graph.files.get(m).map(String::as_str).unwrap_or("?"));
    let mut out = Vec::new();
    for circle in graph.circles() {
        let names: Vec<String> = circle.iter().map(|m| show(m)).collect();
        let mut text = format!("{krate}: import circle [{}]", names.join(", "));
        for from in &circle {
            for (to, site) in graph.edges.get(from).into_iter().flatten() {
                if circle.contains(to) {
                    text += &format!("\n    {}:{} -> {} (`{}`)", file(from), site.line, show(to), site.path);
                }
            }
        }
        out.push(text);
    }
    for r in rules.iter().filter(|r| r.krate == krate) {
        let mut text = format!("{krate}: {} must not import {}: {}", r.from, r.forbidden, r.reason);
        let before = text.len();
        for (from, targets) in graph.edges.iter().filter(|(from, _)| under(from, r.from)) {
            for (to, site) in targets.iter().filter(|(to, _)| under(to, r.forbidden)) {
                text += &format!("\n    {}:{} -> {} (`{}`)", file(from), site.line, show(to), site.path);
            }
        }
        if text.len() > before {
            out.push(text);
        }
    }
    out
}

/// The findings for every crate in [`CRATES`] under the workspace `root`.
pub fn check(root: &Path) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for krate in CRATES {
        let graph = Graph::read(&root.join(krate).join("src"))?;
        out.extend(findings(krate, &graph, RULES));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(files: &[(&str, &str)]) -> Graph {
        let files: Vec<(String, String)> = files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
        Graph::build(&files)
    }

    fn names(g: &Graph) -> Vec<Vec<String>> {
        g.circles().iter().map(|c| c.iter().map(|m| show(m)).collect()).collect()
    }

    #[test]
    fn the_library_crates_have_no_import_circles_and_keep_their_layers() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let found = check(&root).unwrap();
        assert!(found.is_empty(), "\n{}\n", found.join("\n"));
    }

    #[test]
    fn finds_a_planted_circle_and_names_its_edges() {
        let g = graph(&[
            ("lib.rs", "mod a; mod b; mod c; mod d;"),
            ("a/mod.rs", "use crate::b::Thing;\nmod inner;"),
            ("a/inner.rs", "use super::Y;\nfn f() { super::super::d::g(); }"),
            ("b.rs", "use crate::{c::{self, X}, d};"),
            ("c.rs", "// crate::d in a comment is not an import\nfn f() -> crate::a::inner::T { todo!() }"),
            ("d.rs", "const S: &str = \"crate::a\"; fn g() {}"),
        ]);
        assert_eq!(names(&g), [["a", "a::inner", "b", "c"]]);
        let found = findings("k", &g, &[]);
        assert_eq!(found.len(), 1);
        assert!(found[0].contains("k/src/c.rs:2 -> a::inner (`crate::a::inner::T`)"), "{}", found[0]);
        assert!(found[0].contains("k/src/a/mod.rs:1 -> b (`crate::b::Thing`)"), "{}", found[0]);
        assert!(!found[0].contains("-> d"), "{}", found[0]);
    }

    #[test]
    fn test_modules_self_edges_and_the_root_make_no_edges() {
        let g = graph(&[
            ("lib.rs", "mod a; mod b; pub fn root() {}"),
            ("a.rs", "use crate::root;\nuse super::a::X;\n#[cfg(test)]\nmod tests { use crate::b::Y; }"),
            ("b.rs", "use crate::a::X;\n#[cfg(test)] mod checks;\nmod lanes { use super::Z; }"),
            ("b/checks.rs", "use crate::b::Y;"),
        ]);
        assert!(g.circles().is_empty());
        let edges: Vec<(String, String)> =
            g.edges.iter().flat_map(|(f, ts)| ts.keys().map(move |t| (show(f), show(t)))).collect();
        assert_eq!(edges, [("b".to_string(), "a".to_string())]);
        assert!(!g.files.contains_key(&vec!["b".to_string(), "checks".to_string()]));
    }

    #[test]
    fn finds_a_circle_through_a_reexported_child() {
        let g = graph(&[
            ("lib.rs", "pub mod a;"),
            ("a/mod.rs", "mod child;\npub use child::X;\npub struct Y;"),
            ("a/child.rs", "use super::Y;\npub struct X(Y);"),
        ]);
        assert_eq!(names(&g), [["a", "a::child"]]);
        let found = findings("k", &g, &[]);
        assert!(found[0].contains("k/src/a/mod.rs:2 -> a::child (`child::X`)"), "{}", found[0]);
        assert!(found[0].contains("k/src/a/child.rs:1 -> a (`super::Y`)"), "{}", found[0]);
    }

    #[test]
    fn self_paths_and_child_paths_are_edges_to_the_longest_file_prefix() {
        let g = graph(&[
            ("lib.rs", "mod a; mod b; mod c;"),
            ("a.rs", "pub(crate) mod kid;\nfn f() { let _ = kid::deep::g(); }"),
            ("a/kid.rs", "pub mod deep;"),
            ("a/kid/deep.rs", "pub fn g() {}"),
            ("b.rs", "mod x;\nuse self::x::{self, Y};"),
            ("b/x.rs", "pub struct Y;"),
            ("c.rs", "mod p; mod q;\nuse {p::P, q::{self as qq}};"),
            ("c/p.rs", ""),
            ("c/q.rs", ""),
        ]);
        let edges: Vec<(String, String, String)> = g
            .edges
            .iter()
            .flat_map(|(f, ts)| ts.iter().map(move |(t, site)| (show(f), show(t), site.path.clone())))
            .collect();
        let expected = [
            ("a", "a::kid::deep", "kid::deep::g"),
            ("b", "b::x", "self::x"),
            ("c", "c::p", "p::P"),
            ("c", "c::q", "q"),
        ];
        let expected: Vec<(String, String, String)> =
            expected.iter().map(|(f, t, p)| (f.to_string(), t.to_string(), p.to_string())).collect();
        assert_eq!(edges, expected);
    }

    #[test]
    fn paths_that_start_with_other_names_make_no_edges() {
        let g = graph(&[
            ("lib.rs", "mod a; mod kid;"),
            ("kid.rs", ""),
            (
                "a.rs",
                "use std::{fmt, kid::X};\nuse ::kid::Y;\nuse kid::Z;\nmod inner { use kid::W; }\n\
                 fn f(v: Vec<u8>) { v.iter().kid::<u8>(); Vec::<kid::T>::new(); }\n#[cfg(test)]\nmod t;\nfn g() { t::h(); }",
            ),
            ("a/t.rs", "pub fn h() {}"),
        ]);
        assert!(g.edges.values().all(BTreeMap::is_empty), "{:?}", g.edges);
    }

    #[test]
    fn a_rule_names_the_file_and_the_edge() {
        let g = graph(&[("lib.rs", ""), ("uop/mod.rs", "use crate::tensor::Engine;"), ("tensor.rs", "")]);
        let found = findings("crates/core", &g, RULES);
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("crates/core: uop must not import tensor: the graph"), "{}", found[0]);
        assert!(found[0].contains("crates/core/src/uop/mod.rs:1 -> tensor (`crate::tensor::Engine`)"));
    }
}
