"""A tool the model can call: counts the words of `text`, streaming one progress update."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
from rho_extension import Extension

ext = Extension("word-count")

PARAMS = {
    "type": "object",
    "properties": {"text": {"type": "string", "description": "text to count"}},
    "required": ["text"],
}


@ext.tool("word_count", "Counts the words in a text.", PARAMS, label="Word count")
def word_count(args, ctx):
    ctx.update("counting…")
    words = len(args["text"].split())
    return {"content": f"{words} words", "details": {"words": words}}


ext.run()
