//! The scaffolding engine: stage changes in memory, plan them against the disk, then commit
//! all or nothing (or just print them for `--dry-run`).
pub mod commit;
pub mod durable;
pub mod faults;
pub mod input;
pub mod journal;
pub mod lock;
pub mod markers;
pub mod plan;
pub mod toml;
pub mod tree;
pub mod type_names;

pub use markers::EditOutcome;
pub use plan::{Change, Plan, Status};
pub use tree::{Policy, Tree};
