//! Every action id pi 1.6 defines (docs/keybindings.md), in pi's order, with its default keys
//! and whether rho has the action. Ids rho lacks are still known: a pi user's keybindings.json
//! that names them is valid, and their keys count when extension shortcuts are checked for
//! conflicts (as in pi).

/// Where defaults differ: pi gives Windows and WSL other keys for a few actions (Windows
/// Terminal takes Alt+Enter, and WSL has no Ctrl+Shift arrows), and native Windows two more
/// (undo is Ctrl+Z, and suspend has no key: Windows consoles have no job control).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// Linux, macOS and the other Unixes.
    Unix,
    /// Windows Subsystem for Linux (`WSL_DISTRO_NAME` or `WSL_INTEROP` set).
    Wsl,
    /// Native Windows: WSL's keys, but for undo and suspend.
    Windows,
}

impl Platform {
    /// The platform this process runs on.
    pub fn current() -> Self {
        let wsl = ["WSL_DISTRO_NAME", "WSL_INTEROP"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
        if cfg!(windows) {
            Platform::Windows
        } else if cfg!(target_os = "linux") && wsl {
            Platform::Wsl
        } else {
            Platform::Unix
        }
    }
}

/// One action: pi's id, its default keys, what it does, and whether rho has it.
#[derive(Debug, Clone, Copy)]
pub struct ActionDef {
    /// The action.
    pub action: Action,
    /// pi's id, e.g. `app.session.new`.
    pub id: &'static str,
    /// Default keys in pi's notation (empty: unbound until configured).
    pub defaults: &'static [&'static str],
    /// Defaults on WSL where they differ.
    pub wsl: Option<&'static [&'static str]>,
    /// What it does, as `/hotkeys` says it.
    pub description: &'static str,
    /// False for pi actions rho has no equivalent of (yet).
    pub in_rho: bool,
}

impl ActionDef {
    /// The default keys on `platform`.
    pub fn defaults_on(&self, platform: Platform) -> &'static [&'static str] {
        match (platform, self.action) {
            (Platform::Unix, _) => self.defaults,
            (Platform::Windows, Action::EditorUndo) => &["ctrl+z"],
            (Platform::Windows, Action::Suspend) => &[],
            (Platform::Wsl | Platform::Windows, _) => self.wsl.unwrap_or(self.defaults),
        }
    }
}

macro_rules! actions {
    ($( $variant:ident = $id:literal, [$($key:literal),*] $(, wsl [$($wkey:literal),*])?, $rho:literal, $desc:literal; )*) => {
        /// An action a key can be bound to (one per pi action id).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)] // each variant is the pi id in ACTIONS beside it
        pub enum Action { $($variant),* }

        /// Every action, in pi's order (the order of `Action`'s variants).
        pub const ACTIONS: &[ActionDef] = &[$(
            ActionDef {
                action: Action::$variant,
                id: $id,
                defaults: &[$($key),*],
                wsl: actions!(@wsl $([$($wkey),*])?),
                description: $desc,
                in_rho: $rho,
            }
        ),*];
    };
    (@wsl) => { None };
    (@wsl [$($wkey:literal),*]) => { Some(&[$($wkey),*]) };
}

