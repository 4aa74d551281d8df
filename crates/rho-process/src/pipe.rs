//! One pipe for a child's stdout and stderr, so the output keeps the order it was written
//! in (the shell runner's), read asynchronously: a tokio pipe on unix; on Windows, where an
//! anonymous pipe cannot be polled, a thread reads it and hands the pieces over.

use std::process::Stdio;

/// The write end, given to the child as both stdout and stderr.
pub struct OutputWriter(Inner);

#[cfg(unix)]
type Inner = std::os::fd::OwnedFd;
#[cfg(windows)]
type Inner = std::io::PipeWriter;

impl OutputWriter {
    /// Stdout and stderr for the child (the parent's copies close when these are dropped).
    pub fn stdio_pair(self) -> std::io::Result<(Stdio, Stdio)> {
        let second = self.0.try_clone()?;
        Ok((Stdio::from(self.0), Stdio::from(second)))
    }
}

#[cfg(unix)]
pub use unix::{combined_pipe, OutputReader};
#[cfg(windows)]
pub use windows::{combined_pipe, OutputReader};

#[cfg(unix)]
mod unix {
    use std::os::fd::{FromRawFd, OwnedFd};

    use tokio::io::AsyncReadExt;
    use tokio::net::unix::pipe;

    use super::OutputWriter;

    /// The read end.
    pub struct OutputReader(pipe::Receiver);

    impl OutputReader {
        /// Reads what is there (0 at the end).
        pub async fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.read(buf).await
        }
    }

    /// A new pipe, close-on-exec on both ends.
    pub fn combined_pipe() -> std::io::Result<(OutputReader, OutputWriter)> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 fills both descriptors on success; each is owned exactly once below.
        let (read, write) = unsafe {
            if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
        };
        Ok((
            OutputReader(pipe::Receiver::from_owned_fd(read)?),
            OutputWriter(write),
        ))
    }
}

#[cfg(windows)]
mod windows {
    use std::io::Read;

    use tokio::sync::mpsc;

    use super::OutputWriter;

    /// The read end: pieces a reading thread sent, the one being handed out first.
    pub struct OutputReader {
        pieces: mpsc::Receiver<std::io::Result<Vec<u8>>>,
        current: Vec<u8>,
        at: usize,
    }

    impl OutputReader {
        /// Reads what is there (0 at the end).
        pub async fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            while self.at == self.current.len() {
                match self.pieces.recv().await {
                    Some(piece) => {
                        self.current = piece?;
                        self.at = 0;
                    }
                    None => return Ok(0),
                }
            }
            let n = buf.len().min(self.current.len() - self.at);
            buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    /// A new pipe (std's handles are not inherited unless given to a child) and the thread
    /// that reads it until every writer closed it or the reader is dropped.
    pub fn combined_pipe() -> std::io::Result<(OutputReader, OutputWriter)> {
        let (mut read, write) = std::io::pipe()?;
        let (tx, pieces) = mpsc::channel(16);
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let piece = match read.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => Ok(buf[..n].to_vec()),
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
                    Err(e) => Err(e),
                };
                let failed = piece.is_err();
                if tx.blocking_send(piece).is_err() || failed {
                    break;
                }
            }
        });
        let reader = OutputReader {
            pieces,
            current: Vec::new(),
            at: 0,
        };
        Ok((reader, OutputWriter(write)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ChildGroup, ChildSpec};

    /// stdout and stderr arrive through one pipe in the order they were written, and the
    /// reader ends once the child (the last writer) is gone.
    #[tokio::test]
    async fn both_streams_arrive_in_order_through_one_pipe() {
        let (program, args) = if cfg!(windows) {
            ("cmd.exe", ["/c", "echo one& echo two 1>&2& echo three"])
        } else {
            ("sh", ["-c", "echo one; echo two >&2; echo three"])
        };
        let mut cmd = ChildSpec::new(program)
            .args(args)
            .command()
            .expect("command");
        let (mut reader, writer) = combined_pipe().expect("pipe");
        let (stdout, stderr) = writer.stdio_pair().expect("stdio");
        cmd.stdout(stdout).stderr(stderr);
        let (group, _) = ChildGroup::spawn(cmd).expect("spawns");
        group.wait().await;
        let mut text = Vec::new();
        let mut buf = [0u8; 4];
        loop {
            match reader.read(&mut buf).await.expect("read") {
                0 => break,
                n => text.extend_from_slice(&buf[..n]),
            }
        }
        let text = String::from_utf8_lossy(&text).replace("\r\n", "\n");
        let words: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(words, ["one", "two", "three"]);
    }
}
