//! /login and /logout for API keys: a provider is picked, its key typed (masked), and
//! `<agentDir>/auth.json` updated with mode 0600. The credential store reads auth.json again
//! when it changes, so the key works at once.

use std::collections::BTreeSet;
use std::path::Path;

use rho_ai::auth::{AuthFile, Credential};
use rho_tui::dialogs::{SelectItem, SelectList};

use super::app::App;
use super::dialogs::ActiveDialog;

/// Why /login or /logout could not update auth.json; the text is the notice shown.
#[derive(Debug, thiserror::Error)]
enum LoginError {
    /// auth.json is not valid.
    #[error("auth.json: {0}")]
    Parse(#[source] rho_ai::auth::AuthFileError),
    /// auth.json exists but cannot be read.
    #[error("cannot read auth.json: {0}")]
    Read(#[source] std::io::Error),
    /// auth.json could not be written.
    #[error(transparent)]
    Write(#[from] rho_core::session::SessionError),
    /// /logout of a provider without a stored credential.
    #[error("No stored credential for {0}")]
    NotStored(String),
}

/// auth.json as stored (empty when absent).
fn read_auth(agent_dir: &Path) -> Result<AuthFile, LoginError> {
    match std::fs::read_to_string(agent_dir.join("auth.json")) {
        Ok(text) => AuthFile::parse(&text).map_err(LoginError::Parse),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(AuthFile::default()),
        Err(e) => Err(LoginError::Read(e)),
    }
}

/// Writes auth.json owner-only (0600, also when the old file was readable by others) through a
/// temporary file and a rename: a crash or a full disk mid-write leaves the old keys, and
/// another rho reading it never sees half a file.
fn write_auth(agent_dir: &Path, file: &AuthFile) -> Result<(), LoginError> {
    use rho_core::session::{writer::write_atomic, Durability};
    let path = agent_dir.join("auth.json");
    Ok(write_atomic(
        &path,
        file.to_json_string().as_bytes(),
        Durability::Sync,
    )?)
}

impl App {
    /// /login [provider].
    pub(super) fn open_login(&mut self, provider: Option<String>) {
        let providers: Vec<String> = self
            .models
            .all()
            .iter()
            .map(|m| m.provider.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if let Some(p) = provider {
            let Some(i) = providers.iter().position(|x| *x == p) else {
                return self.notice(format!("Unknown provider: {p}"), true);
            };
            let list = SelectList::new("", vec![SelectItem::new(&p, "")]);
            self.open(ActiveDialog::LoginProvider(
                list,
                vec![providers[i].clone()],
            ));
            return self.dialog_input(&rho_tui::Input::key(rho_tui::input::KeyCode::Enter));
        }
        let items = providers
            .iter()
            .map(|p| {
                let status = match self.session.auth_status(p) {
                    rho_core::agent_session::AuthStatus::Missing => "",
                    _ => "configured",
                };
                SelectItem::new(p, status)
            })
            .collect();
        let list = SelectList::new("Log in to which provider?", items);
        self.open(ActiveDialog::LoginProvider(list, providers));
    }

    /// Stores `key` for `provider`.
    pub(super) fn store_key(&mut self, provider: &str, key: &str) {
        if key.is_empty() {
            return self.notice("No key entered; nothing stored".into(), true);
        }
        let result = read_auth(&self.agent_dir).and_then(|mut file| {
            file.set(
                provider,
                &Credential::ApiKey {
                    key: key.to_string(),
                },
            );
            write_auth(&self.agent_dir, &file)
        });
        match result {
            Ok(()) => self.notice(format!("Logged in to {provider}"), false),
            Err(e) => self.notice(e.to_string(), true),
        }
    }

    /// /logout [provider].
    pub(super) fn open_logout(&mut self, provider: Option<String>) {
        let file = match read_auth(&self.agent_dir) {
            Ok(f) => f,
            Err(e) => return self.notice(e.to_string(), true),
        };
        let stored: Vec<String> = file.providers().map(str::to_string).collect();
        if let Some(p) = provider {
            return self.remove_key(&p);
        }
        if stored.is_empty() {
            return self.notice("No stored credentials".into(), false);
        }
        let items = stored.iter().map(|p| SelectItem::new(p, "")).collect();
        let list = SelectList::new("Log out of which provider?", items);
        self.open(ActiveDialog::Logout(list, stored));
    }

    /// Removes `provider`'s stored credential.
    pub(super) fn remove_key(&mut self, provider: &str) {
        let result = read_auth(&self.agent_dir).and_then(|mut file| {
            if !file.remove(provider) {
                return Err(LoginError::NotStored(provider.to_string()));
            }
            write_auth(&self.agent_dir, &file)
        });
        match result {
            Ok(()) => self.notice(format!("Logged out of {provider}"), false),
            Err(e) => self.notice(e.to_string(), true),
        }
    }
}
