//! `/mcp`: the session's MCP servers with their state, tool count, exposure and source (those
//! that need the user first), and per server: sign in (OAuth), tools, reconnect, sign out,
//! enable or disable (saved to the mcp.json that defines it, keeping the file's formatting; for
//! a server an extension registered, for this session only).
//! `/mcp login|logout|reconnect <server>` do one action directly, as in pi 1.6.

use std::sync::Arc;

use rho_mcp::server::Server;
use rho_mcp::{McpManager, ServerState};
use rho_tui::dialogs::{SelectItem, SelectList};

use super::active::{ActiveDialog, McpAction};
use super::Dialogs;
use crate::screen::Screen;
use crate::shared::Shared;

const USAGE: &str =
    "Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]";

/// pi's short state: `needs sign-in`, `failed: <first line>`, `connected · 3 tools`, ...
fn describe(server: &Server) -> String {
    if !server.enabled() {
        return "disabled".into();
    }
    match server.state() {
        ServerState::NeedsAuth => "needs sign-in".into(),
        ServerState::Failed => {
            let error = server.error().unwrap_or_else(|| "unknown error".into());
            format!("failed: {}", error.lines().next().unwrap_or_default())
        }
        ServerState::Connected => {
            let n = server.tools().len();
            let resources = if server.has_resources() {
                " · resources"
            } else {
                ""
            };
            format!(
                "connected · {n} tool{}{resources}",
                if n == 1 { "" } else { "s" }
            )
        }
        ServerState::Connecting => "connecting…".into(),
        ServerState::Disconnected => "disconnected".into(),
        ServerState::Disabled => "disabled".into(),
    }
}

/// Servers needing the user come first (pi's order).
fn attention(server: &Server) -> u8 {
    if !server.enabled() {
        return 5;
    }
    match server.state() {
        ServerState::NeedsAuth => 0,
        ServerState::Failed => 1,
        ServerState::Disconnected => 2,
        ServerState::Connected => 4,
        _ => 3,
    }
}

fn uses_oauth(server: &Server) -> bool {
    rho_mcp::oauth::oauth_target(&server.config).is_some()
}

/// The file an enable or disable is saved to; `None` for a server an extension registered
/// (the change lasts for the session).
fn config_file(server: &Server) -> Option<std::path::PathBuf> {
    if server.config.scope == rho_mcp::config::Scope::Extension {
        return None;
    }
    let file = server.config.override_source.as_ref();
    Some(file.unwrap_or(&server.config.source).clone())
}

/// Where an enable or disable goes, as the menu and the notice say it.
fn saved_where(file: Option<&std::path::Path>) -> String {
    file.map_or("for this session".to_string(), |f| {
        format!("saved to {}", f.display())
    })
}

impl Dialogs {
    /// `/mcp [login|logout|reconnect [server]]`.
    pub fn mcp_command(&mut self, args: &str, shared: &Shared, screen: &mut Screen) {
        let Some(manager) = shared.options.host.mcp() else {
            let file = shared.options.agent_dir.join("mcp.json");
            return screen.notice(
                format!(
                    "No MCP servers configured. Add them to {} or .pi/mcp.json.",
                    file.display()
                ),
                false,
            );
        };
        let mut words = args.split_whitespace();
        let (verb, name) = (words.next(), words.next());
        let action = match verb {
            None => return self.open_mcp_servers(&manager),
            Some("login") => McpAction::SignIn,
            Some("logout") => McpAction::SignOut,
            Some("reconnect") => McpAction::Reconnect,
            Some(_) => return screen.notice(USAGE.into(), true),
        };
        let servers = manager.servers();
        let eligible: Vec<&Arc<Server>> = servers
            .iter()
            .filter(|s| action == McpAction::Reconnect || uses_oauth(s))
            .collect();
        let chosen = match name {
            Some(n) => eligible.iter().find(|s| s.name() == n).copied(),
            None => match eligible.as_slice() {
                [one] => Some(*one),
                _ => eligible
                    .iter()
                    .find(|s| action == McpAction::SignIn && s.state() == ServerState::NeedsAuth)
                    .copied(),
            },
        };
        match chosen {
            Some(server) => self.mcp_act(server.clone(), action, shared, screen),
            None if action == McpAction::Reconnect => {
                screen.notice(format!("No MCP server named \"{}\".", name.unwrap_or_default()), true)
            }
            None => screen.notice(
                "Name an MCP server that uses OAuth. Only HTTP servers without an Authorization header do.".into(),
                true,
            ),
        }
    }

