// `ctx.ui.theme` outside the terminal: pi's own theme module, the one pi's RPC and print modes
// style an extension's text with (statuses, widgets and notices then carry the same colour
// codes as under pi). Loaded on first use only: most extensions never style text.
import { createRequire } from "node:module";
import { join } from "node:path";

const MODULE = "node_modules/@earendil-works/pi-coding-agent/dist/modes/interactive/theme/theme.js";
let loaded;

/** pi's initialised theme, or `fallback` when pi's packages lack it. */
export function piTheme(packagesDir, fallback) {
  if (loaded === undefined) {
    try {
      const mod = createRequire(import.meta.url)(join(packagesDir, MODULE));
      mod.initTheme(undefined, false);
      loaded = mod.theme;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? fallback;
}
