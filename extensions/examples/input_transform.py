"""Input transformer: `shout: x` is sent as `X`, `quiet ...` is consumed, anything else
continues unchanged."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
from rho_extension import Extension

ext = Extension("input-transform")


@ext.on("input")
def transform(event):
    text = event["text"]
    if text.startswith("shout: "):
        return {"action": "transform", "text": text[len("shout: "):].upper()}
    if text.startswith("quiet"):
        return {"action": "handled"}
    return {"action": "continue"}


ext.run()
