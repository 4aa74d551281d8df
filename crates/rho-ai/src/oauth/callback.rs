//! The loopback server a browser sign-in redirects to (RFC 8252 §7.3): it answers the one
//! `GET <path>?code=…&state=…` the authorization server sends the browser to, shows a page
//! saying whether it worked, and hands the code to the flow. Requests on other paths, with
//! another `state`, or after the sign-in was handled get an error page and change nothing.

use std::time::Duration;

use reqwest::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use super::OAuthError;

/// The longest request head the server reads; a browser's redirect is far shorter.
const MAX_HEAD: usize = 16 * 1024;
/// How long a connection may take to send its request head.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Where and how to listen.
#[derive(Debug, Clone)]
pub struct CallbackOptions {
    /// Address to bind (`127.0.0.1`, or `PI_OAUTH_CALLBACK_HOST` for containers).
    pub host: String,
    /// Host named in the redirect URI (`localhost` for providers that register it).
    pub redirect_host: String,
    /// The port to use; `None` picks a free one.
    pub port: Option<u16>,
    /// When `port` is taken, listen on a free port instead of failing.
    pub fallback_to_free_port: bool,
    /// The callback path, e.g. `/callback`.
    pub path: String,
    /// Shown on the pages and in errors ("Anthropic").
    pub provider_name: String,
    /// The `state` the response must carry; `None` accepts any (the caller checks it).
    pub state: Option<String>,
}

/// What the authorization server sent back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Callback {
    /// The authorization code.
    pub code: String,
    /// The `state` parameter (empty when absent).
    pub state: String,
    /// RFC 9207's `iss` parameter, when sent.
    pub iss: Option<String>,
}

/// A listening callback server; it stops when dropped.
pub struct CallbackServer {
    redirect_uri: String,
    results: mpsc::Receiver<Result<Callback, OAuthError>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for CallbackServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl CallbackServer {
    /// Binds and starts answering.
    pub async fn bind(options: CallbackOptions) -> Result<CallbackServer, OAuthError> {
        let listener = match bind(&options.host, options.port.unwrap_or(0)).await {
            Ok(l) => l,
            Err(_) if options.fallback_to_free_port && options.port.is_some() => {
                bind(&options.host, 0).await?
            }
            Err(e) => return Err(e),
        };
        let port = listener
            .local_addr()
            .map_err(|source| OAuthError::Bind {
                address: options.host.clone(),
                source,
            })?
            .port();
        let host = if options.redirect_host.contains(':') {
            format!("[{}]", options.redirect_host)
        } else {
            options.redirect_host.clone()
        };
        let redirect_uri = format!("http://{host}:{port}{}", options.path);
        let (tx, results) = mpsc::channel(1);
        let task = tokio::spawn(serve(listener, options, tx));
        Ok(CallbackServer {
            redirect_uri,
            results,
            task,
        })
    }

    /// `http://<redirect host>:<port><path>`.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// The browser's answer: the code, or the error the authorization server reported.
    pub async fn wait(&mut self) -> Result<Callback, OAuthError> {
        self.results
            .recv()
            .await
            .unwrap_or_else(|| Err(OAuthError::Invalid("OAuth callback server closed".into())))
    }
}

async fn bind(host: &str, port: u16) -> Result<TcpListener, OAuthError> {
    TcpListener::bind((host, port))
        .await
        .map_err(|source| OAuthError::Bind {
            address: format!("{host}:{port}"),
            source,
        })
}

async fn serve(
    listener: TcpListener,
    options: CallbackOptions,
    tx: mpsc::Sender<Result<Callback, OAuthError>>,
) {
    let mut handled = false;
    while let Ok((mut sock, _)) = listener.accept().await {
        let Some(target) = read_target(&mut sock).await else {
            continue;
        };
        let (status, page, result) = answer(&options, &target, handled);
        let _ = respond(&mut sock, status, &page).await;
        if let Some(result) = result {
            handled = true;
            let _ = tx.send(result).await;
        }
    }
}

/// The page for one request and, when it settles the sign-in, the result.
fn answer(
    options: &CallbackOptions,
    target: &str,
    handled: bool,
) -> (u16, String, Option<Result<Callback, OAuthError>>) {
    let fail = |status: u16, message: &str| (status, page(false, message, None), None);
    let Ok(url) = Url::parse(&format!("http://localhost{target}")) else {
        return fail(400, "Invalid request.");
    };
    if url.path() != options.path {
        return fail(404, "Callback route not found.");
    }
    let param = |name: &str| {
        url.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    let state = param("state").unwrap_or_default();
    if options.state.as_ref().is_some_and(|s| *s != state) {
        return fail(400, "State mismatch.");
    }
    if handled {
        return fail(409, "This sign-in has already been handled.");
    }
    let provider = &options.provider_name;
    if let Some(error) = param("error") {
        let description = param("error_description").unwrap_or(error);
        let message = format!("{provider} authorization failed: {description}");
        let html = page(
            false,
            &format!("{provider} authorization failed."),
            Some(&description),
        );
        return (400, html, Some(Err(OAuthError::Invalid(message))));
    }
    let Some(code) = param("code").filter(|c| !c.is_empty()) else {
        return fail(400, "Missing authorization code.");
    };
    let done = Callback {
        code,
        state,
        iss: param("iss"),
    };
    let text = format!("Signed in to {provider}. You may now close this page.");
    (200, page(true, &text, None), Some(Ok(done)))
}

/// The request target of a `GET`, or `None` for anything else.
async fn read_target(sock: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    let read = async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
            let n = sock.read(&mut buf).await.ok()?;
            if n == 0 {
                return None;
            }
            head.extend_from_slice(&buf[..n]);
        }
        Some(())
    };
    tokio::time::timeout(READ_TIMEOUT, read).await.ok()??;
    let line = String::from_utf8_lossy(&head);
    let mut parts = line.lines().next()?.split(' ');
    (parts.next()? == "GET").then(|| parts.next().map(str::to_string))?
}