    /// The list of servers.
    fn open_mcp_servers(&mut self, manager: &McpManager) {
        let listed = manager.servers();
        let mut servers: Vec<&Arc<Server>> = listed.iter().collect();
        servers.sort_by(|a, b| attention(a).cmp(&attention(b)).then(a.name().cmp(b.name())));
        let items = servers
            .iter()
            .map(|s| {
                let scope = match s.config.scope {
                    rho_mcp::config::Scope::Extension => {
                        format!("extension {}", s.config.source.display())
                    }
                    other => other.as_str().to_string(),
                };
                let overrides: String = manager
                    .overrides(s.name())
                    .iter()
                    .map(|p| format!(" · overrides extension {}", p.display()))
                    .collect();
                let description = format!(
                    "{} · {} · {scope}{overrides}",
                    describe(s),
                    s.config.exposure.as_str()
                );
                SelectItem::new(s.name(), description)
            })
            .collect();
        let names = servers.iter().map(|s| s.name().to_string()).collect();
        let list = SelectList::new("MCP servers", items).with_aligned_descriptions();
        self.open(ActiveDialog::McpServers(list, names));
    }

    /// The menu of one server.
    pub(super) fn open_mcp_server(&mut self, name: &str, shared: &Shared, screen: &mut Screen) {
        let Some(server) = shared.options.host.mcp().and_then(|m| m.server(name).ok()) else {
            return screen.notice(format!("No MCP server named \"{name}\"."), true);
        };
        let mut actions = Vec::new();
        let saved = saved_where(config_file(&server).as_deref());
        if server.enabled() {
            let state = server.state();
            if state == ServerState::NeedsAuth {
                actions.push((
                    McpAction::SignIn,
                    "Sign in",
                    "opens the browser".to_string(),
                ));
            }
            if state == ServerState::Connected {
                let n = server.tools().len();
                actions.push((McpAction::Tools, "Tools", format!("{n} offered")));
            }
            if state != ServerState::Connecting {
                actions.push((McpAction::Reconnect, "Reconnect", String::new()));
            }
            if state == ServerState::Connected && uses_oauth(&server) {
                let what = "deletes the stored credentials".to_string();
                actions.push((McpAction::SignOut, "Sign out", what));
            }
            actions.push((McpAction::Disable, "Disable", saved));
        } else {
            actions.push((McpAction::Enable, "Enable", saved));
        }
        let mut title = format!("MCP server {name} · {}", describe(&server));
        if let (Some(e), false) = (server.error(), server.state() == ServerState::Connected) {
            title.push_str(&format!(" · {}", e.lines().next().unwrap_or_default()));
        }
        let items = actions
            .iter()
            .map(|(_, label, d)| SelectItem::new(*label, d.clone()))
            .collect();
        let list = SelectList::new(title, items);
        let kinds = actions.into_iter().map(|(a, ..)| a).collect();
        self.open(ActiveDialog::McpServer(list, name.to_string(), kinds));
    }

    /// The tools a server offers, with their exposure.
    fn open_mcp_tools(&mut self, server: &Server) {
        let items = server
            .tools()
            .iter()
            .map(|t| {
                let first = t.description.lines().next().unwrap_or_default();
                SelectItem::new(&t.tool, format!("[{}] {first}", t.exposure.as_str()))
            })
            .collect();
        let title = format!(
            "Tools of {} (exposure {})",
            server.name(),
            server.config.exposure.as_str()
        );
        let list = SelectList::new(title, items).with_aligned_descriptions();
        self.open(ActiveDialog::McpTools(list, server.name().to_string()));
    }

