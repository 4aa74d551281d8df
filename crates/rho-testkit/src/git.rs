//! Running git in a test's folder with a fixed identity and default branch, so commits work
//! on a machine without git configuration.

use std::path::Path;

/// Runs `git args` in `dir`; its trimmed stdout. A failure fails the test, with git's stderr.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "git {args:?}: {stderr}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}
