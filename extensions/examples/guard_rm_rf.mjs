// A tool_call guard: blocks any bash command containing `rm -rf`.
import { Extension } from "../js/rho-extension.mjs";

const ext = new Extension("guard");
ext.on("tool_call", (event) => {
  const command = String(event.input?.command ?? "");
  if (event.toolName === "bash" && command.includes("rm -rf")) {
    return { block: true, reason: "Blocked by guard: rm -rf is not allowed" };
  }
  return undefined;
});
ext.run();
