//! The extension process protocol (docs/extensions.md): JSON Lines over an extension's
//! stdin/stdout. rho writes [`ToExtension`] lines, the extension [`FromExtension`] lines; rho's
//! requests and the extension's calls carry ids of their own.
//!
//! The envelopes are generic over the one payload each side types differently: the event
//! rho sends (`events::ExtensionEvent` on the host, behind the `agent` feature; a plain
//! [`serde_json::Value`] in the SDK) and the partial tool output the extension streams (rho's
//! content blocks on the host).

#[cfg(feature = "agent")]
pub mod boundary;
pub mod calls;
mod content;
#[cfg(feature = "agent")]
pub mod events;
mod messages;
mod registration;
mod render;

pub use content::{Content, CustomMessage, DeliverAs, SendOptions, ToolResult};
pub use messages::{encode_line, FromExtension, Hello, RefreshedModels, ToExtension};
pub use registration::{
    empty_object_schema, ArgumentCompletion, CommandSpec, FlagSpec, McpServerSpec, OAuthSpec,
    ProviderSpec, Registration, ShortcutSpec, ToolSpec,
};
pub use render::{
    ComponentSlot, EditorEvent, RenderTarget, Rendered, RendererSpec, WorkingIndicator,
    WorkingUpdate,
};

/// The protocol version rho speaks and sends in `hello`.
pub const PROTOCOL_VERSION: u32 = 1;
