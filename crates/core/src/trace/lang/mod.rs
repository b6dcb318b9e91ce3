//! The language: trace text to tokens (as Python's tokenizer would) and tokens to the syntax tree
//! (the statement and expression subset of Python that tensor snippets use). Nothing here knows
//! what a name means.

pub mod ast;
pub mod lexer;
pub mod parser;
