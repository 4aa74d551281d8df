//! Why a run ended without the model's reply (AC-5). The text becomes the `errorMessage` of
//! the synthetic assistant message that ends the run, so it is what clients show.

use rho_ai::ProviderError;

use crate::stored::ReadError;

/// A run's failure before or while asking the model.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunFailure {
    /// A message of the transcript could not be read back from the session file.
    #[error(transparent)]
    Unreadable(#[from] ReadError),
    /// The provider call could not start (configuration, request building).
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// The provider's stream closed without a final event.
    #[error("Provider stream ended without a result")]
    StreamEnded,
    /// A hook the session installed (context transform, key lookup) failed; the hook's own
    /// text, which is an extension's or the credential store's message.
    #[error("{0}")]
    Hook(String),
    /// The loop panicked; the panic's message.
    #[error("Agent loop panicked: {0}")]
    Panicked(String),
}

/// The hooks answer with their own error text (see [`crate::hooks`]).
impl From<String> for RunFailure {
    fn from(text: String) -> Self {
        RunFailure::Hook(text)
    }
}
