"""A command that sends a custom message and triggers a turn: `/ask why` asks the model."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
from rho_extension import Extension

ext = Extension("ask")


@ext.command("ask", "ask the model a question")
def ask(args):
    ext.send_message("question", "question: " + args, trigger_turn=True)


ext.run()
