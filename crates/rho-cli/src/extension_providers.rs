//! Providers extensions register, at start-up and while the session runs (pi applies
//! `registerProvider` and `unregisterProvider` at once, and the virtual-model calls alike): their models go into the model
//! registry (the user's models.json entry of the same name overrides `baseUrl`, `apiKey` and
//! `headers`), their sign-ins into the credential store, and the replies of a provider that
//! streams in its extension to that extension. A provider with `refreshModels` is refreshed
//! as pi refreshes it (see [`crate::extension_refresh`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rho_ai::Model;
use rho_core::agent_session::{ModelProviders, ProviderRegistrationError};
use rho_extension_host::providers::{provider_config, provider_models, ProviderStreams};
use rho_extension_host::ProviderDef;

use crate::credentials::CliCredentials;
use crate::extension_refresh::{self, Phase};

/// Puts `def`'s config and models into the registry of `credentials`, in place of those of
/// a provider of its name.
pub fn apply_config(
    credentials: &CliCredentials,
    def: &ProviderDef,
) -> Result<(), ProviderRegistrationError> {
    let config = provider_config(def, credentials.models.user_provider(&def.name))?;
    let models = provider_models(&def.name, &config);
    credentials
        .models
        .replace_provider(&def.name, models, config);
    Ok(())
}

/// Registers `def` in `credentials` and `streams`; one of its name is replaced.
pub fn register(
    credentials: &CliCredentials,
    streams: &ProviderStreams,
    def: &ProviderDef,
) -> Result<(), ProviderRegistrationError> {
    apply_config(credentials, def)?;
    let mut streams = streams.write().unwrap_or_else(|p| p.into_inner());
    match &def.stream {
        Some(stream) => streams.insert(def.name.clone(), stream.clone()),
        None => streams.remove(&def.name),
    };
    if let Some(oauth) = &def.oauth {
        credentials.add_oauth(oauth.clone());
    }
    Ok(())
}

/// The session's way to the registry for providers registered after loading.
pub struct ExtensionProviders {
    /// The registry and credentials the session uses.
    pub credentials: Arc<CliCredentials>,
    /// The providers whose extension streams their replies (the session's stream function
    /// reads the same map).
    pub streams: ProviderStreams,
    /// The registered providers with `refreshModels`, by name.
    refreshing: Mutex<HashMap<String, ProviderDef>>,
    /// Whether their refreshes may use the network: once the mode's catalog refresh ran
    /// (interactive and RPC, not offline).
    network: AtomicBool,
}

impl ExtensionProviders {
    /// The registrations of the session built with `credentials` and `streams`; `refreshing`
    /// are the providers with `refreshModels` extensions registered while loading (already
    /// in the registry).
    pub fn new(
        credentials: Arc<CliCredentials>,
        streams: ProviderStreams,
        refreshing: &[ProviderDef],
    ) -> Self {
        let refreshing = refreshing.iter().map(|d| (d.name.clone(), d.clone()));
        Self {
            credentials,
            streams,
            refreshing: Mutex::new(refreshing.collect()),
            network: AtomicBool::new(false),
        }
    }

    fn refreshing(&self) -> std::sync::MutexGuard<'_, HashMap<String, ProviderDef>> {
        self.refreshing.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// pi's network refresh: every provider with `refreshModels` asks its live service in
    /// the background, and so does each one registered from now on.
    pub fn refresh_from_network(&self) {
        self.network.store(true, Ordering::SeqCst);
        for def in self.refreshing().values() {
            self.spawn_refresh(def.clone(), &[Phase::Network]);
        }
    }

    /// Runs `phases` of `def`'s refresh in the background; a failure is a warning.
    fn spawn_refresh(&self, def: ProviderDef, phases: &'static [Phase]) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let credentials = self.credentials.clone();
        runtime.spawn(async move {
            for phase in phases {
                if let Err(e) = extension_refresh::refresh(&credentials, &def, *phase).await {
                    rho_extension_host::diagnostics::warn(e.to_string());
                    return;
                }
            }
        });
    }
}

