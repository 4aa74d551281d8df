//! rho-tui's integration tests as one binary: each module is a former `tests/<name>.rs`,
//! `common` the helpers they share.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// `common` defines the `both!` snapshot macro the modules after it use.
#[macro_use]
mod common;

mod components;
mod dialogs;
mod editor;
mod editor_render;
mod extension_ui;
mod renderer;
mod session_dialogs;
mod terminal_restore;
mod themes;
mod transcript;
mod tree_dialog;
