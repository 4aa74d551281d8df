//! `rho login <provider>` and `rho logout <provider>` (also as pi's `rho auth login|logout`):
//! sign in to a subscription in the terminal, or save an API key, without starting a session.
//! The sign-in prints the URL (and opens the browser unless `--no-browser`, which picks the
//! provider's headless method instead), waits for the browser's redirect or a pasted code,
//! and saves the credential to auth.json in pi's shape.

use std::io::Write;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use rho_ai::auth::Credential;
use rho_ai::oauth::{LoginNotice, LoginPrompt, LoginUi};
use tokio::io::{AsyncBufReadExt, BufReader, Lines, Stdin};
use tokio_util::sync::CancellationToken;

use rho_core::auth_store::{AuthStore, AuthStoreError};

const USAGE: &str =
    "Usage: rho login <provider> [--api-key] [--no-browser] | rho logout <provider>";

/// Why `rho login` or `rho logout` did nothing; printed as is.
#[derive(Debug, thiserror::Error)]
enum LoginError {
    /// The arguments do not fit the usage.
    #[error("{USAGE}")]
    Usage,
    /// No provider named: the usage and the subscription sign-ins on offer.
    #[error("{USAGE}\n{}", sign_ins())]
    NoProvider,
    /// `--no-browser` with `--api-key`.
    #[error("--no-browser only applies to account sign-in; omit it with --api-key.")]
    NoBrowserWithKey,
    /// Neither a built-in nor a subscription provider, and no `--api-key`.
    #[error("Unknown provider \"{provider}\".\nProviders: {known}\nA custom provider's key: rho login <provider> --api-key")]
    UnknownProvider {
        /// The name given.
        provider: String,
        /// The providers rho knows, sorted and joined.
        known: String,
    },
    /// The terminal sign-in could not start.
    #[error("Failed to log in to {name}: {source}")]
    Terminal {
        /// The provider's display name.
        name: &'static str,
        /// Why.
        #[source]
        source: TerminalError,
    },
    /// The provider's sign-in failed or was cancelled.
    #[error("Failed to log in to {name}: {source}")]
    SignIn {
        /// The provider's display name.
        name: &'static str,
        /// Why.
        #[source]
        source: rho_ai::oauth::OAuthError,
    },
    /// stdin could not be read.
    #[error("cannot read the key: {0}")]
    ReadKey(#[source] std::io::Error),
    /// An empty line was entered.
    #[error("No key entered; nothing stored")]
    NoKey,
    /// auth.json could not be read or written.
    #[error(transparent)]
    Store(#[from] AuthStoreError),
}

/// The terminal sign-in could not run at all.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TerminalError {
    /// No async runtime for the sign-in.
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

/// What the command line asked.
struct Request {
    provider: String,
    api_key: bool,
    browser: bool,
}

fn parse(args: &[String]) -> Result<Request, LoginError> {
    let mut request = Request {
        provider: String::new(),
        api_key: false,
        browser: true,
    };
    for arg in args {
        match arg.as_str() {
            "--api-key" => request.api_key = true,
            "--no-browser" => request.browser = false,
            a if a.starts_with('-') || !request.provider.is_empty() => {
                return Err(LoginError::Usage)
            }
            a => request.provider = a.to_string(),
        }
    }
    if request.provider.is_empty() {
        return Err(LoginError::NoProvider);
    }
    if request.api_key && !request.browser {
        return Err(LoginError::NoBrowserWithKey);
    }
    Ok(request)
}

/// `rho login …` / `rho logout …` (`args` after the verb).
pub fn command(verb: &str, args: &[String]) -> ExitCode {
    let store = AuthStore::new(&rho_session::paths::agent_dir());
    let result = match verb {
        "logout" => logout(&store, args),
        _ => login(&store, args),
    };
    match result {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(text) => {
            eprintln!("{text}");
            ExitCode::FAILURE
        }
    }
}

/// The subscription sign-ins `rho login <provider>` offers, one a line.
fn sign_ins() -> String {
    let lines: Vec<String> = rho_ai::auth::OAUTH_PROVIDERS
        .iter()
        .map(|(id, name)| format!("  {id:<16}{name}"))
        .collect();
    format!(
        "Subscription sign-ins:\n{}\nAny provider's API key: rho login <provider> --api-key",
        lines.join("\n")
    )
}

fn logout(store: &AuthStore, args: &[String]) -> Result<String, LoginError> {
    let [provider] = args else {
        return Err(LoginError::Usage);
    };
    let removed = store.update(|file| {
        let removed = file.remove(provider);
        (removed, removed)
    })?;
    Ok(if removed {
        format!("Logged out of {provider}. Environment variables and models.json are unchanged.")
    } else {
        format!("No stored credential for {provider}.")
    })
}

fn login(store: &AuthStore, args: &[String]) -> Result<String, LoginError> {
    let request = parse(args)?;
    let provider = request.provider.as_str();
    let oauth = rho_ai::oauth::provider_name(provider);
    if oauth.is_none() && !request.api_key && !rho_ai::catalog::is_builtin_provider(provider) {
        let mut known: Vec<&str> = rho_ai::catalog::providers().map(|p| p.id).collect();
        known.sort_unstable();
        return Err(LoginError::UnknownProvider {
            provider: provider.to_string(),
            known: known.join(", "),
        });
    }
    let credential = match oauth {
        Some(name) if !request.api_key => {
            Credential::OAuth(sign_in(provider, name, request.browser)?)
        }
        _ => Credential::ApiKey {
            key: read_key(provider)?,
        },
    };
    store.update(|file| {
        file.set(provider, &credential);
        (true, ())
    })?;
    let saved = store.path().display();
    Ok(match oauth {
        Some(name) if !request.api_key => {
            format!("Logged in to {name}. Credentials saved to {saved}")
        }
        _ => format!("Saved API key for {provider}. Credentials saved to {saved}"),
    })
}

/// Runs the provider's sign-in (`name` is what messages call it) on a runtime of its own.
fn sign_in(
    provider: &str,
    name: &'static str,
    browser: bool,
) -> Result<rho_ai::auth::OAuthCredential, LoginError> {
    let id = provider.to_string();
    in_terminal(provider, browser, move |ui, cancel| {
        Box::pin(async move { rho_ai::oauth::login(&id, ui, &cancel).await })
    })
    .map_err(|source| LoginError::Terminal { name, source })?
    .map_err(|source| LoginError::SignIn { name, source })
}

/// Runs `flow` with the terminal as its [`LoginUi`] on a runtime of its own; Ctrl+C cancels
/// it. `hint` is the provider named in the `--no-browser` hint.
pub(crate) fn in_terminal<T>(
    hint: &str,
    browser: bool,
    flow: impl for<'a> FnOnce(&'a TerminalUi, CancellationToken) -> BoxFuture<'a, T>,
) -> Result<T, TerminalError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(TerminalError::Runtime)?;
    let result = runtime.block_on(async {
        let ui = TerminalUi {
            provider: hint.to_string(),
            browser,
            skipped: Mutex::new(Vec::new()),
            lines: Arc::new(tokio::sync::Mutex::new(
                BufReader::new(tokio::io::stdin()).lines(),
            )),
        };
        let cancel = CancellationToken::new();
        let on_signal = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_signal.cancel();
            }
        });
        flow(&ui, cancel).await
    });
    // A stdin read the browser made unnecessary is still blocked on its thread.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(result)
}

