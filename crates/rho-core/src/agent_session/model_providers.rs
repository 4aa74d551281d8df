//! Providers and virtual models extensions register after loading (pi's `registerProvider`,
//! `unregisterProvider`, `registerVirtualModel`, `unregisterVirtualModel` from a handler or a
//! command). The model registry, the credentials and
//! the routing of replies belong to the binary; the session hands registrations to it through
//! [`ModelProviders`], and its model list, shared with the registry, shows them at once.

use rho_extension_host::ProviderDef;

/// Why a provider could not be registered.
#[derive(Debug, thiserror::Error)]
pub enum ProviderRegistrationError {
    /// The config is not a valid models.json provider entry.
    #[error(transparent)]
    Config(#[from] rho_ai::models_json::ModelsJsonError),
    /// A virtual model would take a physical model's id.
    #[error(transparent)]
    Virtual(#[from] rho_ai::registry::VirtualConflict),
}

/// Where the session puts what extensions register after loading.
pub trait ModelProviders: Send + Sync {
    /// Registers `def` (one of its name is replaced): its models join the registry, its
    /// replies go to the extension when it streams them, its sign-in is listed by /login.
    fn register(&self, def: &ProviderDef) -> Result<(), ProviderRegistrationError>;
    /// Removes the provider `name` an extension registered: the models it replaced come back.
    fn unregister(&self, name: &str);
    /// Lists the virtual model `model` ([`rho_ai::Model::is_virtual`]); one of its provider
    /// and id is replaced.
    fn register_virtual_model(&self, model: rho_ai::Model)
        -> Result<(), ProviderRegistrationError>;
    /// Stops listing the virtual model `provider`/`id`.
    fn unregister_virtual_model(&self, provider: &str, id: &str);
}

/// Registers the providers and the virtual models `extensions` registered while loading (the
/// virtual models after the providers they may be listed under), with `provider` and
/// `virtual_model`; each refusal becomes a warning. Start-up and /reload both load this way.
pub fn register_loaded_models(
    extensions: &[rho_extension_host::Extension],
    mut provider: impl FnMut(&ProviderDef) -> Result<(), ProviderRegistrationError>,
    mut virtual_model: impl FnMut(rho_ai::Model) -> Result<(), ProviderRegistrationError>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for def in extensions.iter().flat_map(|e| e.providers()) {
        if let Err(e) = provider(def) {
            warnings.push(format!(
                "extension provider {} not registered: {e}",
                def.name
            ));
        }
    }
    for def in extensions.iter().flat_map(|e| e.virtual_models()) {
        if let Err(e) = virtual_model(def.spec.model()) {
            warnings.push(format!("extension virtual model not registered: {e}"));
        }
    }
    warnings
}
