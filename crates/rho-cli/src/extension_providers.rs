//! Providers extensions register, at start-up and while the session runs (pi applies
//! `registerProvider` and `unregisterProvider` at once, and the virtual-model calls alike): their models go into the model
//! registry (the user's models.json entry of the same name overrides `baseUrl`, `apiKey` and
//! `headers`), their sign-ins into the credential store, and the replies of a provider that
//! streams in its extension to that extension.

use std::sync::Arc;

use rho_ai::Model;
use rho_core::agent_session::{ModelProviders, ProviderRegistrationError};
use rho_extension_host::providers::{provider_config, provider_models, ProviderStreams};
use rho_extension_host::ProviderDef;

use crate::credentials::CliCredentials;

/// Registers `def` in `credentials` and `streams`; one of its name is replaced.
pub fn register(
    credentials: &CliCredentials,
    streams: &ProviderStreams,
    def: &ProviderDef,
) -> Result<(), ProviderRegistrationError> {
    let config = provider_config(def, credentials.models.user_provider(&def.name))?;
    let models = provider_models(&def.name, &config);
    credentials
        .models
        .replace_provider(&def.name, models, config);
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
}

impl ModelProviders for ExtensionProviders {
    fn register(&self, def: &ProviderDef) -> Result<(), ProviderRegistrationError> {
        register(&self.credentials, &self.streams, def)
    }

    fn unregister(&self, name: &str) {
        self.credentials.models.remove_provider(name);
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
