//! The project's automation: `cargo xtask <command>` (see `main.rs`).

// Every line the commands print goes through `cli::Output`, which escapes control characters
// (no text read from a file or the service reaches the terminal as a control sequence).
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]

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
