// rho's host for pi extensions: loads every pi extension of a session into this one node
// process and speaks rho's extension process protocol for all of them.
// Usage: node host.mjs <packages dir> <agent dir> <extension path>...
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { installHooks } from "./hooks.mjs";
import { Wire, guardStdout } from "./wire.mjs";
import { Registry, createApi, createCommandContext, createContext } from "./api.mjs";
import { dispatchEvent, failure, refresh } from "./events.mjs";
import { commandSpec, toolSpec } from "./session_api.mjs";
import { listMcpServers } from "./mcp.mjs";
import { providerSpecs, runOAuthApiKey, runOAuthLogin, runOAuthRefresh, runRefreshModels, runRoute, runStream, virtualModelSpecs } from "./providers.mjs";
import { componentInput, render, rendererSpec } from "./render.mjs";
import { runSessionSetup } from "./session_setup.mjs";

// Type stripping is experimental in node; its warning would only confuse users.
process.removeAllListeners("warning");
process.on("warning", (w) => w.name !== "ExperimentalWarning" && process.stderr.write(`${w.name}: ${w.message}\n`));

const [packagesDir, agentDir, ...paths] = process.argv.slice(2);
// Extensions that start pi again (subagent) run `process.argv[1]` when it exists: that would
// be this host. Without it they run `pi` from PATH, as under a pi installed as a command.
process.argv.splice(1);
// pi's getAgentDir() and everything built on it then see rho's agent dir.
process.env.PI_CODING_AGENT_DIR = agentDir;
installHooks(packagesDir);
guardStdout();
const wire = new Wire();
const helloLine = wire.hello();
const reg = new Registry(wire);
reg.packagesDir = packagesDir;

process.on("uncaughtException", (e) => process.stderr.write(`rho pi host: uncaught: ${e?.stack ?? e}\n`));
process.on("unhandledRejection", (e) => process.stderr.write(`rho pi host: unhandled rejection: ${e?.stack ?? e}\n`));

/** The entry files of an extension path: a file, or a directory's package.json / index. */
function entries(path) {
  if (!statSync(path).isDirectory()) return [path];
  const manifest = join(path, "package.json");
  if (existsSync(manifest)) {
    const pkg = JSON.parse(readFileSync(manifest, "utf8"));
    const listed = pkg.pi?.extensions;
    if (Array.isArray(listed) && listed.length > 0) return listed.map((p) => resolve(path, p));
    if (typeof pkg.main === "string") return [resolve(path, pkg.main)];
  }
  for (const name of ["index.ts", "index.js", "index.mjs"]) {
    if (existsSync(join(path, name))) return [join(path, name)];
  }
  throw new Error("the directory has neither a package.json naming its entry nor an index.ts/index.js");
}

async function load(path) {
  let files;
  try {
    files = entries(path);
  } catch (e) {
    reg.notice(`pi extension ${path} was not loaded: ${e.message}`);
    return;
  }
  for (const file of files) {
    // `source` is the path as rho named it: the final order after project trust names it so.
    const ext = { path: file, source: path };
    try {
      const mod = await import(pathToFileURL(file).href);
      const factory = mod.default;
      if (typeof factory !== "function") throw new Error("it has no default export function (export default function (pi) {…})");
      await factory(createApi(reg, ext));
    } catch (e) {
      const detail = e instanceof SyntaxError || !(e instanceof Error) ? String(e) : e.message;
      reg.notice(`pi extension ${file} was not loaded: ${detail}`);
    }
  }
}

function registration() {
  const events = new Set(reg.handlers.keys());
  // Calls act on the session of the latest event: tools calling rho (ctx.shutdown, sessionManager)
  // need one before the first tool runs.
  if (reg.tools.size > 0) events.add("agent_start");
  return {
    type: "register",
    name: "pi extensions",
    events: [...events],
    commands: [...reg.commands].map(([name, c]) => commandSpec(name, c)),
    tools: [...reg.tools.values()].map(({ def }) => toolSpec(def)),
    flags: [...reg.flags].map(([name, f]) => ({ name, description: f.options.description, type: f.options.type, default: f.options.default })),
    shortcuts: [...reg.shortcuts].map(([key, s]) => ({ key, description: s.options.description })),
    providers: providerSpecs(reg),
    virtualModels: virtualModelSpecs(reg),
    mcpServers: listMcpServers(reg),
    notices: reg.notices.splice(0),
    renderers: rendererSpec(reg),
  };
}

const running = new Map();

async function runTool(msg) {
  const entry = reg.tools.get(msg.name);
  if (!entry) throw new Error(`no pi tool named ${msg.name}`);
  const { ext, def } = entry;
  const abort = new AbortController();
  running.set(msg.id, abort);
  try {
    if (reg.wire.bound) await refresh(reg, "tool");
    const args = def.prepareArguments ? def.prepareArguments(msg.args) : msg.args;
    const onUpdate = (partial) => wire.update(msg.id, partial);
    const ctx = createContext(reg, ext, { signal: abort.signal });
    const r = await def.execute(msg.toolCallId, args, abort.signal, onUpdate, ctx);
    return { content: r?.content ?? [], details: r?.details, isError: r?.isError === true || undefined };
  } catch (e) {
    throw new Error(failure(ext, `tool "${msg.name}"`, e));
  } finally {
    running.delete(msg.id);
  }
}

async function runCommand(msg) {
  const entry = reg.commands.get(msg.name);
  if (!entry) throw new Error(`no pi command named ${msg.name}`);
  await refresh(reg, "command");
  try {
    await entry.options.handler?.(msg.args ?? "", createCommandContext(reg, entry.ext));
  } catch (e) {
    throw new Error(failure(entry.ext, `command /${msg.name}`, e));
  }
  return null;
}

