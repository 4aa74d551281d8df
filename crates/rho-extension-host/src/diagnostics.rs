//! Messages rho has for the user outside any reply: warnings found along the way and what
//! extension processes write to their stderr. They go to stderr by default; the interactive
//! mode installs a sink while it owns the screen, so they become notices in the transcript
//! instead of text drawn over a raw-mode frame.

use std::sync::{Arc, RwLock};

/// One message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Diagnostic {
    /// A problem rho noticed (written as `Warning: <text>` on stderr).
    Warning(String),
    /// A line an extension process wrote to its stderr (passed through as it is).
    ExtensionOutput {
        /// The extension's path.
        path: String,
        /// The line, without its newline.
        line: String,
    },
}

/// Where diagnostics go instead of stderr.
pub type Sink = Arc<dyn Fn(Diagnostic) + Send + Sync>;

static SINK: RwLock<Option<Sink>> = RwLock::new(None);

/// Routes diagnostics to `sink` (`None`: stderr again); returns the sink it replaced.
pub fn set_sink(sink: Option<Sink>) -> Option<Sink> {
    let mut current = SINK.write().unwrap_or_else(|p| p.into_inner());
    std::mem::replace(&mut *current, sink)
}

/// Delivers `diagnostic` to the sink, or writes it to stderr when there is none.
pub fn report(diagnostic: Diagnostic) {
    let sink = SINK.read().unwrap_or_else(|p| p.into_inner()).clone();
    match (sink, diagnostic) {
        (Some(sink), d) => sink(d),
        (None, Diagnostic::Warning(text)) => eprintln!("Warning: {text}"),
        (None, Diagnostic::ExtensionOutput { line, .. }) => eprintln!("{line}"),
    }
}

/// Shorthand for a [`Diagnostic::Warning`].
pub fn warn(text: impl Into<String>) {
    report(Diagnostic::Warning(text.into()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn a_sink_receives_what_would_go_to_stderr_until_it_is_removed() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let store = seen.clone();
        set_sink(Some(Arc::new(move |d| {
            store.lock().unwrap_or_else(|p| p.into_inner()).push(d)
        })));
        warn("disk nearly full");
        report(Diagnostic::ExtensionOutput {
            path: "/x/a.py".into(),
            line: "log".into(),
        });
        assert!(set_sink(None).is_some());
        warn("to stderr now");
        let seen = seen.lock().unwrap_or_else(|p| p.into_inner()).clone();
        assert_eq!(
            seen,
            [
                Diagnostic::Warning("disk nearly full".into()),
                Diagnostic::ExtensionOutput {
                    path: "/x/a.py".into(),
                    line: "log".into()
                }
            ]
        );
    }
}
