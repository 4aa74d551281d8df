//! One test alone in a process of its own. A crate's integration tests share one binary, so
//! one process and its threads; a test that reads or resets process-wide state (a count of
//! decoded messages, a record of created folders) would see the other tests' work. It runs
//! its body in a fresh process of the same test binary, started with only that test selected.

use std::process::Command;

/// Set in the child process to the name of the test it runs alone.
const ALONE: &str = "RHO_TEST_ALONE";

/// Whether the calling test runs its body in this process. In the child this starts it is
/// `true`; here it starts the test binary again with only `test` selected (its full name in
/// the binary, e.g. `messages_on_disk::released_messages_are_read_back`), waits for it and
/// returns `false` once that test passed there. Panics with the child's output when the test
/// failed there or did not run.
///
/// ```text
/// #[test]
/// fn reads_a_process_wide_count() {
///     if !rho_testkit::own_process::runs_here("module::reads_a_process_wide_count") {
///         return;
///     }
///     // the test's body
/// }
/// ```
pub fn runs_here(test: &str) -> bool {
    runs_alone(test, false)
}

/// [`runs_here`] for a test whose child must inherit no environment at all (a library that
/// reads the process environment itself, such as the AWS credential chain); the test's body
/// sets what it needs.
pub fn runs_here_with_empty_env(test: &str) -> bool {
    runs_alone(test, true)
}

fn runs_alone(test: &str, empty_env: bool) -> bool {
    if std::env::var_os(ALONE).is_some_and(|name| name == test) {
        return true;
    }
    let exe = std::env::current_exe().expect("test binary path");
    let mut child = Command::new(exe);
    child.args(["--exact", test, "--test-threads=1"]);
    if empty_env {
        child.env_clear();
    }
    let out = child
        .env(ALONE, test)
        .output()
        .expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{test} in a process of its own ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    false
}
