"""Test fixture: appends the `suffix` flag to every input."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "extensions", "python"))
from rho_extension import Extension

ext = Extension("append")


@ext.on("input")
def append(event):
    return {"action": "transform", "text": event["text"] + ext.hello["flags"]["suffix"]}


ext.run()
