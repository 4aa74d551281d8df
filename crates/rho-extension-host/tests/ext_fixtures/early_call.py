"""Calls rho right after registering, before any event (CM-9 / EXT-22), writes rho's reply
to the file named by argv[1], then exits."""
import json
import sys

sys.stdin.readline()  # hello
sys.stdout.write(json.dumps({"type": "register", "name": "early", "events": ["input"]}) + "\n")
sys.stdout.write(json.dumps({"type": "call", "id": 1, "method": "send_message",
                             "params": {"message": {"customType": "x", "content": "too early"}}}) + "\n")
sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "reply" and msg.get("id") == 1:
        with open(sys.argv[1], "w") as out:
            out.write(json.dumps(msg))
        break
