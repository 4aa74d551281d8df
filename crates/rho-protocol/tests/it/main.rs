//! rho-protocol's integration tests as one binary: each module is a former `tests/<name>.rs`.
//! The crate's dev-dependency on itself turns on `schema` (and so `agent`) for `cargo test`;
//! the gates say what each module needs when built otherwise.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod floor;
#[cfg(feature = "schema")]
mod rpc_schema;
#[cfg(feature = "agent")]
mod rpc_shapes;
mod string_errors;
