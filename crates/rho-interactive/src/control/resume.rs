//! Opening the session picked in `/resume`. A session whose folder no longer exists is not
//! refused: as in pi 1.6, rho asks whether to continue it here (its file keeps the old folder,
//! so the question comes again next time) or to fork it into a new session of this folder.

use std::path::{Path, PathBuf};

use rho_tui::dialogs::{SelectItem, SelectList};

use super::session_nav::{send_load_warnings, switch_notice};
use super::{Control, Cx};
use crate::dialogs::{ActiveDialog, MissingCwdChoice};
use crate::screen::ScreenMsg;

/// The folder a session file names, when that folder no longer exists.
fn missing_cwd(path: &Path) -> Option<String> {
    let summary = rho_session::listing::summarize(path)?;
    let cwd = summary.header.cwd;
    (!cwd.is_empty() && !Path::new(&cwd).is_dir()).then_some(cwd)
}

impl Control {
    /// Opens the session file chosen in the picker, first asking what to do when its folder
    /// is gone.
    pub(super) fn resume(&mut self, path: &Path, cx: &mut Cx) {
        if let Some(gone) = missing_cwd(path) {
            let here = cx.shared.session.cwd().display().to_string();
            let items = vec![
                SelectItem::new(format!("Continue in {here} (asks again next time)"), ""),
                SelectItem::new(
                    format!("Fork into {here} (new session ID, original kept)"),
                    "",
                ),
                SelectItem::new("Cancel", ""),
            ];
            let list = SelectList::new(format!("Session cwd does not exist: {gone}"), items);
            return cx
                .dialogs
                .open(ActiveDialog::MissingCwd(list, path.to_path_buf()));
        }
        let session = cx.shared.session.clone();
        let tx = self.notices.clone();
        let path = path.to_path_buf();
        tokio::spawn(async move {
            let msg = match session.open_session(&path).await {
                Ok(opened) => {
                    send_load_warnings(&tx, &opened.warnings);
                    switch_notice(opened.cancelled, "Resumed session")
                }
                Err(e) => ScreenMsg::Notice {
                    text: e.to_string(),
                    error: true,
                },
            };
            tx.send(msg);
        });
    }

    /// The answer to the missing-folder question (`None`: cancelled).
    pub(super) fn resume_missing_cwd(
        &mut self,
        path: PathBuf,
        choice: Option<MissingCwdChoice>,
        cx: &mut Cx,
    ) {
        let Some(choice) = choice else {
            return cx.screen.notice("Resume cancelled".into(), false);
        };
        let session = cx.shared.session.clone();
        let here = session.cwd().display().to_string();
        let tx = self.notices.clone();
        tokio::spawn(async move {
            let result = match choice {
                MissingCwdChoice::Continue => session
                    .open_session_here(&path)
                    .await
                    .map(|o| (o, format!("Resumed session in {here}"))),
                MissingCwdChoice::Fork => session
                    .fork_session_here(&path)
                    .await
                    .map(|(o, id)| (o, format!("Forked into new session {id} in {here}"))),
            };
            let msg = match result {
                Ok((opened, done)) => {
                    send_load_warnings(&tx, &opened.warnings);
                    switch_notice(opened.cancelled, &done)
                }
                Err(e) => ScreenMsg::Notice {
                    text: format!("Failed to resume session: {e}"),
                    error: true,
                },
            };
            tx.send(msg);
        });
    }
}
