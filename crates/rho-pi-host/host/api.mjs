// pi's ExtensionAPI (`pi`) and ExtensionContext (`ctx`) over rho's protocol calls. What rho
// cannot do yet is named once in a notice (`unsupported`) and otherwise ignored.
import { EventEmitter } from "node:events";
import { commandKey, commandSessionApi, contextSessionApi, loadSessionView, registerCommandLate, registerLate, sessionApi } from "./session_api.mjs";
import { registerProvider, registerVirtualModel, unregisterProvider, unregisterVirtualModel } from "./providers.mjs";
import { componentUi, registerEntryRenderer, registerMessageRenderer } from "./render.mjs";
import { piTheme } from "./theme.mjs";
import { dispatchEvent } from "./events.mjs";
import { listMcpServers, registerMcpServer, unregisterMcpServer } from "./mcp.mjs";
import { buildContextEntries, buildSessionContext, buildSessionProjection } from "./session_projection.mjs";

/** Events rho emits to extensions (ExtensionEvent type names). */
export const RHO_EVENTS = new Set([
  "resources_discover", "session_start", "session_before_switch", "session_before_fork",
  "session_before_compact", "session_compact", "session_before_tree", "session_tree",
  "session_shutdown", "context", "before_provider_request", "after_provider_response",
  "before_agent_start", "agent_start", "agent_end", "turn_start", "turn_end", "message_start",
  "message_update", "message_end", "tool_execution_start", "tool_execution_update",
  "tool_execution_end", "model_select", "thinking_level_select", "user_bash", "input",
  "tool_call", "tool_result", "agent_settled", "provider_stream_event", "project_trust",
  "ui_prompt_start", "ui_prompt_end", "session_compact_failed", "session_info_changed",
  "before_provider_headers", "context_with_system", "mcp_servers_change", "agent_before_settle",
  // rho does not warm prompt caches (README, "Differences from pi"): as in pi with
  // `cacheWarming: "off"`, a handler is kept and never called.
  "cache_warming_decision",
]);

/** Everything the loaded extensions registered, shared by the whole host. */
export class Registry {
  constructor(wire) {
    this.wire = wire;
    this.hello = { cwd: process.cwd(), hasUI: false, flags: {} };
    this.handlers = new Map();
    this.tools = new Map();
    this.commands = new Map();
    this.flags = new Map();
    this.shortcuts = new Map();
    this.providers = new Map();
    this.virtualModels = new Map();
    /** pi.registerMcpServer: `{ name, config, ext }` by name, in registration order. */
    this.mcpServers = new Map();
    /** `newSession` setups under way, by the token rho's `session_setup` names. */
    this.setups = new Map();
    this.notices = [];
    this.reported = new Set();
    this.bus = new EventEmitter();
    this.snapshot = { isIdle: true, hasPendingMessages: false, systemPrompt: "", model: null };
    this.sessionName = undefined;
    this.session = { id: undefined, file: undefined, header: undefined, leafId: null, entries: [] };
  }

