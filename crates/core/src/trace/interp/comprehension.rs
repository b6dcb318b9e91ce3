//! Comprehensions (`[elt for ...]`, generator expressions, dict comprehensions), each in a scope
//! of its own, and f-strings.

use crate::error::{bail, Result};
use crate::trace::interp::runner::{Frame, Run, Scope};
use crate::trace::interp::special::Text;
use crate::trace::lang::ast::{CompKind, Comprehension, Expr, FPart};
use crate::trace::python::value::{Value, MAX_SEQUENCE};
use crate::trace::python::{self, PyIter};

impl Run {
    /// `[elt for ...]` and `(elt for ...)`, each in a scope of its own.
    pub(in crate::trace) fn comprehension(
        &mut self,
        kind: CompKind,
        elt: &Expr,
        gens: &[Comprehension],
    ) -> Result<Value> {
        let globals = self.frames.last().map(|f| f.globals.clone()).unwrap_or_default();
        self.frames.push(Frame { vars: Default::default(), scope: Scope::Comprehension, globals });
        let mut out = Vec::new();
        let r = self.comp_level(elt, gens, &mut out);
        self.frames.pop();
        r?;
        Ok(match kind {
            CompKind::List => Value::list(out),
            CompKind::Generator => Value::Tuple(out),
            CompKind::Dict => {
                use crate::trace::python::value::{Dict, DictKind, Key};
                let dict = Dict::new(DictKind::Plain, Vec::with_capacity(out.len()));
                for pair in out {
                    match pair {
                        Value::Tuple(mut kv) if kv.len() == 2 => {
                            let v = kv.pop().unwrap_or(Value::None);
                            let k = kv.pop().unwrap_or(Value::None);
                            dict.insert(Key::of(k)?, v);
                        }
                        _ => bail!(Type, "a dict comprehension's element is a key and a value"),
                    }
                }
                Value::Dict(dict)
            }
        })
    }

    fn comp_level(&mut self, elt: &Expr, gens: &[Comprehension], out: &mut Vec<Value>) -> Result<()> {
        let Some((g, rest)) = gens.split_first() else {
            if out.len() >= MAX_SEQUENCE {
                bail!(Limit, "a comprehension may build at most {MAX_SEQUENCE} items");
            }
            out.push(self.eval(elt)?);
            return Ok(());
        };
        let it = match self.eval(&g.iter)? {
            Value::Iterator(it) => it,
            v @ Value::Layer(_) => self.iterator_of(v)?,
            v => PyIter::items("iterator", python::iterate(&mut self.context(), v)?),
        };
        let mut seen = 0usize;
        'items: while let Some(v) = self.advance(&it)? {
            seen += 1;
            if seen > MAX_SEQUENCE {
                bail!(Limit, "a comprehension may iterate at most {MAX_SEQUENCE} items");
            }
            self.bind_target(&g.target, v)?;
            for cond in &g.ifs {
                let c = self.eval(cond)?;
                if !python::truth(&mut self.context(), &c)? {
                    continue 'items;
                }
            }
            self.comp_level(elt, rest, out)?;
        }
        Ok(())
    }

    pub(in crate::trace) fn fstring(&mut self, parts: &[FPart]) -> Result<Value> {
        let mut s = String::new();
        for p in parts {
            match p {
                FPart::Lit(t) => s.push_str(t),
                FPart::Expr { expr, conv, spec, debug } => {
                    let v = self.eval(expr)?;
                    if let Some(d) = debug {
                        s.push_str(d);
                    }
                    // A self-documenting field shows the repr unless a spec or conversion says.
                    let conv = conv.or((debug.is_some() && spec.is_empty()).then_some('r'));
                    // An instance whose class says how it prints: its text, formatted as a str.
                    let which = if conv == Some('r') { Text::Repr } else { Text::Str };
                    let (v, conv) = match self.special_text(&v, which)? {
                        Some(text) => (Value::Str(text), None),
                        None => (v, conv),
                    };
                    s.push_str(&python::format_field(&mut self.context(), &v, conv, spec)?);
                }
            }
        }
        Ok(Value::Str(s))
    }
}