actions! {
    EditorCursorUp = "tui.editor.cursorUp", ["up"], true, "Move cursor up / older history";
    EditorCursorDown = "tui.editor.cursorDown", ["down"], true, "Move cursor down / newer history";
    EditorHistoryPrevious = "tui.editor.historyPrevious", [], true, "Previous prompt from history";
    EditorHistoryNext = "tui.editor.historyNext", [], true, "Next prompt from history";
    EditorCursorLeft = "tui.editor.cursorLeft", ["left", "ctrl+b"], true, "Move cursor left";
    EditorCursorRight = "tui.editor.cursorRight", ["right", "ctrl+f"], true, "Move cursor right";
    EditorCursorWordLeft = "tui.editor.cursorWordLeft", ["alt+left", "ctrl+left", "alt+b"], true, "Move a word left";
    EditorCursorWordRight = "tui.editor.cursorWordRight", ["alt+right", "ctrl+right", "alt+f"], true, "Move a word right";
    EditorCursorLineStart = "tui.editor.cursorLineStart", ["home", "ctrl+a"], true, "Start of line";
    EditorCursorLineEnd = "tui.editor.cursorLineEnd", ["end", "ctrl+e"], true, "End of line";
    EditorJumpForward = "tui.editor.jumpForward", ["ctrl+]"], true, "Jump forward to a character";
    EditorJumpBackward = "tui.editor.jumpBackward", ["ctrl+alt+]"], true, "Jump backward to a character";
    EditorPageUp = "tui.editor.pageUp", ["pageUp", "ctrl+pageUp"], true, "Editor page up";
    EditorPageDown = "tui.editor.pageDown", ["pageDown", "ctrl+pageDown"], true, "Editor page down";
    EditorDeleteCharBackward = "tui.editor.deleteCharBackward", ["backspace"], true, "Delete character backward";
    EditorDeleteCharForward = "tui.editor.deleteCharForward", ["delete", "ctrl+d"], true, "Delete character forward";
    EditorDeleteWordBackward = "tui.editor.deleteWordBackward", ["ctrl+w", "alt+backspace"], true, "Delete word backward";
    EditorDeleteWordForward = "tui.editor.deleteWordForward", ["alt+d", "alt+delete"], true, "Delete word forward";
    EditorDeleteToLineStart = "tui.editor.deleteToLineStart", ["ctrl+u"], true, "Delete to start of line";
    EditorDeleteToLineEnd = "tui.editor.deleteToLineEnd", ["ctrl+k"], true, "Delete to end of line";
    EditorYank = "tui.editor.yank", ["ctrl+y"], true, "Paste the last deleted text";
    EditorYankPop = "tui.editor.yankPop", ["alt+y"], true, "Cycle deleted text after a paste";
    EditorUndo = "tui.editor.undo", ["ctrl+-"], wsl ["alt+z"], true, "Undo";
    InputNewLine = "tui.input.newLine", ["shift+enter", "ctrl+j"], true, "New line";
    InputSubmit = "tui.input.submit", ["enter"], true, "Send message (while working: steer)";
    InputTab = "tui.input.tab", ["tab"], true, "Complete path or command";
    InputCopy = "tui.input.copy", ["ctrl+c"], true, "Copy selection";
    SelectUp = "tui.select.up", ["up"], true, "Move selection up";
    SelectDown = "tui.select.down", ["down"], true, "Move selection down";
    SelectPageUp = "tui.select.pageUp", ["pageUp"], true, "Selection page up";
    SelectPageDown = "tui.select.pageDown", ["pageDown"], true, "Selection page down";
    SelectConfirm = "tui.select.confirm", ["enter"], true, "Confirm selection";
    SelectCancel = "tui.select.cancel", ["escape", "ctrl+c"], true, "Cancel selection";
    AltScreenPageUp = "tui.altScreen.pageUp", ["pageUp"], true, "Scroll transcript up a page";
    AltScreenPageDown = "tui.altScreen.pageDown", ["pageDown"], true, "Scroll transcript down a page";
    AltScreenHalfPageUp = "tui.altScreen.halfPageUp", [], true, "Scroll transcript up half a page";
    AltScreenHalfPageDown = "tui.altScreen.halfPageDown", [], true, "Scroll transcript down half a page";
    AltScreenLineUp = "tui.altScreen.lineUp", [], true, "Scroll transcript up a line";
    AltScreenLineDown = "tui.altScreen.lineDown", [], true, "Scroll transcript down a line";
    AltScreenPreviousPrompt = "tui.altScreen.previousPrompt", ["ctrl+shift+up", "ctrl+up"], wsl ["ctrl+up"], true, "Jump to the previous message you sent";
    AltScreenNextPrompt = "tui.altScreen.nextPrompt", ["ctrl+shift+down", "ctrl+down"], wsl ["ctrl+down"], true, "Jump to the next message you sent";
    AltScreenSearch = "tui.altScreen.search", ["ctrl+shift+f"], wsl ["ctrl+f"], false, "Search the transcript";
    AltScreenSearchNext = "tui.altScreen.searchNext", ["enter", "ctrl+g"], false, "Next search match";
    AltScreenSearchPrevious = "tui.altScreen.searchPrevious", ["shift+enter", "ctrl+shift+g"], false, "Previous search match";
    AltScreenSearchClose = "tui.altScreen.searchClose", ["escape"], false, "Close transcript search";
    AltScreenTop = "tui.altScreen.top", ["ctrl+home"], true, "Scroll to the top of the transcript";
    AltScreenBottom = "tui.altScreen.bottom", ["ctrl+end"], true, "Scroll to the end and follow new output";
    Interrupt = "app.interrupt", ["escape"], true, "Interrupt (abort the agent, a compaction, a ! command)";
    Clear = "app.clear", ["ctrl+c"], true, "Clear editor (twice on an empty one: exit)";
    Exit = "app.exit", ["ctrl+d"], true, "Exit (empty editor)";
    Suspend = "app.suspend", ["ctrl+z"], true, "Suspend to background";
    ThinkingCycle = "app.thinking.cycle", ["shift+tab"], true, "Cycle thinking level";
    ThinkingSave = "app.thinking.save", ["ctrl+s"], true, "Save thinking level";
    ModelCycleForward = "app.model.cycleForward", ["ctrl+p"], true, "Cycle to the next model";
    ModelCycleBackward = "app.model.cycleBackward", ["shift+ctrl+p"], wsl ["alt+p"], true, "Cycle to the previous model";
    ModelSelect = "app.model.select", ["ctrl+l"], true, "Open the model selector";
    ToolsExpand = "app.tools.expand", ["ctrl+o"], true, "Expand or collapse tool output";
    ThinkingToggle = "app.thinking.toggle", ["ctrl+t"], true, "Show or hide thinking blocks";
    SessionToggleNamedFilter = "app.session.toggleNamedFilter", ["ctrl+n"], true, "Sessions: named only";
    EditorExternal = "app.editor.external", ["ctrl+g"], true, "Edit in an external editor";
    MessageCopy = "app.message.copy", ["ctrl+x"], true, "Copy the last assistant message";
    MessageFollowUp = "app.message.followUp", ["alt+enter"], wsl ["ctrl+q"], true, "Queue a follow-up message";
    MessageDequeue = "app.message.dequeue", ["alt+up"], wsl ["alt+q"], true, "Take queued messages back into the editor";
    ClipboardPasteImage = "app.clipboard.pasteImage", ["ctrl+v"], wsl ["alt+v", "ctrl+v"], true, "Paste an image";
    SessionNew = "app.session.new", [], true, "New session (/new)";
    SessionTree = "app.session.tree", [], true, "Session tree (/tree)";
    SessionFork = "app.session.fork", [], true, "Fork the session (/fork)";
    SessionResume = "app.session.resume", [], true, "Resume a session (/resume)";
    TreeFoldOrUp = "app.tree.foldOrUp", ["ctrl+left", "alt+left"], true, "Tree: fold or up";
    TreeUnfoldOrDown = "app.tree.unfoldOrDown", ["ctrl+right", "alt+right"], true, "Tree: unfold or down";
    TreeEditLabel = "app.tree.editLabel", ["shift+l"], true, "Tree: edit label";
    TreeToggleLabelTimestamp = "app.tree.toggleLabelTimestamp", ["shift+t"], true, "Tree: label timestamps";
    SessionTogglePath = "app.session.togglePath", ["ctrl+p"], true, "Sessions: show paths";
    SessionToggleSort = "app.session.toggleSort", ["ctrl+s"], true, "Sessions: sort order";
    SessionRename = "app.session.rename", ["ctrl+r"], true, "Sessions: rename";
    SessionDelete = "app.session.delete", ["ctrl+d"], true, "Sessions: delete";
    SessionDeleteNoninvasive = "app.session.deleteNoninvasive", ["ctrl+backspace"], true, "Sessions: delete (empty query)";
    ModelsSave = "app.models.save", ["ctrl+s"], true, "Scoped models: save to settings";
    ModelsEnableAll = "app.models.enableAll", ["ctrl+a"], true, "Scoped models: enable all";
    ModelsClearAll = "app.models.clearAll", ["ctrl+x"], true, "Scoped models: clear all";
    ModelsToggleProvider = "app.models.toggleProvider", ["ctrl+p"], true, "Scoped models: toggle provider";
    ModelsReorderUp = "app.models.reorderUp", ["alt+up"], true, "Scoped models: move up";
    ModelsReorderDown = "app.models.reorderDown", ["alt+down"], true, "Scoped models: move down";
    TreeFilterDefault = "app.tree.filter.default", ["ctrl+d"], true, "Tree filter: default";
    TreeFilterNoTools = "app.tree.filter.noTools", ["ctrl+t"], true, "Tree filter: no tools";
    TreeFilterUserOnly = "app.tree.filter.userOnly", ["ctrl+u"], true, "Tree filter: user only";
    TreeFilterLabeledOnly = "app.tree.filter.labeledOnly", ["ctrl+l"], true, "Tree filter: labeled only";
    TreeFilterAll = "app.tree.filter.all", ["ctrl+a"], true, "Tree filter: all";
    TreeFilterCycleForward = "app.tree.filter.cycleForward", ["ctrl+o"], true, "Tree filter: next";
    TreeFilterCycleBackward = "app.tree.filter.cycleBackward", ["shift+ctrl+o"], true, "Tree filter: previous";
}

