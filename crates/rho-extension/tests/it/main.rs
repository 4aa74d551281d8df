//! rho-extension's integration tests as one binary: each module is a former `tests/<name>.rs`,
//! `common` the helpers they share.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod examples;
mod runtime;
mod session_calls;
