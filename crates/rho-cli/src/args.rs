//! Command-line flags, named as pi names them so a pi user's muscle memory works.

use clap::Parser;

/// rho: a fast terminal coding agent, compatible with pi's sessions, settings and RPC.
#[derive(Debug, Parser)]
#[command(name = "rho", version, about, long_about = None)]
pub struct Args {
    /// Provider name (e.g. anthropic, openai, google).
    #[arg(long)]
    pub provider: Option<String>,
    /// Model id or pattern.
    #[arg(long)]
    pub model: Option<String>,
    /// API key (overrides environment and auth.json).
    #[arg(long = "api-key")]
    pub api_key: Option<String>,
    /// Output mode: text (default), json or rpc.
    #[arg(long)]
    pub mode: Option<String>,
    /// Non-interactive: process the prompt and exit.
    #[arg(short = 'p', long)]
    pub print: bool,
    /// Messages to send (use @file to include files).
    pub messages: Vec<String>,
}
