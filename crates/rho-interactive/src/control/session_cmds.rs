//! /clone, /import, /share and /changelog: pi's commands for copying a session, taking one in
//! from a file, publishing its HTML export as a secret gist, and reading what changed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rho_process::{run_to_end, ChildSpec, Finished, Output, RunError};

use rho_tui::components::CustomMessageView;
use rho_tui::dialogs::ConfirmDialog;
use rho_tui::View;

use super::session_nav::send_load_warnings;
use super::{Control, Cx};
use crate::dialogs::{ActiveDialog, Dialogs};
use crate::screen::{Screen, ScreenMsg};
use crate::shared::Shared;

/// rho's changelog, kept at the repository root.
const CHANGELOG: &str = include_str!("../../../../CHANGELOG.md");

impl Control {
    /// /clone: the current branch into a new session file that becomes the session.
    pub(super) fn clone_session(&mut self, shared: &Shared, screen: &mut Screen) {
        if shared.session.with_session(|s| s.leaf_id().is_none()) {
            return screen.notice("Nothing to clone yet".into(), false);
        }
        let session = shared.session.clone();
        let tx = self.notices.clone();
        tokio::spawn(async move {
            let (text, error) = match session.clone_session().await {
                Ok(outcome) if outcome.cancelled => ("Clone cancelled".into(), false),
                Ok(_) => ("Cloned to new session".into(), false),
                Err(e) => (e.to_string(), true),
            };
            tx.notice(text, error);
        });
    }

    /// /import <file.jsonl>: asks first, as pi does (the current session is replaced).
    pub(super) fn ask_import(
        &mut self,
        arg: &str,
        shared: &Shared,
        screen: &mut Screen,
        dialogs: &mut Dialogs,
    ) {
        let Some(path) = path_argument(arg) else {
            return screen.notice("Usage: /import <path.jsonl>".into(), true);
        };
        let source = shared.session.cwd().join(path);
        let confirm = ConfirmDialog::new(
            "Import session",
            format!("Replace current session with {}?", source.display()),
        );
        dialogs.open(ActiveDialog::Import(confirm, source));
    }

    /// Copies `source` into the sessions folder (keeping its id and working directory) and
    /// switches to the copy; a copy that cannot be opened is removed again.
    pub(super) fn import(&mut self, source: PathBuf, confirmed: bool, cx: &mut Cx) {
        if !confirmed {
            return cx.screen.notice("Import cancelled".into(), false);
        }
        let session = &cx.shared.session;
        let dir = session.with_session(|s| s.path().and_then(Path::parent).map(Path::to_path_buf));
        let dir = dir.unwrap_or_else(|| {
            let cwd = session.cwd().to_string_lossy().into_owned();
            rho_session::paths::default_session_dir(&cx.shared.options.agent_dir, &cwd)
        });
        let target = match copy_into(&source, &dir) {
            Ok(t) => t,
            Err(e) => {
                return cx
                    .screen
                    .notice(format!("Failed to import session: {e}"), true)
            }
        };
        let session = session.clone();
        let tx = self.notices.clone();
        tokio::spawn(async move {
            let msg = match session.open_session(&target).await {
                Ok(opened) if opened.cancelled => ScreenMsg::Notice {
                    text: "Import cancelled".into(),
                    error: false,
                },
                Ok(opened) => {
                    send_load_warnings(&tx, &opened.warnings);
                    ScreenMsg::Notice {
                        text: format!("Session imported from: {}", source.display()),
                        error: false,
                    }
                }
                Err(e) => {
                    if target != source {
                        let _ = std::fs::remove_file(&target);
                    }
                    ScreenMsg::Notice {
                        text: format!("Failed to import session: {e}"),
                        error: true,
                    }
                }
            };
            tx.send(msg);
        });
    }

    /// /share: the HTML export as a secret GitHub gist through the `gh` CLI.
    pub(super) fn share(&mut self, shared: &Shared, screen: &mut Screen) {
        let page = shared.session.with_session(rho_export::live_page);
        let gh = self.gh_program.clone();
        let tx = self.notices.clone();
        screen.notice("Creating gist...".into(), false);
        tokio::spawn(async move {
            let (text, error) = match share_page(&gh, &page).await {
                Ok(url) => (
                    format!("Gist: {url}\nA secret gist of the HTML export: anyone with the link can read it."),
                    false,
                ),
                Err(e) => (e.to_string(), true),
            };
            tx.notice(text, error);
        });
    }
}

/// /changelog: rho's CHANGELOG.md.
pub(super) fn show_changelog(screen: &mut Screen) {
    screen.transcript.push(View::Custom(CustomMessageView {
        custom_type: "changelog".into(),
        text: CHANGELOG.trim().to_string(),
        ..Default::default()
    }));
}

