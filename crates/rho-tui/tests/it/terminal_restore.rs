//! A panic gives the terminal back: this test runs itself again as a child in a real terminal
//! (a tmux pane, with a shell), where the child enters raw mode and the keyboard protocols and
//! then panics on another thread, and leaks its guard so only the panic hook can restore the
//! terminal. The shell must then find a cooked terminal, and the bytes the child wrote must
//! end with the modes turned off. Skipped (with a notice) where tmux is not installed.
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use rho_tui::terminal::{self, TerminalGuard};

const CHILD: &str = "RHO_TUI_PANIC_CHILD";

/// The child: raw mode and protocols on, a panic elsewhere, the guard never dropped.
fn panicking_child() {
    let guard = TerminalGuard::enter().expect("a terminal");
    // Let the terminal's replies arrive (nothing reads them; the shell discards them).
    std::thread::sleep(Duration::from_millis(100));
    let _ = std::thread::spawn(|| panic!("deliberate panic for the restore test")).join();
    assert!(terminal::panicked());
    std::mem::forget(guard);
}

struct Tmux(String);

impl Tmux {
    fn run(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .args(["-L", &self.0, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "0"]).stdout).into_owned()
    }

    fn wait_for(&self, what: &str, holds: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if holds(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {what}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn type_line(&self, text: &str) {
        assert!(self
            .run(&["send-keys", "-t", "0", "-l", text])
            .status
            .success());
        assert!(self
            .run(&["send-keys", "-t", "0", "Enter"])
            .status
            .success());
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

#[test]
fn a_panic_gives_the_terminal_back() {
    if std::env::var_os(CHILD).is_some() {
        return panicking_child();
    }
    if !Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("SKIPPED a_panic_gives_the_terminal_back: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("terminal.log");
    let tmux = Tmux(format!("rho-tui-panic-{}", std::process::id()));
    let path = std::env::var("PATH").unwrap_or_default();
    let started = tmux.run(&[
        "start-server",
        ";",
        "set-option",
        "-s",
        "extended-keys",
        "on",
        ";",
        "new-session",
        "-d",
        "-x",
        "120",
        "-y",
        "30",
        "env",
        "-i",
        &format!("PATH={path}"),
        "TERM=xterm-256color",
        "PS1=$ ",
        "bash",
        "--norc",
        "--noprofile",
        "-i",
    ]);
    assert!(started.status.success(), "{started:?}");
    tmux.wait_for("the prompt", |s| s.contains('$'));
    let record = format!("cat >> '{}'", log.display());
    assert!(tmux
        .run(&["pipe-pane", "-o", "-t", "0", &record])
        .status
        .success());
    let exe = std::env::current_exe().unwrap();
    tmux.type_line(&format!(
        "{CHILD}=1 '{}' --exact terminal_restore::a_panic_gives_the_terminal_back --nocapture --test-threads 1; \
         echo \"MODES:$(stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | paste -sd, -)\"",
        exe.display()
    ));
    let screen = tmux.wait_for("the modes after the panic", |s| {
        s.lines().any(|l| l.starts_with("MODES:"))
    });
    let modes = screen.lines().find(|l| l.starts_with("MODES:")).unwrap();
    assert_eq!(modes, "MODES:icanon,echo", "{screen}");
    let bytes = std::fs::read(&log).unwrap();
    let entered = find(&bytes, b"\x1b[>7u").expect("the child entered the keyboard protocol");
    let after = &bytes[entered..];
    for (what, seq) in [
        ("bracketed paste off", b"\x1b[?2004l".as_slice()),
        ("kitty flags popped", b"\x1b[<u"),
        ("cursor shown", b"\x1b[?25h"),
    ] {
        assert!(
            find(after, seq).is_some(),
            "{what} missing after the child started"
        );
    }
    assert!(Path::new(&log).exists());
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
