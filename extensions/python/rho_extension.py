"""Write rho extensions in Python (no dependencies). Protocol: docs/extensions.md.

    from rho_extension import Extension
    ext = Extension("shout")

    @ext.on("input")
    def shout(event):
        return {"action": "transform", "text": event["text"].upper()}

    ext.run()

One handler per event type (a second ``on`` for the same type replaces the first). Handlers
return the result object of the event (see the EXT-3 table) or ``None``; raising an exception
reports an ``extension_error`` (for ``tool_call`` it blocks the tool). ``print`` goes to rho's
stderr: stdout belongs to the protocol.
"""

import json
import queue
import sys
import threading

PROTOCOL_VERSION = 1


class RhoError(Exception):
    """A call into rho failed; the message says why."""


class ToolContext:
    """What a running tool gets: its call id, progress updates and the cancel flag."""

    def __init__(self, ext, request_id, tool_call_id):
        self._ext = ext
        self._id = request_id
        self.tool_call_id = tool_call_id

    @property
    def cancelled(self):
        """True once rho aborted this call; long tools should check it and stop."""
        return self._id in self._ext._cancelled

    def update(self, content, details=None):
        """Streams a cumulative partial result (a string or a list of content blocks)."""
        partial = {"content": _blocks(content)}
        if details is not None:
            partial["details"] = details
        self._ext._write({"type": "tool_update", "id": self._id, "partial": partial})


def _blocks(content):
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content)


def _tool_result(value):
    if isinstance(value, dict) and "content" in value:
        out = dict(value)
        out["content"] = _blocks(value["content"])
        return out
    return {"content": _blocks("" if value is None else value)}


