// pi.registerProvider(provider): pi-ai 1.6's `Provider` object (`createProvider`) as the
// name-and-config registration rho already takes. Its models are the provider's
// `getModels()`, its replies stream through its own `streamSimple` in the host, with auth
// resolved the way pi-ai's `Models` does before dispatch: a stored key (rho's credential
// for the provider) or ambient sources through `auth.apiKey.resolve`; an `auth.oauth` sign-in
// becomes the config's `oauth` (login, refresh, key).
import { access } from "node:fs/promises";
import { homedir } from "node:os";

/** The models.json `apiKey` of a provider whose key its own `auth.apiKey.resolve` finds: rho
 * passes it when it has no key of its own for the provider, and the host then resolves. */
const RESOLVED_BY_PROVIDER = "pi-provider-auth";

/** pi-ai's default `AuthContext`: the process environment and the file system. */
const authContext = {
  async env(name) {
    const value = process.env[name];
    return typeof value === "string" && value.trim().length > 0 ? value : undefined;
  },
  async fileExists(path) {
    try {
      await access(path.startsWith("~") ? homedir() + path.slice(1) : path);
      return true;
    } catch {
      return false;
    }
  },
};

/** What `toAuth` made of each sign-in, by the key rho was handed for it (the key itself, or a
 * stand-in when the sign-in authenticates by headers only): rho passes that key back with
 * each request, and the request gets the whole auth (key, headers, base URL). */
const signedIn = new Map();

/** The request auth of `provider` for a call rho made with `apiKey`: a sign-in's as `toAuth`
 * made it; otherwise pi-ai's api-key resolution of rho's stored key (or none, for ambient
 * sources). */
async function requestAuth(provider, apiKey, signal) {
  if (apiKey && signedIn.has(apiKey)) return signedIn.get(apiKey);
  const stored = apiKey && apiKey !== RESOLVED_BY_PROVIDER ? apiKey : undefined;
  const byKey = provider.auth.apiKey;
  if (!byKey) return stored ? { apiKey: stored } : undefined;
  const credential = stored ? { type: "api_key", key: stored } : undefined;
  const resolved = await byKey.resolve({ ctx: authContext, credential, signal: signal ?? new AbortController().signal });
  return resolved?.auth;
}

/** `base` with `over` laid on top, header names compared as HTTP compares them. */
function mergeHeaders(base, over) {
  const out = { ...base };
  for (const [name, value] of Object.entries(over ?? {})) {
    for (const key of Object.keys(out)) if (key.toLowerCase() === name.toLowerCase()) delete out[key];
    out[name] = value;
  }
  return out;
}

async function* streamWithAuth(provider, registeredBaseUrl, model, context, options) {
  const auth = await requestAuth(provider, options.apiKey, options.signal);
  if (!auth) throw new Error(`No API key found for ${provider.id}. Use /login or set the provider's key.`);
  // The provider's own model (its per-model base URL, `compat` and the rest), with the user's
  // models.json base URL when it overrides the registered one, and the sign-in's over both.
  const own = provider.getModels?.().find((m) => m.id === model.id) ?? model;
  const userBaseUrl = model.baseUrl && model.baseUrl !== registeredBaseUrl ? model.baseUrl : undefined;
  const baseUrl = auth.baseUrl ?? userBaseUrl ?? own.baseUrl ?? model.baseUrl;
  const routed = { ...own, baseUrl, headers: mergeHeaders(own.headers, model.headers) };
  // As pi-ai's Models: the request's own headers win over the auth's.
  const headers = mergeHeaders(auth.headers, options.headers);
  yield* provider.streamSimple(routed, context, { ...options, apiKey: auth.apiKey, headers });
}

/** pi-ai's `AuthInteraction` over the pi 0.7x callbacks rho's sign-in hands a provider. */
function interaction(callbacks) {
  return {
    signal: callbacks.signal,
    notify(event) {
      if (event.type === "auth_url") callbacks.onAuth({ url: event.url, instructions: event.instructions });
      else if (event.type === "device_code") callbacks.onDeviceCode({ userCode: event.userCode, verificationUri: event.verificationUri });
      else callbacks.onProgress(event.message ?? "");
    },
    prompt(p) {
      if (p.type === "select") return callbacks.onSelect({ message: p.message, options: p.options });
      if (p.type === "manual_code") return callbacks.onManualCodeInput();
      // rho's dialogs have no masked entry: a secret is asked as text.
      return callbacks.onPrompt({ message: p.message, placeholder: p.placeholder });
    },
  };
}

function oauthConfig(id, oauth) {
  return {
    name: oauth.name,
    login: (callbacks) => oauth.login(interaction(callbacks)),
    refreshToken: (credential, signal) => oauth.refresh(credential, signal ?? AbortSignal.timeout(15_000)),
    getApiKey: async (credential) => {
      const auth = (await oauth.toAuth(credential)) ?? {};
      const key = auth.apiKey ?? `pi-provider-sign-in:${id}`;
      signedIn.set(key, auth);
      return key;
    },
  };
}

/** The registration name and config of a pi-ai `Provider`; throws pi's errors for a broken one. */
/** The provider's `getModels()` as plain data. */
function providerModels(provider) {
  try {
    return JSON.parse(JSON.stringify(provider.getModels?.() ?? []));
  } catch {
    // pi-ai: a provider whose getModels throws has no models.
    return [];
  }
}

/** The models as registered: each model's own base URL and fields stay with the provider,
 * which streams it. */
const registered = (models) => models.map(({ provider: _owner, baseUrl: _url, ...model }) => model);

export function providerObjectConfig(provider) {
  if (typeof provider?.id !== "string" || provider.id.length === 0) throw new Error("registerProvider: a provider object needs an id");
  const auth = provider.auth ?? {};
  if (!auth.apiKey && !auth.oauth) throw new Error(`Provider ${provider.id}: auth needs apiKey or oauth`);
  if (typeof provider.streamSimple !== "function") throw new Error(`Provider ${provider.id} has no streamSimple`);
  const models = providerModels(provider);
  const baseUrl = provider.baseUrl ?? models[0]?.baseUrl;
  const config = {
    name: provider.name ?? provider.id,
    baseUrl,
    api: models[0]?.api,
    headers: provider.headers,
    models: registered(models),
    streamSimple: (model, context, options) => streamWithAuth(provider, baseUrl, model, context, options),
  };
  // pi-ai's refresh updates the provider's own list (through `context.publish`'s update);
  // what `getModels()` lists afterwards replaces the registered models. With the network,
  // the key is what the provider's own auth makes of rho's (as for a request).
  if (typeof provider.refreshModels === "function") {
    config.refreshModels = async (context) => {
      let credential = context.credential;
      if (context.allowNetwork && credential?.type === "api_key") {
        const auth = await requestAuth(provider, credential.key, context.signal);
        credential = auth?.apiKey ? { type: "api_key", key: auth.apiKey } : undefined;
      }
      await provider.refreshModels({ ...context, credential });
      return registered(providerModels(provider));
    };
  }
  if (auth.oauth) config.oauth = oauthConfig(provider.id, auth.oauth);
  else config.apiKey = RESOLVED_BY_PROVIDER;
  return config;
}
