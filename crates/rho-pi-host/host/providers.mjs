// pi.registerProvider: the provider's models go to rho with the registration; when the
// provider streams replies itself (`streamSimple`), rho sends `stream` requests and the host
// forwards the provider's events as `stream_event`s. A provider with `oauth` is listed by
// /login: rho sends `oauth_login` (the callbacks become `oauth_notify` / `oauth_prompt` calls
// naming the request), `oauth_refresh` and `oauth_api_key`.

import { providerObjectConfig } from "./provider_object.mjs";

/** What rho keeps of a provider config: the models.json fields, no functions. */
function plain(config) {
  const { baseUrl, apiKey, api, headers, authHeader, models } = config ?? {};
  return JSON.parse(JSON.stringify({ baseUrl, apiKey, api, headers, authHeader, models }));
}

/** Tells rho of a registration made after loading; a refusal becomes a notice. Once rho took
 * it, `ctx.modelRegistry` reads rho's model list anew. */
function tell(reg, ext, what, method, params) {
  reg.wire.call(method, params).then(
    () => void (reg.modelsView = undefined),
    (e) => reg.notice(`pi extension ${ext.path}: ${what} failed: ${e.message}`),
  );
}

/** pi.registerProvider: while loading the provider goes to rho with the registration; later
 * (a handler or command) rho takes it at once with `register_provider`. */
export function registerProvider(reg, ext, name, config) {
  if (typeof name !== "string") return registerProvider(reg, ext, name?.id, providerObjectConfig(name));
  if (!config) throw new Error("Provider config is required when registering by name");
  reg.providers.set(name, { ext, config });
  if (!reg.registered) return;
  tell(reg, ext, `registerProvider("${name}")`, "register_provider", { provider: providerSpec(name, config) });
}

/** pi.unregisterProvider: the provider's models go; the ones it replaced come back. */
export function unregisterProvider(reg, ext, name) {
  reg.providers.delete(name);
  if (!reg.registered) return;
  tell(reg, ext, `unregisterProvider("${name}")`, "unregister_provider", { name });
}

function providerSpec(name, config) {
  return {
    name,
    config: plain(config),
    streams: typeof config.streamSimple === "function",
    refreshes: typeof config.refreshModels === "function",
    ...(config.oauth ? { oauth: { name: String(config.oauth.name ?? name) } } : {}),
  };
}

export function providerSpecs(reg) {
  return [...reg.providers].map(([name, { config }]) => providerSpec(name, config));
}

function oauthOf(reg, provider) {
  const entry = reg.providers.get(provider);
  if (!entry?.config.oauth) throw new Error(`no pi provider ${provider} with an OAuth sign-in`);
  return { ext: entry.ext, oauth: entry.config.oauth };
}

/** pi's OAuthLoginCallbacks over rho's `oauth_notify` / `oauth_prompt` calls. */
function loginCallbacks(wire, request, signal) {
  const notify = (notice) => {
    wire.call("oauth_notify", { request, notice }, { now: true }).catch(() => {});
  };
  const prompt = (p) => wire.call("oauth_prompt", { request, prompt: p }, { now: true });
  return {
    onAuth: ({ url, instructions }) => notify({ type: "auth_url", url, instructions }),
    onDeviceCode: ({ userCode, verificationUri }) => notify({ type: "device_code", userCode, verificationUri }),
    onProgress: (message) => notify({ type: "progress", message: String(message) }),
    onPrompt: ({ message, placeholder }) => prompt({ type: "text", message, placeholder }),
    onManualCodeInput: () => prompt({ type: "manual_code", message: "Paste the authorization code" }),
    onSelect: ({ message, options }) => prompt({ type: "select", message, options }),
    signal,
  };
}

/** Runs one `oauth_login` request: the credential in pi's auth.json shape. */
export async function runOAuthLogin(reg, wire, msg, signal) {
  const { oauth } = oauthOf(reg, msg.provider);
  const credentials = await oauth.login(loginCallbacks(wire, msg.id, signal));
  return { ...credentials, type: "oauth" };
}

/** Runs one `oauth_refresh` request: the refreshed credential. */
export async function runOAuthRefresh(reg, msg, signal) {
  const { oauth } = oauthOf(reg, msg.provider);
  return { ...(await oauth.refreshToken(msg.credentials, signal)), type: "oauth" };
}

/** Runs one `oauth_api_key` request: the key a request sends. */
export async function runOAuthApiKey(reg, msg) {
  const { oauth } = oauthOf(reg, msg.provider);
  return await oauth.getApiKey(msg.credentials);
}

/** Runs one `refresh_models` request: the provider's `refreshModels` with pi 1.6's context
 * (`publish` takes `{persist}`, written by rho once the refresh returns); answers the models
 * it returned and what it published. */
export async function runRefreshModels(reg, msg, signal) {
  const entry = reg.providers.get(msg.provider);
  if (typeof entry?.config.refreshModels !== "function") throw new Error(`no pi provider ${msg.provider} with refreshModels`);
  const published = {};
  const publish = async (publication) => {
    if (signal.aborted) return false;
    if (publication?.persist === null) Object.assign(published, { persist: undefined, forget: true });
    else if (publication?.persist !== undefined) Object.assign(published, { persist: structuredClone(publication.persist), forget: false });
    publication?.update?.();
    return true;
  };
  const context = { credential: msg.credential, stored: msg.stored, publish, allowNetwork: msg.allowNetwork === true, force: undefined, signal, baseUrl: entry.config.baseUrl };
  const models = await entry.config.refreshModels(context);
  // rho's model list changes with the answer: ctx.modelRegistry reads it anew.
  reg.modelsView = undefined;
  return { models: Array.isArray(models) ? JSON.parse(JSON.stringify(models)) : null, ...published };
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

// pi.registerVirtualModel: rho lists the model with the registration (`virtualModels`), or at
// once with `register_virtual_model` when registered later, and sends a `route` request
// before every request made with it selected; the router's answer names the physical model,
// which rho checks, clamps and sends the request to.

const virtualKey = (provider, id) => `${provider}/${id}`;

export function registerVirtualModel(reg, ext, definition) {
  const { provider, id } = definition ?? {};
  if (!String(provider ?? "").trim() || !String(id ?? "").trim()) throw new Error("Virtual model provider and id must not be empty.");
  if (typeof definition.route !== "function") throw new Error(`Virtual model ${provider}/${id} has no route function.`);
  reg.virtualModels.set(virtualKey(provider, id), { ext, definition });
  if (!reg.registered) return;
  tell(reg, ext, `registerVirtualModel("${provider}/${id}")`, "register_virtual_model", { model: virtualModelSpec(definition) });
}

export function unregisterVirtualModel(reg, ext, provider, id) {
  reg.virtualModels.delete(virtualKey(provider, id));
  if (!reg.registered) return;
  tell(reg, ext, `unregisterVirtualModel("${provider}/${id}")`, "unregister_virtual_model", { provider, id });
}

function virtualModelSpec(d) {
  const { provider, id, name, thinkingLevels, contextWindow, maxTokens, input } = d;
  return JSON.parse(JSON.stringify({ provider, id, name: name ?? id, thinkingLevels, contextWindow, maxTokens, input }));
}

export function virtualModelSpecs(reg) {
  return [...reg.virtualModels.values()].map(({ definition }) => virtualModelSpec(definition));
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
