// The parts of pi's API that change the session: the tool set (getActiveTools, getAllTools,
// setActiveTools, registerTool after loading), the model and thinking level, ctx.compact,
// ctx.modelRegistry and the command context's session control. Each is one call of rho's
// extension protocol (rho_protocol::extension::calls); synchronous reads answer from a view
// fetched once and kept current by the answers of these calls.

/** The `register` / `register_tool` form of a pi tool definition. */
export function toolSpec(def) {
  const parameters = def.parameters ? JSON.parse(JSON.stringify(def.parameters)) : { type: "object", properties: {} };
  return { name: def.name, label: def.label ?? def.name, description: def.description ?? "", parameters };
}

/** Fetches what the synchronous reads need, once per host: the tool set (a rho that cannot
 * answer leaves it empty rather than being asked on every event). The models come later,
 * when an extension first reads the registry (`modelsView`). */
export async function loadSessionView(reg) {
  if (reg.toolsState) return;
  reg.toolsState = await reg.wire.call("get_tools").catch(() => ({ active: [], all: [] }));
}

/** How long a registry read waits for rho's model list before answering with none. */
const MODELS_WAIT_MS = 10_000;

/** rho's models and the providers with credentials, fetched once, the first time an extension
 * reads `ctx.modelRegistry` (about 900 KB of JSON with pi's catalog, so not at start-up).
 * pi's registry reads are synchronous: rho writes the answer to a file, which this waits for. */
function modelsView(reg) {
  if (reg.modelsView) return reg.modelsView;
  const none = { models: [], authConfigured: [] };
  // Calls wait for the first event; a registry read comes from a handler, so after it.
  if (!reg.wire.bound) return none;
  try {
    reg.modelsView = reg.wire.callSync("get_models", {}, MODELS_WAIT_MS);
  } catch (e) {
    reg.notice(`rho pi host: the model list did not arrive (${e.message}); ctx.modelRegistry lists no models`);
    reg.modelsView = none;
  }
  return reg.modelsView;
}

const report = (reg, ext, what) => (e) => reg.notice(`pi extension ${ext.path}: ${what} failed: ${e.message}`);

/** Registers `def` with rho after loading: the tool joins the session's active tools. */
export function registerLate(reg, ext, def) {
  reg.tools.set(def.name, { ext, def });
  const spec = toolSpec(def);
  const state = reg.toolsState;
  if (state) {
    if (!state.active.includes(def.name)) state.active.push(def.name);
    state.all = state.all.filter((t) => t.name !== def.name).concat([{ ...spec, source: "extension" }]);
  }
  reg.wire.call("register_tool", { tool: spec }).catch(report(reg, ext, `registerTool("${def.name}")`));
}

/** The key of command `name` of `ext` in `reg.commands`: its own earlier registration of the
 * name (pi replaces it), else the name, numbered while another extension holds it. */
export function commandKey(reg, ext, name) {
  for (const [key, c] of reg.commands) if (c.ext === ext && c.name === name) return key;
  let key = name;
  for (let n = 1; reg.commands.has(key); n++) key = `${name}:${n}`;
  return key;
}

/** The `register` / `register_command` form of command `key` (its entry in `reg.commands`). */
export function commandSpec(key, { ext, options }) {
  return { name: key, description: options.description, path: ext.path, completes: typeof options.getArgumentCompletions === "function" || undefined };
}

/** Tells rho of command `key` registered after loading: it is listed and runs at once. */
export function registerCommandLate(reg, ext, key, options) {
  const command = commandSpec(key, { ext, options });
  reg.wire.call("register_command", { command }).catch(report(reg, ext, `registerCommand("${key}")`));
}

/** `pi.*` methods for tools, model and thinking level. */
export function sessionApi(reg, ext) {
  const call = (method, params) => reg.wire.call(method, params);
  return {
    getActiveTools: () => [...(reg.toolsState?.active ?? reg.tools.keys())],
    getAllTools: () =>
      (reg.toolsState?.all ?? [...reg.tools.values()].map(({ def }) => ({ ...toolSpec(def), source: "extension" }))).map((t) => ({
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        sourceInfo: t.source === "builtin" ? { source: "builtin", path: `builtin:${t.name}` } : { source: t.source, path: reg.tools.get(t.name)?.ext.path ?? t.source },
      })),
    setActiveTools(names) {
      const list = [...(names ?? [])].map(String);
      if (reg.toolsState) {
        const known = new Set(reg.toolsState.all.map((t) => t.name));
        reg.toolsState.active = [...new Set(list.filter((n) => known.has(n)))];
      }
      call("set_active_tools", { names: list }).then((s) => (reg.toolsState = s), report(reg, ext, "setActiveTools"));
    },
    async setModel(model) {
      const ok = await call("set_model", { provider: model?.provider, modelId: model?.id });
      if (ok) reg.snapshot.model = model;
      return ok;
    },
    getThinkingLevel: () => reg.snapshot.thinkingLevel ?? "off",
    setThinkingLevel(level) {
      reg.snapshot.thinkingLevel = level;
      call("set_thinking_level", { level }).then((l) => (reg.snapshot.thinkingLevel = l), report(reg, ext, "setThinkingLevel"));
    },
  };
}

