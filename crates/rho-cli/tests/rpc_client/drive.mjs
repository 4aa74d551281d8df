// Drives one agent (pi 1.6 or rho) through a scripted RPC conversation with pi 1.6's own
// RpcClient and prints a transcript: each step's response data (or error) and the types of
// the events that arrived during it. The Rust test `pi16_rpc_client` runs it against both and
// compares. The server's scripted replies (see the test) hold two runs in a bash tool call that
// waits for a file, so steering and follow-ups queue the same way in both (a steer while the
// model streams interrupts it in rho, D4).
//
// env: PI16_PKG (pi's package dir), DRIVE_CLI (the cliPath RpcClient runs with node),
//      DRIVE_CWD, DRIVE_ARGS (JSON array of extra CLI arguments), DRIVE_EXPORT (html path).
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { writeFileSync } from "node:fs";

const { RpcClient } = await import(pathToFileURL(join(process.env.PI16_PKG, "dist/index.js")).href);

const client = new RpcClient({
  cliPath: process.env.DRIVE_CLI,
  cwd: process.env.DRIVE_CWD,
  provider: "loop",
  model: "loop-model",
  args: JSON.parse(process.env.DRIVE_ARGS ?? "[]"),
});

const steps = [];
let events = [];
// message_start/message_end carry their message's role, so a reader can tell which message
// they are about.
// Steps waiting for an event type: resolved by the listener the moment one arrives.
let waiters = [];
client.onEvent((e) => {
  events.push(/^message_(start|end)$/.test(e.type) ? `${e.type}:${e.message?.role}` : e.type);
  waiters = waiters.filter((w) => (w.type === e.type ? (w.resolve(), false) : true));
});

/** Runs one step, recording its result or error and the events seen since the last step. */
async function step(name, fn) {
  let record;
  try {
    const data = await fn();
    record = { step: name, data: data === undefined ? null : data };
  } catch (e) {
    record = { step: name, error: String(e?.message ?? e) };
  }
  steps.push(record);
  return record.data;
}

/** Moves the events seen so far onto the last step. */
function settle(name) {
  steps.push({ step: name, events });
  events = [];
}

/** Resolves once an event of `type` has arrived since the last step (at once if it already
 *  has); fails after `timeout` ms. */
function seen(type, timeout = 30000) {
  if (events.includes(type)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} event`)), timeout);
    waiters.push({ type, resolve: () => (clearTimeout(timer), resolve()) });
  });
}

/** Resolves on `agent_settled`: both agents send it once nothing more follows on its own. */
const settled = () => seen("agent_settled");

await client.start();
try {
  await step("get_state", () => client.getState());
  await step("prompt", () => client.prompt("hello"));
  await settled();
  settle("prompt_events");

  // A run held by a bash tool call until the file `release` exists: steer and follow-up queue
  // behind it.
  await step("prompt_held", () => client.prompt("long task"));
  await seen("tool_execution_start");
  await step("steer", () => client.steer("steer now"));
  await step("follow_up", () => client.followUp("then this"));
  await step("get_state_streaming", async () => {
    const s = await client.getState();
    return { isStreaming: s.isStreaming, pendingMessageCount: s.pendingMessageCount };
  });
  writeFileSync(join(process.env.DRIVE_CWD, "release"), "");
  await settled();
  settle("held_events");

  // A run whose tool call never ends: queue two messages, take them back, abort.
  await step("prompt_hanging", () => client.prompt("hang"));
  await seen("tool_execution_start");
  await step("follow_up_2", () => client.followUp("queued one"));
  await step("steer_2", () => client.steer("queued two"));
  await step("clear_queue", () => client.clearQueue());
  await step("abort", () => client.abort());
  await settled();
  settle("abort_events");

  await step("compact", () => client.compact());
  settle("compact_events");
  await step("bash", () => client.bash("echo from-bash"));
  settle("bash_events");
  await step("get_last_assistant_text", () => client.getLastAssistantText());
  await step("get_entries", () => client.getEntries());
  const first = steps.at(-1).data?.entries?.[0]?.id;
  await step("get_entries_since", async () => (await client.getEntries(first)).entries);
  await step("get_entries_unknown", () => client.getEntries("no-such-entry"));
  await step("get_tree", () => client.getTree());
  await step("get_available_models", () => client.getAvailableModels());
  await step("set_model", () => client.setModel("loop", "loop-think"));
  await step("get_available_thinking_levels", () => client.getAvailableThinkingLevels());
  await step("cycle_thinking_level", () => client.cycleThinkingLevel());
  await step("set_thinking_level", () => client.setThinkingLevel("high"));
  await step("cycle_model", () => client.cycleModel());
  await step("set_steering_mode", () => client.setSteeringMode("all"));
  await step("set_follow_up_mode", () => client.setFollowUpMode("all"));
  await step("set_auto_compaction", () => client.setAutoCompaction(false));
  await step("set_auto_retry", () => client.setAutoRetry(false));
  await step("abort_retry", () => client.abortRetry());
  await step("abort_bash", () => client.abortBash());
  await step("set_session_name", () => client.setSessionName("  scripted  "));
  await step("get_session_stats", () => client.getSessionStats());
  await step("export_html", () => client.exportHtml(process.env.DRIVE_EXPORT));
  await step("get_commands", () => client.getCommands());
  const before = await step("get_state_before_fork", () => client.getState());
  const forkable = await step("get_fork_messages", () => client.getForkMessages());
  await step("fork", () => client.fork(forkable?.[0]?.entryId ?? "none"));
  await step("get_messages_forked", () => client.getMessages());
  await step("clone", () => client.clone());
  await step("new_session", () => client.newSession());
  await step("clone_empty", () => client.clone());
  await step("get_last_assistant_text_empty", () => client.getLastAssistantText());
  await step("switch_session", () => client.switchSession(before?.sessionFile ?? "/none"));
  await step("get_state_switched", () => client.getState());
  await step("get_messages", () => client.getMessages());
  settle("session_events");
} finally {
  await client.stop();
}
process.stdout.write(JSON.stringify({ transcript: steps }) + "\n");
