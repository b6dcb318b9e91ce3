//! The syntax tree of a trace: the subset of Python that tensor snippets are written in (simple
//! statements, indented blocks, small functions, comprehensions and f-strings).
//!
//! Every node keeps the line and column it started at, so that an error raised while running a
//! statement can point at the exact expression, as the editor in the playground shows it.

use serde::Serialize;

/// 1-based line and column (columns count characters, not bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
pub struct Span {
    pub line: usize,
    pub column: usize,
}

#[derive(Clone, Debug, PartialEq, Default, Serialize)]
pub struct Program {
    pub stmts: Vec<Stmt>,
    /// What the import lines bind, in order: `import torch as t` binds `t` to `torch`,
    /// `from torch.nn import functional as f` binds `f` to `torch.nn.functional`. Imports are
    /// not steps; the names resolve when first used, after the trace's own names.
    pub imports: Vec<Import>,
}

/// One name an import line binds and the dotted path it names.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Import {
    pub name: String,
    pub path: Vec<String>,
}

impl Program {
    /// Whether every statement is a simple one at the top level, so that step `k` is statement
    /// `k` (blocks and functions make steps the statements executed, not the ones written).
    pub fn is_flat(&self) -> bool {
        self.stmts.iter().all(|s| s.kind.blocks().is_empty())
    }

    /// The innermost statement that starts on `line`.
    pub fn statement_at(&self, line: usize) -> Option<&Stmt> {
        fn find(stmts: &[Stmt], line: usize) -> Option<&Stmt> {
            for s in stmts {
                for b in s.kind.blocks() {
                    if let Some(inner) = find(b, line) {
                        return Some(inner);
                    }
                }
                if s.span.line == line {
                    return Some(s);
                }
            }
            None
        }
        find(&self.stmts, line)
    }

