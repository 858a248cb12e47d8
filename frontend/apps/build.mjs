// Builds the pages of the MCP Apps (one self-contained HTML file per kind) into
// mcp_bridge/static/mcp_bridge/apps/. Run `npm ci && npm run build` here after changing src/ or the
// lockfile; tests/test_apps.py checks that the committed pages were built from these sources.
//
// Each page records the SHA-256 of its sources (package-lock.json, build.mjs, src/*) in a
// <meta name="mcp-bridge-sources"> tag, computed again by tests/test_apps.py.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "..", "mcp_bridge", "static", "mcp_bridge", "apps");
export const KINDS = ["collection", "record", "form"];

function sourcesDigest() {
  const files = ["build.mjs", "package-lock.json", ...readdirSync(join(here, "src")).map((name) => `src/${name}`), ...readdirSync(join(here, "host")).map((name) => `host/${name}`)].sort();
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(here, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

// Size: zod ships every locale of its error messages behind one import; the page needs none
// of them (the SDK reports no zod message to a person), so that import gets English only. The
// packages' modules are side-effect free, which lets esbuild drop the ones the App never uses.
const require = createRequire(import.meta.url);
const trim = {
  name: "trim",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes("/zod/") ? { path: "zod-locales", namespace: "trim" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "trim" }, () => ({
      contents: `export { default as en } from ${JSON.stringify(require.resolve("zod/v4/locales/en.js"))};`,
      resolveDir: here,
    }));
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData?.trimmed || args.namespace === "trim") return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { trimmed: true },
      });
      if (resolved.errors.length || !resolved.path.includes("node_modules")) return undefined;
      return { ...resolved, sideEffects: false };
    });
  },
};

const digest = sourcesDigest();
const css = (
  await esbuild.transform(readFileSync(join(here, "src", "page.css"), "utf8"), { loader: "css", minify: true })
).code.trim();
mkdirSync(out, { recursive: true });
for (const kind of KINDS) {
  const result = await esbuild.build({
    entryPoints: [join(here, "src", "main.js")],
    bundle: true,
    minify: true,
    format: "iife",
    target: "es2020",
    platform: "browser",
    legalComments: "eof",
    define: { __KIND__: JSON.stringify(kind) },
    write: false,
    absWorkingDir: here,
    plugins: [trim],
  });
  // The script is inlined: no "</script" may end it early.
  const js = result.outputFiles[0].text.trim().replace(/<\/(script)/gi, "<\\/$1");
  const html =
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="mcp-bridge-sources" content="${digest}">` +
    `<title>${kind}</title><style>${css}</style></head>\n` +
    `<body><main id="app"></main>\n` +
    `<script type="application/json" id="mcp-bridge-texts">{}</script>\n` +
    `<script>${js}</script></body></html>\n`;
  writeFileSync(join(out, `${kind}.html`), html);
  console.log(`${kind}.html: ${html.length} bytes`);
}

// The tests' host (host/host.js: the extension's AppBridge and the MCP client), not shipped.
const host = await esbuild.build({
  entryPoints: [join(here, "host", "host.js")],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  platform: "browser",
  legalComments: "eof",
  write: false,
  absWorkingDir: here,
  plugins: [trim],
});
const hostOut = join(here, "..", "..", "tests", "apps_host");
mkdirSync(hostOut, { recursive: true });
writeFileSync(join(hostOut, "host.js"), `// Built by frontend/apps/build.mjs from ${digest}.\n${host.outputFiles[0].text}`);
