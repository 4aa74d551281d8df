//! /login and /logout. A subscription provider (Claude Pro/Max, ChatGPT Plus/Pro, GitHub
//! Copilot, and a provider an extension registered with a sign-in) signs in with OAuth through
//! the session: the browser opens on the sign-in page (its URL shows too), and a pasted
//! redirect URL or code, or a device code, works where no browser can reach rho. Other
//! providers take an API key, typed masked. auth.json is changed under its lock in pi's shape;
//! the credential store reads it again when it changes, so the login works at once.

use std::collections::BTreeSet;

use rho_ai::auth::Credential;
use rho_tui::dialogs::{SelectItem, SelectList};

use rho_core::auth_store::AuthStore;

use super::active::{ActiveDialog, LoginChoice};
use super::Dialogs;
use crate::screen::Screen;
use crate::shared::Shared;

fn auth_store(shared: &Shared) -> AuthStore {
    AuthStore::new(&shared.options.agent_dir)
}

impl Dialogs {
    /// /login [provider].
    pub fn open_login(&mut self, provider: Option<String>, shared: &Shared, screen: &mut Screen) {
        let with_models: BTreeSet<String> = shared
            .models
            .all()
            .iter()
            .map(|m| m.provider.clone())
            .collect();
        let sign_ins = shared.session.oauth_providers();
        if let Some(p) = provider {
            let Some(name) = sign_ins.get(&p).map(|s| s.name().to_string()) else {
                if !with_models.contains(&p) {
                    return screen.notice(format!("Unknown provider: {p}"), true);
                }
                return self.choose_login(LoginChoice::ApiKey(p), shared, screen);
            };
            let items = vec![
                SelectItem::new(format!("Sign in with {name}"), "opens the browser"),
                SelectItem::new("API key", "paste a key"),
            ];
            let list = SelectList::new(format!("Log in to {p}"), items);
            let choices = vec![LoginChoice::SignIn(p.clone()), LoginChoice::ApiKey(p)];
            return self.open(ActiveDialog::LoginProvider(list, choices));
        }
        let mut items = Vec::new();
        let mut choices = Vec::new();
        for sign_in in sign_ins.iter() {
            let id = sign_in.id();
            items.push(SelectItem::new(sign_in.name(), format!("sign in · {id}")));
            choices.push(LoginChoice::SignIn(id.to_string()));
        }
        for p in with_models {
            let status = match shared.session.auth_status(&p) {
                rho_core::agent_session::AuthStatus::Missing => "API key",
                _ => "API key · configured",
            };
            items.push(SelectItem::new(&p, status));
            choices.push(LoginChoice::ApiKey(p));
        }
        let list = SelectList::new("Log in to which provider?", items);
        self.open(ActiveDialog::LoginProvider(list, choices));
    }

    /// Acts on a /login row.
    pub(super) fn choose_login(
        &mut self,
        choice: LoginChoice,
        shared: &Shared,
        screen: &mut Screen,
    ) {
        match choice {
            LoginChoice::ApiKey(provider) => {
                let prompt = rho_tui::dialogs::InputDialog::new(
                    format!("API key for {provider}"),
                    "paste the key and press enter",
                )
                .masked();
                self.open(ActiveDialog::LoginKey(prompt, provider));
            }
            LoginChoice::SignIn(provider) => self.sign_in(provider, shared, screen),
        }
    }

    /// Runs the provider's sign-in in the background; its questions open dialogs.
    fn sign_in(&mut self, provider: String, shared: &Shared, screen: &mut Screen) {
        use rho_ai::oauth::OAuthError;
        use rho_core::agent_session::SignInError;
        let (notices, opener) = (self.notices.clone(), self.opener.clone());
        let (store, session) = (auth_store(shared), shared.session.clone());
        let name = session
            .oauth_providers()
            .get(&provider)
            .map_or_else(|| "the provider".to_string(), |s| s.name().to_string());
        screen.notice(format!("Signing in to {name}…"), false);
        tokio::spawn(async move {
            let cancel = tokio_util::sync::CancellationToken::new();
            let ui = super::login_ui::TuiLoginUi::new(notices.clone(), opener, cancel.clone());
            let result = session.sign_in(&provider, &ui, &cancel).await;
            ui.finished();
            let (text, error) = match result {
                Ok(()) => (
                    format!(
                        "Logged in to {name}. Credentials saved to {}",
                        store.path().display()
                    ),
                    false,
                ),
                Err(SignInError::OAuth(OAuthError::Cancelled)) => {
                    ("Login cancelled.".into(), false)
                }
                Err(SignInError::OAuth(e)) => (format!("Failed to log in to {name}: {e}"), true),
                Err(e) => (e.to_string(), true),
            };
            notices.notice(text, error);
        });
    }

    /// Stores `key` for `provider` (/login's key prompt, `/set api-key`).
    pub fn store_key(&mut self, provider: &str, key: &str, shared: &Shared, screen: &mut Screen) {
        if key.is_empty() {
            return screen.notice("No key entered; nothing stored".into(), true);
        }
        let credential = Credential::ApiKey {
            key: key.to_string(),
        };
        let result = auth_store(shared).update(|file| {
            file.set(provider, &credential);
            (true, ())
        });
        match result {
            Ok(()) => screen.notice(format!("Logged in to {provider}"), false),
            Err(e) => screen.notice(e.to_string(), true),
        }
    }

    /// /logout [provider].
    pub fn open_logout(&mut self, provider: Option<String>, shared: &Shared, screen: &mut Screen) {
        if let Some(p) = provider {
            return self.remove_key(&p, shared, screen);
        }
        let file = match auth_store(shared).read() {
            Ok(f) => f,
            Err(e) => return screen.notice(e.to_string(), true),
        };
        let stored: Vec<String> = file.providers().map(str::to_string).collect();
        if stored.is_empty() {
            return screen.notice("No stored credentials".into(), false);
        }
        let items = stored.iter().map(|p| SelectItem::new(p, "")).collect();
        let list = SelectList::new("Log out of which provider?", items);
        self.open(ActiveDialog::Logout(list, stored));
    }

    /// Removes `provider`'s stored credential.
    pub(super) fn remove_key(&mut self, provider: &str, shared: &Shared, screen: &mut Screen) {
        let result = auth_store(shared).update(|file| {
            let removed = file.remove(provider);
            (removed, removed)
        });
        match result {
            Ok(true) => screen.notice(format!("Logged out of {provider}"), false),
            Ok(false) => screen.notice(format!("No stored credential for {provider}"), true),
            Err(e) => screen.notice(e.to_string(), true),
        }
    }
}