/// The first argument, unquoted (`"a b.jsonl"` or `'a b.jsonl'` may hold spaces), as pi reads it.
fn path_argument(arg: &str) -> Option<&str> {
    let arg = arg.trim_start();
    let first = arg.chars().next()?;
    if first == '"' || first == '\'' {
        let rest = &arg[1..];
        return rest.find(first).map(|end| &rest[..end]);
    }
    arg.split_whitespace().next()
}

/// Why /import could not copy the file; shown after "Failed to import session: ".
#[derive(Debug, thiserror::Error)]
enum ImportError {
    /// The path names no file.
    #[error("File not found: {}", .0.display())]
    NotFound(PathBuf),
    /// The sessions folder could not be created.
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir {
        /// The folder.
        dir: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The path ends in `..` or `/`.
    #[error("no file name")]
    NoFileName,
    /// The copy failed.
    #[error("cannot copy to {}: {source}", target.display())]
    Copy {
        /// The new file.
        target: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Why /share made no gist; the text is the notice (pi's wording where pi has one).
#[derive(Debug, thiserror::Error)]
enum ShareError {
    /// `gh` cannot be run.
    #[error("GitHub CLI (gh) is not installed. Install it from https://cli.github.com/")]
    NoGh,
    /// `gh auth status` failed.
    #[error("GitHub CLI is not logged in. Run 'gh auth login' first.")]
    NotLoggedIn,
    /// The page could not be written for upload.
    #[error("Failed to export session: {0}")]
    Export(#[source] std::io::Error),
    /// `gh` could not be run to its end (it stalled past [`GH_TIMEOUT`], or the run failed).
    #[error("Failed to create gist: {0}")]
    Gh(#[source] RunError),
    /// `gh gist create` failed; the text is its stderr (or "Unknown error").
    #[error("Failed to create gist: {0}")]
    Gist(String),
    /// gh printed no gist URL.
    #[error("Failed to parse gist ID from gh output")]
    NoUrl,
}

/// Copies `source` into `dir` under its own name (`name-1.jsonl`, ... when taken); a file
/// already in `dir` is used where it is.
fn copy_into(source: &Path, dir: &Path) -> Result<PathBuf, ImportError> {
    if !source.is_file() {
        return Err(ImportError::NotFound(source.to_path_buf()));
    }
    std::fs::create_dir_all(dir).map_err(|source| ImportError::CreateDir {
        dir: dir.to_path_buf(),
        source,
    })?;
    let name = source.file_name().ok_or(ImportError::NoFileName)?;
    let mut target = dir.join(name);
    if target == source {
        return Ok(target);
    }
    let stem = source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut n = 1;
    while target.exists() {
        target = dir.join(format!("{stem}-{n}.jsonl"));
        n += 1;
    }
    if let Err(source) = std::fs::copy(source, &target) {
        return Err(ImportError::Copy { target, source });
    }
    Ok(target)
}

/// How long each `gh` call may take: a stalled network must not leave /share waiting forever.
const GH_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `gh` through rho-process (own process group, recorded, ended at [`GH_TIMEOUT`]) on a
/// blocking thread.
async fn run_gh(spec: ChildSpec) -> Result<Finished, RunError> {
    let program = spec.program().display().to_string();
    tokio::task::spawn_blocking(move || run_to_end(&spec, Output::Captured, Some(GH_TIMEOUT)))
        .await
        .unwrap_or_else(|join| {
            Err(RunError::Spawn {
                program,
                source: std::io::Error::other(join),
            })
        })
}

/// Runs `gh auth status`, then `gh gist create --public=false` on the page; the gist's URL.
async fn share_page(gh: &Path, page: &str) -> Result<String, ShareError> {
    match run_gh(ChildSpec::new(gh).args(["auth", "status"])).await {
        Err(RunError::Spawn { .. }) => return Err(ShareError::NoGh),
        Err(e) => return Err(ShareError::Gh(e)),
        Ok(out) if !out.status.success() => return Err(ShareError::NotLoggedIn),
        Ok(_) => {}
    }
    let dir = tempfile_dir().map_err(ShareError::Export)?;
    let file = dir.join("session.html");
    std::fs::write(&file, page).map_err(ShareError::Export)?;
    let create = ChildSpec::new(gh)
        .args(["gist", "create", "--public=false"])
        .args([&file]);
    let out = run_gh(create).await;
    let _ = std::fs::remove_dir_all(&dir);
    let out = out.map_err(ShareError::Gh)?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
        let err = if err.is_empty() {
            "Unknown error".into()
        } else {
            err
        };
        return Err(ShareError::Gist(err));
    }
    let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if url.rsplit('/').next().is_none_or(str::is_empty) {
        return Err(ShareError::NoUrl);
    }
    Ok(url)
}

/// A fresh private folder under the system's temp dir for the page gh uploads.
fn tempfile_dir() -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "rho-share-{}-{}",
        std::process::id(),
        rho_session::time::now_ms()
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
