// rho's extension process protocol (docs/extensions.md) on stdin/stdout: requests from rho,
// calls to rho, and the replies of both. stdout belongs to the protocol; logs go to stderr.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** The real stdout; extensions' own writes to stdout go to stderr instead (see `guardStdout`). */
const protocolOut = process.stdout.write.bind(process.stdout);

/** Sends what extensions print (console.log, terminal escapes) to stderr, keeping stdout for
 * protocol lines only. */
export function guardStdout() {
  process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);
}

export class Wire {
  constructor() {
    this.nextId = 1;
    this.pending = new Map();
    this.handlers = new Map();
    this.bound = false;
    this.queued = [];
    this.onRequest = null;
    this.lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  }

  write(message) {
    protocolOut(`${JSON.stringify(message)}\n`);
  }

  /** Resolves with rho's `hello` (the first line). */
  hello() {
    return new Promise((resolve, reject) => {
      const first = (line) => {
        this.lines.off("line", first);
        try {
          resolve(JSON.parse(line));
        } catch (e) {
          reject(new Error(`rho's first line is not JSON: ${e.message}`));
        }
        this.lines.on("line", (l) => this.receive(l));
      };
      this.lines.on("line", first);
      this.lines.on("close", () => process.exit(0));
    });
  }

  receive(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      process.stderr.write(`rho pi host: ignoring a line that is not JSON: ${line.slice(0, 120)}\n`);
      return;
    }
    if (msg.type === "reply") {
      const waiter = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (!waiter) return;
      if (msg.error !== undefined) waiter.reject(new Error(msg.error));
      else waiter.resolve(msg.result);
      return;
    }
    if (msg.type === "event" || msg.type === "command" || msg.type === "route") this.bind();
    this.onRequest?.(msg);
  }

  /** Calls are served for the session of the latest event or command; earlier ones wait. */
  bind() {
    if (this.bound) return;
    this.bound = true;
    for (const send of this.queued.splice(0)) send();
  }

  /** Calls rho; resolves with the reply's result. `now`: a call rho serves without a session
   * (a sign-in's), sent even before the first event. */
  call(method, params = {}, { now = false } = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const send = () => this.write({ type: "call", id, method, params });
      if (this.bound || now) send();
      else this.queued.push(send);
    });
  }

  /** Calls rho and waits, blocking, for the answer rho writes to the file the call names in
   * `params.file` (for pi's synchronous API: registry reads, setup appends). The call is
   * written to stdout at once and rho serves it while node waits; the line reply that also
   * comes is ignored. Returns the file's JSON; throws when none came within `waitMs`. */
  callSync(method, params, waitMs) {
    const file = join(tmpdir(), `rho-${method}-${process.pid}-${this.nextId}.json`);
    this.call(method, { ...params, file }).catch(() => {});
    const tick = new Int32Array(new SharedArrayBuffer(4));
    const deadline = Date.now() + waitMs;
    while (!existsSync(file) && Date.now() < deadline) Atomics.wait(tick, 0, 0, 1);
    try {
      return JSON.parse(readFileSync(file, "utf8"));
    } finally {
      rmSync(file, { force: true });
    }
  }

  result(id, result) {
    this.write({ type: "result", id, result: result ?? null });
  }

  error(id, error) {
    this.write({ type: "result", id, error: String(error) });
  }

  update(id, partial) {
    this.write({ type: "tool_update", id, partial });
  }
}