/** `ctx.compact` and `ctx.modelRegistry`. */
export function contextSessionApi(reg, ext) {
  const all = () => modelsView(reg).models;
  const find = (provider, id) => all().find((m) => m.provider === provider && m.id === id);
  const hasAuth = (model) => modelsView(reg).authConfigured.includes(model?.provider);
  return {
    compact(options = {}) {
      reg.wire.call("compact", { customInstructions: options.customInstructions }).then(
        (result) => options.onComplete?.(result),
        (e) => (options.onError ? options.onError(e) : report(reg, ext, "ctx.compact")(e)),
      );
    },
    modelRegistry: {
      getAll: () => all().slice(),
      getAvailable: () => all().filter(hasAuth),
      find,
      // rho's catalog holds chat models only (no classifiers): other types find nothing.
      findOfType: (type, provider, id) => (type === "chat" ? find(provider, id) : undefined),
      hasConfiguredAuth: hasAuth,
      complete: (model, context, options = {}) =>
        reg.wire.call("complete", {
          provider: model?.provider,
          modelId: model?.id,
          context: { systemPrompt: context?.systemPrompt, messages: context?.messages ?? [] },
          maxTokens: options.maxTokens,
        }),
    },
  };
}

/** ExtensionCommandContext's session control: each resolves with `{ cancelled }`. A
 * `withSession` callback runs once the replacement session is in place (rho has answered the
 * action after ending the old session and starting the new one for every extension), with
 * `replaced()`: a fresh context whose calls go to the new session. `newSession`'s `setup` runs
 * when rho asks for it (`session_setup`, between the old session's end and the new one's
 * start); if it throws, `newSession` rejects with its error and `withSession` does not run,
 * as in pi. */
export function commandSessionApi(reg, ext, replaced) {
  const act = async (params, options) => {
    const result = await reg.wire.call("session_action", params);
    if (!result?.cancelled && typeof options?.withSession === "function") await options.withSession(await replaced());
    return result;
  };
  return {
    async newSession(options = {}) {
      if (typeof options.setup !== "function") return act({ action: "new_session", parentSession: options.parentSession }, options);
      const token = (reg.nextSetup = (reg.nextSetup ?? 0) + 1);
      const pending = { ext, setup: options.setup, error: undefined };
      reg.setups.set(token, pending);
      try {
        const params = { action: "new_session", parentSession: options.parentSession, setup: token };
        return await act(params, { withSession: (next) => (pending.error ? undefined : options.withSession?.(next)) });
      } finally {
        reg.setups.delete(token);
        if (pending.error) throw pending.error;
      }
    },
    fork: (entryId, options) => act({ action: "fork", entryId, position: options?.position }, options),
    navigateTree: (targetId, options) => act({ action: "navigate_tree", targetId }, options),
    switchSession: (sessionPath, options) => act({ action: "switch_session", sessionPath }, options),
    reload: async () => void (await reg.wire.call("session_action", { action: "reload" })),
  };
}

/** Gives `before_agent_start` pi's mutable `systemPromptOptions` (what rho sent, completed
 * with pi's collections and the active tools); returns what to compare after the handlers. */
export function preparePromptOptions(reg, event) {
  const given = event.systemPromptOptions && typeof event.systemPromptOptions === "object" ? event.systemPromptOptions : {};
  event.systemPromptOptions = {
    cwd: reg.hello.cwd,
    selectedTools: [...(reg.toolsState?.active ?? [])],
    hiddenTools: [],
    toolSnippets: {},
    toolGuidelines: {},
    promptGuidelines: [],
    appendSystemPrompt: "",
    contextFiles: [],
    skills: [],
    ...given,
    sections: { ...(given.sections ?? {}) },
  };
  return JSON.stringify(event.systemPromptOptions.sections);
}

/** The sections handlers added or changed, appended to the chained prompt as pi's tagged
 * sections (`<name>\n…\n</name>`); `null` when they changed none. */
export function promptWithSections(event, before) {
  const sections = event.systemPromptOptions?.sections ?? {};
  if (JSON.stringify(sections) === before) return null;
  const old = JSON.parse(before);
  const added = Object.entries(sections).filter(([name, text]) => text && old[name] !== text);
  const rendered = added.map(([name, text]) => `<${name}>\n${text}\n</${name}>`).join("\n\n");
  return rendered ? `${event.systemPrompt ?? ""}\n\n${rendered}` : null;
}
