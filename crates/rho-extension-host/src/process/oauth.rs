//! The sign-in of a provider an extension process registered (pi's `registerProvider(name,
//! { oauth })`) as an [`OAuthProvider`]: `login` is an `oauth_login` request whose notices
//! and questions come back as `oauth_notify` / `oauth_prompt` calls naming it, answered
//! through the session's [`LoginUi`]; `refresh` and `api_key` are `oauth_refresh` and
//! `oauth_api_key` requests. What the process answers, or why it cannot, is an
//! [`OAuthError::Extension`]; nothing is stored here.

use std::borrow::Cow;
use std::time::Duration;

use futures_util::future::BoxFuture;
use rho_ai::oauth::{
    LoginNotice, LoginOption, LoginPrompt, LoginUi, OAuthCredential, OAuthError, OAuthProvider,
};
use rho_protocol::extension::calls::{self as wire_calls, OAuthNotify, OAuthPrompt};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::calls::params;
use super::wire::Request;
use super::Connection;
use crate::HostError;

/// Where the connection hands an `oauth_login` request's calls.
pub(crate) type LoginCalls = mpsc::UnboundedSender<LoginCall>;

/// A notice or question of a sign-in under way, with where its answer goes.
pub(crate) struct LoginCall {
    pub(crate) call: LoginAsk,
    pub(crate) reply: oneshot::Sender<Result<Value, HostError>>,
}

/// What a sign-in's call wants of the user.
pub(crate) enum LoginAsk {
    Notify(LoginNotice),
    Prompt(LoginPrompt),
}

/// Whether `method` is one of a sign-in's calls (served without a session context).
pub(crate) fn is_login_call(method: &str) -> bool {
    method == wire_calls::OAUTH_NOTIFY || method == wire_calls::OAUTH_PROMPT
}

/// The request a sign-in's call names, and what it wants.
pub(crate) fn login_call(method: &str, v: Value) -> Result<(u64, LoginAsk), HostError> {
    use rho_protocol::extension::calls::{LoginNotice as N, LoginPrompt as P};
    if method == wire_calls::OAUTH_NOTIFY {
        let call: OAuthNotify = params(method, v)?;
        let notice = match call.notice {
            N::AuthUrl { url, instructions } => LoginNotice::AuthUrl {
                url,
                instructions: instructions.unwrap_or_default(),
            },
            N::DeviceCode {
                user_code,
                verification_uri,
            } => LoginNotice::DeviceCode {
                user_code,
                verification_uri,
            },
            N::Progress { message } => LoginNotice::Progress(message),
        };
        return Ok((call.request, LoginAsk::Notify(notice)));
    }
    let call: OAuthPrompt = params(method, v)?;
    let prompt = match call.prompt {
        P::Text {
            message,
            placeholder,
        } => LoginPrompt::Text {
            message,
            placeholder: placeholder.unwrap_or_default(),
        },
        P::ManualCode {
            message,
            placeholder,
        } => LoginPrompt::ManualCode {
            message,
            placeholder: placeholder.unwrap_or_default(),
        },
        P::Select { message, options } => LoginPrompt::Select {
            message,
            options: options
                .into_iter()
                .map(|o| LoginOption {
                    id: Cow::Owned(o.id),
                    label: Cow::Owned(o.label),
                })
                .collect(),
        },
    };
    Ok((call.request, LoginAsk::Prompt(prompt)))
}

/// The sign-in of provider `provider` in an extension process.
pub struct ProcessOAuth {
    pub(crate) conn: Connection,
    pub(crate) provider: String,
    pub(crate) name: String,
    /// How long `login` and `refresh` may take without a question pending.
    pub(crate) deadline: Duration,
    /// How long `api_key` may take.
    pub(crate) key_deadline: Duration,
}

fn extension(message: String) -> OAuthError {
    OAuthError::Extension { message }
}

impl ProcessOAuth {
    /// The credential an answer holds.
    fn credential(&self, what: &str, value: &Value) -> Result<OAuthCredential, OAuthError> {
        OAuthCredential::from_json(&self.provider, value).map_err(|e| {
            OAuthError::Invalid(format!(
                "the {what} of provider {} returned no usable credential: {}",
                self.provider, e.message
            ))
        })
    }
}

