// pi.registerProvider: the provider's models go to rho with the registration; when the
// provider streams replies itself (`streamSimple`), rho sends `stream` requests and the host
// forwards the provider's events as `stream_event`s.

/** What rho keeps of a provider config: the models.json fields, no functions. */
function plain(config) {
  const { baseUrl, apiKey, api, headers, authHeader, models } = config ?? {};
  return JSON.parse(JSON.stringify({ baseUrl, apiKey, api, headers, authHeader, models }));
}

export function registerProvider(reg, ext, name, config) {
  if (reg.registered) return reg.unsupported(ext, `pi.registerProvider("${name}") after loading`, "rho reads providers when extensions start");
  if (config?.oauth) reg.unsupported(ext, `the OAuth login of provider "${name}"`, "rho takes its key from models.json, auth.json or the environment");
  reg.providers.set(name, { ext, config: config ?? {} });
}

export function providerSpecs(reg) {
  return [...reg.providers].map(([name, { config }]) => ({ name, config: plain(config), streams: typeof config.streamSimple === "function" }));
}

/** pi-ai's transcript form: the system prompt and tools as a leading system message. */
function transcript(context) {
  const { systemPrompt, tools, messages = [] } = context ?? {};
  const hasTools = Array.isArray(tools) && tools.length > 0;
  if (!systemPrompt && !hasTools) return { messages };
  const head = { role: "system", content: systemPrompt ?? "", ...(hasTools ? { toolsAdded: tools } : {}), timestamp: 0 };
  return { messages: [head, ...messages] };
}

/** Runs one `stream` request; resolves with the final assistant message. */
export async function runStream(reg, wire, msg, signal) {
  const entry = reg.providers.get(msg.provider);
  if (!entry?.config.streamSimple) throw new Error(`no pi provider ${msg.provider} that streams`);
  const o = msg.options ?? {};
  const options = { apiKey: o.apiKey ?? undefined, maxTokens: o.maxTokens ?? undefined, reasoning: o.reasoning ?? undefined, signal };
  let final = null;
  for await (const event of entry.config.streamSimple(msg.model, transcript(msg.context), options)) {
    wire.write({ type: "stream_event", id: msg.id, event });
    if (event.type === "done") final = event.message;
    if (event.type === "error") final = event.error;
  }
  return final;
}
