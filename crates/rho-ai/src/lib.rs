//! rho's provider layer: the model catalog and streaming calls to Anthropic, OpenAI (Chat
//! Completions and Responses, plus every compatible server) and Google Gemini over real
//! HTTP/SSE.
//!
//! Wire formats follow pi 0.73.1 (`@mariozechner/pi-ai`) so sessions and RPC payloads are
//! interchangeable with pi.
//!
//! The message model every other crate speaks (`content`, `message`, `model`, `usage` and
//! [`AssistantMessageEvent`], with its fold into the partial message, [`PartialMessage`], and
//! the lenient parser of streaming tool-call arguments, `json_stream`) is plain data and
//! logic in `rho-protocol`; it is re-exported here under its old paths so provider code and
//! callers need not care where it lives.

pub mod api;
pub mod api_key;
pub mod auth;
pub mod catalog;
pub mod config_value;
pub mod debug_log;
pub mod env_refs;
pub mod event;
pub mod file_lock;
mod fold;
pub mod http;
pub mod llama;
pub mod model_list;
pub mod models_json;
pub mod models_store;
pub mod oauth;
pub mod options;
pub mod output_cap;
pub mod overflow;
pub mod provider;
pub mod providers;
pub mod registry;
pub mod reply;
pub mod retry;
pub mod sse;
pub mod stream_error;
pub mod time;
pub mod tool_call_id;
pub mod transform;

pub use rho_protocol::{content, json_stream, message, model, partial, usage};

pub use content::{ContentBlock, ImageContent, TextContent, ThinkingContent, ToolCall};
pub use event::{AssistantMessageEvent, AssistantStream, EventSink, PartialMessage};
pub use message::{
    now_ms, AssistantMessage, Context, Message, Tool, ToolResultMessage, UserContent, UserMessage,
};
pub use model::{InputKind, Model, ModelCompat, ModelCost, ThinkingLevel};
pub use model_list::ModelList;
pub use options::{CacheRetention, StreamOptions, ThinkingBudgets};
pub use provider::{stream, ProviderError};
pub use stream_error::StreamError;
pub use usage::{Cost, StopReason, Usage};
