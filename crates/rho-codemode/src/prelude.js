// Evaluated in the script's VM before the script. It keeps the host bridge in a closure (the
// script cannot call it) and builds the script's globals on top of it: tools, ALL_TOOLS, the
// discovery globals, text/image/console/exit, store/load. Values cross the bridge as JSON text.
//
// bridge("call", id, name, argsJson)     a tool call (the host answers with settle)
// bridge("global", id, name, argsJson)   a host global such as searchTools (spread arguments)
// bridge("output", kind, data, mimeType) kind "text", "console" or "image"
// bridge("done", ok, payloadJson, writesJson)
(function (bridge, toolsJson, globalsJson, storeJson, limits) {
  "use strict";
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const then = Promise.prototype.then;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const pending = new Map();
  let nextId = 1;
  let finished = false;
  // Thrown by exit() to unwind a script that already reported success.
  const EXIT = Object.freeze({});

  function done(ok, payload, writes) {
    if (finished) return;
    finished = true;
    bridge("done", ok, payload, writes);
  }

  // "Name: message" and the script's own stack frames, as V8 prints an error.
  function errorText(error) {
    const head = error.message ? String(error.name) + ": " + String(error.message) : String(error.name);
    const frames = typeof error.stack === "string"
      ? error.stack.split("\n").filter((line) => line.trim() !== "" && line.indexOf("codemode-prelude.js") < 0)
      : [];
    return [head].concat(frames).join("\n");
  }

  function format(value) {
    if (typeof value === "string") return value;
    if (value instanceof ErrorCtor) return errorText(value);
    if (typeof value === "number") return String(value);
    try {
      const json = stringify(value);
      return json === undefined ? String(value) : json;
    } catch (_) {
      return String(value);
    }
  }

  function describeError(error) {
    try {
      if (error instanceof ErrorCtor) {
        return stringify({ name: String(error.name), message: String(error.message), stack: errorText(error) });
      }
      return stringify({ message: String(format(error)) });
    } catch (_) {
      return stringify({ message: "The script threw a value that cannot be described" });
    }
  }

  function caller(kind, name, spread) {
    return function (...args) {
      return new Promise((resolve, reject) => {
        let json;
        try {
          const value = spread ? args : args[0];
          json = value === undefined ? undefined : stringify(value);
        } catch (error) {
          reject(error);
          return;
        }
        const id = nextId++;
        pending.set(id, { resolve, reject });
        bridge(kind, id, name, json);
      });
    };
  }

  // Reading a member that does not exist names the close matches instead of failing later
  // with "is not a function".
  const comparable = (name) => name.toLowerCase().replace(/[^a-z0-9]/g, "");
  function guard(target, label, names, hint) {
    return new Proxy(target, {
      get(object, property, receiver) {
        if (typeof property !== "string" || property in object || property in Object.prototype || property === "then" || property === "toJSON") {
          return Reflect.get(object, property, receiver);
        }
        const wanted = comparable(property);
        const exact = names.filter((name) => comparable(name) === wanted);
        const close = exact.length > 0 ? exact : names.filter((name) => wanted && (comparable(name).includes(wanted) || wanted.includes(comparable(name))));
        let message = label + "." + property + " does not exist.";
        if (close.length > 0) message += " Did you mean " + close.slice(0, 5).map((name) => label + "." + name).join(", ") + "?";
        else if (names.length <= 20) message += " Available: " + names.join(", ") + ".";
        if (hint) message += " " + hint;
        throw new TypeErrorCtor(message);
      },
    });
  }

  const tools = Object.create(null);
  const allTools = [];
  for (const { name, jsName, description } of parse(toolsJson)) {
    const fn = caller("call", name, false);
    if (!(jsName in tools)) {
      tools[jsName] = fn;
      allTools.push(Object.freeze({ name: jsName, description }));
    }
    if (!(name in tools)) tools[name] = fn;
  }
  Object.freeze(tools);
  Object.freeze(allTools);
  const toolsProxy = guard(tools, "tools", allTools.map((tool) => tool.name),
    "ALL_TOOLS lists every tool; searchTools(query) finds tools by topic.");

  function define(name, value) {
    Object.defineProperty(globalThis, name, { value, enumerable: true });
  }

  for (const name of parse(globalsJson)) define(name, caller("global", name, true));

  // key -> JSON text; sizes count key and JSON characters.
  const stored = new Map(Object.entries(parse(storeJson)));
  const writes = new Map();
  let storedChars = 0;
  for (const [key, json] of stored) storedChars += key.length + json.length;
  const STORE_HINT = "store() is for small state such as IDs or summaries. Show images with image(), keep large data in variables, or write it to a file with a tool.";

  function checkKey(name, key) {
    if (typeof key !== "string") throw new TypeErrorCtor(name + "() key must be a string");
  }

  define("store", function store(key, value) {
    checkKey("store", key);
    const previous = stored.has(key) ? key.length + stored.get(key).length : 0;
    if (value === undefined) {
      stored.delete(key);
      storedChars -= previous;
      writes.set(key, undefined);
      return;
    }
    let json;
    try {
      json = stringify(value);
    } catch (error) {
      throw new TypeErrorCtor("store(" + stringify(key) + ") value is not JSON-serializable: " + format(error));
    }
    if (json === undefined) throw new TypeErrorCtor("store(" + stringify(key) + ") value is not JSON-serializable");
    if (json.length > limits.storeValue) {
      throw new RangeErrorCtor("store(" + stringify(key) + ") value has " + json.length +
        " characters of JSON, more than the limit of " + limits.storeValue + ". " + STORE_HINT);
    }
    const next = storedChars - previous + key.length + json.length;
    if (next > limits.storeTotal) {
      throw new RangeErrorCtor("store is full: stored values would exceed " + limits.storeTotal +
        " characters of JSON. Delete keys with store(key, undefined). " + STORE_HINT);
    }
    stored.set(key, json);
    storedChars = next;
    writes.set(key, json);
  });

  define("load", function load(key) {
    checkKey("load", key);
    const json = stored.get(key);
    return json === undefined ? undefined : parse(json);
  });

  function writesJson() {
    const entries = [];
    for (const [key, json] of writes) entries.push(json === undefined ? [key] : [key, json]);
    return stringify(entries);
  }

  let outputChars = 0;
  let outputItems = 0;
  // Past the limits the script fails even if it catches the error: done() has reported it.
  function output(kind, data, mimeType) {
    if (finished) return;
    outputChars += data.length;
    outputItems++;
    if (outputChars > limits.outputChars || outputItems > limits.outputItems) {
      const error = new RangeErrorCtor("script output exceeded the limit of " + limits.outputChars +
        " characters or " + limits.outputItems + " text(), image(), and console calls. " +
        "Print a summary instead, or write large data to a file with a tool.");
      done(false, describeError(error));
      throw error;
    }
    bridge("output", kind, data, mimeType);
  }

  define("text", function text(value) {
    let rendered;
    try {
      rendered = value === undefined || value === null || (typeof value !== "object" && typeof value !== "function")
        ? String(value)
        : (stringify(value) ?? String(value));
    } catch (error) {
      throw new TypeErrorCtor(error instanceof ErrorCtor ? error.message : String(error));
    }
    output("text", rendered);
  });

  const IMAGE_EXPECTS = 'image expects a non-empty image URL string, an object with image_url, or an image block { type: "image", data, mimeType }';
  function imageUrl(value) {
    if (typeof value === "string") return value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new TypeErrorCtor(IMAGE_EXPECTS);
    if (value.image_url !== undefined) {
      if (typeof value.image_url !== "string") throw new TypeErrorCtor(IMAGE_EXPECTS);
      return value.image_url;
    }
    if (typeof value.type !== "string") throw new TypeErrorCtor(IMAGE_EXPECTS);
    if (value.type !== "image") throw new TypeErrorCtor('image only accepts image blocks, got "' + value.type + '"');
    if (typeof value.data !== "string" || value.data === "") throw new TypeErrorCtor("image expected image block data");
    return value.data.toLowerCase().startsWith("data:") ? value.data : "data:;base64," + value.data;
  }
  // Base64 prefixes of the formats providers take inline; the detected type wins over the declared one.
  const SIGNATURES = [
    ["image/png", /^iVBORw0KGg/],
    ["image/jpeg", /^[/]9j[/](?!9)/],
    ["image/gif", /^R0lGOD[dl]h/],
    ["image/webp", /^UklG.{8}RUJQ/],
  ];
  define("image", function image(value) {
    const url = imageUrl(value);
    if (url === "") throw new TypeErrorCtor(IMAGE_EXPECTS);
    const colon = url.indexOf(":");
    const scheme = colon < 0 ? "" : url.slice(0, colon).toLowerCase();
    if (scheme === "http" || scheme === "https") {
      throw new TypeErrorCtor("remote image URLs are not supported in tool outputs. Pass a base64 data URI instead");
    }
    const comma = url.indexOf(",");
    const header = comma < 0 ? [] : url.slice(colon + 1, comma).split(";");
    if (scheme !== "data" || comma < 0 || header.slice(1).every((part) => part.toLowerCase() !== "base64")) {
      throw new TypeErrorCtor("invalid image output. Pass a base64 data URI instead");
    }
    const data = url.slice(comma + 1).replace(/\s+/g, "");
    if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) {
      throw new TypeErrorCtor("invalid image output. The image data is not valid base64 (truncated or corrupted?)");
    }
    const found = SIGNATURES.find(([, pattern]) => pattern.test(data.slice(0, 16)));
    if (!found) throw new TypeErrorCtor("invalid image output. The image data is not a PNG, JPEG, GIF, or WebP image");
    output("image", data, found[0]);
  });

  define("exit", function exit() {
    done(true, undefined, writesJson());
    throw EXIT;
  });

  const console = {};
  for (const level of ["log", "info", "warn", "error", "debug"]) {
    console[level] = (...args) => output("console", args.map(format).join(" "));
  }
  Object.freeze(console);
  define("console", console);
  define("tools", toolsProxy);
  define("ALL_TOOLS", allTools);

  return {
    settle(id, ok, payload) {
      const entry = pending.get(id);
      if (!entry) return;
      pending.delete(id);
      if (!ok) {
        entry.reject(new ErrorCtor(payload));
        return;
      }
      let value;
      try {
        value = payload === undefined ? undefined : parse(payload);
      } catch (error) {
        entry.reject(error);
        return;
      }
      entry.resolve(value);
    },
    run(fn) {
      let promise;
      try {
        promise = fn(toolsProxy, console);
      } catch (error) {
        if (error !== EXIT) done(false, describeError(error));
        return;
      }
      then.call(promise, (value) => {
        let json;
        try {
          json = value === undefined ? undefined : stringify(value);
        } catch (error) {
          done(false, describeError(error));
          return;
        }
        done(true, json, writesJson());
      }, (error) => {
        if (error !== EXIT) done(false, describeError(error));
      });
    },
    // True once the script can never resume: not finished and no call pending (no timers here).
    stalled() {
      if (finished || pending.size > 0) return false;
      done(false, stringify({
        name: "Error",
        message: "The script is waiting on a promise that can never settle: no tool call is pending, and timers do not exist here.",
      }));
      return true;
    },
    describe: describeError,
  };
})
