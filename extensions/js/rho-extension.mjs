// Write rho extensions in JavaScript (Node, no dependencies). Protocol: docs/extensions.md.
//
//   import { Extension } from "./rho-extension.mjs";
//   const ext = new Extension("shout");
//   ext.on("input", (event) => ({ action: "transform", text: event.text.toUpperCase() }));
//   ext.run();
//
// One handler per event type (a second `on` for the same type replaces the first). Handlers
// may be async and return the event's result object (EXT-3 table) or undefined; a throw is
// reported as an `extension_error` (for `tool_call` it blocks the tool). console.log goes to
// stderr: stdout belongs to the protocol.
import { createInterface } from "node:readline";

export const PROTOCOL_VERSION = 1;

const blocks = (content) =>
  typeof content === "string" ? [{ type: "text", text: content }] : [...content];

const toolResult = (value) =>
  value && typeof value === "object" && !Array.isArray(value) && "content" in value
    ? { ...value, content: blocks(value.content) }
    : { content: blocks(value ?? "") };

export class Extension {
  constructor(name) {
    this.name = name;
    this.hello = {};
    this.handlers = new Map();
    this.commands = new Map();
    this.tools = new Map();
    this.flags = [];
    this.shortcuts = new Map();
    this.calls = new Map();
    this.running = new Map();
    this.nextCall = 0;
    console.log = (...args) => console.error(...args);
  }

  /** `fn(event) => result | undefined` handles events of type `event`. */
  on(event, fn) {
    this.handlers.set(event, fn);
  }

  /** `fn(args)` runs `/name args`. */
  command(name, description, fn) {
    this.commands.set(name, { description, fn });
  }

  /** `fn(args, ctx) => string | blocks | {content, details?, isError?}`; `ctx.signal` aborts. */
  tool({ name, label, description, parameters }, fn) {
    const spec = {
      name,
      label: label ?? name,
      description,
      parameters: parameters ?? { type: "object", properties: {} },
    };
    this.tools.set(name, { spec, fn });
  }

  /** Declares `--name`; its value is `ext.hello.flags[name]`. */
  flag(name, { description, type = "boolean", default: def } = {}) {
    this.flags.push({ name, description, type, default: def });
  }

  /** `fn()` runs when the user presses `key`. */
  shortcut(key, description, fn) {
    this.shortcuts.set(key, { description, fn });
  }

  /** Calls rho; resolves with the reply's result or rejects with its error. */
  call(method, params = {}) {
    const id = ++this.nextCall;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.write({ type: "call", id, method, params });
    });
  }

  sendMessage({ customType, content, display = true, details }, { triggerTurn = false, deliverAs } = {}) {
    return this.call("send_message", {
      message: { customType, content, display, details },
      triggerTurn,
      ...(deliverAs ? { deliverAs } : {}),
    });
  }
  sendUserMessage(text, { deliverAs } = {}) {
    return this.call("send_user_message", { text, ...(deliverAs ? { deliverAs } : {}) });
  }
  appendEntry(customType, data) {
    return this.call("append_entry", { customType, data });
  }
  setSessionName(name) {
    return this.call("set_session_name", { name });
  }
  getState() {
    return this.call("get_state");
  }
  exec(command, args = [], { cwd, timeoutMs } = {}) {
    return this.call("exec", { command, args, cwd, timeoutMs });
  }
  select(title, options) {
    return this.call("ui_select", { title, options });
  }
  confirm(title, message) {
    return this.call("ui_confirm", { title, message });
  }
  input(title, placeholder) {
    return this.call("ui_input", { title, placeholder });
  }
  editor(title, prefill) {
    return this.call("ui_editor", { title, prefill });
  }
  setEditorText(text) {
    return this.call("ui_set_editor_text", { text });
  }
  notify(message, kind = "info") {
    return this.call("ui_notify", { message, kind });
  }
  setStatus(key, text) {
    return this.call("ui_status", { key, text });
  }
  setWidget(key, lines) {
    return this.call("ui_widget", { key, lines });
  }

  /** Handshakes, then serves rho's requests until stdin closes. */
  run() {
    const lines = createInterface({ input: process.stdin });
    lines.on("line", (line) => {
      if (!line.trim()) return;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        console.error("rho-extension: ignoring a line that is not JSON");
        return;
      }
      this.receive(msg);
    });
    lines.on("close", () => process.exit(0));
  }

  write(msg) {
    process.stdout.write(JSON.stringify(msg) + "\n");
  }

  receive(msg) {
    switch (msg.type) {
      case "hello":
        this.hello = msg;
        this.write({
          type: "register",
          name: this.name,
          events: [...this.handlers.keys()],
          commands: [...this.commands].map(([name, c]) => ({ name, description: c.description })),
          tools: [...this.tools.values()].map((t) => t.spec),
          flags: this.flags,
          shortcuts: [...this.shortcuts].map(([key, s]) => ({ key, description: s.description })),
        });
        return;
      case "reply": {
        const pending = this.calls.get(msg.id);
        if (!pending) return;
        this.calls.delete(msg.id);
        if (msg.error != null) pending.reject(new Error(msg.error));
        else pending.resolve(msg.result);
        return;
      }
      case "cancel":
        this.running.get(msg.id)?.abort();
        return;
      default:
        this.serve(msg);
    }
  }

  async serve(msg) {
    const id = msg.id;
    try {
      let result;
      if (msg.type === "event") {
        const fn = this.handlers.get(msg.event.type);
        result = fn ? await fn(msg.event) : undefined;
      } else if (msg.type === "command") {
        await this.commands.get(msg.name).fn(msg.args ?? "");
      } else if (msg.type === "tool") {
        const controller = new AbortController();
        this.running.set(id, controller);
        const ctx = {
          toolCallId: msg.toolCallId,
          signal: controller.signal,
          update: (content, details) =>
            this.write({ type: "tool_update", id, partial: { content: blocks(content), details } }),
        };
        try {
          result = toolResult(await this.tools.get(msg.name).fn(msg.args ?? {}, ctx));
        } finally {
          this.running.delete(id);
        }
      } else if (msg.type === "shortcut") {
        await this.shortcuts.get(msg.key).fn();
      } else {
        return;
      }
      this.write({ type: "result", id, result: result ?? null });
    } catch (e) {
      this.write({ type: "result", id, error: String(e?.message ?? e) });
    }
  }
}
