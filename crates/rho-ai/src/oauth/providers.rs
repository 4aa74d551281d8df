//! The sign-ins a session knows: rho's own (Claude Pro/Max, ChatGPT Plus/Pro, GitHub Copilot)
//! and those extensions register with a provider (pi's `registerProvider(name, { oauth })`).
//! Each is an [`OAuthProvider`]: it logs in through a [`LoginUi`], refreshes a stored
//! credential and turns one into the key a request sends. [`OAuthProviders`] is the registry
//! /login lists and the credential store refreshes through; an extension's sign-in for a
//! provider id rho also knows takes its place, as in pi.

use std::sync::Arc;

use futures_util::future::BoxFuture;

use super::{LoginUi, OAuthCredential, OAuthError};

/// One provider's sign-in.
pub trait OAuthProvider: Send + Sync {
    /// The provider id its credential is stored under in auth.json.
    fn id(&self) -> &str;
    /// What /login shows ("Anthropic (Claude Pro/Max)").
    fn name(&self) -> &str;
    /// Signs in; the credential is in pi's auth.json shape and stored by the caller.
    fn login<'a>(
        &'a self,
        ui: &'a dyn LoginUi,
    ) -> BoxFuture<'a, Result<OAuthCredential, OAuthError>>;
    /// A new access token for a stored credential (the refresh token may rotate too; store
    /// the whole result).
    fn refresh<'a>(
        &'a self,
        credential: &'a OAuthCredential,
    ) -> BoxFuture<'a, Result<OAuthCredential, OAuthError>>;
    /// The key a request sends with `credential` (rho's own sign-ins: the access token).
    fn api_key<'a>(
        &'a self,
        credential: &'a OAuthCredential,
    ) -> BoxFuture<'a, Result<String, OAuthError>> {
        Box::pin(std::future::ready(Ok(credential.access.clone())))
    }
}

/// One of rho's own sign-ins.
struct BuiltIn {
    id: &'static str,
    name: &'static str,
}

impl OAuthProvider for BuiltIn {
    fn id(&self) -> &str {
        self.id
    }

    fn name(&self) -> &str {
        self.name
    }

    fn login<'a>(
        &'a self,
        ui: &'a dyn LoginUi,
    ) -> BoxFuture<'a, Result<OAuthCredential, OAuthError>> {
        Box::pin(async move {
            match self.id {
                "anthropic" => super::anthropic::login(ui).await,
                "openai-codex" => super::codex::login(ui).await,
                "github-copilot" => super::copilot::login(ui).await,
                other => Err(OAuthError::NotOAuth(other.to_string())),
            }
        })
    }

    fn refresh<'a>(
        &'a self,
        credential: &'a OAuthCredential,
    ) -> BoxFuture<'a, Result<OAuthCredential, OAuthError>> {
        Box::pin(async move {
            match self.id {
                "anthropic" => super::anthropic::refresh(&credential.refresh).await,
                "openai-codex" => super::codex::refresh(&credential.refresh).await,
                "github-copilot" => super::copilot::refresh(credential).await,
                other => Err(OAuthError::NotOAuth(other.to_string())),
            }
        })
    }
}

/// The sign-ins of a session, in /login's order: rho's own, then the extensions'.
#[derive(Clone)]
pub struct OAuthProviders {
    providers: Vec<Arc<dyn OAuthProvider>>,
}

impl Default for OAuthProviders {
    fn default() -> Self {
        Self::builtin()
    }
}

impl std::fmt::Debug for OAuthProviders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.providers.iter().map(|p| p.id()))
            .finish()
    }
}

impl OAuthProviders {
    /// rho's own sign-ins.
    pub fn builtin() -> Self {
        let providers = crate::auth::OAUTH_PROVIDERS
            .iter()
            .map(|&(id, name)| Arc::new(BuiltIn { id, name }) as Arc<dyn OAuthProvider>)
            .collect();
        Self { providers }
    }

    /// Adds `provider`; one of the same id is replaced (an extension's sign-in for
    /// `anthropic` is the one /login runs, as pi lets an extension's `oauth` win).
    pub fn add(&mut self, provider: Arc<dyn OAuthProvider>) {
        match self.providers.iter().position(|p| p.id() == provider.id()) {
            Some(at) => self.providers[at] = provider,
            None => self.providers.push(provider),
        }
    }

    /// The sign-in of provider `id`.
    pub fn get(&self, id: &str) -> Option<&Arc<dyn OAuthProvider>> {
        self.providers.iter().find(|p| p.id() == id)
    }

    /// Every sign-in, in /login's order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn OAuthProvider>> {
        self.providers.iter()
    }

    /// Signs in to `id` through `ui`; `cancel` stops the flow at any step.
    pub async fn login(
        &self,
        id: &str,
        ui: &dyn LoginUi,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<OAuthCredential, OAuthError> {
        let provider = self
            .get(id)
            .ok_or_else(|| OAuthError::NotOAuth(id.to_string()))?;
        tokio::select! {
            r = provider.login(ui) => r,
            _ = cancel.cancelled() => Err(OAuthError::Cancelled),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Named(&'static str);

    impl OAuthProvider for Named {
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

    #[test]
    fn an_extension_sign_in_joins_after_rhos_own_and_replaces_one_of_the_same_id() {
        let mut registry = OAuthProviders::builtin();
        let ids = |r: &OAuthProviders| r.iter().map(|p| p.id().to_string()).collect::<Vec<_>>();
        assert_eq!(
            ids(&registry),
            ["anthropic", "github-copilot", "openai-codex"]
        );
        registry.add(Arc::new(Named("gitlab-duo")));
        registry.add(Arc::new(Named("anthropic")));
        assert_eq!(
            ids(&registry),
            ["anthropic", "github-copilot", "openai-codex", "gitlab-duo"]
        );
        let anthropic = registry.get("anthropic").map(|p| p.name().to_string());
        assert_eq!(anthropic.as_deref(), Some("from an extension"));
        assert!(registry.get("nobody").is_none());
    }
}