/// pi's action names before 1.0 (keybindings.json files still use them); pi renames them on
/// load, and so does rho.
pub const LEGACY_NAMES: &[(&str, &str)] = &[
    ("cursorUp", "tui.editor.cursorUp"),
    ("cursorDown", "tui.editor.cursorDown"),
    ("cursorLeft", "tui.editor.cursorLeft"),
    ("cursorRight", "tui.editor.cursorRight"),
    ("cursorWordLeft", "tui.editor.cursorWordLeft"),
    ("cursorWordRight", "tui.editor.cursorWordRight"),
    ("cursorLineStart", "tui.editor.cursorLineStart"),
    ("cursorLineEnd", "tui.editor.cursorLineEnd"),
    ("jumpForward", "tui.editor.jumpForward"),
    ("jumpBackward", "tui.editor.jumpBackward"),
    ("pageUp", "tui.editor.pageUp"),
    ("pageDown", "tui.editor.pageDown"),
    ("deleteCharBackward", "tui.editor.deleteCharBackward"),
    ("deleteCharForward", "tui.editor.deleteCharForward"),
    ("deleteWordBackward", "tui.editor.deleteWordBackward"),
    ("deleteWordForward", "tui.editor.deleteWordForward"),
    ("deleteToLineStart", "tui.editor.deleteToLineStart"),
    ("deleteToLineEnd", "tui.editor.deleteToLineEnd"),
    ("yank", "tui.editor.yank"),
    ("yankPop", "tui.editor.yankPop"),
    ("undo", "tui.editor.undo"),
    ("newLine", "tui.input.newLine"),
    ("submit", "tui.input.submit"),
    ("tab", "tui.input.tab"),
    ("copy", "tui.input.copy"),
    ("selectUp", "tui.select.up"),
    ("selectDown", "tui.select.down"),
    ("selectPageUp", "tui.select.pageUp"),
    ("selectPageDown", "tui.select.pageDown"),
    ("selectConfirm", "tui.select.confirm"),
    ("selectCancel", "tui.select.cancel"),
    ("interrupt", "app.interrupt"),
    ("clear", "app.clear"),
    ("exit", "app.exit"),
    ("suspend", "app.suspend"),
    ("cycleThinkingLevel", "app.thinking.cycle"),
    ("cycleModelForward", "app.model.cycleForward"),
    ("cycleModelBackward", "app.model.cycleBackward"),
    ("selectModel", "app.model.select"),
    ("expandTools", "app.tools.expand"),
    ("toggleThinking", "app.thinking.toggle"),
    ("toggleSessionNamedFilter", "app.session.toggleNamedFilter"),
    ("externalEditor", "app.editor.external"),
    ("followUp", "app.message.followUp"),
    ("dequeue", "app.message.dequeue"),
    ("pasteImage", "app.clipboard.pasteImage"),
    ("newSession", "app.session.new"),
    ("tree", "app.session.tree"),
    ("fork", "app.session.fork"),
    ("resume", "app.session.resume"),
    ("treeFoldOrUp", "app.tree.foldOrUp"),
    ("treeUnfoldOrDown", "app.tree.unfoldOrDown"),
    ("treeEditLabel", "app.tree.editLabel"),
    ("treeToggleLabelTimestamp", "app.tree.toggleLabelTimestamp"),
    ("toggleSessionPath", "app.session.togglePath"),
    ("toggleSessionSort", "app.session.toggleSort"),
    ("renameSession", "app.session.rename"),
    ("deleteSession", "app.session.delete"),
    ("deleteSessionNoninvasive", "app.session.deleteNoninvasive"),
];

