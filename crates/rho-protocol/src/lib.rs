//! rho's wire types: every JSON shape another program reads or writes, defined once and used
//! by both ends. Types only (serde derives, no I/O, no async), at the bottom of the crate
//! graph, so the host, the libraries extensions are written with and the UIs share one
//! definition and cannot drift apart.
//!
//! - The message model (always built, serde only): [`content`] blocks, [`message`]s,
//!   [`model`] records and thinking levels, [`usage`] and stop reasons, and the provider
//!   stream's [`stream_event`], the fold of those events into a reply's [`partial`] message
//!   and the lenient parser of streaming tool-call arguments ([`json_stream`]). `rho-ai`
//!   re-exports them under its old paths.
//! - [`provider_env`]: the environment variables holding each built-in provider's key.
//! - [`extension`]: the extension process protocol (docs/extensions.md), host and SDK side.
//! - `agent` (feature `agent`): agent messages and the events of a run.
//! - `session` (feature `agent`): session file records, session events, session summaries.
//! - `rpc` (feature `agent`): the RPC response envelope, each command's `data`, UI requests.
//! - `schema` (feature `schema`): the RPC protocol's JSON Schema, generated from these types.

#[cfg(feature = "agent")]
pub mod agent;
pub mod content;
pub mod extension;
pub mod json_stream;
pub mod message;
pub mod model;
pub mod partial;
pub mod provider_env;
#[cfg(feature = "agent")]
pub mod rpc;
#[cfg(feature = "schema")]
pub mod schema;
#[cfg(feature = "agent")]
pub mod session;
pub mod stream_event;
pub mod usage;
pub mod virtual_model;

pub use content::{ContentBlock, ImageContent, TextContent, ThinkingContent, ToolCall};
pub use message::{
    now_ms, AssistantMessage, Context, Message, Tool, ToolResultMessage, UserContent, UserMessage,
};
pub use model::{InputKind, Model, ModelCompat, ModelCost, ThinkingLevel};
pub use partial::PartialMessage;
pub use stream_event::AssistantMessageEvent;
pub use usage::{Cost, StopReason, Usage};
