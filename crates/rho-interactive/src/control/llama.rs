//! /llama: the llama.cpp router's models, as pi 1.6's built-in llama.cpp extension manages
//! them, in words rather than a dialog: `/llama` lists the router's models with their state,
//! `/llama load <id>` loads one (others stay loaded) and `/llama unload <id>` unloads one;
//! after either, the router's models are read again into the model list, so `/model` offers
//! what is loaded. The router is the one `LLAMA_BASE_URL` names.

use rho_ai::llama::{LlamaClient, LlamaError};

use super::Control;
use crate::shared::Shared;

/// What `/llama` says when no router is configured.
const NOT_CONFIGURED: &str =
    "Configure llama.cpp: set LLAMA_BASE_URL to the router's URL (and LLAMA_API_KEY if it has one)";
const USAGE: &str = "Usage: /llama, /llama load <model>, /llama unload <model>";

impl Control {
    /// Runs `/llama args` in a task; its outcome arrives as a notice.
    pub(super) fn llama(&mut self, args: &str, shared: &Shared) {
        let host = shared.options.host.clone();
        let tx = self.notices.clone();
        let Some(client) = host.llama_client() else {
            return tx.notice(NOT_CONFIGURED.to_string(), true);
        };
        let mut words = args.split_whitespace();
        let command = match (words.next(), words.next(), words.next()) {
            (None, _, _) => Command::List,
            (Some("load"), Some(id), None) => Command::Load(id.to_string()),
            (Some("unload"), Some(id), None) => Command::Unload(id.to_string()),
            _ => return tx.notice(USAGE.to_string(), true),
        };
        if let Command::Load(id) = &command {
            tx.notice(format!("Loading {id}…"), false);
        }
        tokio::spawn(async move {
            let (text, error) = match run(&client, &command).await {
                Ok(text) => (text, false),
                Err(e) => (e.to_string(), true),
            };
            if !matches!(command, Command::List) {
                if let Err(e) = host.refresh_llama().await {
                    tx.notice(e.to_string(), true);
                }
            }
            tx.notice(text, error);
        });
    }
}

enum Command {
    List,
    Load(String),
    Unload(String),
}

/// What the router did, as pi says it (`Loaded <id>`, `Unloaded <id>`), or its error.
async fn run(client: &LlamaClient, command: &Command) -> Result<String, LlamaError> {
    match command {
        Command::List => {
            let models = client.list().await?;
            if models.is_empty() {
                return Ok(format!("llama.cpp at {}: no models", client.server_url()));
            }
            let rows: Vec<String> = models
                .iter()
                .map(|m| format!("  {} ({})", m.id, m.status.value))
                .collect();
            Ok(format!(
                "llama.cpp at {}:\n{}",
                client.server_url(),
                rows.join("\n")
            ))
        }
        Command::Load(id) => {
            client.load_and_wait(id).await?;
            Ok(format!("Loaded {id}"))
        }
        Command::Unload(id) => {
            client.unload_and_wait(id).await?;
            Ok(format!("Unloaded {id}"))
        }
    }
}
