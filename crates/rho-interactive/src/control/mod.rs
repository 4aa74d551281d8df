//! Session control: what the user asks of the session. Submitted text (a prompt, a steer, a
//! follow-up, `!`/`!!` bash, a built-in slash command), the app's keys (interrupt, clear,
//! model and thinking cycling, session keys), session navigation (/new, /resume, /tree,
//! /fork, /clone, /import), /reload, and acting on what a dialog picked. Each session
//! operation runs in a task; its result comes back as a notice, a [`ControlMsg`] or a dialog
//! to open. Session control reaches the other parts through [`Cx`]; none of them reaches it.
//!
//! This file holds the state and what each message and answer does; the commands and keys
//! are in the files beside it.

mod arguments;
mod clipboard;
mod commands;
mod compaction_queue;
mod editor_error;
mod external_editor;
mod keys;
mod llama;
mod models;
mod reload;
mod resume;
mod safety_commands;
mod session_cmds;
mod session_nav;
mod submit;

use std::path::PathBuf;
use std::time::Instant;

use rho_ai::ImageContent;
use rho_core::agent_session::{ReloadReport, StreamingBehavior};

use crate::dialogs::{ActiveDialog, Answer, Dialogs};
use crate::ext_ui::ExtUi;
use crate::outbox::Outbox;
use crate::screen::{Screen, ScreenMsg};
use crate::shared::Shared;

/// The first prompt, from the command line's messages and @files.
pub struct InitialPrompt {
    /// The text.
    pub text: String,
    /// Images from @files.
    pub images: Vec<ImageContent>,
}

/// What session control's tasks report.
pub enum ControlMsg {
    /// Output of the running `!`/`!!` command.
    BashOutput(String),
    /// A `!`/`!!` command finished.
    Bash(rho_protocol::agent::BashExecutionMessage),
    /// A `!`/`!!` command could not run.
    BashFailed(String),
    /// /reload finished, with what it found wrong.
    Reloaded(ReloadReport),
    /// An extension command called `ctx.reload()` and returned: run /reload.
    ReloadRequested,
    /// The external editor exited: the new text, or why the text stays.
    EditorClosed(Result<String, editor_error::EditorError>),
    /// The clipboard was read (Ctrl+V): what to insert, or why it could not be read.
    Pasted(Result<Option<String>, String>),
}

/// A message typed before the session started.
pub struct HeldInput {
    text: String,
    images: Vec<ImageContent>,
    behavior: StreamingBehavior,
}

/// The other parts, lent by the top-level for one input or message.
pub struct Cx<'a> {
    /// The session, the resolved options, the keys.
    pub shared: &'a mut Shared,
    /// Transcript, editor and layout.
    pub screen: &'a mut Screen,
    /// The open dialog and those waiting.
    pub dialogs: &'a mut Dialogs,
    /// What extensions show.
    pub ext: &'a mut ExtUi,
}

/// Session control's state.
pub struct Control {
    /// Messages typed before extensions saw `session_start`, sent once they have.
    held: Vec<HeldInput>,
    /// Extensions have seen `session_start`; until then prompts are held.
    started: bool,
    /// The transcript slot of the running `!` command.
    running_bash: Option<usize>,
    /// True while /reload runs (the editor is replaced by a note and keys wait).
    reloading: bool,
    /// When Ctrl+C last cleared an empty editor (a second press soon after quits).
    last_ctrl_c: Option<Instant>,
    /// When Escape was last pressed on an idle, empty editor (a second press soon after
    /// opens what `doubleEscapeAction` names).
    last_escape: Option<Instant>,
    /// The user asked to leave.
    quit: bool,
    /// The GitHub CLI /share runs.
    gh_program: PathBuf,
    /// Notices and editor text from the tasks.
    notices: Outbox<ScreenMsg>,
    /// Dialogs a task prepared (the session list).
    opener: Outbox<ActiveDialog>,
    /// The tasks' own results.
    tx: Outbox<ControlMsg>,
}

impl Control {
    /// Nothing started yet; tasks report through the three outboxes.
    pub fn new(
        notices: Outbox<ScreenMsg>,
        opener: Outbox<ActiveDialog>,
        tx: Outbox<ControlMsg>,
    ) -> Self {
        Self {
            held: Vec::new(),
            started: false,
            running_bash: None,
            reloading: false,
            last_ctrl_c: None,
            last_escape: None,
            quit: false,
            gh_program: "gh".into(),
            notices,
            opener,
            tx,
        }
    }

    /// Handles a task's report.
    pub fn handle(&mut self, msg: ControlMsg, cx: &mut Cx) {
        match msg {
            ControlMsg::BashOutput(chunk) => self.bash_output(&chunk, cx.screen),
            ControlMsg::Bash(message) => self.bash_finished(message, cx.screen),
            ControlMsg::BashFailed(error) => self.bash_failed(error, cx.screen),
            ControlMsg::Reloaded(report) => self.reloaded(report, cx),
            ControlMsg::ReloadRequested => self.reload_resources(cx),
            ControlMsg::EditorClosed(result) => self.editor_closed(result, cx),
            ControlMsg::Pasted(pasted) => self.pasted(pasted, cx),
        }
    }

    /// Acts on what a dialog picked.
    pub fn answered(&mut self, answer: Answer, cx: &mut Cx) {
        match answer {
            Answer::Model(model, save) => self.switch_model(*model, save, cx.shared),
            Answer::ThinkingLevel(level, save) => {
                let models = cx.shared.models.clone();
                tokio::spawn(async move {
                    if save {
                        models.set_default_level(level).await;
                    } else {
                        models.apply_level(level).await;
                    }
                });
            }
            Answer::Session(path) => self.resume(&path, cx),
            Answer::MissingCwd(path, choice) => self.resume_missing_cwd(path, choice, cx),
            Answer::TreeTarget(id) => self.chose_tree_target(id, cx),
            Answer::TreeMove { target, summarize } => self.navigate_tree(target, summarize, cx),
            Answer::Fork(id) => self.fork_at(id, cx.shared),
            Answer::Import { source, confirmed } => self.import(source, confirmed, cx),
        }
    }

    /// Whether the user asked to leave.
    pub fn quit_requested(&self) -> bool {
        self.quit
    }

    /// Whether /reload runs (keys wait, a note stands in the editor's place).
    pub fn reloading(&self) -> bool {
        self.reloading
    }

    /// The transcript was rebuilt: the `!` command's live view went with it.
    pub fn forget_bash(&mut self) {
        self.running_bash = None;
    }

    /// A key other than Ctrl+C went elsewhere (an extension shortcut): the next Ctrl+C on
    /// an empty editor is a first press again.
    pub fn forget_ctrl_c(&mut self) {
        self.last_ctrl_c = None;
    }

    /// Points /share at another GitHub CLI.
    #[cfg(test)]
    pub fn set_gh_program(&mut self, program: &std::path::Path) {
        self.gh_program = program.to_path_buf();
    }

    /// Whether a `!` command's live view is open.
    #[cfg(test)]
    pub fn bash_running(&self) -> bool {
        self.running_bash.is_some()
    }
}
