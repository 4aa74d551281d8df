// Runs every pi handler of one rho event in load order and folds their results the way pi
// composes them (chained transforms, first gate wins) into the one result rho expects.
import { createContext, createUi, refreshView } from "./api.mjs";
import { preparePromptOptions, promptWithSections } from "./session_api.mjs";

// `project_trust` comes before there is a session to look at; a prompt's start and end come
// in the middle of a handler that has the view already.
const SNAPSHOT_SKIP = new Set(["message_update", "tool_execution_update", "project_trust", "ui_prompt_start", "ui_prompt_end"]);

/** The failure message naming the extension, its file and the event. */
export function failure(ext, what, e) {
  const detail = e instanceof Error ? e.message : String(e);
  return `pi extension ${ext.path}: ${what} failed: ${detail}`;
}

/** Updates the state and session view that pi's synchronous reads answer from. */
export async function refresh(reg, type) {
  if (SNAPSHOT_SKIP.has(type)) return;
  try {
    await refreshView(reg);
  } catch {
    // The previous view stays; sync reads stay answerable.
  }
}

function observe(reg, event) {
  // pi hands `session_before_*` handlers an abort signal for their own model calls.
  if (event.type.startsWith("session_before_") && !event.signal) event.signal = new AbortController().signal;
  if (event.type === "before_agent_start" && typeof event.systemPrompt === "string") reg.snapshot.systemPrompt = event.systemPrompt;
}

/** Folds results per event type; `done` says a gate decided and later handlers are skipped. */
const FOLD = {
  input(state, r) {
    if (r?.action === "handled") return { result: { action: "handled" }, done: true };
    if (r?.action === "transform") {
      state.event.text = r.text ?? state.event.text;
      if (r.images) state.event.images = r.images;
      state.result = { action: "transform", text: state.event.text, images: state.event.images };
    }
  },
  before_agent_start(state, r) {
    if (!r) return;
    if (typeof r.systemPrompt === "string") {
      state.event.systemPrompt = r.systemPrompt;
      state.result = { ...state.result, systemPrompt: r.systemPrompt };
    }
    if (r.message && !state.result?.message) state.result = { ...state.result, message: r.message };
  },
  // Handlers change the headers in place; rho gets the map as they left it.
  before_provider_headers(state) {
    state.result = state.event.headers;
  },
  // A returned payload replaces it for later handlers and for the request.
  before_provider_request(state, r) {
    if (r === undefined || r === null) return;
    state.event.payload = r;
    state.result = r;
  },
  // A handler returns the messages or changes the list it was given in place, its order or
  // its messages (pi sends the objects it changed); the next handler sees the result. The
  // list is serialized once, and again only after a change, to see in-place edits.
  context(state, r) {
    state.given ??= JSON.stringify(state.event.messages);
    const now = r?.messages ? null : JSON.stringify(state.event.messages);
    const changed = r?.messages ?? (now === state.given ? undefined : state.event.messages);
    if (changed) {
      state.event.messages = changed;
      state.given = now ?? JSON.stringify(changed);
      state.result = { ...state.result, messages: changed };
    }
  },
  tool_call(state, r) {
    if (r?.block) return { result: { block: true, reason: r.reason }, done: true };
  },
  tool_result(state, r) {
    if (!r) return;
    for (const k of ["content", "details", "isError"]) if (r[k] !== undefined) state.event[k] = r[k];
    state.result = { content: state.event.content, details: state.event.details, isError: state.event.isError };
  },
  message_end(state, r) {
    if (r?.message) {
      state.event.message = r.message;
      state.result = { message: r.message };
    }
  },
  user_bash(state, r) {
    if (r?.result || r?.operations) return { result: r, done: true };
  },
  // The first yes or no decides; `undecided` goes on to the next handler.
  project_trust(state, r) {
    if (r?.trusted === "yes" || r?.trusted === "no") return { result: { trusted: r.trusted, remember: r.remember === true }, done: true };
  },
  resources_discover(state, r) {
    if (!r) return;
    const out = (state.result ??= {});
    for (const k of ["skillPaths", "promptPaths", "themePaths"]) if (r[k]) out[k] = [...(out[k] ?? []), ...r[k]];
  },
};
FOLD.context_with_system = FOLD.context;
for (const name of ["session_before_switch", "session_before_fork", "session_before_compact", "session_before_tree"]) {
  FOLD[name] = (state, r) => {
    if (r?.cancel) return { result: { cancel: true }, done: true };
    if (r && typeof r === "object") state.result = { ...state.result, ...r };
  };
}

