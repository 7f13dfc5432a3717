// Bundles src/editor.js into ../static/vendor/codemirror.bundle.js (an IIFE exposing window.CodeMirrorBundle).
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
await build({
  entryPoints: [path.join(here, "src", "editor.js")],
  outfile: path.join(here, "..", "static", "vendor", "codemirror.bundle.js"),
  bundle: true,
  minify: true,
  format: "iife",
  globalName: "CodeMirrorBundle",
  target: ["es2020"],
  legalComments: "eof",
});
console.log("wrote static/vendor/codemirror.bundle.js");
