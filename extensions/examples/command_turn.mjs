// A command that sends a custom message and triggers a turn: `/ask why` asks the model.
import { Extension } from "../js/rho-extension.mjs";

const ext = new Extension("ask");
ext.command("ask", "ask the model a question", async (args) => {
  await ext.sendMessage({ customType: "question", content: `question: ${args}` }, { triggerTurn: true });
});
ext.run();
