//! pi 1.6's model refresh for providers extensions register with `refreshModels` (dynamic
//! discovery, such as a llama.cpp server's live list). As in pi it runs in two phases: with
//! `allowNetwork: false` the extension restores what it stored, with the stored credential;
//! with `allowNetwork: true` it may ask the live service, with the provider's key resolved
//! (skipped for a provider without one, as pi skips providers that are not configured). The
//! models it returns replace the provider's in the registry; what it publishes with
//! `publish({persist})` is written to models-store.json under pi's lock.

use std::time::Duration;

use rho_ai::auth::Credential;
use rho_ai::models_store::{ModelsStore, StoreEntry};
use rho_core::agent_session::{CredentialStore, ProviderRegistrationError};
use rho_extension_host::ProviderDef;
use rho_protocol::extension::RefreshedModels;
use serde_json::Value;

use crate::credentials::CliCredentials;

/// How long one `refreshModels` may take (pi's limit for a catalog refresh).
const TIMEOUT: Duration = Duration::from_secs(15);

/// Why a provider's refresh changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum RefreshError {
    /// `refreshModels` threw, or its host could not run it.
    #[error("refreshModels of provider {provider} failed: {message}")]
    Extension {
        /// The provider.
        provider: String,
        /// The extension's own error text.
        message: String,
    },
    /// No answer within [`TIMEOUT`].
    #[error("refreshModels of provider {provider} gave no answer within 15 s")]
    Timeout {
        /// The provider.
        provider: String,
    },
    /// What it published is not a models-store entry.
    #[error("refreshModels of provider {provider} published an entry that is not a models-store entry: {source}")]
    Entry {
        /// The provider.
        provider: String,
        /// Why the entry does not read.
        source: serde_json::Error,
    },
    /// models-store.json could not be written.
    #[error(transparent)]
    Store(#[from] rho_ai::models_store::StoreError),
    /// The registry refused the models it returned.
    #[error("the models refreshModels of provider {provider} returned were refused: {source}")]
    Refused {
        /// The provider.
        provider: String,
        /// Why.
        source: ProviderRegistrationError,
    },
}

/// Which of pi's two refresh phases runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// `allowNetwork: false`: restore what the provider stored.
    Stored,
    /// `allowNetwork: true`: ask the live service.
    Network,
}

/// Runs `def`'s `refreshModels` in `phase` and applies its answer. Does nothing for a
/// provider without `refreshModels`, or (network phase) without a credential.
pub async fn refresh(
    credentials: &CliCredentials,
    def: &ProviderDef,
    phase: Phase,
) -> Result<(), RefreshError> {
    let Some(refresh) = &def.refresh else {
        return Ok(());
    };
    let credential = match phase {
        Phase::Stored => credentials.stored(&def.name).map(|c| c.to_json()),
        Phase::Network => match network_credential(credentials, &def.name).await {
            Some(credential) => Some(credential),
            None => return Ok(()),
        },
    };
    let store = credentials.models.store().cloned();
    let stored = store.as_ref().and_then(|s| s.entry(&def.name));
    let stored = stored.and_then(|entry| serde_json::to_value(entry).ok());
    let provider = def.name.clone();
    let run = refresh(phase == Phase::Network, credential, stored);
    let refreshed = match tokio::time::timeout(TIMEOUT, run).await {
        Err(_) => return Err(RefreshError::Timeout { provider }),
        Ok(Err(message)) => return Err(RefreshError::Extension { provider, message }),
        Ok(Ok(refreshed)) => refreshed,
    };
    if let Some(store) = &store {
        persist(store, &def.name, &refreshed).await?;
    }
    let Some(models) = refreshed.models else {
        return Ok(());
    };
    let mut def = def.clone();
    if let Some(config) = def.config.as_object_mut() {
        config.insert("models".into(), Value::Array(models));
    }
    crate::extension_providers::apply_config(credentials, &def)
        .map_err(|source| RefreshError::Refused { provider, source })
}

/// Runs the stored phase of every provider in `defs` at once; a warning per failure.
pub async fn restore_all(credentials: &CliCredentials, defs: &[ProviderDef]) -> Vec<String> {
    let runs = defs
        .iter()
        .map(|def| refresh(credentials, def, Phase::Stored));
    let outcomes = futures_util::future::join_all(runs).await;
    let failures = outcomes.into_iter().filter_map(Result::err);
    failures.map(|e| e.to_string()).collect()
}

/// The credential of the network phase: a stored sign-in (renewed first when it expired),
/// else the provider's key resolved as a request resolves it.
async fn network_credential(credentials: &CliCredentials, provider: &str) -> Option<Value> {
    if let Some(Credential::OAuth(_)) = credentials.stored(provider) {
        credentials.oauth_token(provider, 0).await.ok()??;
        return credentials.stored(provider).map(|c| c.to_json());
    }
    let key = credentials.api_key(provider).ok()??;
    Some(serde_json::json!({"type": "api_key", "key": key}))
}

/// Writes what the refresh published: a new models-store.json entry, or its deletion.
async fn persist(
    store: &ModelsStore,
    provider: &str,
    refreshed: &RefreshedModels,
) -> Result<(), RefreshError> {
    let entry = match (&refreshed.persist, refreshed.forget) {
        (_, true) => None,
        (Some(value), false) => {
            let entry = serde_json::from_value::<StoreEntry>(value.clone());
            Some(entry.map_err(|source| RefreshError::Entry {
                provider: provider.to_string(),
                source,
            })?)
        }
        (None, false) => return Ok(()),
    };
    Ok(store.write(provider, entry.as_ref()).await?)
}