/// Tells the process to stop a sign-in nobody waits for any more (the user cancelled).
struct CancelOnDrop {
    conn: Connection,
    id: u64,
    armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (conn, id) = (self.conn.clone(), self.id);
            runtime.spawn(async move { conn.cancel(id).await });
        }
    }
}

/// Shows a notice, or asks in the background and answers when the user did; `done` closes
/// the question once the sign-in is over, `refused` fires when the user cancelled one.
fn serve(ui: &dyn LoginUi, call: LoginCall, done: &CancellationToken, refused: &CancellationToken) {
    match call.call {
        LoginAsk::Notify(notice) => {
            ui.notify(notice);
            let _ = call.reply.send(Ok(Value::Null));
        }
        LoginAsk::Prompt(prompt) => {
            let answer = ui.ask(prompt, done.clone());
            let refused = refused.clone();
            tokio::spawn(async move {
                let answer = answer.await.map(Value::String);
                if answer.is_none() {
                    refused.cancel();
                }
                let _ = call.reply.send(answer.ok_or(HostError::LoginCancelled));
            });
        }
    }
}

impl OAuthProvider for ProcessOAuth {
    fn id(&self) -> &str {
        &self.provider
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn login<'a>(
        &'a self,
        ui: &'a dyn LoginUi,
    ) -> BoxFuture<'a, Result<OAuthCredential, OAuthError>> {
        Box::pin(async move {
            let (calls_tx, mut calls) = mpsc::unbounded_channel();
            let provider = self.provider.clone();
            let (id, rx) = self
                .conn
                .send_login(calls_tx, |id| Request::OauthLogin { id, provider })
                .await
                .map_err(extension)?;
            let mut cancel = CancelOnDrop {
                conn: self.conn.clone(),
                id,
                armed: true,
            };
            let (done, refused) = (CancellationToken::new(), CancellationToken::new());
            let _close_questions = done.clone().drop_guard();
            let what = format!("the sign-in of provider {}", self.provider);
            let reply = self.conn.wait(id, rx, &what, self.deadline);
            tokio::pin!(reply);
            // Calls first: a notice the extension sent before its result is read before it.
            let value = loop {
                tokio::select! {
                    biased;
                    Some(call) = calls.recv() => serve(ui, call, &done, &refused),
                    r = &mut reply => break r,
                }
            };
            cancel.armed = false;
            match value {
                Ok(value) => self.credential("sign-in", &value),
                // The extension gave up because the user cancelled its question.
                Err(_) if refused.is_cancelled() => Err(OAuthError::Cancelled),
                Err(message) => Err(extension(message)),
            }
        })
    }

    fn refresh<'a>(
        &'a self,
        credential: &'a OAuthCredential,
    ) -> BoxFuture<'a, Result<OAuthCredential, OAuthError>> {
        Box::pin(async move {
            let (provider, credentials) = (self.provider.clone(), credential.to_json());
            let what = format!("the token refresh of provider {}", self.provider);
            let value = self
                .conn
                .request(&what, self.deadline, None, |id| Request::OauthRefresh {
                    id,
                    provider,
                    credentials,
                })
                .await
                .map_err(extension)?;
            self.credential("token refresh", &value)
        })
    }

    fn api_key<'a>(
        &'a self,
        credential: &'a OAuthCredential,
    ) -> BoxFuture<'a, Result<String, OAuthError>> {
        Box::pin(async move {
            let (provider, credentials) = (self.provider.clone(), credential.to_json());
            let what = format!("getApiKey of provider {}", self.provider);
            let value = self
                .conn
                .request(&what, self.key_deadline, None, |id| Request::OauthApiKey {
                    id,
                    provider,
                    credentials,
                })
                .await
                .map_err(extension)?;
            match value {
                Value::String(key) => Ok(key),
                other => Err(OAuthError::Invalid(format!(
                    "getApiKey of provider {} returned {other} instead of a string",
                    self.provider
                ))),
            }
        })
    }
}