async fn respond(sock: &mut TcpStream, status: u16, html: &str) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        409 => "Conflict",
        _ => "Bad Request",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/html; charset=utf-8\r\ncache-control: no-store\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        html.len()
    );
    sock.write_all(head.as_bytes()).await?;
    sock.write_all(html.as_bytes()).await?;
    sock.shutdown().await
}

/// A small self-contained page; every text is escaped.
fn page(ok: bool, message: &str, details: Option<&str>) -> String {
    let title = if ok { "Signed in" } else { "Sign-in failed" };
    let details = details
        .map(|d| format!("<pre>{}</pre>", escape(d)))
        .unwrap_or_default();
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>rho: {title}</title></head>\
         <body style=\"font-family:sans-serif;margin:3em\"><h1>{title}</h1><p>{}</p>{details}</body></html>",
        escape(message)
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> CallbackOptions {
        CallbackOptions {
            host: "127.0.0.1".into(),
            redirect_host: "localhost".into(),
            port: None,
            fallback_to_free_port: false,
            path: "/callback".into(),
            provider_name: "Anthropic".into(),
            state: Some("s1".into()),
        }
    }

    async fn get(uri: &str) -> (u16, String) {
        let resp = reqwest::get(uri).await.unwrap();
        (resp.status().as_u16(), resp.text().await.unwrap())
    }

    #[tokio::test]
    async fn the_right_redirect_settles_and_others_change_nothing() {
        let mut server = CallbackServer::bind(options()).await.unwrap();
        let uri = server.redirect_uri().replace("localhost", "127.0.0.1");
        assert!(server.redirect_uri().starts_with("http://localhost:"));
        let base = uri.trim_end_matches("/callback").to_string();
        assert_eq!(get(&format!("{base}/other?code=x&state=s1")).await.0, 404);
        let (status, body) = get(&format!("{uri}?code=x&state=wrong")).await;
        assert_eq!((status, body.contains("State mismatch.")), (400, true));
        assert_eq!(get(&format!("{uri}?state=s1")).await.0, 400);
        let (status, body) = get(&format!("{uri}?code=abc&state=s1&iss=https%3A%2F%2Fa")).await;
        assert_eq!(status, 200);
        assert!(body.contains("Signed in to Anthropic."), "{body}");
        let got = server.wait().await.unwrap();
        assert_eq!(got.code, "abc");
        assert_eq!(got.iss.as_deref(), Some("https://a"));
        assert_eq!(get(&format!("{uri}?code=abc&state=s1")).await.0, 409);
    }

    #[tokio::test]
    async fn an_error_redirect_fails_the_sign_in_with_its_description() {
        let mut server = CallbackServer::bind(options()).await.unwrap();
        let uri = server.redirect_uri().replace("localhost", "127.0.0.1");
        let (status, body) = get(&format!(
            "{uri}?error=access_denied&error_description=No%20%3Cway%3E&state=s1"
        ))
        .await;
        assert_eq!(status, 400);
        assert!(body.contains("No &lt;way&gt;"), "{body}");
        let err = server.wait().await.unwrap_err();
        assert_eq!(err.to_string(), "Anthropic authorization failed: No <way>");
    }

    #[tokio::test]
    async fn a_taken_port_falls_back_to_a_free_one_when_allowed() {
        let taken = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = taken.local_addr().unwrap().port();
        let mut o = options();
        o.port = Some(port);
        assert!(CallbackServer::bind(o.clone()).await.is_err());
        o.fallback_to_free_port = true;
        let server = CallbackServer::bind(o).await.unwrap();
        assert!(!server.redirect_uri().contains(&format!(":{port}/")));
    }
}
