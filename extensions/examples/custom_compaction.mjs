// A custom compaction: supplies its own summary instead of asking the model.
import { Extension } from "../js/rho-extension.mjs";

const ext = new Extension("custom-compaction");
ext.on("session_before_compact", (event) => {
  const prep = event.preparation;
  return {
    compaction: {
      summary: `Custom summary of ${prep.messagesToSummarize.length} messages.`,
      firstKeptEntryId: prep.firstKeptEntryId,
      tokensBefore: prep.tokensBefore,
      details: { by: "custom_compaction.mjs" },
    },
  };
});
ext.run();
