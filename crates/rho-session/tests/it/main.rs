//! rho-session's integration tests as one binary: each module is a former `tests/<name>.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod errors;
mod fixtures_context;
mod index;
mod kill;
mod long_session_load;
mod manager;
mod pi16_sessions;
mod properties;
mod summary;
mod unsaved;
