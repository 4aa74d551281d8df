"""A tool_call guard: blocks any bash command containing `rm -rf`."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
from rho_extension import Extension

ext = Extension("guard")


@ext.on("tool_call")
def guard(event):
    command = str(event.get("input", {}).get("command", ""))
    if event["toolName"] == "bash" and "rm -rf" in command:
        return {"block": True, "reason": "Blocked by guard: rm -rf is not allowed"}
    return None


ext.run()
