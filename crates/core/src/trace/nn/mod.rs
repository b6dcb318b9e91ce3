//! `torch.nn`'s modules and `torch.optim`'s optimizers in the trace: what a module and an
//! optimizer are as values hold them (`layer`, `optimizer`, which import nothing of the trace,
//! so Python's values can hold them) and their behaviour (`modules`, `optim`), written over the
//! torch binding.

pub mod init;
pub mod layer;
pub mod modules;
pub mod optim;
pub mod optimizer;
pub mod recurrent;
pub mod scheduler;
pub mod table;
pub mod utils;
