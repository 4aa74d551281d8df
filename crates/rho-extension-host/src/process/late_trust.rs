//! After a start-up project trust decision (pi 1.6's `project_trust`): the extensions that
//! were asked keep running into the session, as in pi. Each is told the decision (`trust`),
//! and rho's pi host loads the trusted project's own pi extensions beside the running ones
//! (`load`), answering with its whole registration.

use std::path::PathBuf;
use std::sync::Arc;

use super::wire::{Registration, Request};
use super::ProcessExtension;

/// Why a running extension could not be told the decision or take more extensions.
#[derive(Debug, thiserror::Error)]
pub enum LateStartError {
    /// The process cannot be reached or did not answer; the text says why (it names the
    /// extension).
    #[error("{0}")]
    Unreachable(String),
    /// The message could not be encoded.
    #[error("cannot encode a message: {0}")]
    Encode(#[source] serde_json::Error),
    /// The pi host's answer to `load` is not a registration.
    #[error("the pi host answered load with no registration: {0}")]
    NotRegistration(#[source] serde_json::Error),
}

impl ProcessExtension {
    /// Tells the process the project's trust, decided after it started; it is what the
    /// process's [`ProcessExtension::with_paths`] successors start with too.
    pub async fn tell_trust(&mut self, project_trusted: bool) -> Result<(), LateStartError> {
        self.options.project_trusted = project_trusted;
        self.connection
            .notify(&Request::Trust { project_trusted })
            .await
    }

    /// Loads `paths` into the running process (rho's pi host) and gives it back with the
    /// registration it answers, which covers every extension it holds; `order` is all of the
    /// process's paths in load order. Waits as long as the handshake may take.
    pub async fn with_paths(
        &self,
        paths: &[PathBuf],
        order: &[PathBuf],
    ) -> Result<Self, LateStartError> {
        let text = |p: &[PathBuf]| p.iter().map(|p| p.display().to_string()).collect();
        let (paths, order) = (text(paths), text(order));
        let what = "loading the trusted project's extensions";
        let deadline = self.options.handshake_timeout;
        let reply = self
            .connection
            .request(what, deadline, None, |id| Request::Load {
                id,
                paths,
                order,
            })
            .await
            .map_err(LateStartError::Unreachable)?;
        let registration: Registration =
            serde_json::from_value(reply).map_err(LateStartError::NotRegistration)?;
        Ok(Self {
            registration: Arc::new(registration),
            ..self.clone()
        })
    }
}
