// pi's `ctx.ui.setEditorComponent` in rho's terminal: the extension's editor (a pi-tui
// `Editor`, usually pi's `CustomEditor`) lives in this process and takes the place of rho's
// own. rho draws its lines and sends it every key (`component_input`); what it hands back
// goes to rho with the `ui_editor_event` call: its submit, as the submit of rho's editor, and
// the app actions pi's `CustomEditor` routes to the app (interrupt, exit, model cycling, …),
// which rho runs as if its own editor had seen the key. `setEditorText`, `pasteToEditor` and
// `getEditorText` act on it while it is shown, as in pi.
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** The component key and slot rho knows the extension's editor by. */
const KEY = "editor";
const SLOT = "customEditor";

/** pi's keybindings manager (app actions and editor keys, with the user's keybindings.json). */
const KEYBINDINGS = "node_modules/@earendil-works/pi-coding-agent/dist/core/keybindings.js";

/** The app actions pi's interactive mode registers on its editor with `onAction` that only
 * tell rho (interrupt, exit and the image paste have hooks of their own; `app.clear` and
 * `app.message.followUp` also change the editor, see `connect`). */
const APP_ACTIONS = [
  "app.suspend", "app.thinking.cycle", "app.model.cycleForward", "app.model.cycleBackward",
  "app.model.select", "app.tools.expand", "app.thinking.toggle", "app.editor.external", "app.message.copy",
  "app.message.dequeue", "app.session.new", "app.session.tree", "app.session.fork",
  "app.session.resume",
];

let keybindings;

/** pi's `KeybindingsManager` as pi's interactive mode makes it, also made pi-tui's global one
 * (what `Editor` reads its own keys from), on first use; the promise is kept, so calls that
 * overlap make one manager. */
export function piKeybindings(reg) {
  keybindings ??= (async () => {
    const file = realpathSync(join(reg.packagesDir, KEYBINDINGS));
    const { KeybindingsManager } = await import(pathToFileURL(file).href);
    const { setKeybindings } = await import("@earendil-works/pi-tui");
    const manager = KeybindingsManager.create();
    setKeybindings(manager);
    return manager;
  })();
  return keybindings;
}

/** pi's `getEditorTheme()` drawn with `theme` (rho's terminal colours). */
function editorTheme(theme) {
  const fg = (color) => (text) => theme.fg(color, text);
  return {
    borderColor: fg("borderMuted"),
    selectList: { selectedPrefix: fg("accent"), selectedText: fg("accent"), description: fg("muted"), scrollInfo: fg("muted"), noMatch: fg("muted") },
  };
}

const textOf = (editor) => editor?.getExpandedText?.() ?? editor?.getText?.() ?? "";

/** Connects `editor` to rho as pi connects it to its default editor's handlers. */
function connect(editor, send) {
  editor.onSubmit = (text) => {
    editor.addToHistory?.(text);
    send({ kind: "submit", text });
  };
  // pi copies its handlers only into editors built on CustomEditor (duck typed, as pi does).
  if (!("actionHandlers" in editor && editor.actionHandlers instanceof Map)) return;
  const action = (id) => () => send({ kind: "action", action: id });
  editor.onEscape ??= action("app.interrupt");
  editor.onCtrlD ??= action("app.exit");
  editor.onPasteImage ??= action("app.clipboard.pasteImage");
  for (const id of APP_ACTIONS) editor.actionHandlers.set(id, action(id));
  // What pi's handlers do to the editor itself: Ctrl+C clears it, Alt+Enter takes its text.
  editor.actionHandlers.set("app.clear", () => {
    editor.setText("");
    send({ kind: "action", action: "app.clear" });
  });
  editor.actionHandlers.set("app.message.followUp", () => {
    const text = textOf(editor).trim();
    editor.setText("");
    send({ kind: "followUp", text });
  });
}

/** The editor calls of `ctx.ui` for one extension; `place`/`remove` are render.mjs's. */
export function editorUi(reg, ext, { state, place, remove, fire, drawn, theme }) {
  const shown = () => state.components.get(KEY)?.component;
  const send = (event) => fire("ui_editor_event", event);
  return {
    setEditorComponent(factory) {
      // pi's RPC and print modes ignore a custom editor.
      if (!drawn()) return;
      const text = textOf(shown());
      state.editorFactory = typeof factory === "function" ? factory : undefined;
      if (!state.editorFactory) {
        // rho's own editor comes back with the text typed so far.
        if (remove(KEY)) fire("ui_component", { key: KEY, slot: null });
        if (text) fire("ui_set_editor_text", { text });
        return;
      }
      void place(KEY, SLOT, "ctx.ui.setEditorComponent", async (tui) => {
        const editor = state.editorFactory(tui, editorTheme(theme), await piKeybindings(reg));
        if (!editor) return editor;
        connect(editor, send);
        editor.setText?.(text);
        return editor;
      }).catch((e) => reg.notice(`pi extension ${ext.path}: ctx.ui.setEditorComponent failed: ${e?.message ?? e}`));
    },
    getEditorComponent: () => (drawn() ? state.editorFactory : undefined),
    setEditorText(text) {
      const editor = shown();
      if (!editor) return void fire("ui_set_editor_text", { text });
      editor.setText(String(text ?? ""));
      fire("ui_render", { key: KEY });
    },
    pasteToEditor(text) {
      const editor = shown();
      if (!editor) return void fire("ui_set_editor_text", { text });
      editor.handleInput(`\x1b[200~${String(text ?? "")}\x1b[201~`);
      fire("ui_render", { key: KEY });
    },
    getEditorText: () => textOf(shown()),
  };
}
