//! rho's wire types: every JSON shape another program reads or writes, defined once and used
//! by both ends. Types only (serde derives, no I/O, no async), at the bottom of the crate
//! graph, so the host, the libraries extensions are written with and the UIs share one
//! definition and cannot drift apart.
//!
//! - [`extension`]: the extension process protocol (docs/extensions.md), host and SDK side.
//! - `agent` (feature `agent`): agent messages and the events of a run.
//! - `session` (feature `agent`): session file records, session events, session summaries.
//! - `rpc` (feature `agent`): the RPC response envelope, each command's `data`, UI requests.
//! - `schema` (feature `schema`): the RPC protocol's JSON Schema, generated from these types.

#[cfg(feature = "agent")]
pub mod agent;
pub mod extension;
#[cfg(feature = "agent")]
pub mod rpc;
#[cfg(feature = "schema")]
pub mod schema;
#[cfg(feature = "agent")]
pub mod session;
