//! rho-cli's integration tests as one binary: each test module is a former `tests/<name>.rs`
//! and runs the real `rho` binary (`CARGO_BIN_EXE_rho`, which only this crate's tests get), in
//! print, JSON, RPC or interactive mode. The support modules below are the drivers they share:
//! `common` (a sandboxed `rho` run), `support` (an RPC session), `tui` (`rho` in tmux), `kill`
//! (the SIGKILL harness, also the `kill_rpc` bench's), `pids`, and the npm/PyPI installs
//! behind `mcp_support`, `pi_support` and `packages_support`. Each test gets its own temp
//! home and agent dir through the child's environment; the test process's is never changed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod kill;
mod mcp_support;
mod packages_support;
mod pi_compare;
mod pi_support;
mod pids;
mod support;
mod tui;

mod catalog_list;
mod catalog_refresh;
mod child_processes;
mod cli_basics;
mod codemode_pi_ext;
mod codemode_rpc;
mod config_errors;
mod damaged_pi16_sessions;
mod damaged_sessions;
mod debug_log;
mod ended_early_rpc;
mod extension_children;
mod extensions_cli;
mod kill_rpc;
mod login_oauth;
mod mcp_cli;
mod mcp_oauth;
mod mcp_rpc;
mod messages_on_disk;
mod models_json_fields;
mod packages;
mod packages_pi;
mod packages_temporary;
mod permissions_e2e;
mod pi16_commands_interop;
mod pi16_flags_settings;
mod pi16_interop;
mod pi16_mcp_auth_cli;
mod pi16_resources;
mod pi16_rpc_client;
mod pi16_settings_env;
mod pi_ctx_reload;
mod pi_errors;
mod pi_examples_all;
mod pi_examples_rpc;
mod pi_examples_tui;
mod pi_extensions;
mod pi_extensions_more;
mod pi_project_trust;
mod pi_render_tui;
mod pi_session_api;
mod pi_shortcuts_tui;
mod pi_shutdown_tui;
mod pi_virtual_models;
mod pi_virtual_models_tui;
mod print_json;
mod print_tools;
mod project_dirs;
mod provider_text;
mod rpc_commands;
mod rpc_compact_order;
mod rpc_concurrent_ops;
mod rpc_extensions;
mod rpc_invalid_values;
mod rpc_order;
mod rpc_pi1_commands;
mod rpc_pi1_events;
mod rpc_protocol;
mod rpc_slow_reader;
mod rpc_steer_events;
mod rpc_steer_order;
mod rpc_streaming;
mod sandbox_e2e;
mod sessions_models;
mod stalled_streams;
mod tui_e2e;
mod tui_fullscreen;
mod tui_keys;
mod tui_lifecycle;
mod tui_llama;
mod tui_mcp;
mod tui_pickers;
mod tui_screen;
mod tui_terminal;
mod tui_theme;
mod tui_trust;
mod unsaved_sessions;
mod windows_exe;
