//! The model catalog's moving part, as pi 1.6 has it: models-store.json in the agent dir,
//! refreshed in the background when the interactive or RPC mode starts (never with
//! `--offline`, `RHO_OFFLINE` or `PI_OFFLINE`, never awaited by start-up, given up after 15
//! seconds), and on demand by `rho update --models`.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rho_ai::catalog;
use rho_ai::models_store::overlay::{NOT_REFRESHED, PERSONALIZED};
use rho_ai::models_store::refresh::{refresh, Options, Outcome, RefreshError, Target};
use rho_ai::models_store::ModelsStore;
use rho_ai::registry::{Base, ModelRegistry};
use rho_core::agent_session::{AuthStatus, CredentialStore};

use crate::args::Args;
use crate::credentials::CliCredentials;
use crate::extension_providers::ExtensionProviders;

/// pi's limit for a whole refresh.
const TIMEOUT: Duration = Duration::from_secs(15);

/// models-store.json of `agent_dir`, reporting problems with the file as rho's warnings.
pub fn store(agent_dir: &Path) -> Arc<ModelsStore> {
    let warn = Arc::new(|text: String| rho_extension_host::diagnostics::warn(text));
    Arc::new(ModelsStore::new(agent_dir, warn))
}

/// What a refresh reads: the session's credentials, which hold its model registry, and the
/// providers extensions registered (those with `refreshModels` refresh with the catalogs).
#[derive(Clone)]
pub struct Catalog {
    credentials: Arc<CliCredentials>,
    extension_providers: Arc<ExtensionProviders>,
}

impl Catalog {
    /// The refresh of the session built with `credentials` and `extension_providers`.
    pub fn new(
        credentials: Arc<CliCredentials>,
        extension_providers: Arc<ExtensionProviders>,
    ) -> Self {
        Self {
            credentials,
            extension_providers,
        }
    }

    /// Starts the refresh pi's interactive and RPC modes do at start-up, unless offline; the
    /// session sees the new models once it is done. Failures are dropped, as pi drops them.
    /// It runs on a thread of its own that rho does not wait for at exit: a name lookup stuck
    /// on a slow resolver (reqwest resolves on a blocking thread) must not hold rho's exit
    /// (the store is replaced atomically, so an exit in the middle of a write loses nothing).
    pub fn refresh_in_background(&self, args: &Args) {
        if !background_refresh_allowed(args) {
            return;
        }
        self.extension_providers.refresh_from_network();
        let credentials = self.credentials.clone();
        let run = move || {
            let Some(store) = credentials.models.store().cloned() else {
                return;
            };
            let (targets, _) = with_keys(&credentials, configured(&credentials));
            if targets.is_empty() {
                return;
            }
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            let options = Options::from_env(false);
            let run = refresh(&store, &targets, &options);
            let outcome = runtime.block_on(async { tokio::time::timeout(TIMEOUT, run).await });
            if outcome.is_ok_and(|o| !o.written.is_empty()) {
                credentials.models.reload_store();
            }
        };
        let _ = std::thread::Builder::new()
            .name("catalog-refresh".into())
            .spawn(run);
    }
}

impl Catalog {
    /// The llama.cpp router `LLAMA_BASE_URL` names, for `/llama`.
    pub fn llama_client(&self) -> Option<rho_ai::llama::LlamaClient> {
        let target = llama_target(&self.credentials)?;
        rho_ai::llama::LlamaClient::new(&target.base_url, target.key).ok()
    }

    /// Reads the router's models into models-store.json and the session's model list
    /// (`/llama` does this after a load or unload, even offline, as pi does).
    pub async fn refresh_llama(&self) -> Result<(), RefreshError> {
        let target = llama_target(&self.credentials).ok_or(RefreshError::LlamaNotConfigured)?;
        let store = self.credentials.models.store().cloned();
        let store = store.ok_or(RefreshError::NoStore)?;
        rho_ai::models_store::refresh::refresh_llama(&store, &target).await?;
        self.credentials.models.reload_store();
        Ok(())
    }
}

/// Whether start-up may refresh catalogs from the network.
pub fn background_refresh_allowed(args: &Args) -> bool {
    !crate::packages::offline(args)
}

