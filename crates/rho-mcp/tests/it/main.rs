//! rho-mcp's integration tests as one binary: each module is a former `tests/<name>.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod registered;
mod shutdown;
