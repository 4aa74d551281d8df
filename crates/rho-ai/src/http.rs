//! The HTTP/SSE transport every provider shares: one pooled client, a POST that honours the
//! abort signal, and a read loop that feeds the body's events to the provider's parser.

use std::sync::OnceLock;
use std::time::Duration;

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::sse::{EventDecoder, SseEvent};

/// The process-wide client: building one loads TLS roots, so it is done once, lazily.
pub fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .build()
            .unwrap_or_else(|_| reqwest::Client::new())
    })
}

/// How a request failed before or while streaming. A stream's error text is the Display of
/// every variant but `Status`, which each API words itself from the body.
#[derive(Debug, thiserror::Error)]
pub enum HttpFailure {
    /// The caller aborted.
    #[error("Request was aborted")]
    Aborted,
    /// A non-2xx status with the raw body text.
    #[error("{} {}", .0.status, .0.body)]
    Status(StatusFailure),
    /// The cloud credentials could not be had or applied (Bedrock's AWS chain, Vertex's
    /// Application Default Credentials); the text says which and what to do.
    #[error(transparent)]
    Authorize(crate::provider::AuthorizeError),
    /// A provider retry would wait longer than `retry.provider.maxRetryDelayMs` allows.
    #[error("{0}")]
    RetryDelay(String),
    /// The request body could not be encoded.
    #[error("{0}")]
    Encode(#[source] serde_json::Error),
    /// No headers, or no event, within the idle timeout.
    #[error("{}", idle_message(*.0))]
    Idle(Duration),
    /// Connection, TLS, timeout or body-read failure; the text names the kind and the causes.
    #[error("{}", transport_message(.0))]
    Transport(#[source] reqwest::Error),
}

/// A non-2xx response: what each API words its error text from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusFailure {
    /// HTTP status code.
    pub status: u16,
    /// The response body as text (possibly empty), capped at [`ERROR_BODY_CAP`].
    pub body: String,
    /// The response headers, names lower-cased (Bedrock names its error type in one).
    pub headers: Vec<(String, String)>,
}

impl StatusFailure {
    /// The value of header `name` (lower-case), if the response had it.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The wait the server asked for (`retry-after-ms`, `retry-after`).
    pub fn retry_after(&self) -> Option<Duration> {
        crate::retry::parse_retry_after(
            self.header("retry-after-ms"),
            self.header("retry-after"),
            crate::now_ms(),
        )
    }

    /// The server's `x-should-retry` verdict, when it gave one.
    pub fn should_retry(&self) -> Option<bool> {
        match self.header("x-should-retry") {
            Some("true") => Some(true),
            Some("false") => Some(false),
            _ => None,
        }
    }
}

/// The time limits of one request.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// The whole exchange, streaming included (`None`: 10 minutes).
    pub overall: Option<Duration>,
    /// Waiting for the headers, and between SSE events.
    pub idle: Duration,
}

/// The text of a stalled stream; "timed out" makes it retryable.
pub fn idle_message(idle: Duration) -> String {
    format!(
        "Request timed out: no data from the provider for {} ms (httpIdleTimeoutMs)",
        idle.as_millis()
    )
}

impl HttpFailure {
    /// Whether a provider retry may send the request again, as pi 1.6's provider clients
    /// decide: the server's `x-should-retry` when given, else 408, 409, 429, 5xx and every
    /// failure without a status (connection errors, timeouts).
    pub fn is_retryable(&self) -> bool {
        match self {
            HttpFailure::Status(f) => f
                .should_retry()
                .unwrap_or_else(|| crate::retry::is_retryable_status(f.status)),
            HttpFailure::Idle(_) | HttpFailure::Transport(_) => true,
            HttpFailure::Aborted
            | HttpFailure::Encode(_)
            | HttpFailure::Authorize(_)
            | HttpFailure::RetryDelay(_) => false,
        }
    }
}

/// POSTs a JSON body and returns the 2xx response, or why not.
pub async fn post_json(
    url: &str,
    headers: &[(String, String)],
    body: &serde_json::Value,
    cancel: &CancellationToken,
    timeouts: Timeouts,
    after_response: Option<&crate::options::ResponseHook>,
) -> Result<reqwest::Response, HttpFailure> {
    let bytes = serde_json::to_vec(body).map_err(HttpFailure::Encode)?;
    let mut req = client()
        .post(url)
        .header("content-type", "application/json")
        .timeout(timeouts.overall.unwrap_or(Duration::from_secs(600)))
        .body(bytes);
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let resp = tokio::select! {
        biased;
        _ = cancel.cancelled() => return Err(HttpFailure::Aborted),
        _ = tokio::time::sleep(timeouts.idle) => {
            return Err(HttpFailure::Idle(timeouts.idle))
        }
        r = req.send() => r.map_err(HttpFailure::Transport)?,
    };
    let status = resp.status().as_u16();
    let headers = || -> Vec<(String, String)> {
        resp.headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect()
    };
    if let Some(hook) = after_response {
        hook(status, headers()).await;
    }
    if !(200..300).contains(&status) {
        let headers = headers();
        let body = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(HttpFailure::Aborted),
            b = read_capped(resp, url) => b,
        };
        return Err(HttpFailure::Status(StatusFailure {
            status,
            body,
            headers,
        }));
    }
    Ok(resp)
}

