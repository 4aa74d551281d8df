"""A custom compaction: supplies its own summary instead of asking the model."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
from rho_extension import Extension

ext = Extension("custom-compaction")


@ext.on("session_before_compact")
def compact(event):
    prep = event["preparation"]
    count = len(prep["messagesToSummarize"])
    return {"compaction": {
        "summary": f"Custom summary of {count} messages.",
        "firstKeptEntryId": prep["firstKeptEntryId"],
        "tokensBefore": prep["tokensBefore"],
        "details": {"by": "custom_compaction.py"},
    }}


ext.run()