/** pi's `getArgumentCompletions(prefix)` (which may return a Promise): rho's list of
 * `{value, label, description}`, or null for none. */
async function runCommandCompletions(msg) {
  const entry = reg.commands.get(msg.name);
  if (!entry) throw new Error(`no pi command named ${msg.name}`);
  let items;
  try {
    items = await entry.options.getArgumentCompletions?.(msg.prefix ?? "");
  } catch (e) {
    throw new Error(failure(entry.ext, `the completions of /${msg.name}`, e));
  }
  if (!Array.isArray(items) || items.length === 0) return null;
  return items.filter((i) => i?.value !== undefined).map((i) => ({ value: String(i.value), label: i.label === undefined ? undefined : String(i.label), description: i.description === undefined ? undefined : String(i.description) }));
}

async function runShortcut(msg) {
  const entry = reg.shortcuts.get(msg.key);
  if (!entry) throw new Error(`no pi shortcut ${msg.key}`);
  await entry.options.handler?.(createContext(reg, entry.ext));
  return null;
}

async function runProviderStream(msg) {
  const abort = new AbortController();
  running.set(msg.id, abort);
  try {
    return await runStream(reg, wire, msg, abort.signal);
  } catch (e) {
    throw new Error(failure(reg.providers.get(msg.provider)?.ext ?? { path: msg.provider }, `provider ${msg.provider}`, e));
  } finally {
    running.delete(msg.id);
  }
}

/** Runs one of a provider's requests (a sign-in's, refreshModels), cancellable; failures name the
 * extension. */
async function runProviderCall(msg, what, run) {
  const abort = new AbortController();
  running.set(msg.id, abort);
  try {
    return await run(abort.signal);
  } catch (e) {
    throw new Error(failure(reg.providers.get(msg.provider)?.ext ?? { path: msg.provider }, `${what} of provider ${msg.provider}`, e));
  } finally {
    running.delete(msg.id);
  }
}

async function runVirtualRoute(msg) {
  const abort = new AbortController();
  running.set(msg.id, abort);
  try {
    await refresh(reg, "route");
    return await runRoute(reg, msg, abort.signal, (ext) => createContext(reg, ext, { signal: abort.signal }));
  } finally {
    running.delete(msg.id);
  }
}

/** Keeps what the extensions of the paths in `order` registered, in that order (stable): an
 * extension the final set leaves out (a project setting disabling it) no longer takes part,
 * as in pi, though it cannot be unloaded. */
function reorder(order) {
  const rank = (entry) => order.indexOf(entry.ext?.source);
  const kept = (entry) => rank(entry) >= 0;
  const byRank = (a, b) => rank(a) - rank(b);
  const arrange = (map) => new Map([...map].filter(([, e]) => kept(e)).sort(([, a], [, b]) => byRank(a, b)));
  for (const [event, list] of reg.handlers) reg.handlers.set(event, list.filter(kept).sort(byRank));
  for (const key of ["commands", "tools", "shortcuts", "flags", "providers", "virtualModels", "mcpServers"]) reg[key] = arrange(reg[key]);
  if (reg.render) for (const key of ["messages", "entries"]) reg.render[key] = arrange(reg.render[key]);
}

// After a start-up project trust decision, the trusted project's own extensions join the
// running ones (pi loads them into the same runtime); the answer is the whole registration.
async function loadMore(msg) {
  // Until answered, what they register goes into the registration, not to rho one by one.
  reg.registered = false;
  try {
    for (const path of msg.paths ?? []) await load(path);
  } finally {
    reg.registered = true;
  }
  reorder(msg.order ?? []);
  return registration();
}

const REQUESTS = {
  load: loadMore,
  route: runVirtualRoute,
  stream: runProviderStream,
  oauth_login: (msg) => runProviderCall(msg, "login", (signal) => runOAuthLogin(reg, wire, msg, signal)),
  oauth_refresh: (msg) => runProviderCall(msg, "refreshToken", (signal) => runOAuthRefresh(reg, msg, signal)),
  oauth_api_key: (msg) => runProviderCall(msg, "getApiKey", () => runOAuthApiKey(reg, msg)),
  refresh_models: (msg) => runProviderCall(msg, "refreshModels", (signal) => runRefreshModels(reg, msg, signal)),
  event: (msg) => dispatchEvent(reg, msg.event),
  command: runCommand,
  command_completions: runCommandCompletions,
  tool: runTool,
  shortcut: runShortcut,
  render: (msg) => render(reg, msg, refresh),
  component_input: async (msg) => componentInput(reg, msg),
  session_setup: (msg) => runSessionSetup(reg, msg),
};

function serve(msg) {
  if (msg.type === "cancel") return running.get(msg.id)?.abort();
  if (msg.type === "trust") {
    reg.hello.projectTrusted = msg.projectTrusted;
    return;
  }
  const run = REQUESTS[msg.type];
  if (!run) return;
  run(msg).then(
    (r) => wire.result(msg.id, r),
    (e) => wire.error(msg.id, e instanceof Error ? e.message : String(e)),
  );
}

// rho sends requests only after `register`; anything earlier waits for it.
const early = [];
wire.onRequest = (msg) => early.push(msg);

for (const path of paths) await load(path);
Object.assign(reg.hello, await helloLine);
wire.write(registration());
reg.registered = true;
wire.onRequest = serve;
for (const msg of early.splice(0)) serve(msg);
