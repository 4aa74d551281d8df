"""Test fixture without the library: registers for `input` and then misbehaves as the first
argument says: `crash` exits on the first event, `hang` never answers, `garbage` answers with
a line that is not JSON, `bad-hello` answers the handshake with garbage, `late-hang`
registers the command /stuck from its first event and never answers it."""
import json, sys, time

mode = sys.argv[1]
hello = sys.stdin.readline()
if mode == "bad-hello":
    print("this is not a register line", flush=True)
    sys.exit(0)
print(json.dumps({"type": "register", "name": mode, "events": ["input"]}), flush=True)
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") != "event":
        continue
    if mode == "crash":
        print("misbehave: crashing on purpose", file=sys.stderr, flush=True)
        sys.exit(3)
    if mode == "garbage":
        print("%%% definitely not json %%%", flush=True)
    if mode == "late-hang":
        call = {"type": "call", "id": 1, "method": "register_command", "params": {"command": {"name": "stuck"}}}
        print(json.dumps(call), flush=True)
        print(json.dumps({"type": "result", "id": msg["id"], "result": None}), flush=True)
    # hang: read on, never answer
