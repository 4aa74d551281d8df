"""Test fixture: handles every event type, logs `type keys` lines to the file in flag `log`,
and returns one result of each kind; `/probe-calls` exercises the calls into rho."""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "extensions", "python"))
from rho_extension import Extension

ext = Extension("probe")
EVENTS = [
    "resources_discover", "session_start", "session_before_switch", "session_before_fork",
    "session_before_compact", "session_compact", "session_shutdown", "context",
    "before_agent_start", "agent_start", "agent_end", "turn_start", "turn_end",
    "message_start", "message_update", "message_end", "tool_execution_start",
    "tool_execution_update", "tool_execution_end", "model_select", "thinking_level_select",
    "user_bash", "input", "tool_call", "tool_result", "session_before_tree", "session_tree",
]


def log(line):
    with open(ext.hello["flags"]["log"], "a") as f:
        f.write(line + "\n")


def handle(event):
    log(event["type"] + " " + ",".join(sorted(k for k in event if k != "type")))
    kind = event["type"]
    if kind == "before_agent_start":
        return {"systemPrompt": event["systemPrompt"] + " +probe",
                "message": {"customType": "probe", "content": "injected by probe", "display": True}}
    if kind == "context":
        messages = event["messages"]
        for m in messages:
            if m.get("role") == "user" and isinstance(m.get("content"), list):
                for block in m["content"]:
                    if block.get("type") == "text":
                        block["text"] = block["text"].replace("secret", "[redacted]")
        return {"messages": messages}
    if kind == "tool_result":
        return {"content": [{"type": "text", "text": "patched by probe"}], "details": {"probe": True}}
    if kind == "session_before_switch":
        return {"cancel": True}
    if kind == "session_before_tree":
        return {"summary": {"summary": "from probe", "details": event["preparation"]["targetId"]}}
    if kind == "user_bash":
        return {"result": {"output": "from probe", "exitCode": 0}}
    return None


for name in EVENTS:
    ext.on(name)(handle)


@ext.command("probe-calls", "exercise calls into rho")
def probe_calls(args):
    ext.set_session_name("named by probe")
    ext.append_entry("probe-data", {"args": args})
    state = ext.get_state()
    ran = ext.exec("echo", ["hi from exec"])
    ext.notify("hello")
    ext.send_message("probe-state", json.dumps({"isIdle": state["isIdle"], "cwd": state["cwd"],
                                                "exec": ran["stdout"].strip(),
                                                "confirm": ext.confirm("t", "m")}))


@ext.tool("probe_tool", "A tool that streams one update.",
          {"type": "object", "properties": {"n": {"type": "number"}}})
def probe_tool(args, ctx):
    ctx.update("half way")
    return "tool says " + str(args.get("n"))


ext.run()