    /// Runs `action` on `server`; slow ones run in the background and report in a notice.
    pub(super) fn mcp_act(
        &mut self,
        server: Arc<Server>,
        action: McpAction,
        shared: &Shared,
        screen: &mut Screen,
    ) {
        let name = server.name().to_string();
        let notices = self.notices.clone();
        let say = move |text: String, error: bool| notices.notice(text, error);
        match action {
            McpAction::Tools => self.open_mcp_tools(&server),
            McpAction::Reconnect => {
                screen.notice(format!("Reconnecting MCP server \"{name}\"…"), false);
                tokio::spawn(async move {
                    server.stop().await;
                    match server.client().await {
                        Ok(_) => say(
                            format!("MCP server \"{name}\": {}", describe(&server)),
                            false,
                        ),
                        Err(e) => say(e.to_string(), true),
                    }
                });
            }
            McpAction::SignOut => {
                let store = rho_mcp::McpAuthStore::new(&shared.options.agent_dir);
                let url = rho_mcp::oauth::oauth_target(&server.config).map(|(u, _)| u.to_string());
                tokio::spawn(async move {
                    let removed = url.map(|u| store.remove(&name, &u));
                    server.signed_out().await;
                    match removed {
                        Some(Ok(true)) => {
                            say(format!("Signed out of MCP server \"{name}\"."), false)
                        }
                        Some(Err(e)) => say(e.to_string(), true),
                        _ => say(
                            format!("No stored credentials for MCP server \"{name}\"."),
                            false,
                        ),
                    }
                });
            }
            McpAction::Enable | McpAction::Disable => {
                let on = action == McpAction::Enable;
                let file = config_file(&server);
                if let Some(file) = &file {
                    let json = rho_mcp::ordered::Json::Bool(on);
                    if let Err(e) = rho_mcp::edit::set_field(file, &name, "enabled", json) {
                        return screen
                            .notice(format!("Could not update {}: {e}", file.display()), true);
                    }
                }
                let verb = if on { "enabled" } else { "disabled" };
                let saved = saved_where(file.as_deref());
                screen.notice(format!("MCP server \"{name}\" {verb} ({saved})"), false);
                tokio::spawn(async move {
                    server.set_enabled(on).await;
                    if on {
                        server.settled().await;
                        let failed = server.state() != ServerState::Connected;
                        say(
                            format!("MCP server \"{name}\": {}", describe(&server)),
                            failed,
                        );
                    }
                });
            }
            McpAction::SignIn => self.mcp_sign_in(server, shared, screen),
        }
    }

    /// Signs in to an OAuth server (the browser opens; a pasted redirect URL works too), then
    /// connects it with the new credentials.
    fn mcp_sign_in(&mut self, server: Arc<Server>, shared: &Shared, screen: &mut Screen) {
        let name = server.name().to_string();
        let store = rho_mcp::McpAuthStore::new(&shared.options.agent_dir);
        let (notices, opener) = (self.notices.clone(), self.opener.clone());
        screen.notice(format!("Signing in to MCP server \"{name}\"…"), false);
        tokio::spawn(async move {
            let cancel = tokio_util::sync::CancellationToken::new();
            let ui = super::login_ui::TuiLoginUi::new(notices.clone(), opener, cancel.clone());
            let challenge = server.challenge();
            let signed =
                rho_mcp::oauth::sign_in(&server.config, &store, &ui, challenge.as_deref(), &cancel)
                    .await;
            ui.finished();
            let (text, error) = match signed {
                Err(rho_mcp::oauth::SignInError::Cancelled) => ("Sign-in cancelled.".into(), false),
                Err(e) => (e.to_string(), true),
                Ok(()) => {
                    server.stop().await;
                    match server.client().await {
                        Ok(_) => (
                            format!(
                                "Signed in to MCP server \"{name}\" ({} tools).",
                                server.tools().len()
                            ),
                            false,
                        ),
                        Err(e) => (format!("Signed in, but {e}"), true),
                    }
                }
            };
            notices.notice(text, error);
        });
    }
}
