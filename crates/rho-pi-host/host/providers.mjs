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

// pi.registerVirtualModel: rho lists the model with the registration (`virtualModels`) and
// sends a `route` request before every request made with it selected; the router's answer
// names the physical model, which rho checks, clamps and sends the request to.

const virtualKey = (provider, id) => `${provider}/${id}`;

export function registerVirtualModel(reg, ext, definition) {
  const { provider, id } = definition ?? {};
  if (!String(provider ?? "").trim() || !String(id ?? "").trim()) throw new Error("Virtual model provider and id must not be empty.");
  if (typeof definition.route !== "function") throw new Error(`Virtual model ${provider}/${id} has no route function.`);
  if (reg.registered) return reg.unsupported(ext, `pi.registerVirtualModel("${provider}/${id}") after loading`, "rho reads virtual models when extensions start");
  reg.virtualModels.set(virtualKey(provider, id), { ext, definition });
}

export function unregisterVirtualModel(reg, ext, provider, id) {
  if (reg.registered) return reg.unsupported(ext, `pi.unregisterVirtualModel("${provider}/${id}") after loading`, "rho reads virtual models when extensions start");
  reg.virtualModels.delete(virtualKey(provider, id));
}

export function virtualModelSpecs(reg) {
  return [...reg.virtualModels.values()].map(({ definition: d }) => {
    const { provider, id, name, thinkingLevels, contextWindow, maxTokens, input } = d;
    return JSON.parse(JSON.stringify({ provider, id, name: name ?? id, thinkingLevels, contextWindow, maxTokens, input }));
  });
}

/** Runs one `route` request: the router's choice as `{provider, id, thinkingLevel}`, with the
 * state it returned when that is new (pi stores any object other than `request.state`). */
export async function runRoute(reg, msg, signal, context) {
  const entry = reg.virtualModels.get(virtualKey(msg.provider, msg.modelId));
  if (!entry) throw new Error(`Virtual model ${msg.provider}/${msg.modelId} is not registered.`);
  const request = { ...msg.request, signal };
  const route = await entry.definition.route(request, context(entry.ext));
  const model = route?.model;
  if (!model?.provider || !model?.id) throw new Error(`Virtual model ${msg.provider}/${msg.modelId} routed to no model.`);
  const stateChanged = route.state !== undefined && route.state !== request.state;
  return { provider: model.provider, id: model.id, thinkingLevel: route.thinkingLevel, state: stateChanged ? route.state : undefined, stateChanged };
}
