//! rho-core's integration tests as one binary: each module is a former `tests/<name>.rs`,
//! `session_common` the session set-up they share (the modules name it `common`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod session_common;

mod messages_on_disk;
mod permission_lines;
mod session_bash;
mod session_compaction;
mod session_custom;
mod session_extensions;
mod session_fork;
mod session_http;
mod session_prompt;
mod session_reopen;
mod session_rules;
mod session_rules_more;
mod session_run_loop;
mod session_settled;
mod session_sharing;
mod session_tree;
mod settings_keys;
mod settings_properties;
