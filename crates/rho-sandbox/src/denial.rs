//! Telling a sandbox denial from an ordinary failure, so the session can offer to escalate.

/// What a failed command ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denial {
    /// A write outside the writable roots (or into a read-only folder).
    FileSystem,
    /// A network connection while the network is off.
    Network,
}

/// Looks at a failed command's output for the errors a sandbox produces: `EACCES`/`EROFS` on
/// writes and `EPERM` on sockets. A heuristic: a command can print these words for other
/// reasons, so callers only use it to offer a choice, never to decide on their own.
pub fn looks_like_denial(output: &str) -> Option<Denial> {
    const FS: [&str; 2] = ["Permission denied", "Read-only file system"];
    const NET: [&str; 4] = [
        "Operation not permitted",
        "Could not resolve host",
        "Temporary failure in name resolution",
        "Network is unreachable",
    ];
    if FS.iter().any(|m| output.contains(m)) {
        return Some(Denial::FileSystem);
    }
    if NET.iter().any(|m| output.contains(m)) {
        return Some(Denial::Network);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_the_sandbox_errors() {
        assert_eq!(
            looks_like_denial("rm: cannot remove '/x': Permission denied"),
            Some(Denial::FileSystem)
        );
        assert_eq!(
            looks_like_denial("curl: (7) Couldn't connect: Operation not permitted"),
            Some(Denial::Network)
        );
        assert_eq!(looks_like_denial("error[E0308]: mismatched types"), None);
    }
}
