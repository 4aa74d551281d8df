//! Starting an extension process and the handshake: rho writes `hello`, the extension
//! answers `register` within the handshake deadline.

use std::process::Stdio;

use rho_process::{ChildGroup, ChildSpec, KeyScrub};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::connection::Connection;
use super::wire::{encode_line, excerpt, Hello, Registration, Request, PROTOCOL_VERSION};
use super::{HandshakeError, ProcessError, ProcessOptions};
use crate::diagnostics::{self, Diagnostic};

/// A started, registered process and the connection to it.
pub(crate) struct Started {
    pub child: ChildGroup,
    /// The task passing the process's stderr on; it ends when the process closes the pipe.
    pub stderr_forwarder: Option<tokio::task::JoinHandle<()>>,
    pub connection: Connection,
    pub registration: Registration,
}

/// Spawns `program args` (its stderr lines forwarded as [`Diagnostic::ExtensionOutput`]) and
/// performs the handshake.
pub(crate) async fn start(
    program: &str,
    args: &[String],
    path: String,
    options: &ProcessOptions,
) -> Result<Started, ProcessError> {
    // Its own group, ended with everything else rho started when rho exits; unsandboxed and
    // with the user's whole environment, as in pi.
    let mut spec = ChildSpec::new(program)
        .args(args)
        .scrub(KeyScrub::keep_all());
    if let Some(cwd) = &options.cwd {
        spec = spec.cwd(cwd);
    }
    let spawn_error = |source| ProcessError::Spawn {
        program: program.to_string(),
        source,
    };
    let mut cmd = spec
        .command()
        .map_err(|e| spawn_error(std::io::Error::other(e)))?;
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (child, pipes) = ChildGroup::spawn(cmd).map_err(spawn_error)?;
    let stderr_forwarder = pipes
        .stderr
        .map(|stderr| tokio::spawn(forward_stderr(path.clone(), stderr)));
    let (Some(mut stdin), Some(stdout)) = (pipes.stdin, pipes.stdout) else {
        return Err(ProcessError::Handshake {
            path,
            reason: HandshakeError::NoPipes,
        });
    };
    let mut stdout = BufReader::new(stdout);
    let cwd = options
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    let hello = Request::Hello(Hello {
        protocol_version: PROTOCOL_VERSION,
        cwd,
        has_ui: options.has_ui,
        flags: options.flags.clone(),
        mode: options.mode.clone(),
        project_trusted: Some(options.project_trusted),
    });
    let mut line = Vec::new();
    encode_line(&hello, &mut line).map_err(|e| handshake(&path, HandshakeError::Encode(e)))?;
    let exchange = async {
        stdin.write_all(&line).await?;
        stdin.flush().await?;
        let mut answer = String::new();
        stdout.read_line(&mut answer).await?;
        Ok::<String, std::io::Error>(answer)
    };
    let answer = match tokio::time::timeout(options.handshake_timeout, exchange).await {
        Err(_) => {
            return Err(handshake(
                &path,
                HandshakeError::TimedOut(options.handshake_timeout.as_millis()),
            ))
        }
        Ok(Err(e)) => return Err(handshake(&path, HandshakeError::Pipe(e))),
        Ok(Ok(a)) => a,
    };
    let registration = parse_registration(&answer).map_err(|r| handshake(&path, r))?;
    let connection = Connection::start(path, stdin, stdout, options.clone());
    Ok(Started {
        child,
        stderr_forwarder,
        connection,
        registration,
    })
}

/// Passes each line the process writes to stderr on, until it closes the pipe.
async fn forward_stderr(path: String, stderr: tokio::process::ChildStderr) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    // Bytes, not `lines()`: output that is not UTF-8 must not stop the reading (a full pipe
    // would block the extension).
    while matches!(reader.read_until(b'\n', &mut line).await, Ok(n) if n > 0) {
        let text = String::from_utf8_lossy(&line);
        diagnostics::report(Diagnostic::ExtensionOutput {
            path: path.clone(),
            line: text.trim_end_matches(['\n', '\r']).to_string(),
        });
        line.clear();
    }
}

fn handshake(path: &str, reason: HandshakeError) -> ProcessError {
    ProcessError::Handshake {
        path: path.to_string(),
        reason,
    }
}

/// Parses the extension's first line, which must be `{"type":"register",...}`.
pub(crate) fn parse_registration(line: &str) -> Result<Registration, HandshakeError> {
    let text = line.trim();
    if text.is_empty() {
        return Err(HandshakeError::Closed);
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|source| HandshakeError::NotJson {
            source,
            line: excerpt(text, 120).to_string(),
        })?;
    if value.get("type").and_then(|t| t.as_str()) != Some("register") {
        return Err(HandshakeError::NotRegister(excerpt(text, 120).to_string()));
    }
    serde_json::from_value(value).map_err(HandshakeError::InvalidRegister)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registration_must_come_first_and_be_well_formed() {
        let r = parse_registration(r#"{"type":"register","name":"x","events":["input"]}"#)
            .expect("valid");
        assert_eq!(r.events, ["input"]);
        assert!(parse_registration("").is_err());
        assert!(parse_registration("hello there")
            .expect_err("garbage")
            .to_string()
            .contains("not JSON"));
        assert!(parse_registration(r#"{"type":"result","id":1}"#)
            .expect_err("wrong type")
            .to_string()
            .contains("must be"));
        assert!(parse_registration(r#"{"type":"register"}"#)
            .expect_err("no name")
            .to_string()
            .contains("invalid register"));
    }
}