/** pi's `ProjectTrustContext`: the folder, the mode, whether a UI answers, and four dialogs. */
function trustContext(reg, ext) {
  const { cwd, mode, hasUI } = createContext(reg, ext);
  const ui = createUi(reg, ext, false);
  // pi asks with dialogs only on its own screen: an RPC client is not asked before start-up.
  return { cwd, mode, hasUI: hasUI && mode === "tui", ui: { select: ui.select, confirm: ui.confirm, input: ui.input, notify: ui.notify } };
}

/** pi 1.6's actionable boundaries: each handler sees the entries and continuation proposed so
 * far and the context rebuilt from them (rho rebuilds it); a returned field replaces only that
 * field; a failing handler is named in `errors` and the rest still run. */
const BOUNDARIES = new Set(["turn_end", "agent_before_settle"]);

async function dispatchBoundary(reg, event, handlers) {
  let { entries = [], context } = event;
  let proceed = event.continue === true;
  const errors = [];
  for (const [i, { ext, handler }] of handlers.entries()) {
    let proposed = false;
    try {
      const r = await handler({ ...event, entries, continue: proceed, context }, createContext(reg, ext));
      if (r?.entries !== undefined) [entries, proposed] = [r.entries, true];
      if (r?.continue !== undefined) proceed = r.continue;
    } catch (e) {
      errors.push({ extensionPath: ext.path, error: e instanceof Error ? e.message : String(e) });
    }
    // rho checks the proposal after the last handler; later ones here see new entries applied.
    if (proposed && i + 1 < handlers.length) {
      const rebuilt = await reg.wire.call("boundary_context", { entries }).catch(() => null);
      if (rebuilt?.context) context = rebuilt.context;
    }
  }
  return { entries, continue: proceed, errors };
}

/** Runs the handlers of `event`; resolves with rho's result or throws the first failure. */
export async function dispatchEvent(reg, event) {
  const handlers = reg.handlers.get(event.type) ?? [];
  observe(reg, event);
  if (handlers.length === 0) return null;
  await refresh(reg, event.type);
  if (BOUNDARIES.has(event.type)) return dispatchBoundary(reg, event, handlers);
  const before = event.type === "tool_call" ? JSON.stringify(event.input) : null;
  const sections = event.type === "before_agent_start" ? preparePromptOptions(reg, event) : null;
  const state = { event, result: null };
  const fold = FOLD[event.type];
  for (const { ext, handler } of handlers) {
    const rewrites = fold === FOLD.context;
    if (rewrites) state.given ??= JSON.stringify(event.messages);
    let r;
    try {
      r = await handler(event, event.type === "project_trust" ? trustContext(reg, ext) : createContext(reg, ext));
    } catch (e) {
      // pi goes on to the next `project_trust` handler after a failure, naming it.
      if (event.type === "project_trust") {
        reg.notice(`Extension "${ext.path}" project_trust error: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      // pi reports a failing `context` handler and goes on with the list as it was; rho
      // reports each failure named in the result's `errors`, under the failing extension.
      if (rewrites) {
        const error = { extensionPath: ext.path, error: e instanceof Error ? e.message : String(e) };
        state.result = { ...state.result, errors: [...(state.result?.errors ?? []), error] };
        continue;
      }
      throw new Error(failure(ext, `its ${event.type} handler`, e));
    }
    const decided = fold?.(state, r);
    if (decided?.done) return decided.result;
  }
  if (before !== null && JSON.stringify(event.input) !== before) return { input: event.input };
  const withSections = sections !== null && !state.result?.systemPrompt ? promptWithSections(event, sections) : null;
  if (withSections) return { ...state.result, systemPrompt: withSections };
  return state.result;
}
