// pi's `ctx.newSession({ setup })`: rho asks for the setup (`session_setup`) once the old
// session has ended and before the new one starts; the setup gets a SessionManager of the new
// session whose appends go to rho (`session_setup_append`), each answered before the next
// line of the setup runs, as pi's synchronous `append*` are.
import { resolve } from "node:path";
import { sessionReader } from "./api.mjs";

/** How long one append waits for rho's answer. */
const APPEND_WAIT_MS = 10_000;

/** Runs the setup rho asked for in `msg`; its failure is kept for `newSession` to throw. */
export async function runSessionSetup(reg, msg) {
  const pending = reg.setups.get(msg.setup);
  if (!pending) throw new Error(`no newSession setup ${msg.setup} is waiting`);
  try {
    await pending.setup(setupSessionManager(reg, pending.ext, msg.id, msg.session));
  } catch (e) {
    pending.error = e;
  }
  return null;
}

/** The new session's SessionManager: reads from the view rho sent, kept current by the
 * appends' answers. */
function setupSessionManager(reg, ext, request, session) {
  const view = { id: session.sessionId, file: session.sessionFile ?? undefined, header: session.header, leafId: session.leafId ?? null, entries: session.entries ?? [] };
  /** One call of the setup to rho, answered before the setup's next line runs. */
  const call = (entry, what) => {
    let answer;
    try {
      answer = reg.wire.callSync("session_setup_append", { request, entry }, APPEND_WAIT_MS);
    } catch (e) {
      throw new Error(`rho did not answer the setup's ${what} (${e.message})`);
    }
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.result;
  };
  const append = (entry) => {
    const written = call(entry, "append");
    view.entries.push(written);
    view.leafId = written.id;
    return written.id;
  };
  /** `branch` / `resetLeaf`: the leaf moves, nothing is written. */
  const move = (id) => {
    call({ type: "branch", id }, id === null ? "resetLeaf" : "branch");
    view.leafId = id;
  };
  /** `newSession`, `setSessionFile`, `createBranchedSession`: the setup goes on in another
   * session, whose view rho answers with; pi returns its file. */
  const replace = (entry, what) => {
    const next = call(entry, what);
    Object.assign(view, { id: next.sessionId, file: next.sessionFile ?? undefined, header: next.header, leafId: next.leafId ?? null, entries: next.entries ?? [] });
    return view.file;
  };
  const sm = {
    ...sessionReader(() => view, reg.hello.cwd),
    isPersisted: () => view.file !== undefined,
    appendMessage: (message) => append({ type: "message", message }),
    appendCustomEntry: (customType, data) => append({ type: "custom", customType, data }),
    appendCustomMessageEntry: (customType, content, display, details) => append({ type: "custom_message", customType, content, display: !!display, details }),
    appendLabelChange: (targetId, label) => append({ type: "label", targetId, label: label ?? null }),
    appendSessionInfo: (name) => append({ type: "session_info", name: String(name ?? "") }),
    appendModelChange: (provider, modelId) => append({ type: "model_change", provider, modelId }),
    appendThinkingLevelChange: (thinkingLevel) => append({ type: "thinking_level_change", thinkingLevel }),
    appendContextEdit: (targetId, replacement) => {
      const content = replacement?.content;
      if (replacement !== null && (typeof replacement !== "object" || (typeof content !== "string" && !Array.isArray(content)))) {
        throw new Error("Context edit replacement must be null or contain string/array content");
      }
      return append({ type: "context_edit", targetId, replacement: replacement === null ? null : content });
    },
    // pi returns the usage entry itself, the others their id.
    appendUsage: (kind, provider, model, usage, note) => {
      append({ type: "usage", kind, provider, model, usage, note });
      return view.entries[view.entries.length - 1];
    },
    appendCompaction: (summary, firstKeptEntryId, tokensBefore, details, fromHook, usage) =>
      append({ type: "compaction", summary, firstKeptEntryId: firstKeptEntryId ?? null, tokensBefore, details, fromHook, usage }),
    branchWithSummary: (branchFromId, summary, details, fromHook) => append({ type: "branch_summary", branchFromId: branchFromId ?? null, summary, details, fromHook }),
    branch: (id) => move(String(id)),
    resetLeaf: () => move(null),
    newSession: (options) => replace({ type: "new_session", id: options?.id, parentSession: options?.parentSession }, "newSession"),
    setSessionFile: (file) => void replace({ type: "set_session_file", path: resolve(reg.hello.cwd, String(file)) }, "setSessionFile"),
    createBranchedSession: (leafId) => replace({ type: "create_branched_session", leafId: String(leafId) }, "createBranchedSession"),
  };
  return new Proxy(sm, {
    get(target, key) {
      if (key in target || typeof key === "symbol" || key === "then") return target[key];
      return (..._args) => reg.unsupported(ext, `sessionManager.${String(key)} in newSession's setup`);
    },
  });
}
