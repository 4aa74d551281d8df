// A tool the model can call: counts the words of `text`, streaming one progress update.
// `slow: true` makes it wait until aborted (shows cancellation).
import { Extension } from "../js/rho-extension.mjs";

const ext = new Extension("word-count");
ext.tool(
  {
    name: "word_count",
    label: "Word count",
    description: "Counts the words in a text.",
    parameters: {
      type: "object",
      properties: { text: { type: "string" }, slow: { type: "boolean" } },
      required: ["text"],
    },
  },
  async (args, ctx) => {
    ctx.update("counting…");
    if (args.slow) {
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
      return { content: "aborted", isError: true };
    }
    const words = args.text.split(/\s+/).filter(Boolean).length;
    return { content: `${words} words`, details: { words } };
  },
);
ext.run();