impl ModelProviders for ExtensionProviders {
    fn register(&self, def: &ProviderDef) -> Result<(), ProviderRegistrationError> {
        register(&self.credentials, &self.streams, def)?;
        if def.refresh.is_none() {
            self.refreshing().remove(&def.name);
            return Ok(());
        }
        self.refreshing().insert(def.name.clone(), def.clone());
        // pi refreshes a provider as it registers it, from the network too once allowed.
        let phases: &'static [Phase] = match self.network.load(Ordering::SeqCst) {
            true => &[Phase::Stored, Phase::Network],
            false => &[Phase::Stored],
        };
        self.spawn_refresh(def.clone(), phases);
        Ok(())
    }

    fn unregister(&self, name: &str) {
        self.refreshing().remove(name);
        self.credentials.models.remove_provider(name);
        self.credentials.remove_oauth(name);
        self.streams
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(name);
    }

    fn register_virtual_model(&self, model: Model) -> Result<(), ProviderRegistrationError> {
        Ok(self.credentials.models.add_virtual_model(model)?)
    }

    fn unregister_virtual_model(&self, provider: &str, id: &str) {
        self.credentials.models.remove_virtual_model(provider, id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::future::BoxFuture;
    use rho_ai::oauth::{LoginUi, OAuthCredential, OAuthError, OAuthProvider};
    use rho_ai::registry::{Base, ModelRegistry};
    use rho_core::agent_session::CredentialStore;
    use serde_json::json;

    /// An extension's sign-in.
    struct Ext(&'static str);

    impl OAuthProvider for Ext {
        fn id(&self) -> &str {
            self.0
        }
        fn name(&self) -> &str {
            "from an extension"
        }
        fn login<'a>(
            &'a self,
            _ui: &'a dyn LoginUi,
        ) -> BoxFuture<'a, Result<OAuthCredential, OAuthError>> {
            Box::pin(async { Err(OAuthError::Cancelled) })
        }
        fn refresh<'a>(
            &'a self,
            _credential: &'a OAuthCredential,
        ) -> BoxFuture<'a, Result<OAuthCredential, OAuthError>> {
            Box::pin(async { Err(OAuthError::Cancelled) })
        }
    }

    fn sign_ins(c: &CliCredentials) -> Vec<(String, String)> {
        c.oauth()
            .iter()
            .map(|p| (p.id().to_string(), p.name().to_string()))
            .collect()
    }

    /// A provider `name` with one model and, with `oauth`, a sign-in.
    fn provider(name: &'static str, oauth: bool) -> ProviderDef {
        let config = json!({"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
                            "apiKey": "k", "models": [{"id": "m"}]});
        ProviderDef {
            name: name.into(),
            config,
            stream: None,
            oauth: oauth.then(|| Arc::new(Ext(name)) as Arc<dyn OAuthProvider>),
            refresh: None,
        }
    }

    /// pi's `unregisterProvider`: the provider's /login entry goes with it, and a built-in one
    /// it had replaced comes back; other extensions' sign-ins stay.
    #[test]
    fn unregistering_a_provider_removes_its_sign_in() {
        let dir = tempfile::tempdir().expect("dir");
        let models = ModelRegistry::load(
            &dir.path().join("models.json"),
            Base::Models(Arc::new(Vec::new())),
        );
        let credentials = CliCredentials::load(dir.path(), None, models, &mut Vec::new());
        let providers = ExtensionProviders::new(Arc::new(credentials), Default::default(), &[]);
        let builtin = sign_ins(&providers.credentials);
        for (name, oauth) in [
            ("gitlab-duo", true),
            ("late", true),
            ("anthropic", true),
            ("plain", false),
        ] {
            ModelProviders::register(&providers, &provider(name, oauth)).expect("registers");
        }
        providers.unregister("late");
        providers.unregister("plain");
        let listed = sign_ins(&providers.credentials);
        assert_eq!(listed.len(), builtin.len() + 1, "{listed:?}");
        assert!(listed.iter().all(|(id, _)| id != "late"), "{listed:?}");
        let ext = |id: &str| (id.to_string(), "from an extension".to_string());
        assert!(listed.contains(&ext("gitlab-duo")), "{listed:?}");
        assert!(listed.contains(&ext("anthropic")), "{listed:?}");
        providers.unregister("anthropic");
        providers.unregister("gitlab-duo");
        assert_eq!(
            sign_ins(&providers.credentials),
            builtin,
            "rho's own, as they were"
        );
    }
}