impl Action {
    /// The action's entry in [`ACTIONS`].
    pub fn def(self) -> &'static ActionDef {
        &ACTIONS[self as usize]
    }

    /// pi's id.
    pub fn id(self) -> &'static str {
        self.def().id
    }

    /// The action with pi id `id` (a current id; see [`LEGACY_NAMES`] for old ones).
    pub fn from_id(id: &str) -> Option<Action> {
        ACTIONS.iter().find(|d| d.id == id).map(|d| d.action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keymap::KeyId;

    #[test]
    fn the_table_is_in_variant_order_with_unique_ids_and_valid_keys() {
        for (i, def) in ACTIONS.iter().enumerate() {
            assert_eq!(def.action as usize, i, "{} out of order", def.id);
            assert_eq!(Action::from_id(def.id), Some(def.action));
            let all = def.defaults.iter().chain(def.wsl.unwrap_or(&[]));
            for key in all {
                assert!(KeyId::parse(key).is_ok(), "{}: {key}", def.id);
            }
        }
        for (old, new) in LEGACY_NAMES {
            assert!(Action::from_id(new).is_some(), "{old} -> {new}");
        }
    }

    #[test]
    fn wsl_gets_pis_windows_keys() {
        let follow_up = Action::MessageFollowUp.def();
        assert_eq!(follow_up.defaults_on(Platform::Unix), ["alt+enter"]);
        assert_eq!(follow_up.defaults_on(Platform::Wsl), ["ctrl+q"]);
        assert_eq!(
            Action::Interrupt.def().defaults_on(Platform::Wsl),
            ["escape"]
        );
    }

    /// pi 1.6 docs/keybindings.md: native Windows takes the WSL keys (follow-up Ctrl+Q,
    /// model back Alt+P), but undo is Ctrl+Z and suspend has no default.
    #[test]
    fn windows_gets_the_wsl_keys_but_for_undo_and_suspend() {
        let on_windows = |action: Action| action.def().defaults_on(Platform::Windows);
        assert_eq!(on_windows(Action::MessageFollowUp), ["ctrl+q"]);
        assert_eq!(on_windows(Action::EditorUndo), ["ctrl+z"]);
        assert_eq!(
            Action::EditorUndo.def().defaults_on(Platform::Wsl),
            ["alt+z"]
        );
        assert!(on_windows(Action::Suspend).is_empty());
        assert_eq!(Action::Suspend.def().defaults_on(Platform::Wsl), ["ctrl+z"]);
        assert_eq!(on_windows(Action::Interrupt), ["escape"]);
    }
}
