//! The bubblewrap command line for a policy: used where the kernel has no Landlock.

use std::ffi::OsString;
use std::path::Path;

use crate::policy::{NetworkAccess, SandboxMode, SandboxPolicy};

/// `bwrap` arguments that run `program args…` under `policy`: the whole file system read-only,
/// a fresh `/dev`, the writable roots bound writable, the read-only folders bound back over
/// them, and no network namespace access when the network is off.
pub(crate) fn args(
    policy: &SandboxPolicy,
    program: &Path,
    program_args: &[OsString],
) -> Vec<OsString> {
    let mut out: Vec<OsString> = ["--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev"]
        .iter()
        .map(OsString::from)
        .collect();
    let mut bind = |flag: &str, path: &Path| {
        if path.exists() {
            out.push(flag.into());
            out.push(path.into());
            out.push(path.into());
        }
    };
    if policy.mode == SandboxMode::WorkspaceWrite {
        for root in &policy.writable_roots {
            bind("--bind", root);
        }
        for sub in &policy.read_only_subpaths {
            bind("--ro-bind", sub);
        }
    }
    if policy.network == NetworkAccess::Off {
        out.push("--unshare-net".into());
    }
    out.push("--".into());
    out.push(program.into());
    out.extend(program_args.iter().cloned());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binds_roots_writable_and_protected_folders_back_read_only() {
        let dir = std::env::temp_dir().join(format!("rho-bwrap-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".git/hooks")).expect("mkdir");
        let policy = SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            network: NetworkAccess::Off,
            writable_roots: vec![dir.clone(), dir.join("missing")],
            read_only_subpaths: vec![dir.join(".git/hooks")],
        };
        let args = args(&policy, Path::new("/bin/sh"), &["-c".into(), "true".into()]);
        let text: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let d = dir.display().to_string();
        let hooks = format!("{d}/.git/hooks");
        let expected: Vec<&str> = vec![
            "--die-with-parent",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--bind",
            &d,
            &d,
            "--ro-bind",
            &hooks,
            &hooks,
            "--unshare-net",
            "--",
            "/bin/sh",
            "-c",
            "true",
        ];
        assert_eq!(text, expected);
    }
}
