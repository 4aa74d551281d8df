// Custom rendering: pi-tui components (anything with `render(width)` returning lines) drawn
// here for rho's interactive screen. rho asks with `render` requests, only for the tools and
// message types declared in the registration (`rendererSpec`) and for components announced
// with the `ui_component` call (footer, header, widgets, `ctx.ui.custom`); keys for a focused
// component arrive as `component_input`. Outside the interactive mode these calls do nothing,
// as in pi.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const SGR = { accent: 35, success: 32, error: 31, warning: 33, muted: 90, dim: 90, borderMuted: 90, border: 34, borderAccent: 35, toolOutput: 90, thinkingText: 90, customMessageLabel: 35, mdHeading: 33, mdLink: 34, toolDiffAdded: 32, toolDiffRemoved: 31, toolDiffContext: 90, bashMode: 32 };
const text = (t) => String(t ?? "");
const paint = (code, t) => (code ? `\x1b[${code}m${text(t)}\x1b[39m` : text(t));

/** pi's Theme for drawn lines: the named colours as terminal colours rho's screen shows;
 * backgrounds are left to rho's boxes. */
export const renderTheme = new Proxy(
  {
    fg: (color, t) => paint(SGR[color], t),
    bg: (_color, t) => text(t),
    bold: (t) => `\x1b[1m${text(t)}\x1b[22m`,
    italic: (t) => `\x1b[3m${text(t)}\x1b[23m`,
    underline: (t) => `\x1b[4m${text(t)}\x1b[24m`,
    strikethrough: (t) => `\x1b[9m${text(t)}\x1b[29m`,
    inverse: (t) => `\x1b[7m${text(t)}\x1b[27m`,
    dim: (t) => paint(90, t),
  },
  { get: (target, key) => target[key] ?? ((...a) => text(a[a.length - 1])) },
);

/** Render state shared by the host: message renderers, live components, statuses. */
export function renderState(reg) {
  reg.render ??= { messages: new Map(), components: new Map(), statuses: new Map(), next: 1, failed: new Set() };
  return reg.render;
}

/** `pi.registerMessageRenderer`. */
export function registerMessageRenderer(reg, ext, customType, renderer) {
  if (typeof renderer === "function") renderState(reg).messages.set(String(customType), { ext, renderer });
}

/** The registration's `renderers`: what rho may ask this host to draw. */
export function rendererSpec(reg) {
  const tools = [...reg.tools.values()].filter(({ def }) => def.renderCall || def.renderResult).map(({ def }) => def.name);
  return { tools, messages: [...renderState(reg).messages.keys()], components: true };
}

const lines = (component, width) => (component?.render?.(width) ?? []).map(text);

/** Runs one renderer; a failure is told once per extension and part, and rho draws it. */
function guarded(reg, ext, what, draw) {
  try {
    return draw();
  } catch (e) {
    const key = `${ext.path}\0${what}`;
    if (!renderState(reg).failed.has(key)) {
      renderState(reg).failed.add(key);
      reg.notice(`pi extension ${ext.path}: ${what} failed: ${e?.message ?? e}; rho draws it instead`);
    }
    return undefined;
  }
}

function renderTool(reg, t, width) {
  const entry = reg.tools.get(t.toolName);
  if (!entry) return null;
  const { ext, def } = entry;
  const isError = t.result?.isError === true;
  const context = { args: t.args, toolCallId: t.toolCallId, invalidate() {}, lastComponent: undefined, state: {}, cwd: reg.hello.cwd, executionStarted: true, argsComplete: true, isPartial: t.isPartial, expanded: t.expanded, showImages: false, isError };
  const call = def.renderCall && guarded(reg, ext, `renderCall of tool "${def.name}"`, () => lines(def.renderCall(t.args ?? {}, renderTheme, context), width));
  const result = t.result && def.renderResult
    ? guarded(reg, ext, `renderResult of tool "${def.name}"`, () => lines(def.renderResult(t.result, { expanded: t.expanded, isPartial: t.isPartial }, renderTheme, context), width))
    : undefined;
  return { call, result };
}

function renderMessage(reg, t, width) {
  const entry = renderState(reg).messages.get(t.customType);
  if (!entry) return null;
  const message = { role: "custom", customType: t.customType, content: t.content, details: t.details, display: true, timestamp: Date.now() };
  const drawn = guarded(reg, entry.ext, `the message renderer of "${t.customType}"`, () => lines(entry.renderer(message, { expanded: t.expanded, outputPad: 1 }, renderTheme), width));
  return drawn ? { lines: drawn } : null;
}

/** The `render` request. Footers and headers show session figures: the session view is
 * brought up to date first. */
export async function render(reg, msg, refresh) {
  const t = msg.target ?? {};
  const width = Math.max(1, Number(msg.width) || 80);
  reg.width = width;
  if (t.kind === "tool") return renderTool(reg, t, width);
  if (t.kind === "message") return renderMessage(reg, t, width);
  const c = renderState(reg).components.get(t.key);
  if (!c) return null;
  if (c.slot === "footer" || c.slot === "header") await refresh(reg, "render");
  const drawn = guarded(reg, c.ext, c.what, () => lines(c.component, width));
  return drawn ? { lines: drawn } : null;
}

/** The `component_input` request: a key for the focused component. */
export function componentInput(reg, msg) {
  const c = renderState(reg).components.get(msg.key);
  guarded(reg, c?.ext ?? { path: "?" }, c?.what ?? "component input", () => c?.component.handleInput?.(String(msg.data ?? "")));
  return null;
}

