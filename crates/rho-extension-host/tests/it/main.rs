//! rho-extension-host's integration tests as one binary: the runner's behaviour through the
//! public API (`runner`), and extension processes in Python, JavaScript and Rust (the
//! `ext_echo` example) driven through an AgentSession (`process_extensions`, `process_unload`,
//! helpers in `process_common`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod process_common;
// The session set-up is rho-core's own test helper (one copy for both crates' tests).
#[path = "../../../rho-core/tests/it/session_common/mod.rs"]
mod session_common;

mod process_extensions;
mod process_unload;
mod runner;
mod runner_boundary;