class Extension:
    """An extension: register handlers, commands and tools, then call ``run()``."""

    def __init__(self, name):
        self.name = name
        self.hello = {}
        self._handlers = {}
        self._commands = {}
        self._tools = {}
        self._flags = []
        self._shortcuts = {}
        self._queue = queue.Queue()
        self._replies = {}
        self._cancelled = set()
        self._next_call = 0
        self._lock = threading.Lock()
        self._out = sys.stdout
        sys.stdout = sys.stderr

    # Registration -------------------------------------------------------------------------

    def on(self, event):
        """Decorator: ``fn(event) -> result | None`` handles events of type ``event``."""
        def register(fn):
            self._handlers[event] = fn
            return fn
        return register

    def command(self, name, description=None):
        """Decorator: ``fn(args)`` runs ``/name args``."""
        def register(fn):
            self._commands[name] = (description, fn)
            return fn
        return register

    def tool(self, name, description, parameters=None, label=None):
        """Decorator: ``fn(args, ctx) -> str | blocks | {content, details?, isError?}``."""
        def register(fn):
            spec = {"name": name, "label": label or name, "description": description,
                    "parameters": parameters or {"type": "object", "properties": {}}}
            self._tools[name] = (spec, fn)
            return fn
        return register

    def flag(self, name, description=None, type="boolean", default=None):
        """Declares ``--name``; its value is ``ext.hello["flags"].get(name)``."""
        self._flags.append({"name": name, "description": description, "type": type,
                            "default": default})

    def shortcut(self, key, description=None):
        """Decorator: ``fn()`` runs when the user presses ``key``."""
        def register(fn):
            self._shortcuts[key] = (description, fn)
            return fn
        return register

    # Calls into rho -------------------------------------------------------------------------

    def call(self, method, **params):
        """Calls rho and waits for the reply; requests rho sends meanwhile are served."""
        with self._lock:
            self._next_call += 1
            cid = self._next_call
        self._write({"type": "call", "id": cid, "method": method, "params": params})
        while cid not in self._replies:
            msg = self._next()
            if msg.get("type") == "reply":
                self._replies[msg.get("id")] = msg
            else:
                self._dispatch(msg)
        reply = self._replies.pop(cid)
        if reply.get("error") is not None:
            raise RhoError(reply["error"])
        return reply.get("result")

    def send_message(self, custom_type, content, display=True, details=None,
                     trigger_turn=False, deliver_as=None):
        """Sends a custom message; ``deliver_as`` is "steer", "followUp" or "nextTurn"."""
        params = {"message": {"customType": custom_type, "content": content,
                              "display": display, "details": details},
                  "triggerTurn": trigger_turn}
        if deliver_as:
            params["deliverAs"] = deliver_as
        return self.call("send_message", **params)

    def send_user_message(self, text, deliver_as=None):
        """Sends a user message as if typed."""
        params = {"text": text}
        if deliver_as:
            params["deliverAs"] = deliver_as
        return self.call("send_user_message", **params)

    def append_entry(self, custom_type, data=None):
        """Adds a non-LLM custom entry to the session file."""
        return self.call("append_entry", customType=custom_type, data=data)

    def set_session_name(self, name):
        """Names the session."""
        return self.call("set_session_name", name=name)

    def get_state(self):
        """``{cwd, model, isIdle, hasPendingMessages, systemPrompt, hasUI}``."""
        return self.call("get_state")

    def exec(self, command, args=(), cwd=None, timeout_ms=None):
        """Runs a program on rho's side: ``{stdout, stderr, code, killed}``."""
        return self.call("exec", command=command, args=list(args), cwd=cwd, timeoutMs=timeout_ms)

    def select(self, title, options):
        return self.call("ui_select", title=title, options=list(options))

    def confirm(self, title, message):
        return self.call("ui_confirm", title=title, message=message)

    def input(self, title, placeholder=None):
        return self.call("ui_input", title=title, placeholder=placeholder)

    def editor(self, title, prefill=None):
        return self.call("ui_editor", title=title, prefill=prefill)

    def set_editor_text(self, text):
        return self.call("ui_set_editor_text", text=text)

    def notify(self, message, kind="info"):
        return self.call("ui_notify", message=message, kind=kind)

    def set_status(self, key, text=None):
        return self.call("ui_status", key=key, text=text)

    def set_widget(self, key, lines=None):
        return self.call("ui_widget", key=key, lines=lines)

    # The loop -------------------------------------------------------------------------------

    def run(self):
        """Handshakes, then serves rho's requests until stdin closes."""
        threading.Thread(target=self._read, daemon=True).start()
        self.hello = self._next()
        if self.hello.get("type") != "hello":
            sys.exit("rho_extension: expected hello first")
        self._write({
            "type": "register", "name": self.name, "events": list(self._handlers),
            "commands": [{"name": n, "description": d} for n, (d, _) in self._commands.items()],
            "tools": [spec for spec, _ in self._tools.values()],
            "flags": self._flags,
            "shortcuts": [{"key": k, "description": d} for k, (d, _) in self._shortcuts.items()],
        })
        while True:
            self._dispatch(self._next())

    def _read(self):
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                print("rho_extension: ignoring a line that is not JSON", file=sys.stderr)
                continue
            if msg.get("type") == "cancel":
                self._cancelled.add(msg.get("id"))
            else:
                self._queue.put(msg)
        self._queue.put(None)

    def _next(self):
        msg = self._queue.get()
        if msg is None:
            sys.exit(0)
        return msg

    def _write(self, msg):
        data = json.dumps(msg, separators=(",", ":")) + "\n"
        with self._lock:
            self._out.write(data)
            self._out.flush()

    def _dispatch(self, msg):
        kind, rid = msg.get("type"), msg.get("id")
        try:
            if kind == "event":
                event = msg["event"]
                fn = self._handlers.get(event.get("type"))
                result = fn(event) if fn else None
            elif kind == "command":
                self._commands[msg["name"]][1](msg.get("args", ""))
                result = None
            elif kind == "tool":
                spec_fn = self._tools[msg["name"]][1]
                ctx = ToolContext(self, rid, msg.get("toolCallId"))
                result = _tool_result(spec_fn(msg.get("args") or {}, ctx))
                self._cancelled.discard(rid)
            elif kind == "shortcut":
                self._shortcuts[msg["key"]][1]()
                result = None
            else:
                return
        except Exception as e:  # reported to rho as the handler's error
            self._write({"type": "result", "id": rid, "error": str(e) or type(e).__name__})
            return
        self._write({"type": "result", "id": rid, "result": result})