/// How much of an error body is kept: enough for any provider's real error JSON, while a
/// runaway body (issue 17 #10: a 10 MB page became a 10 MB session entry) is cut. The whole
/// body goes to the [`crate::debug_log`] when it is on.
pub const ERROR_BODY_CAP: usize = 16 * 1024;

/// Reads an error body up to [`ERROR_BODY_CAP`] bytes and stops reading there (reading on to
/// the end only for the debug log); a cut body ends with a note saying so and, when known,
/// the full size.
async fn read_capped(resp: reqwest::Response, url: &str) -> String {
    let status = resp.status().as_u16();
    let announced = resp.content_length();
    let log = crate::debug_log::enabled();
    let mut kept = Vec::new();
    let mut rest = Vec::new();
    let mut cut = false;
    let mut body = resp.bytes_stream();
    while let Some(Ok(chunk)) = body.next().await {
        let room = ERROR_BODY_CAP - kept.len();
        let take = room.min(chunk.len());
        kept.extend_from_slice(&chunk[..take]);
        if take < chunk.len() {
            cut = true;
            if !log {
                break;
            }
            rest.extend_from_slice(&chunk[take..]);
        }
    }
    let total = (kept.len() + rest.len()) as u64;
    if log {
        let endpoint = url.split('?').next().unwrap_or_default();
        let what = format!("HTTP {status} error body from {endpoint}");
        crate::debug_log::record(&what, &[&kept, &rest]);
    }
    let mut text = String::from_utf8_lossy(&kept).into_owned();
    if cut {
        if text.ends_with('\u{FFFD}') {
            text.pop();
        }
        text.push_str(&cut_note(announced.or(log.then_some(total))));
    }
    text
}

/// An error text from inside a stream (an `error` event's data) cut to [`ERROR_BODY_CAP`]
/// bytes with the same note as an HTTP error body; the whole text goes to the debug log.
pub fn cap_error_text(mut text: String) -> String {
    if text.len() <= ERROR_BODY_CAP {
        return text;
    }
    crate::debug_log::record("provider error in the stream", &[text.as_bytes()]);
    let total = text.len() as u64;
    let mut end = ERROR_BODY_CAP;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(&cut_note(Some(total)));
    text
}

/// The note that ends a cut error body.
fn cut_note(total: Option<u64>) -> String {
    let total = total.map_or_else(String::new, |n| format!(" of {n}"));
    format!("\n[error body cut: first {ERROR_BODY_CAP} bytes{total} kept]")
}

/// Reads a response body through a decoder (SSE, or Bedrock's event-stream frames; the
/// caller keeps it, to ask what the body held), a chunk at a time. Ends at EOF (flushing a
/// pending event), on a transport error, when `cancel` fires (the connection is dropped at
/// once), or when no event arrived for `idle` (keep-alive comments alone do not count: a
/// server that only sends them has stalled).
pub struct EventReader<S> {
    body: std::pin::Pin<Box<S>>,
    idle: Duration,
    stall_at: tokio::time::Instant,
    ended: bool,
}

/// The reader of `resp`'s body.
pub fn event_reader(
    resp: reqwest::Response,
    idle: Duration,
) -> EventReader<impl futures_util::Stream<Item = reqwest::Result<bytes::Bytes>>> {
    EventReader {
        body: Box::pin(resp.bytes_stream()),
        idle,
        stall_at: tokio::time::Instant::now() + idle,
        ended: false,
    }
}

impl<S: futures_util::Stream<Item = reqwest::Result<bytes::Bytes>>> EventReader<S> {
    /// Appends the events the next chunk completed to `events` (possibly none); false once
    /// the body has ended.
    pub async fn next(
        &mut self,
        cancel: &CancellationToken,
        decoder: &mut dyn EventDecoder,
        events: &mut Vec<SseEvent>,
    ) -> Result<bool, HttpFailure> {
        if self.ended {
            return Ok(false);
        }
        let chunk = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(HttpFailure::Aborted),
            _ = tokio::time::sleep_until(self.stall_at) => {
                return Err(HttpFailure::Idle(self.idle))
            }
            c = self.body.next() => c,
        };
        match chunk {
            Some(Ok(bytes)) => {
                let (stall_at, idle) = (&mut self.stall_at, self.idle);
                decoder.feed(&bytes, &mut |e| {
                    *stall_at = tokio::time::Instant::now() + idle;
                    events.push(e);
                });
            }
            Some(Err(e)) => return Err(HttpFailure::Transport(e)),
            None => {
                decoder.finish(&mut |e| events.push(e));
                self.ended = true;
            }
        }
        Ok(true)
    }
}

/// A readable message for a reqwest error, including its source chain.
pub(crate) fn transport_message(e: &reqwest::Error) -> String {
    let mut msg = if e.is_timeout() {
        "Request timed out".to_string()
    } else if e.is_connect() {
        "Connection error".to_string()
    } else if e.is_body() || e.is_decode() {
        "Connection lost while streaming".to_string()
    } else {
        "Request failed".to_string()
    };
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}
