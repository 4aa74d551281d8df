//! Opens a page in the user's browser for a sign-in: `$BROWSER` when set (as `git` and `gh`
//! honour it), else the platform's opener. Failing to open is not an error: the URL is always
//! printed too, for machines without a browser.

use std::process::{Command, Stdio};

/// Starts the browser on `url` in the background; false when nothing could be started.
pub fn open(url: &str) -> bool {
    let program = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| platform_opener().to_string());
    let mut words = program.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    Command::new(first)
        .args(words)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(|mut child| {
            // Reaped in the background so no zombie stays behind.
            std::thread::spawn(move || child.wait());
        })
        .is_ok()
}

/// The platform's opener as pi's `openBrowser` picks it (the URL is appended as its last word).
fn platform_opener() -> &'static str {
    if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "rundll32 url.dll,FileProtocolHandler"
    } else {
        "xdg-open"
    }
}