  /** One notice per unsupported call and extension: at load time in `register`, later via `ui_notify`. */
  unsupported(ext, what, why = "rho does not support it yet") {
    const key = `${ext.path}\0${what}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    const text = `pi extension ${ext.path}: ${what} is not supported (${why}); the rest of the extension works`;
    if (this.registered) this.wire.call("ui_notify", { message: text, kind: "warning" }).catch(() => {});
    else this.notices.push(text);
  }

  notice(text) {
    if (this.registered) this.wire.call("ui_notify", { message: text, kind: "warning" }).catch(() => {});
    else this.notices.push(text);
  }
}

const plain = (text) => String(text ?? "");
/** A theme whose styling is identity: rho shows the text, its TUI styles it. */
export const theme = new Proxy(
  { fg: (_c, t) => plain(t), bg: (_c, t) => plain(t), bold: plain, italic: plain, underline: plain, dim: plain, strikethrough: plain, inverse: plain },
  { get: (target, key) => target[key] ?? ((...a) => plain(a[a.length - 1])) },
);

function flatten(content) {
  if (typeof content === "string") return { text: content, images: [] };
  const parts = Array.isArray(content) ? content : [];
  const text = parts.filter((p) => p?.type === "text").map((p) => p.text).join("\n");
  const images = parts.filter((p) => p?.type === "image");
  return { text, images };
}

/** The `pi` object handed to one extension's factory. */
export function createApi(reg, ext) {
  const call = (method, params) => reg.wire.call(method, params);
  const no = (what, why) => () => reg.unsupported(ext, what, why);
  const api = {
    on(event, handler) {
      if (!RHO_EVENTS.has(event)) {
        reg.unsupported(ext, `pi.on("${event}")`, "rho does not emit this event");
        return;
      }
      if (!reg.handlers.has(event)) reg.handlers.set(event, []);
      reg.handlers.get(event).push({ ext, handler });
    },
    registerTool(def) {
      if (!def?.name) throw new Error("registerTool: a tool needs a name");
      if (reg.registered) return registerLate(reg, ext, def);
      if (reg.tools.has(def.name)) {
        reg.notice(`pi extension ${ext.path}: tool "${def.name}" is already registered by ${reg.tools.get(def.name).ext.path}; the first one is kept`);
        return;
      }
      reg.tools.set(def.name, { ext, def });
    },
    registerCommand(name, options) {
      if (typeof name !== "string" || name.length === 0) {
        throw new Error(`Command registered by extension "${ext.path}" must have a non-empty string name. Use pi.registerCommand("name", { description, handler }).`);
      }
      if (typeof options?.handler !== "function") throw new Error(`Command "/${name}" registered by extension "${ext.path}" must define handler().`);
      const invoked = commandKey(reg, ext, name);
      reg.commands.set(invoked, { ext, name, options });
      if (reg.registered) registerCommandLate(reg, ext, invoked, options);
    },
    registerShortcut(key, options) {
      reg.shortcuts.set(String(key), { ext, options: options ?? {} });
    },
    registerFlag(name, options) {
      reg.flags.set(name, { ext, options: options ?? {} });
    },
    getFlag(name) {
      // rho passes every `--name [value]` it does not know; as in pi, a boolean flag given is
      // true (a value after it is not its value), a string flag is its value.
      const given = reg.hello.flags?.[name];
      const options = reg.flags.get(name)?.options ?? {};
      if (given === undefined) return options.default;
      if (options.type === "boolean") return true;
      return given === true ? options.default : given;
    },
    sendMessage(message, options = {}) {
      const m = { customType: message.customType, content: message.content ?? "", display: message.display ?? true, details: message.details };
      const p = call("send_message", { message: m, triggerTurn: !!options.triggerTurn, deliverAs: options.deliverAs });
      p.catch((e) => reg.notice(`pi extension ${ext.path}: sendMessage failed: ${e.message}`));
      return p.then(() => undefined);
    },
    sendUserMessage(content, options = {}) {
      const { text, images } = flatten(content);
      const p = call("send_user_message", { text, images, deliverAs: options.deliverAs });
      p.catch((e) => reg.notice(`pi extension ${ext.path}: sendUserMessage failed: ${e.message}`));
      return p.then(() => undefined);
    },
    appendEntry(customType, data) {
      call("append_entry", { customType, data }).catch((e) => reg.notice(`pi extension ${ext.path}: appendEntry failed: ${e.message}`));
    },
    setSessionName(name) {
      reg.sessionName = name;
      call("set_session_name", { name }).catch((e) => reg.notice(`pi extension ${ext.path}: setSessionName failed: ${e.message}`));
    },
    getSessionName: () => reg.sessionName,
    async exec(command, args = [], options = {}) {
      const r = await call("exec", { command, args, cwd: options.cwd, timeoutMs: options.timeout });
      return { stdout: r.stdout, stderr: r.stderr, code: r.code, killed: r.killed };
    },
    getCommands() {
      return [...reg.commands].map(([name, c]) => ({ name, description: c.options.description, source: "extension", sourceInfo: { path: c.ext.path } }));
    },
    ...sessionApi(reg, ext),
    setLabel(id, label) {
      call("set_label", { id, label: label ?? null }).catch((e) => reg.notice(`pi extension ${ext.path}: setLabel failed: ${e.message}`));
    },
    registerProvider: (name, config) => registerProvider(reg, ext, name, config),
    unregisterProvider: (name) => unregisterProvider(reg, ext, name),
    registerMessageRenderer: (customType, renderer) => registerMessageRenderer(reg, ext, customType, renderer),
    registerEntryRenderer: (customType, renderer) => registerEntryRenderer(reg, ext, customType, renderer),
    registerToolRenderer: no("pi.registerToolRenderer", "rho shows its own tool rendering"),
    registerMarkdownTransformer: no("pi.registerMarkdownTransformer"),
    registerMcpServer: (name, config) => registerMcpServer(reg, ext, name, config),
    unregisterMcpServer: (name) => unregisterMcpServer(reg, ext, name),
    getMcpServers: () => listMcpServers(reg),
    registerVirtualModel: (definition) => registerVirtualModel(reg, ext, definition),
    unregisterVirtualModel: (provider, id) => unregisterVirtualModel(reg, ext, provider, id),
    getSettings: () => ({}),
    events: {
      on(name, fn) {
        reg.bus.on(name, fn);
        return () => reg.bus.off(name, fn);
      },
      emit: (name, data) => reg.bus.emit(name, data),
    },
  };
  // Anything else pi offers: named in a notice when used, never a crash.
  return new Proxy(api, {
    get(target, key) {
      if (key in target || typeof key === "symbol") return target[key];
      return (..._args) => reg.unsupported(ext, `pi.${String(key)}`);
    },
  });
}

/** pi's dialog options: `timeout` (ms) or an aborted `signal` settle the dialog with `fallback`
 * (false / undefined) as pi's do; a late answer from rho is then ignored. */
function dialog(answer, opts, fallback) {
  const { timeout, signal } = opts ?? {};
  if (!timeout && !signal) return answer.then((r) => r ?? fallback);
  if (signal?.aborted) return Promise.resolve(fallback);
  return new Promise((resolve) => {
    const timer = timeout ? setTimeout(() => done(fallback), timeout) : undefined;
    const onAbort = () => done(fallback);
    function done(value) {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(value);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    answer.then((r) => done(r ?? fallback), () => done(fallback));
  });
}

/** Tells every extension's handlers of `type` (`ui_prompt_start`/`_end`) about a prompt, once
 * the call that started or ended it has run (pi queues them as microtasks). */
function announcePrompt(reg, type, { kind, title }) {
  const event = { type, reason: "ui_prompt", kind, ...(title ? { title } : {}) };
  queueMicrotask(() => dispatchEvent(reg, event).catch((e) => reg.notice(e.message)));
}

/** pi's blocking prompts (`select`, `confirm`, `input`, `editor`, `custom`) announced as pi
 * announces them: `ui_prompt_start` when the first begins, `ui_prompt_end` when the last ends
 * (a prompt opened inside another counts once), and only where a UI answers. */
function announcedPrompt(reg, kind, title, run) {
  if (!reg.hello.hasUI) return run();
  if ((reg.promptDepth = (reg.promptDepth ?? 0) + 1) === 1) {
    reg.openPrompt = { kind, title };
    announcePrompt(reg, "ui_prompt_start", reg.openPrompt);
  }
  const finish = () => {
    if ((reg.promptDepth -= 1) > 0) return;
    announcePrompt(reg, "ui_prompt_end", reg.openPrompt);
  };
  try {
    return Promise.resolve(run()).finally(finish);
  } catch (e) {
    finish();
    throw e;
  }
}

/** `ctx.ui` for `ext`; its dialogs are `announced` as pi's runner announces them, except in
 * `project_trust`'s context, whose dialogs pi asks outside the runner. */
export function createUi(reg, ext, announced = true) {
  const call = (method, params) => reg.wire.call(method, params);
  const fire = (method, params) => call(method, params).catch(() => {});
  const components = componentUi(reg, ext, fire);
  const prompting = announced ? announcedPrompt : (_reg, _kind, _title, run) => run();
  const ui = {
    notify: (message, type) => fire("ui_notify", { message: String(message), kind: type }),
    confirm: (title, message, opts) => prompting(reg, "confirm", title, () => dialog(call("ui_confirm", { title, message: message ?? "", timeout: opts?.timeout }), opts, false)),
    select: (title, options, opts) => prompting(reg, "select", title, () => dialog(call("ui_select", { title, options: (options ?? []).map((o) => (typeof o === "string" ? o : o?.label ?? o?.value ?? String(o))), timeout: opts?.timeout }), opts, undefined)),
    input: (title, placeholder, opts) => prompting(reg, "input", title, () => dialog(call("ui_input", { title, placeholder, timeout: opts?.timeout }), opts, undefined)),
    editor: (title, prefill) => prompting(reg, "editor", title, () => call("ui_editor", { title, prefill })),
    setTitle: (title) => fire("ui_title", { title }),
    // In the terminal rho styles what extensions show; elsewhere pi's own theme does.
    get theme() {
      return reg.hello.mode === "tui" ? theme : piTheme(reg.packagesDir, theme);
    },
    // setStatus, setWidget, setFooter, setHeader, custom, the editor: render.mjs.
    ...components,
  };
  if (typeof components.custom === "function") ui.custom = (...args) => prompting(reg, "custom", undefined, () => components.custom(...args));
  return new Proxy(ui, {
    get(target, key) {
      if (key in target || typeof key === "symbol") return target[key];
      return (..._args) => reg.unsupported(ext, `ctx.ui.${String(key)}`);
    },
  });
}

/** Updates the state and session view that pi's synchronous reads answer from. */
export async function refreshView(reg) {
  Object.assign(reg.snapshot, await reg.wire.call("get_state"));
  await syncSession(reg);
  await loadSessionView(reg);
}

/** Brings `reg.session` up to date with rho's session (`get_entries`): only the entries added
 * since the last look, unless the session was replaced. */
export async function syncSession(reg) {
  const known = reg.session;
  const from = known.id ? known.entries.length : 0;
  let r = await reg.wire.call("get_entries", { from });
  if (r.sessionId !== known.id || r.total < from) r = { ...(await reg.wire.call("get_entries", { from: 0 })), base: [] };
  const base = r.base ?? known.entries;
  reg.session = { id: r.sessionId, file: r.sessionFile ?? undefined, header: r.header, leafId: r.leafId ?? null, entries: base.concat(r.entries) };
}

/** pi's `getTree()`: every entry a node with its latest label; a missing or self parent makes
 * a root; children oldest first. Built without recursion (sessions can be deep chains). */
function sessionTree(entries) {
  const labels = new Map();
  for (const e of entries) {
    if (e.type !== "label") continue;
    if (e.label) labels.set(e.targetId, { label: e.label, at: e.timestamp });
    else labels.delete(e.targetId);
  }
  const nodes = new Map(entries.map((e) => [e.id, { entry: e, children: [], label: labels.get(e.id)?.label, labelTimestamp: labels.get(e.id)?.at }]));
  const roots = [];
  for (const e of entries) {
    const parent = e.parentId && e.parentId !== e.id ? nodes.get(e.parentId) : undefined;
    (parent ? parent.children : roots).push(nodes.get(e.id));
  }
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop();
    node.children.sort((a, b) => Date.parse(a.entry.timestamp) - Date.parse(b.entry.timestamp));
    stack.push(...node.children);
  }
  return roots;
}

/** pi's SessionManager reads over `view()` (`{ id, file, header, leafId, entries }`). */
export function sessionReader(view, cwd, fallbackName) {
  const all = () => view().entries;
  const byId = (id) => all().find((e) => e.id === id);
  /** The entries from the root to `fromId` (the leaf by default), indexed once per call. */
  const branch = (fromId) => {
    const index = new Map(all().map((e) => [e.id, e]));
    const path = [];
    for (let e = index.get(fromId ?? view().leafId); e; e = e.parentId ? index.get(e.parentId) : undefined) path.push(e);
    return path.reverse();
  };
  const label = (id) => all().findLast((e) => e.type === "label" && e.targetId === id)?.label ?? undefined;
  return {
    getEntries: () => all().slice(),
    getBranch: branch,
    getSessionName: () => all().findLast((e) => e.type === "session_info")?.name ?? fallbackName?.(),
    getCwd: () => cwd,
    getSessionFile: () => view().file,
    getSessionId: () => view().id,
    getSessionDir: () => (view().file ? view().file.replace(/\/[^/]*$/, "") : undefined),
    getLeafId: () => view().leafId,
    getLeafEntry: () => byId(view().leafId),
    getHeader: () => view().header,
    getLabel: label,
    getEntry: byId,
    getChildren: (id) => all().filter((e) => e.parentId === id),
    getTree: () => sessionTree(all()),
    getEntryCount: () => all().length,
    buildContextEntries: () => buildContextEntries(branch()),
    buildSessionProjection: () => buildSessionProjection(branch()),
    buildSessionContext: () => buildSessionContext(branch()),
  };
}

/** pi's read-only SessionManager over the last synced view of rho's session. */
function sessionManager(reg) {
  return sessionReader(() => reg.session, reg.hello.cwd, () => reg.sessionName);
}

/** ExtensionContext for a handler of `ext`; `extra` adds tool/command context fields. */
export function createContext(reg, ext, extra = {}) {
  const s = reg.snapshot;
  const ctx = {
    ui: createUi(reg, ext),
    hasUI: !!reg.hello.hasUI,
    mode: reg.hello.mode ?? (reg.hello.hasUI ? "rpc" : "print"),
    cwd: reg.hello.cwd,
    sessionManager: sessionManager(reg),
    model: s.model ?? undefined,
    isProjectTrusted: () => reg.hello.projectTrusted !== false,
    isIdle: () => !!s.isIdle,
    hasPendingMessages: () => !!s.hasPendingMessages,
    abort: () => void reg.wire.call("abort").catch(() => {}),
    getSystemPrompt: () => s.systemPrompt ?? "",
    // pi's `{tokens, contextWindow, percent}` as rho's session counts it (`get_state`).
    getContextUsage: () => s.contextUsage ?? undefined,
    ...contextSessionApi(reg, ext),
    shutdown: () => void reg.wire.call("shutdown").catch((e) => reg.unsupported(ext, "ctx.shutdown", e.message)),
    signal: extra.signal,
    ...extra,
  };
  return new Proxy(ctx, {
    get(target, key) {
      if (key in target || typeof key === "symbol" || key === "then") return target[key];
      return (..._args) => reg.unsupported(ext, `ctx.${String(key)}`);
    },
  });
}

/** ExtensionCommandContext: the context plus session control; `extra` adds fields. */
export function createCommandContext(reg, ext, extra = {}) {
  return createContext(reg, ext, {
    async waitForIdle() {
      for (;;) {
        const state = await reg.wire.call("get_state");
        if (state.isIdle) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    ...commandSessionApi(reg, ext, () => createReplacedContext(reg, ext)),
    getSystemPromptOptions: () => ({}),
    ...extra,
  });
}

/** pi's ReplacedSessionContext (what `withSession` gets): a command context of the new
 * session, whose view is read first, with async `sendMessage` and `sendUserMessage`. */
async function createReplacedContext(reg, ext) {
  await refreshView(reg);
  const api = createApi(reg, ext);
  return createCommandContext(reg, ext, {
    sendMessage: (message, options) => api.sendMessage(message, options),
    sendUserMessage: (content, options) => api.sendUserMessage(content, options),
  });
}
