import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";
import { createRequire } from "node:module";
const here = process.cwd();
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


const r = await esbuild.build({ entryPoints: ["src/main.js"], bundle: true, minify: true, format: "iife", target: "es2020", platform: "browser", define: { __KIND__: '"collection"' }, write: false, metafile: true, plugins: [trim] });
const out = Object.values(r.metafile.outputs)[0];
const by = {};
for (const [f, v] of Object.entries(out.inputs)) { const k = f.replace(/.*node_modules\//, "").split("/").slice(0, f.includes("@") ? 2 : 1).join("/"); by[k] = (by[k] || 0) + v.bytesInOutput; }
console.log(Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 20));
console.log("total", r.outputFiles[0].text.length, "gz", gzipSync(r.outputFiles[0].text).length);
const files = Object.entries(out.inputs).sort((a,b)=>b[1].bytesInOutput-a[1].bytesInOutput).slice(0,40).map(([f,v])=>[f.replace(/.*node_modules\//,""),v.bytesInOutput]);
console.log(files);
