//! A switch that holds a scripted response at a point of the test's choosing, so a test can
//! act while a reply is known to be mid-stream and then let it finish, without timed pauses.

use std::sync::Arc;

use tokio::sync::watch;

/// Closed until [`Gate::open`]; a [`crate::Chunk::Wait`] on it pauses the response body
/// there. Clones share the same switch.
#[derive(Debug, Clone)]
pub struct Gate {
    open: Arc<watch::Sender<bool>>,
}

impl Default for Gate {
    fn default() -> Self {
        Self::new()
    }
}

impl Gate {
    /// A closed gate.
    pub fn new() -> Self {
        Self {
            open: Arc::new(watch::channel(false).0),
        }
    }

    /// Lets every response waiting on this gate (now or later) continue.
    pub fn open(&self) {
        self.open.send_replace(true);
    }

    /// Resolves once the gate is open.
    pub async fn opened(&self) {
        let mut rx = self.open.subscribe();
        let _ = rx.wait_for(|open| *open).await;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    use super::Gate;
    use crate::{Chunk, MockResponse, MockServer};

    #[tokio::test]
    async fn a_response_waits_at_the_gate_until_it_opens() {
        let server = MockServer::start().await;
        let gate = Gate::new();
        let response = MockResponse::sse(["before|"])
            .then(Chunk::Wait(gate.clone()))
            .then(Chunk::Bytes(b"after".to_vec()));
        server.push(response);
        let addr = server.url().trim_start_matches("http://").to_string();
        let mut sock = TcpStream::connect(addr).await.expect("connect");
        sock.write_all(b"GET / HTTP/1.1\r\ncontent-length: 0\r\n\r\n")
            .await
            .expect("write");
        let mut seen = Vec::new();
        let mut buf = [0u8; 256];
        while !String::from_utf8_lossy(&seen).contains("before|") {
            let n = sock.read(&mut buf).await.expect("read");
            assert!(n > 0, "closed before the gate");
            seen.extend_from_slice(&buf[..n]);
        }
        let early = tokio::time::timeout(Duration::from_millis(100), sock.read(&mut buf)).await;
        assert!(early.is_err(), "nothing passes a closed gate");
        gate.open();
        sock.read_to_end(&mut seen).await.expect("read rest");
        assert!(String::from_utf8_lossy(&seen).ends_with("before|after"));
    }
}
