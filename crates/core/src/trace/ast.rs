//! The syntax tree of a trace: a torch-flavoured subset of Python, one statement per line.
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
    Assign { targets: Vec<String>, value: Expr },
    /// `target op= value`, where target is a name or a subscript (`a[1:] *= 2`).
    AugAssign { target: Expr, op: BinOp, value: Expr },
    /// `target[index] = value`.
    SetItem { target: Expr, index: Vec<Expr>, value: Expr },
    /// A bare expression, usually a method call such as `a.add_(1)`.
    Expr(Expr),
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
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum UnaryOp {
    Neg,
    Pos,
    Invert,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ExprKind {
    Name(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    None,
    /// `...`, only meaningful inside an index.
    Ellipsis,
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
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
    /// `start:stop:step` inside an index.
    Slice {
        start: Option<Box<Expr>>,
        stop: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
}
