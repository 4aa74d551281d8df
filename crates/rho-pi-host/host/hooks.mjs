// Module hooks of rho's pi extension host: TypeScript without a build step and pi's package
// names resolved to the real pi packages, installed with npm on first use.
import { registerHooks, stripTypeScriptTypes } from "node:module";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The pi release whose packages back the imports (the API the host implements). */
export const PI_VERSION = "1.6.0";

const PI_PACKAGES = ["pi-coding-agent", "pi-ai", "pi-tui", "pi-agent-core"];

/** The file pi's own loader gives extensions for the pi-ai root: pi-ai's compat entry plus
 * TypeBox's `Type`, `Static` and `TSchema` (pi-ai re-exported those once). */
const PI_AI_VIEW = "node_modules/@earendil-works/pi-coding-agent/dist/core/extensions/pi-ai-extension-view.js";

/** What pi's loader aliases a specifier to (`@mariozechner/x` is pi 0.73's name of
 * `@earendil-works/x`, `@sinclair/typebox` the old name of `typebox`), or null. */
function canonical(specifier) {
  for (const name of PI_PACKAGES) {
    for (const scope of ["@earendil-works", "@mariozechner"]) {
      const full = `${scope}/${name}`;
      if (specifier === full || specifier.startsWith(`${full}/`)) {
        const rest = specifier.slice(full.length);
        if (name === "pi-ai" && (rest === "" || rest === "/compat")) return PI_AI_VIEW;
        return `@earendil-works/${name}${rest}`;
      }
    }
  }
  for (const full of ["typebox", "@sinclair/typebox"]) {
    if (specifier === full || specifier.startsWith(`${full}/`)) return `typebox${specifier.slice(full.length)}`;
  }
  return null;
}

function npmCli() {
  const beside = join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js");
  return existsSync(beside) ? [process.execPath, [beside]] : ["npm", []];
}

/** Installs pi's packages into `dir` (once), with a progress line on stderr. */
function install(dir) {
  mkdirSync(dir, { recursive: true });
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) writeFileSync(manifest, '{"private":true}\n');
  const pkg = `@earendil-works/pi-coding-agent@${PI_VERSION}`;
  process.stderr.write(`rho: installing ${pkg} into ${dir} for pi extensions (first use, needs npm and the registry)…\n`);
  const [program, pre] = npmCli();
  try {
    execFileSync(program, [...pre, "install", "--no-audit", "--no-fund", "--loglevel=error", pkg], {
      cwd: dir,
      stdio: ["ignore", 2, 2],
    });
  } catch (e) {
    throw new Error(`installing ${pkg} into ${dir} failed (${e.message}); install it there by hand: cd ${dir} && npm install ${pkg}`);
  }
  process.stderr.write("rho: pi packages installed.\n");
}

function notFound(e) {
  return e && (e.code === "ERR_MODULE_NOT_FOUND" || e.code === "ERR_PACKAGE_PATH_NOT_EXPORTED" || e.code === "MODULE_NOT_FOUND");
}

/** The JavaScript of a TypeScript source, from a cache keyed by the source's hash: node's
 * type stripper takes ~0.2 s to start, which every later start of rho then skips. */
function stripped(source, url, cacheDir) {
  const file = join(cacheDir, `${createHash("sha256").update(url).update("\0").update(source).digest("hex")}.js`);
  try {
    return readFileSync(file, "utf8");
  } catch {
    const js = stripTypeScriptTypes(source, { mode: "transform", sourceUrl: url });
    try {
      mkdirSync(cacheDir, { recursive: true });
      writeFileSync(`${file}.${process.pid}`, js);
      renameSync(`${file}.${process.pid}`, file);
    } catch {
      // An unwritable cache only costs time.
    }
    return js;
  }
}

/** Registers the hooks; `packagesDir` holds `node_modules/@earendil-works/...`. */
export function installHooks(packagesDir) {
  const base = pathToFileURL(join(packagesDir, "package.json")).href;
  // Node resolves to real paths; a symlinked node_modules must compare as its target.
  const modules = join(packagesDir, "node_modules");
  const packagesUrl = () => pathToFileURL(existsSync(modules) ? realpathSync(modules) : modules).href;
  const fromPackages = (spec, context, next) => {
    if (spec !== PI_AI_VIEW) return next(spec, { ...context, parentURL: base });
    const file = join(packagesDir, PI_AI_VIEW);
    if (!existsSync(file)) throw Object.assign(new Error(`${file} is missing`), { code: "ERR_MODULE_NOT_FOUND" });
    return { url: pathToFileURL(realpathSync(file)).href, format: "module", shortCircuit: true };
  };
  registerHooks({
    resolve(specifier, context, next) {
      // pi's own packages import each other by their real names.
      const inside = context.parentURL?.startsWith(packagesUrl());
      const mapped = inside ? null : canonical(specifier);
      if (mapped) {
        try {
          return fromPackages(mapped, context, next);
        } catch (e) {
          if (!notFound(e) || existsSync(join(packagesDir, "node_modules", "@earendil-works", "pi-coding-agent"))) throw e;
          install(packagesDir);
          return fromPackages(mapped, context, next);
        }
      }
      try {
        return next(specifier, context);
      } catch (e) {
        if (!notFound(e)) throw e;
        // TypeScript sources import `./x.js` meaning `./x.ts`.
        if (specifier.startsWith(".") && specifier.endsWith(".js")) {
          return next(`${specifier.slice(0, -3)}.ts`, context);
        }
        // As in pi, an extension may use what pi itself depends on (e.g. @anthropic-ai/sdk).
        if (!inside && !specifier.startsWith(".") && !specifier.startsWith("/") && !specifier.includes(":")) {
          try {
            return fromPackages(specifier, context, next);
          } catch {
            throw e;
          }
        }
        throw e;
      }
    },
    load(url, context, next) {
      if (url.startsWith("file:") && /\.(ts|mts|cts)$/.test(url)) {
        const source = readFileSync(fileURLToPath(url), "utf8");
        return { format: "module", source: stripped(source, url, join(packagesDir, "strip-cache")), shortCircuit: true };
      }
      return next(url, context);
    },
  });
}
