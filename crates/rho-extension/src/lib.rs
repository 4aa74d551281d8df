//! Write rho extensions in Rust. An extension is a program rho starts as a child process and
//! talks to in JSON Lines over stdin/stdout (docs/extensions.md); this crate implements that
//! protocol so an extension is a handful of handlers:
//!
//! ```no_run
//! use rho_extension::{Extension, Error};
//! use serde_json::json;
//!
//! fn main() -> Result<(), Error> {
//!     let mut ext = Extension::new("shout");
//!     ext.on("input", |_rho, event| {
//!         let text = event["text"].as_str().unwrap_or_default();
//!         Ok(Some(json!({"action": "transform", "text": text.to_uppercase()})))
//!     });
//!     ext.run()
//! }
//! ```
//!
//! Handlers get a [`Rho`] handle for calls into rho (messages, entries, state, `exec`, UI).
//! Every request runs on a worker thread of its own, so a handler blocked in a call (a
//! command whose message runs a whole turn) never stalls the events that turn emits. Same
//! capabilities as the Python and JavaScript libraries (`extensions/`); no async runtime.

mod error;
mod extension;
mod rho;
mod runtime;
mod tool;

pub use error::Error;
pub use extension::{CommandFn, EventFn, Extension, ShortcutFn, Tool, ToolFn};
pub use protocol::{Hello, PROTOCOL_VERSION};
pub use rho::{ExecOutput, Rho, State};
/// The protocol's types, shared with rho (`rho-protocol`).
pub use rho_protocol::extension as protocol;
pub use rho_protocol::extension::{Content, CustomMessage, DeliverAs, SendOptions, ToolResult};
pub use tool::ToolCall;