function gitBranch(cwd) {
  try {
    const head = readFileSync(join(cwd, ".git", "HEAD"), "utf8").trim();
    return head.startsWith("ref: refs/heads/") ? head.slice(16) : head.slice(0, 7);
  } catch {
    return null;
  }
}

/** pi's `WorkingIndicatorOptions` as rho takes them: frames (none: hidden) and their pace;
 * `null` restores rho's own spinner. */
function indicator(options) {
  if (!options) return null;
  const frames = Array.isArray(options.frames) ? options.frames.map(text) : [];
  const intervalMs = Number(options.intervalMs) > 0 ? Number(options.intervalMs) : undefined;
  return { frames, intervalMs };
}

/** The ctx.ui calls that place components, for one extension. */
export function componentUi(reg, ext, fire) {
  const state = renderState(reg);
  const call = (params) => reg.wire.call("ui_component", params);
  const tuiFor = (key) => new Proxy(
    { requestRender: () => fire("ui_render", { key }), get terminal() { return { columns: reg.width ?? 80, rows: 24 }; } },
    { get: (target, k) => (k in target ? target[k] : () => {}) },
  );
  const remove = (key) => {
    const old = state.components.get(key);
    if (!old) return false;
    state.components.delete(key);
    try {
      old.component?.dispose?.();
    } catch {}
    return true;
  };
  /** Creates the component, announces it; rho declining (no screen) is told once. */
  async function place(key, slot, what, make) {
    remove(key);
    const component = await make(tuiFor(key));
    if (!component || typeof component.render !== "function") return false;
    state.components.set(key, { ext, component, slot, what });
    const shown = await call({ key, slot }).catch(() => false);
    if (!shown) {
      remove(key);
      reg.unsupported(ext, what, "components are drawn only in rho's interactive mode");
    }
    return shown;
  }
  const footerData = {
    getGitBranch: () => gitBranch(reg.hello.cwd),
    getExtensionStatuses: () => new Map(state.statuses),
    onBranchChange: () => () => {},
    getAvailableProviderCount: () => 0,
  };
  const unset = (key) => remove(key) && fire("ui_component", { key, slot: null });
  // Outside the terminal pi ignores components, as its RPC and print UI contexts do.
  const drawn = () => reg.hello.mode === "tui";
  return {
    setStatus(key, value) {
      if (value == null) state.statuses.delete(key);
      else state.statuses.set(key, String(value));
      fire("ui_status", { key, text: value ?? null });
    },
    setFooter(factory) {
      if (!drawn()) return;
      if (typeof factory !== "function") return void unset("footer");
      void place("footer", "footer", "ctx.ui.setFooter", (tui) => factory(tui, renderTheme, footerData));
    },
    setHeader(factory) {
      if (!drawn()) return;
      if (typeof factory !== "function") return void unset("header");
      void place("header", "header", "ctx.ui.setHeader", (tui) => factory(tui, renderTheme));
    },
    setWidget(key, content, options) {
      const id = `widget:${key}`;
      const placement = options?.placement === "belowEditor" ? "belowEditor" : "aboveEditor";
      if (typeof content === "function") return void (drawn() && place(id, placement, "ctx.ui.setWidget with a component", (tui) => content(tui, renderTheme)));
      if (remove(id)) fire("ui_component", { key: id, slot: null });
      fire("ui_widget", { key, lines: content ? [...content].map(String) : null, placement });
    },
    // The working line while the agent runs and the label of hidden thinking: drawn by rho's
    // screen from what `ui_working` says (pi ignores them outside the terminal).
    setWorkingMessage: (message) => drawn() && fire("ui_working", { message: message == null ? null : String(message) }),
    setWorkingVisible: (visible) => drawn() && fire("ui_working", { visible: visible !== false }),
    setWorkingIndicator: (options) => drawn() && fire("ui_working", { indicator: indicator(options) }),
    setHiddenThinkingLabel: (label) => drawn() && fire("ui_working", { hiddenThinkingLabel: label == null ? null : String(label) }),
    onTerminalInput: () => () => {},
    addAutocompleteProvider: () => {},
    getToolsExpanded: () => false,
    setToolsExpanded: () => {},
    getAllThemes: () => [],
    getTheme: () => undefined,
    setTheme: () => ({ success: false, error: drawn() ? "rho draws with its own theme" : reg.hello.hasUI ? "Theme switching not supported in RPC mode" : "UI not available" }),
    // A custom editor: pi's RPC and print modes ignore it.
    setEditorComponent(factory) {
      if (!drawn()) return;
      state.editorFactory = typeof factory === "function" ? factory : undefined;
      if (state.editorFactory) reg.unsupported(ext, "ctx.ui.setEditorComponent", "rho's terminal keeps its own editor");
    },
    getEditorComponent: () => (drawn() ? state.editorFactory : undefined),
    custom(factory) {
      if (!drawn()) return Promise.resolve(undefined);
      const key = `custom:${state.next++}`;
      return new Promise((resolve) => {
        let settled = false;
        const done = (value) => {
          if (settled) return;
          settled = true;
          if (remove(key)) fire("ui_component", { key, slot: null });
          resolve(value);
        };
        place(key, "editor", "ctx.ui.custom", (tui) => factory(tui, renderTheme, {}, done))
          .then((shown) => shown || done(undefined), (e) => {
            reg.notice(`pi extension ${ext.path}: ctx.ui.custom failed: ${e?.message ?? e}`);
            done(undefined);
          });
      });
    },
  };
}

