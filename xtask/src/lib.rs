//! The project's automation: `cargo xtask <command>` (see `main.rs`).

pub mod cli;
pub mod codegen;
pub mod command_line;
pub mod git;
pub mod judgement;
pub mod msrv;
pub mod openapi;
pub mod package;
pub mod public_api;
pub mod spec_audit;
pub mod spec_diff;
pub mod target_dir;
pub mod wire_audit;
