//! Subscription sign-ins through the session: /login lists the session's sign-ins (rho's own
//! and those extensions registered with their providers) and runs one here; the session's
//! credential store keeps the credential, and refreshes it through the same sign-in later.

use rho_ai::oauth::{LoginUi, OAuthError, OAuthProviders};
use tokio_util::sync::CancellationToken;

use super::credentials::CredentialError;
use super::AgentSession;

/// Why a sign-in stored nothing; the text is what the user sees.
#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// The sign-in failed or was cancelled.
    #[error(transparent)]
    OAuth(#[from] OAuthError),
    /// The credential could not be kept.
    #[error(transparent)]
    Store(#[from] CredentialError),
}

impl AgentSession {
    /// The sign-ins /login offers, in its order.
    pub fn oauth_providers(&self) -> OAuthProviders {
        self.inner.services.credentials.oauth()
    }

    /// Signs in to `provider` through `ui` and keeps the credential; `cancel` stops the flow
    /// at any step. A failed sign-in leaves the stored credentials as they were.
    pub async fn sign_in(
        &self,
        provider: &str,
        ui: &dyn LoginUi,
        cancel: &CancellationToken,
    ) -> Result<(), SignInError> {
        let credentials = &self.inner.services.credentials;
        let credential = credentials.oauth().login(provider, ui, cancel).await?;
        credentials.save_oauth(provider, credential)?;
        Ok(())
    }
}
