//! rho's wire types: every JSON shape another program reads or writes, defined once and used
//! by both ends. Types only (serde derives, no I/O, no async), at the bottom of the crate
//! graph, so the host, the libraries extensions are written with and the UIs share one
//! definition and cannot drift apart.
//!
//! - [`extension`]: the extension process protocol (docs/extensions.md), host and SDK side.
//! - `session` (feature `session`): session file records, session events, session summaries.

pub mod extension;
#[cfg(feature = "session")]
pub mod session;
