//! The lazy UOp graph and its reference interpreter.
