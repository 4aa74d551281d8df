//! macOS: the Seatbelt (`sandbox-exec`) profile for a policy. Written as text so it can be
//! checked on any platform; only macOS runs it.

use std::fmt::Write;
use std::path::Path;

use crate::policy::{NetworkAccess, SandboxMode, SandboxPolicy};

/// Where macOS keeps `sandbox-exec` (the absolute path, so `PATH` cannot swap it).
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// The basics every process needs: start programs, fork, read everything, talk to its own
/// children, the system services libc asks at start-up, terminals and the null devices.
const BASE: &str = r#"(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow file-read*)
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow ipc-posix-sem)
(allow pseudo-tty)
(allow file-ioctl (literal "/dev/tty") (regex #"^/dev/ttys[0-9]+$"))
(allow file-write-data
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/tty")
  (literal "/dev/dtracehelper")
  (regex #"^/dev/ttys[0-9]+$"))
"#;

/// A path as an SBPL string literal.
fn quote(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// The profile for `policy`.
pub fn profile(policy: &SandboxPolicy) -> String {
    let mut out = String::from(BASE);
    match policy.mode {
        SandboxMode::Off => out.push_str("(allow file-write*)\n"),
        SandboxMode::ReadOnly => {}
        SandboxMode::WorkspaceWrite => {
            out.push_str("(allow file-write*");
            for root in &policy.writable_roots {
                let inner: Vec<&Path> = policy
                    .read_only_subpaths
                    .iter()
                    .filter(|p| p.starts_with(root))
                    .map(|p| p.as_path())
                    .collect();
                if inner.is_empty() {
                    let _ = write!(out, "\n  (subpath {})", quote(root));
                } else {
                    let _ = write!(out, "\n  (require-all (subpath {})", quote(root));
                    for p in inner {
                        let _ = write!(out, "\n    (require-not (subpath {}))", quote(p));
                    }
                    out.push(')');
                }
            }
            out.push_str(")\n");
        }
    }
    match policy.network {
        NetworkAccess::On => out
            .push_str("(allow network-outbound)\n(allow network-inbound)\n(allow system-socket)\n"),
        NetworkAccess::Off => out.push_str("(allow network-outbound (remote unix-socket))\n"),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn policy(mode: SandboxMode, network: NetworkAccess) -> SandboxPolicy {
        SandboxPolicy {
            mode,
            network,
            writable_roots: vec![
                PathBuf::from("/Users/me/proj"),
                PathBuf::from("/private/tmp"),
            ],
            read_only_subpaths: vec![
                PathBuf::from("/Users/me/proj/.git/hooks"),
                PathBuf::from("/Users/me/proj/.rho"),
                PathBuf::from("/Users/me/.rho/agent"),
            ],
        }
    }

    #[test]
    fn workspace_write_with_network_off() {
        insta::assert_snapshot!(profile(&policy(
            SandboxMode::WorkspaceWrite,
            NetworkAccess::Off
        )));
    }

    #[test]
    fn read_only_with_network_on() {
        insta::assert_snapshot!(profile(&policy(SandboxMode::ReadOnly, NetworkAccess::On)));
    }

    #[test]
    fn quotes_awkward_paths() {
        assert_eq!(quote(Path::new(r#"/a "b"\c"#)), r#""/a \"b\"\\c""#);
    }
}
