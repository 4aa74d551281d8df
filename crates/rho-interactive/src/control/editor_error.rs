//! Why Ctrl+G's external editor gave no text back (its own file so the control messages can
//! carry it without naming the editor's module).

use std::path::PathBuf;

/// Why the external editor's text did not come back (pi's notices); the editor keeps its text.
#[derive(Debug, thiserror::Error)]
pub enum EditorError {
    /// No private folder for the file could be made.
    #[error("Cannot create a file for the external editor: {0}")]
    TempDir(#[source] std::io::Error),
    /// The text could not be written for the editor.
    #[error("Cannot write {}: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The command is empty or its program could not be started: set `externalEditor`,
    /// `$VISUAL` or `$EDITOR` to a command that runs.
    #[error("Failed to launch external editor: {0}")]
    Launch(String),
    /// The editor exited with a failure (`code N` or `signal N`).
    #[error("External editor exited with {0}; prompt unchanged")]
    Exit(String),
    /// The saved text could not be read back.
    #[error("Cannot read {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
