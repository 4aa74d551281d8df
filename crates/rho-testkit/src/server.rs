//! The loopback server. Responses are consumed in order, one per request.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::gate::Gate;

/// One piece of a scripted response body.
#[derive(Debug, Clone)]
pub enum Chunk {
    /// Bytes written (and flushed) as they are.
    Bytes(Vec<u8>),
    /// A pause before the next chunk.
    Delay(Duration),
    /// Close the connection here, mid-body.
    Drop,
    /// Stop sending and keep the connection open until the client goes away.
    Hang,
    /// Pause until the gate opens (or the client goes away), then go on.
    Wait(Gate),
}

/// A scripted response.
#[derive(Debug, Clone)]
pub struct MockResponse {
    /// HTTP status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// Body pieces.
    pub chunks: Vec<Chunk>,
}

impl MockResponse {
    /// A `200 text/event-stream` response, one chunk per SSE event string.
    pub fn sse<I, S>(events: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            chunks: events
                .into_iter()
                .map(|e| Chunk::Bytes(e.into().into_bytes()))
                .collect(),
        }
    }

    /// An error status with a JSON (or any) body, as a provider sends it.
    pub fn error(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            chunks: vec![Chunk::Bytes(body.into().into_bytes())],
        }
    }

    /// A `200 application/json` response (a model list, a catalog).
    pub fn json(body: &serde_json::Value) -> Self {
        Self::error(200, body.to_string())
    }

    /// Inserts `delay` before every chunk.
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.chunks = self
            .chunks
            .into_iter()
            .flat_map(|c| [Chunk::Delay(delay), c])
            .collect();
        self
    }

    /// Appends a chunk.
    pub fn then(mut self, chunk: Chunk) -> Self {
        self.chunks.push(chunk);
        self
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// `POST`, `GET`, ...
    pub method: String,
    /// Path and query.
    pub path: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The raw body.
    pub body: String,
}

impl RecordedRequest {
    /// The body parsed as JSON (`Null` if it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// A header's value (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct Shared {
    script: Mutex<VecDeque<MockResponse>>,
    requests: Mutex<Vec<RecordedRequest>>,
}

/// The server; it stops when dropped.
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    requests_seen: watch::Receiver<usize>,
    closed_seen: watch::Receiver<usize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl MockServer {
    /// Binds 127.0.0.1 on an ephemeral port and starts serving.
    pub async fn start() -> MockServer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let shared = Arc::new(Shared::default());
        let (req_tx, requests_seen) = watch::channel(0usize);
        let (closed_tx, closed_seen) = watch::channel(0usize);
        let req_tx = Arc::new(req_tx);
        let closed_tx = Arc::new(closed_tx);
        let s = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let s = s.clone();
                let req_tx = req_tx.clone();
                let closed_tx = closed_tx.clone();
                tokio::spawn(async move {
                    serve(sock, &s, &req_tx).await;
                    closed_tx.send_modify(|n| *n += 1);
                });
            }
        });
        MockServer {
            addr,
            shared,
            requests_seen,
            closed_seen,
            task,
        }
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Queues a response for the next request.
    pub fn push(&self, response: MockResponse) {
        self.shared
            .script
            .lock()
            .expect("script lock")
            .push_back(response);
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests.lock().expect("requests lock").clone()
    }

    /// The last request's JSON body.
    pub fn last_body(&self) -> serde_json::Value {
        self.requests()
            .last()
            .map(RecordedRequest::json)
            .unwrap_or(serde_json::Value::Null)
    }

    /// Waits until `n` requests have arrived.
    pub async fn wait_for_requests(&self, n: usize) {
        let mut rx = self.requests_seen.clone();
        let _ = rx.wait_for(|seen| *seen >= n).await;
    }

    /// Waits until `n` connections have been closed (by either side, after their response).
    pub async fn wait_for_closed(&self, n: usize) {
        let mut rx = self.closed_seen.clone();
        let _ = rx.wait_for(|seen| *seen >= n).await;
    }
}

async fn serve(mut sock: TcpStream, shared: &Shared, req_tx: &watch::Sender<usize>) {
    let Some(request) = read_request(&mut sock).await else {
        return;
    };
    shared.requests.lock().expect("requests lock").push(request);
    req_tx.send_modify(|n| *n += 1);
    let response = shared
        .script
        .lock()
        .expect("script lock")
        .pop_front()
        .unwrap_or_else(|| {
            MockResponse::error(
                500,
                "{\"error\":{\"message\":\"mock server: no scripted response left\"}}",
            )
        });
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        response.status,
        reason(response.status)
    );
    for (k, v) in &response.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("connection: close\r\n\r\n");
    if sock.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for chunk in response.chunks {
        match chunk {
            Chunk::Bytes(b) => {
                if sock.write_all(&b).await.is_err() || sock.flush().await.is_err() {
                    return;
                }
            }
            Chunk::Delay(d) => {
                let mut probe = [0u8; 64];
                tokio::select! {
                    _ = tokio::time::sleep(d) => {}
                    r = sock.read(&mut probe) => if matches!(r, Ok(0) | Err(_)) { return; },
                }
            }
            Chunk::Wait(gate) => {
                let mut probe = [0u8; 64];
                let opened = gate.opened();
                tokio::pin!(opened);
                loop {
                    tokio::select! {
                        _ = &mut opened => break,
                        r = sock.read(&mut probe) => if matches!(r, Ok(0) | Err(_)) { return; },
                    }
                }
            }
            Chunk::Drop => return,
            Chunk::Hang => {
                let mut probe = [0u8; 64];
                loop {
                    match sock.read(&mut probe).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                }
            }
        }
    }
    let _ = sock.shutdown().await;
}

pub(crate) async fn read_request(sock: &mut TcpStream) -> Option<RecordedRequest> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < len {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&tmp[..n]);
    }
    Some(RecordedRequest {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}
