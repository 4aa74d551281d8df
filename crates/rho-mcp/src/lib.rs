//! MCP client for rho: servers configured in `mcp.json` (pi 1.6's format) become agent tools,
//! resources and prompts. Its own crate because it has its own boundary (the Model Context
//! Protocol, rmcp, child processes and an HTTP client) and dependency set, which sessions
//! without MCP servers never touch.

pub mod config;
pub mod connection;
pub mod content;
pub mod edit;
pub mod error;
pub mod limit;
pub mod log;
pub mod manager;
pub mod naming;
pub mod oauth;
pub mod ordered;
pub mod process;
pub mod registered;
pub mod resources;
pub mod search;
pub mod server;
pub mod tool;
pub mod values;

pub use config::{
    load as load_config, load_trusted as load_config_trusted, Exposure, McpConfig, ServerConfig,
};
pub use manager::{McpManager, McpOptions};
pub use oauth::store::McpAuthStore;
pub use process::CommandHook;
pub use registered::Registered;
pub use server::{ServerEnv, ServerState};
