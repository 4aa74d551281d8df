//! pi's `newSession({ setup })` over the process protocol: `session_action` names a setup
//! token; once the old session has shut down rho sends `session_setup` with the new session's
//! view, and the extension's `session_setup_append` calls naming that request append to the
//! new session before it starts (rho_protocol::extension::calls::SESSION_SETUP_APPEND).

use std::path::PathBuf;
use std::sync::Arc;

use rho_protocol::extension::calls::{SessionSetupAppend, SESSION_SETUP_APPEND};
use serde_json::{json, Value};

use super::wire::Request;
use super::Connection;
use crate::{HostError, SessionSetup, SetupTarget};

/// The setup of the extension behind `conn` that gave `token`: a `session_setup` request under
/// the process's command deadline (a setup runs inside a command), restarted while the
/// extension's calls are served.
pub(crate) fn setup_hook(conn: Connection, token: u64) -> SessionSetup {
    let path = conn.path().to_string();
    SessionSetup::new(&path, move |target: Arc<dyn SetupTarget>| {
        let conn = conn.clone();
        Box::pin(async move {
            let session = target.view()?;
            let deadline = conn.options().command_timeout;
            let (id, rx) = conn
                .send_setup(target, |id| Request::SessionSetup {
                    id,
                    setup: token,
                    session,
                })
                .await
                .map_err(HostError::Setup)?;
            conn.wait(id, rx, "the new session's setup", deadline)
                .await
                .map(|_| ())
                .map_err(HostError::Setup)
        })
    })
}

/// Serves `session_setup_append`: `target` is the session of the request it names, if one is
/// under way. The answer is also written to the call's `file` when it names one.
pub(crate) fn append(
    params: Value,
    target: impl FnOnce(u64) -> Option<Arc<dyn SetupTarget>>,
) -> Result<Value, HostError> {
    let SessionSetupAppend {
        request,
        entry,
        file,
    } = super::calls::params(SESSION_SETUP_APPEND, params)?;
    let outcome = target(request)
        .ok_or(HostError::NoSetup(request))
        .and_then(|t| t.append(entry));
    let Some(file) = file else {
        return outcome;
    };
    let answer = match &outcome {
        Ok(entry) => json!({ "result": entry }),
        Err(e) => json!({ "error": e.to_string() }),
    };
    super::calls::write_answer_file(SESSION_SETUP_APPEND, PathBuf::from(file), &answer)?;
    outcome
}
