// pi.registerMcpServer / unregisterMcpServer / getMcpServers. The host keeps who registered
// which name (one host runs every pi extension) and throws, with pi's texts, where another
// extension's name is taken. rho validates the config with its mcp.json parser and owns the
// connections: servers registered while loading go in the registration and connect when the
// session starts; later ones go to rho at once (`register_mcp_server`), and once rho took the
// change every `mcp_servers_change` handler hears the servers registered after it.
import { dispatchEvent } from "./events.mjs";

const namespace = (name) => `mcp__${String(name).replace(/-/g, "_")}`;

/** `{ name, config, extensionPath }` copies, in registration order (pi's `getMcpServers()`). */
export function listMcpServers(reg) {
  return [...reg.mcpServers.values()].map(({ name, config, ext }) => ({ name, config: structuredClone(config), extensionPath: ext.path }));
}

export function registerMcpServer(reg, ext, name, config) {
  const owner = reg.mcpServers.get(name)?.ext.path;
  if (owner !== undefined && owner !== ext.path) throw new Error(`MCP server "${name}" is already registered by extension "${owner}"`);
  const clash = [...reg.mcpServers.keys()].find((other) => other !== name && namespace(other) === namespace(name));
  if (clash !== undefined) throw new Error(`MCP server "${name}" conflicts with registered server "${clash}"`);
  let copy;
  try {
    copy = structuredClone(config);
  } catch {
    copy = config;
  }
  const previous = reg.mcpServers.get(name);
  reg.mcpServers.set(name, { name, config: copy, ext });
  if (!reg.registered) return;
  const server = { name, config: copy, extensionPath: ext.path };
  change(reg, ext, "register_mcp_server", { server }, () => {
    // rho refused it (an invalid config): the earlier registration stays.
    if (previous) reg.mcpServers.set(name, previous);
    else reg.mcpServers.delete(name);
  });
}

export function unregisterMcpServer(reg, ext, name) {
  if (reg.mcpServers.get(name)?.ext.path !== ext.path) return;
  reg.mcpServers.delete(name);
  if (!reg.registered) return;
  change(reg, ext, "unregister_mcp_server", { name, extensionPath: ext.path });
}

/** Sends one change to rho; once taken, `mcp_servers_change` goes to the handlers. rho names
 * a registration nothing connects (its MCP support off and no extension handling the event) in
 * `unconnected`. A refusal (an invalid config) is the extension's error, in pi's words. */
function change(reg, ext, method, params, undo) {
  reg.wire.call(method, params).then(
    (answer) => {
      if (answer?.unconnected) reg.notice(answer.unconnected);
      const event = { type: "mcp_servers_change", servers: listMcpServers(reg) };
      dispatchEvent(reg, event).catch((e) => reg.notice(e.message));
    },
    (e) => {
      undo?.();
      reg.notice(e.message);
    },
  );
}
