//! Replacing the loaded extensions while the session lives (/reload) and ending them (quit):
//! pi's runtime teardown. The old set gets `session_shutdown` with the reason, leaves the
//! runner and the agent's tools, and its processes are ended; a new set is put in place with
//! its tools. The caller then sends `session_start` (reason `reload`) through [`AgentSession::start`].

use std::sync::Arc;
use std::time::Duration;

use rho_agent::AgentTool;

use super::AgentSession;
use rho_extension_host::{Extension, ExtensionEvent};

/// How long an unloaded extension process may take to exit after its stdin closed.
pub const EXTENSION_EXIT_GRACE: Duration = Duration::from_secs(2);

/// How long extensions may take over `session_shutdown` when a signal ends rho, so a stuck
/// one cannot hold up the signal's exit.
pub const SIGNAL_SHUTDOWN_BOUND: Duration = Duration::from_secs(3);

impl AgentSession {
    /// Quitting: the extensions get `session_shutdown` (reason `quit`) with no UI left to
    /// answer through (the mode's screen or client is going), and their processes end.
    pub async fn shut_down_extensions(&self) {
        self.set_ui(Arc::new(rho_extension_host::NoUi));
        self.unload_extensions("quit").await;
    }

    /// Quitting with the mode's client or screen still there: the extensions get
    /// `session_shutdown` (reason `quit`), and what their handlers tell (statuses, notices,
    /// the title) still reaches it, as in pi; their questions get no answer
    /// ([`rho_extension_host::ClosingUi`]).
    pub async fn shut_down_extensions_telling(&self) {
        let ui = super::lock(&self.inner.services.ui).clone();
        self.set_ui(Arc::new(rho_extension_host::ClosingUi(ui)));
        self.unload_extensions("quit").await;
    }

    /// [`Self::shut_down_extensions`] for a termination signal: at most
    /// [`SIGNAL_SHUTDOWN_BOUND`].
    pub async fn shut_down_extensions_for_signal(&self) {
        let _ = tokio::time::timeout(SIGNAL_SHUTDOWN_BOUND, self.shut_down_extensions()).await;
    }

    /// Sends `session_shutdown` (`reason`: `reload`, `quit`) to the loaded extensions, takes
    /// them and their tools out of the session and ends their processes (each gets
    /// [`EXTENSION_EXIT_GRACE`] to exit on its own). Returns how many were unloaded.
    pub async fn unload_extensions(&self, reason: &str) -> usize {
        let runner = &self.inner.services.extensions;
        runner
            .emit(
                ExtensionEvent::SessionShutdown {
                    reason: reason.to_string(),
                    target_session_file: None,
                },
                &self.ext_ctx(),
            )
            .await;
        let old = runner.replace(Vec::new());
        self.retire_model_providers(&old);
        let dynamic = self.drop_dynamic_tools();
        self.swap_extension_tools(&old, &dynamic, Vec::new());
        futures_util::future::join_all(old.iter().map(|e| e.close(EXTENSION_EXIT_GRACE))).await;
        old.len()
    }

    /// Puts `extensions` in place of the loaded set (normally empty after
    /// [`Self::unload_extensions`]); their tools join the active ones and the providers and
    /// virtual models they registered while loading join the model registry, as start-up
    /// puts them there. Returns a warning for each registration the registry refused.
    pub fn load_extensions(&self, extensions: Vec<Extension>) -> Vec<String> {
        let warnings = self.register_model_providers(&extensions);
        let tools = super::collect_extension_tools(&extensions);
        let old = self.inner.services.extensions.replace(extensions);
        self.swap_extension_tools(&old, &[], tools);
        warnings
    }

    /// The providers and virtual models `extensions` registered while loading, into the
    /// registry.
    fn register_model_providers(&self, extensions: &[Extension]) -> Vec<String> {
        let Some(registry) = self.inner.services.model_providers.clone() else {
            return Vec::new();
        };
        super::register_loaded_models(
            extensions,
            |def| registry.register(def),
            |model| registry.register_virtual_model(model),
        )
    }

    /// Takes the providers and virtual models `old` registered while loading out of the
    /// registry: the reloaded code registers its own (pi's registrations are not kept
    /// across a reload), and the models they replaced come back meanwhile.
    fn retire_model_providers(&self, old: &[Extension]) {
        let Some(registry) = self.inner.services.model_providers.clone() else {
            return;
        };
        for def in old.iter().flat_map(|e| e.virtual_models()) {
            registry.unregister_virtual_model(&def.spec.provider, &def.spec.id);
        }
        for def in old.iter().flat_map(|e| e.providers()) {
            registry.unregister(&def.name);
        }
    }

    /// The agent's tools without those of `old` and the `dynamic` ones registered later, with
    /// `new` appended.
    fn swap_extension_tools(
        &self,
        old: &[Extension],
        dynamic: &[Arc<dyn AgentTool>],
        new: Vec<Arc<dyn AgentTool>>,
    ) {
        let retired: Vec<&Arc<dyn AgentTool>> =
            old.iter().flat_map(|e| e.tools()).chain(dynamic).collect();
        let mut tools = self.inner.services.agent.with_state(|s| s.tools.clone());
        tools.retain(|t| !retired.iter().any(|r| Arc::ptr_eq(r, t)));
        self.inner
            .services
            .agent
            .set_tools(super::with_extension_tools(tools, new));
    }
}

impl AgentSession {
    /// Runs the shortcut an extension (at `path`) registered, as its key was pressed; a
    /// failing handler is reported as an `extension_error` of event `shortcut`.
    pub async fn run_shortcut(&self, path: &str, shortcut: &rho_extension_host::ShortcutDef) {
        if let Err(e) = (shortcut.handler)(self.ext_ctx()).await {
            self.inner.services.extensions.report(path, "shortcut", e);
        }
    }
}
