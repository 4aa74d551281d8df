// Input transformer: `shout: x` is sent as `X`, `quiet ...` is consumed, the rest continues.
import { Extension } from "../js/rho-extension.mjs";

const ext = new Extension("input-transform");
ext.on("input", (event) => {
  if (event.text.startsWith("shout: ")) {
    return { action: "transform", text: event.text.slice("shout: ".length).toUpperCase() };
  }
  if (event.text.startsWith("quiet")) return { action: "handled" };
  return { action: "continue" };
});
ext.run();