/// The built-in providers rho refreshes that have configured credentials (a cheap check: no
/// command runs).
fn configured(credentials: &CliCredentials) -> Vec<&'static catalog::ProviderInfo> {
    catalog::providers()
        .filter(|p| !NOT_REFRESHED.contains(&p.id))
        .filter(|p| credentials.status(p.id) == AuthStatus::Configured)
        .collect()
}

/// The refresh targets of `providers`, OpenRouter's with a key it can use for its personal
/// list (resolving it may run a command), then a configured llama.cpp router; and a warning
/// per provider whose login failed.
fn with_keys(
    credentials: &CliCredentials,
    providers: Vec<&'static catalog::ProviderInfo>,
) -> (Vec<Target>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut targets: Vec<Target> = providers
        .into_iter()
        .filter_map(|p| {
            let base_url = credentials
                .models
                .provider(p.id)
                .and_then(|c| c.base_url.clone())
                .unwrap_or_else(|| p.base_url.to_string());
            let key = match p.id == PERSONALIZED {
                false => None,
                true => match credentials.api_key(p.id) {
                    Ok(Some(key)) => Some(key),
                    Ok(None) => return None,
                    Err(e) => {
                        warnings.push(format!(
                            "skipped model catalog for {}: {e}\nLog in again with `rho login {}` to refresh it.",
                            p.id, p.id
                        ));
                        return None;
                    }
                },
            };
            Some(Target {
                provider: p.id.to_string(),
                key,
                base_url,
            })
        })
        .collect();
    targets.extend(llama_target(credentials));
    (targets, warnings)
}

/// The llama.cpp router `LLAMA_BASE_URL` names, with its key.
pub fn llama_target(credentials: &CliCredentials) -> Option<Target> {
    use rho_ai::llama;
    let server = llama::server_from_env(&|name| std::env::var(name).ok())?;
    Some(Target {
        provider: llama::PROVIDER.to_string(),
        key: credentials.api_key(llama::PROVIDER).ok().flatten(),
        base_url: server,
    })
}

/// `rho update --models`: refreshes every configured provider's catalog now (pi refreshes on
/// this explicit request even offline), and says how it went as pi does.
pub fn update_command() -> ExitCode {
    let agent_dir = rho_session::paths::agent_dir();
    let store = store(&agent_dir);
    let models = ModelRegistry::load(
        &agent_dir.join("models.json"),
        Base::Catalog(Some(store.clone())),
    );
    let mut warnings = Vec::new();
    if let Some(e) = models.error() {
        warnings.push(e.to_string());
    }
    let credentials = CliCredentials::load(&agent_dir, None, models, &mut warnings);
    let (targets, skipped) = with_keys(&credentials, configured(&credentials));
    for warning in warnings.iter().chain(&skipped) {
        eprintln!("Warning: {warning}");
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
    };
    let options = Options::from_env(true);
    let run = refresh(&store, &targets, &options);
    match runtime.block_on(async { tokio::time::timeout(TIMEOUT, run).await }) {
        Err(_) => fail("Model catalog refresh timed out."),
        Ok(outcome) => report(&outcome),
    }
}

fn report(outcome: &Outcome) -> ExitCode {
    if outcome.errors.is_empty() {
        println!("Model catalogs refreshed");
        return ExitCode::SUCCESS;
    }
    let failures: Vec<String> = outcome
        .errors
        .iter()
        .map(|(provider, error)| format!("{provider}: {error}"))
        .collect();
    fail(&format!(
        "Could not refresh model catalogs: {}",
        failures.join("; ")
    ))
}

fn fail(message: &str) -> ExitCode {
    eprintln!("Error: {message}");
    ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offline_start_ups_do_not_refresh() {
        let mut args = Args::default();
        // The test process may run with RHO_OFFLINE or PI_OFFLINE set: the flag alone decides
        // here only when neither is.
        let env_offline = ["RHO_OFFLINE", "PI_OFFLINE"]
            .iter()
            .any(|v| std::env::var_os(v).is_some());
        assert_eq!(background_refresh_allowed(&args), !env_offline);
        args.offline = true;
        assert!(!background_refresh_allowed(&args));
    }

    #[test]
    fn failures_are_reported_per_provider() {
        let outcome = Outcome {
            written: vec!["xai".into()],
            errors: vec![(
                "groq".into(),
                "Model catalog request failed for groq: 500".into(),
            )],
        };
        assert_eq!(report(&outcome), ExitCode::FAILURE);
        assert_eq!(report(&Outcome::default()), ExitCode::SUCCESS);
    }
}