    /// How many top-level statements have certainly finished when a step on `line` runs: those
    /// that start before it, less the last one if it is a block (the step may be inside it).
    pub fn top_level_before(&self, line: usize) -> usize {
        let before = &self.stmts[..self.stmts.iter().take_while(|s| s.span.line < line).count()];
        match before.last() {
            Some(s) if !s.kind.blocks().is_empty() => before.len() - 1,
            _ => before.len(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stmt {
    pub span: Span,
    /// The statement's text as written (without comment or trailing whitespace).
    pub source: String,
    pub kind: StmtKind,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum StmtKind {
    /// `name = expr` or `a, b = expr` (several targets unpack a tuple).
    Assign {
        targets: Vec<String>,
        value: Expr,
        /// Whether the targets unpack a sequence (`a, b = x`, and `a, = x` with one target).
        unpack: bool,
    },
    /// `a, (b, c) = expr`: unpacking into nested targets (a flat one is an [`StmtKind::Assign`]).
    Unpack {
        target: Target,
        value: Expr,
    },
    /// `target op= value`, where target is a name or a subscript (`a[1:] *= 2`).
    AugAssign {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    /// `target[index] = value`.
    SetItem {
        target: Expr,
        index: Vec<Expr>,
        value: Expr,
    },
    /// `target.name = value` (`x.grad = None`, `x.requires_grad = True`).
    SetAttr {
        target: Expr,
        name: String,
        value: Expr,
    },
    /// A bare expression, usually a method call such as `a.add_(1)`.
    Expr(Expr),
    /// `if test:` with its body; `orelse` holds the `else:` body, or one `If` for an `elif`.
    If {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `for target in iter:`; `orelse` is the `else:` body, run when the loop ends without
    /// `break`.
    For {
        target: Target,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `while test:`, with its `else:` body as `for`'s.
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `with a as x, b:`: each context manager with its optional name.
    With {
        items: Vec<(Expr, Option<String>)>,
        body: Vec<Stmt>,
    },
    /// `def name(params):`; shared, since the function value keeps its body.
    Def(FuncDef),
    /// `class Name(bases):` whose body defines methods.
    Class {
        name: String,
        bases: Vec<Expr>,
        body: Vec<Stmt>,
    },
    Return(Option<Expr>),
    Pass,
    Break,
    Continue,
    /// `assert test, message`.
    Assert {
        test: Expr,
        msg: Option<Expr>,
    },
    /// `del a, b` (names).
    Del(Vec<String>),
    /// `del xs[i]`, `del d[k]`, `del xs[a:b]`: one subscript target.
    DelItem {
        target: Expr,
        index: Vec<Expr>,
    },
    /// `global a, b`: inside a function, these names are the module's.
    Global(Vec<String>),
    /// `try:` with its `except` clauses, `else:` and `finally:` bodies.
    Try {
        body: Vec<Stmt>,
        handlers: Vec<Handler>,
        orelse: Vec<Stmt>,
        finally: Vec<Stmt>,
    },
    /// `raise E(message)`, `raise E`, or a bare `raise` inside an `except` body.
    Raise(Option<Expr>),
    /// `yield value`, `target = yield value` (bound to what `send` passes, `None` for `next`)
    /// or `yield from iterable`: only as a statement of its own, in a generator's body.
    Yield {
        value: Option<Expr>,
        kind: YieldKind,
        bind: Option<Target>,
    },
}

/// Which of the two `yield` forms a [`StmtKind::Yield`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum YieldKind {
    /// `yield value`: one item.
    Value,
    /// `yield from iterable`: every item of another iterable, in turn.
    From,
}

/// One `except [types [as name]]:` clause.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Handler {
    /// The `except` line: a step of its own when the clause is taken (its kind is `Pass`).
    pub header: Box<Stmt>,
    /// The class or tuple of classes it catches; `None` catches everything.
    pub types: Option<Expr>,
    pub name: Option<String>,
    pub body: Vec<Stmt>,
}

/// The first `yield` among `stmts` and the blocks they run, not counting functions and classes
/// defined there (their bodies are scopes of their own).
pub fn first_yield(stmts: &[Stmt]) -> Option<&Stmt> {
    stmts.iter().find_map(|s| match &s.kind {
        StmtKind::Yield { .. } => Some(s),
        StmtKind::Def(_) | StmtKind::Class { .. } => None,
        k => k.blocks().into_iter().find_map(first_yield),
    })
}

impl StmtKind {
    /// The statements a compound statement runs (empty for a simple one).
    pub fn blocks(&self) -> Vec<&[Stmt]> {
        match self {
            StmtKind::If { body, orelse, .. } => vec![body, orelse],
            StmtKind::For { body, orelse, .. } | StmtKind::While { body, orelse, .. } => vec![body, orelse],
            StmtKind::With { body, .. } => vec![body],
            StmtKind::Def(f) => vec![&f.body],
            StmtKind::Class { body, .. } => vec![body],
            StmtKind::Try { body, handlers, orelse, finally } => std::iter::once(body.as_slice())
                .chain(handlers.iter().map(|h| h.body.as_slice()))
                .chain([orelse.as_slice(), finally.as_slice()])
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// A function defined in the trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FuncDef {
    pub name: String,
    /// Parameters in order, each with its default (evaluated when the `def` runs, as Python does).
    pub params: Vec<(String, Option<Expr>)>,
    /// How many of `params` may be given by position: those before `*` or `*args` (the rest
    /// are keyword-only).
    pub positional: usize,
    /// `*args`: the name that collects the extra positional arguments as a tuple.
    pub var_args: Option<String>,
    /// `**kwargs`: the name that collects the extra keyword arguments as a dict.
    pub var_kwargs: Option<String>,
    /// `@decorator` lines above the `def`, outermost first.
    pub decorators: Vec<Expr>,
    pub body: Vec<Stmt>,
    /// Whether the body yields: calling the function then makes a generator, which runs the
    /// body a piece at a time as it is iterated.
    pub generator: bool,
}

/// Which unpacking a [`ExprKind::Starred`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Star {
    /// `*xs`: the items of an iterable.
    Items,
    /// `**d`: the entries of a mapping, as keyword arguments.
    Entries,
}

/// What a `for` loop or a comprehension binds: a name or a (nested) tuple of names.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Target {
    Name(String),
    Tuple(Vec<Target>),
    /// `*rest` inside a tuple target: a list of the items the other targets leave.
    Star(String),
}

/// `for target in iter if cond ...` inside a comprehension.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comprehension {
    pub target: Target,
    pub iter: Expr,
    pub ifs: Vec<Expr>,
}

/// One piece of an f-string.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum FPart {
    Lit(String),
    /// `{expr!conv:spec}`; `debug` is the `expr=` text a self-documenting field prints first.
    Expr {
        expr: Expr,
        conv: Option<char>,
        spec: String,
        debug: Option<String>,
    },
}

/// Python's `and` and `or`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BoolOp {
    And,
    Or,
}

/// What a comprehension builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CompKind {
    List,
    /// A generator expression, built eagerly as a tuple-like sequence.
    Generator,
    /// `{key: value for ...}`: the element is the `(key, value)` tuple.
    Dict,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Expr {
    pub span: Span,
    pub kind: ExprKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    MatMul,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
    /// `<<` and `>>` (Python's shifts of ints).
    Shl,
    Shr,
    /// `in`, `not in`, `is`, `is not`: Python-level comparisons the runner evaluates itself.
    In,
    NotIn,
    Is,
    IsNot,
}

impl BinOp {
    /// The operator as Python spells it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::MatMul => "@",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::In => "in",
            BinOp::NotIn => "not in",
            BinOp::Is => "is",
            BinOp::IsNot => "is not",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum UnaryOp {
    Neg,
    Pos,
    Invert,
    /// Python's `not`.
    Not,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ExprKind {
    Name(String),
    Int(i64),
    /// An int literal beyond 64 bits, as its decimal digits.
    BigInt(String),
    Float(f64),
    Bool(bool),
    Str(String),
    None,
    /// `...`, only meaningful inside an index.
    Ellipsis,
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    /// `{key: value, ...}`.
    Dict(Vec<(Expr, Expr)>),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `a < b <= c ...`: two or more comparisons, each operand evaluated at most once and the
    /// chain stopping at the first false one (a single comparison is a [`ExprKind::Binary`]).
    Compare {
        first: Box<Expr>,
        rest: Vec<(BinOp, Expr)>,
    },
    /// `func(args, key=value)`; `func` is a name, an attribute (`a.view`, `torch.arange`) or any
    /// other expression.
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        kwargs: Vec<(String, Expr)>,
    },
    Attr {
        value: Box<Expr>,
        name: String,
    },
    /// `value[i, j:k, None, ...]`; each item is an expression or a [`ExprKind::Slice`].
    Index {
        value: Box<Expr>,
        items: Vec<Expr>,
    },
    /// `a and b`, `a or b` (short-circuit, Python's truth).
    BoolOp {
        op: BoolOp,
        values: Vec<Expr>,
    },
    /// `body if test else orelse`.
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    /// `[elt for ...]` or `(elt for ...)`.
    Comp {
        kind: CompKind,
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    FString(Vec<FPart>),
    /// `lambda params: expr`: a function whose body returns the expression.
    Lambda(Box<FuncDef>),
    /// `*value` in a call's arguments or a tuple or list display, `**value` in a call's.
    Starred {
        value: Box<Expr>,
        star: Star,
    },
    /// `start:stop:step` inside an index.
    Slice {
        start: Option<Box<Expr>>,
        stop: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
}
