//! The commands pi 1.6's built-in extensions register, for the modes without rho's screen
//! (RPC, print, JSON), where pi lists them in `get_commands`: `/mcp` (`builtin:mcp`) answers
//! the servers' status without a model call, as pi does outside its TUI, and `/llama`
//! (`builtin:llama.cpp`) says what pi says there. The interactive mode has its own `/mcp`
//! dialog; rho has no llama.cpp router management.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rho_extension_host::{CommandDef, Extension, ExtensionContext};
use rho_mcp::McpManager;

/// The built-in commands' extensions that are switched on, in pi's `get_commands` order
/// (`llama.cpp`, then `mcp` when MCP is on).
pub fn extensions(agent_dir: &Path, mcp: bool, llama: bool) -> Vec<Extension> {
    let mut out = Vec::new();
    if llama {
        let mut ext = Extension::new("builtin:llama.cpp");
        ext.register_command(CommandDef {
            complete: None,
            name: "llama".into(),
            description: Some("Manage llama.cpp router models".into()),
            handler: Arc::new(|_, ctx: ExtensionContext| {
                Box::pin(async move {
                    let text = "/llama is available in interactive mode";
                    ctx.ui.notify(text.into(), "warning".into());
                    Ok(())
                })
            }),
        });
        out.push(ext);
    }
    if mcp {
        let mut ext = Extension::new("builtin:mcp");
        let agent_dir = agent_dir.to_path_buf();
        ext.register_command(CommandDef {
            complete: None,
            name: "mcp".into(),
            description: Some(
                "Manage MCP servers: sign in, reconnect, enable or disable, and change exposure"
                    .into(),
            ),
            handler: Arc::new(move |args, ctx| {
                let agent_dir = agent_dir.clone();
                Box::pin(async move {
                    mcp_command(&args, &ctx, &agent_dir);
                    Ok(())
                })
            }),
        });
        out.push(ext);
    }
    out
}

/// `/mcp [status]`: the status lines; sign-in and other actions need the interactive mode
/// or `rho mcp`.
fn mcp_command(args: &str, ctx: &ExtensionContext, agent_dir: &Path) {
    let words: Vec<&str> = args.split_whitespace().collect();
    match words.as_slice() {
        [] | ["status"] => {
            let text = status(crate::mcp::running().as_deref(), agent_dir);
            ctx.ui.notify(text, "info".into());
        }
        [action, _server, ..] if matches!(*action, "login" | "logout" | "reconnect") => {
            let shell = if *action == "reconnect" {
                "list"
            } else {
                action
            };
            let text = format!(
                "/mcp {action} needs rho's interactive mode; from a shell run `rho mcp {shell}` \
                 (then /reload)"
            );
            ctx.ui.notify(text, "error".into());
        }
        _ => ctx.ui.notify(
            "Usage: /mcp [status | login <server> | logout <server> | reconnect <server>]".into(),
            "error".into(),
        ),
    }
}

/// pi's plain status: one line per server (`name: state, N tools (exposure)`, its error
/// indented below), then the configuration's errors and the registrations mcp.json overrides.
pub fn status(manager: Option<&McpManager>, agent_dir: &Path) -> String {
    let empty = || {
        let file: PathBuf = agent_dir.join("mcp.json");
        format!(
            "No MCP servers configured. Add them to {} or .pi/mcp.json.",
            file.display()
        )
    };
    let Some(manager) = manager else {
        return empty();
    };
    let mut lines: Vec<String> = manager
        .servers()
        .iter()
        .map(|s| {
            let name = s.name();
            let exposure = s.config.exposure.as_str();
            let state = s.state();
            if state == rho_mcp::ServerState::NeedsAuth {
                return format!("{name}: needs sign-in, run /mcp login {name} ({exposure})");
            }
            let connected = state == rho_mcp::ServerState::Connected;
            let tools = match connected {
                true => format!(", {} tools", s.tools().len()),
                false => String::new(),
            };
            let shown = match state {
                _ if !s.enabled() => "disabled",
                rho_mcp::ServerState::Disconnected => "disconnected, reconnects on next call",
                other => other.as_str(),
            };
            let error = s
                .error()
                .filter(|_| !connected)
                .map(|e| format!("\n    {}", e.replace('\n', "\n    ")))
                .unwrap_or_default();
            format!("{name}: {shown}{tools} ({exposure}){error}")
        })
        .collect();
    let status = manager.status();
    for error in status["errors"].as_array().into_iter().flatten() {
        lines.push(format!(
            "config error: {}",
            error.as_str().unwrap_or_default()
        ));
    }
    lines.extend(
        manager
            .overridden()
            .iter()
            .map(|o| format!("overridden: {o}")),
    );
    if lines.is_empty() {
        return empty();
    }
    lines.join("\n")
}
