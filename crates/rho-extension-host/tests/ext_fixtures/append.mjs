// Test fixture: appends the `suffix` flag to every input.
import { Extension } from "../../../../extensions/js/rho-extension.mjs";

const ext = new Extension("append");
ext.on("input", (event) => ({ action: "transform", text: event.text + ext.hello.flags.suffix }));
ext.run();
