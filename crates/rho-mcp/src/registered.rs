//! Servers extensions register for the session (pi's `registerMcpServer`): they connect beside
//! mcp.json's, at once when registered while the session runs; a server mcp.json defines under
//! the same namespace wins and the registration waits aside (`/mcp` shows the override);
//! unregistering closes the server, so its tools are gone from the next listing on. Nothing is
//! saved.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{Scope, ServerConfig};
use crate::connection::lock;
use crate::manager::{connect_in_background, McpManager};
use crate::naming::namespace;
use crate::server::Server;

/// What a registration did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registered {
    /// The server connects (or, disabled, is listed).
    Added,
    /// The same registration again: nothing changed.
    Unchanged,
    /// mcp.json defines a server of that namespace, which takes precedence.
    Overridden,
}

impl McpManager {
    /// Adds `config` (scope [`Scope::Extension`]), replacing the earlier registration of its
    /// name; a new config closes the old server. Must run inside tokio.
    pub fn register(&self, config: ServerConfig) -> Registered {
        let ns = namespace(&config.name);
        let configured = self
            .servers()
            .into_iter()
            .any(|s| s.config.scope != Scope::Extension && namespace(s.name()) == ns);
        if configured {
            let mut overridden = lock(&self.overridden);
            overridden.retain(|r| r.name != config.name);
            overridden.push(config);
            return Registered::Overridden;
        }
        let old = self.find_registered(&config.name);
        if old.as_ref().is_some_and(|s| s.config == config) {
            return Registered::Unchanged;
        }
        if let Some(old) = old {
            self.remove(&old);
        }
        let server = Server::new(config, self.env.clone());
        if server.enabled() {
            connect_in_background(&server);
        }
        lock(&self.unawaited).push(server.clone());
        lock(&self.servers).push(server);
        Registered::Added
    }

    /// Removes the registration of `name` by the extension at `extension_path`: its server is
    /// closed (its tools unreachable from now on), or the override is forgotten. False when
    /// that extension registered nothing of that name.
    pub fn unregister(&self, name: &str, extension_path: &Path) -> bool {
        let mut found = false;
        lock(&self.overridden).retain(|r| {
            let theirs = r.name == name && r.source == extension_path;
            found |= theirs;
            !theirs
        });
        let registered = self.find_registered(name);
        if let Some(server) = registered.filter(|s| s.config.source == extension_path) {
            self.remove(&server);
            found = true;
        }
        found
    }

    /// The registered servers mcp.json's override, as pi's `/mcp` names them: `"x" registered by
    /// <extension> is overridden by "x" in <file>`.
    pub fn overridden(&self) -> Vec<String> {
        let servers = self.servers();
        lock(&self.overridden)
            .iter()
            .map(|r| {
                let by = servers
                    .iter()
                    .find(|s| namespace(s.name()) == namespace(&r.name));
                let (name, file) = by.map_or((r.name.as_str(), String::new()), |s| {
                    let file = s
                        .config
                        .override_source
                        .as_ref()
                        .unwrap_or(&s.config.source);
                    (s.name(), file.display().to_string())
                });
                format!(
                    "\"{}\" registered by {} is overridden by \"{name}\" in {file}",
                    r.name,
                    r.source.display()
                )
            })
            .collect()
    }

    /// The extensions whose registration the server `name` (from mcp.json) overrides.
    pub fn overrides(&self, name: &str) -> Vec<PathBuf> {
        lock(&self.overridden)
            .iter()
            .filter(|r| namespace(&r.name) == namespace(name))
            .map(|r| r.source.clone())
            .collect()
    }

    fn find_registered(&self, name: &str) -> Option<Arc<Server>> {
        self.servers()
            .into_iter()
            .find(|s| s.config.scope == Scope::Extension && s.name() == name)
    }

    /// Takes `server` out of the listing and its cached tools out of the cache at once, then
    /// closes it in the background.
    fn remove(&self, server: &Arc<Server>) {
        lock(&self.servers).retain(|s| !Arc::ptr_eq(s, server));
        lock(&self.unawaited).retain(|s| !Arc::ptr_eq(s, server));
        lock(&self.cache).retain(|t| !Arc::ptr_eq(t.server(), server));
        let server = server.clone();
        tokio::spawn(async move { server.close().await });
    }
}