/// Reads an API key from stdin, without echo on a terminal.
fn read_key(provider: &str) -> Result<String, LoginError> {
    print!("API key for {provider}: ");
    let _ = std::io::stdout().flush();
    let echo = crate::echo_off::EchoOff::new();
    let mut line = String::new();
    let read = std::io::stdin().read_line(&mut line);
    drop(echo);
    println!();
    read.map_err(LoginError::ReadKey)?;
    let key = line.trim().to_string();
    if key.is_empty() {
        return Err(LoginError::NoKey);
    }
    Ok(key)
}

/// The sign-in's questions and notices on stdin and stdout.
pub(crate) struct TerminalUi {
    provider: String,
    browser: bool,
    /// Methods not taken because the browser was, for the hint after the URL.
    skipped: Mutex<Vec<String>>,
    lines: Arc<tokio::sync::Mutex<Lines<BufReader<Stdin>>>>,
}

impl LoginUi for TerminalUi {
    fn notify(&self, notice: LoginNotice) {
        match notice {
            LoginNotice::AuthUrl { url, instructions } => {
                println!("Open this URL to sign in:\n  {url}");
                println!("{instructions}");
                if self.browser {
                    rho_ai::oauth::browser::open(&url);
                }
                let skipped = self.skipped.lock().unwrap_or_else(|p| p.into_inner());
                if let [only] = skipped.as_slice() {
                    println!(
                        "To use \"{only}\" instead, run \"rho login {} --no-browser\"",
                        self.provider
                    );
                }
            }
            LoginNotice::DeviceCode {
                user_code,
                verification_uri,
            } => {
                println!("Open {verification_uri} and enter code: {user_code}");
                if self.browser {
                    rho_ai::oauth::browser::open(&verification_uri);
                }
                println!("Waiting for authentication...");
            }
            LoginNotice::Progress(text) => println!("{text}"),
        }
    }

    fn ask(
        &self,
        prompt: LoginPrompt,
        done: CancellationToken,
    ) -> BoxFuture<'static, Option<String>> {
        if let LoginPrompt::Select { message, options } = &prompt {
            // The browser sign-in comes first; --no-browser takes the other one.
            let Some((first, others)) = options.split_first() else {
                return Box::pin(async { None });
            };
            let chosen = if self.browser {
                *self.skipped.lock().unwrap_or_else(|p| p.into_inner()) =
                    others.iter().map(|o| o.label.to_string()).collect();
                first
            } else {
                others.first().unwrap_or(first)
            };
            if !self.browser {
                println!("{message} {}", chosen.label);
            }
            let id = chosen.id.to_string();
            return Box::pin(async move { Some(id) });
        }
        let question = prompt
            .typed()
            .map(|(message, placeholder)| format!("{message} ({placeholder}): "))
            .unwrap_or_default();
        print!("{question}");
        let _ = std::io::stdout().flush();
        let lines = self.lines.clone();
        Box::pin(async move {
            let mut lines = lines.lock().await;
            tokio::select! {
                line = lines.next_line() => line.ok().flatten(),
                _ = done.cancelled() => {
                    println!();
                    None
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn arguments() {
        let r = parse(&args(&["anthropic", "--no-browser"])).unwrap();
        assert_eq!(
            (r.provider.as_str(), r.browser, r.api_key),
            ("anthropic", false, false)
        );
        let listed = parse(&args(&[]))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        for id in ["anthropic", "openai-codex", "github-copilot"] {
            assert!(listed.contains(id), "{listed}");
        }
        assert!(parse(&args(&["a", "b"])).is_err());
        assert_eq!(
            parse(&args(&["openai", "--api-key", "--no-browser"]))
                .err()
                .unwrap()
                .to_string(),
            "--no-browser only applies to account sign-in; omit it with --api-key."
        );
    }
}
