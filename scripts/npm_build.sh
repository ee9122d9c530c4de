#!/usr/bin/env bash
# Builds the package the way JSR's npm layer serves it to Node: each module
# transpiled to ESM JavaScript with a .d.ts beside it where the compiler can
# emit one, `.ts` specifiers rewritten to `.js`, and a package.json whose
# exports mirror deno.json's.   Usage: scripts/npm_build.sh OUTDIR
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: npm_build.sh OUTDIR}
cd "$root"
export PATH="$root/.tools/node_modules/.bin:$PATH" DENO_NO_UPDATE_CHECK=1 NO_COLOR=1
mapfile -t files < <(git ls-files '*.ts' | grep -Ev '^(tests|bench|scripts)/')
mkdir -p "$out"
# JavaScript for every module (no type check: `deno check` does that).
deno bundle --quiet --no-check --packages=external --inline-imports=false \
  --outdir "$out" "${files[@]}"
# Declarations, best effort (deno's emitter type-checks against its own libs).
deno bundle --quiet --no-check --packages=external --inline-imports=false \
  --declaration --outdir "$out/.types" mod.ts >/dev/null 2>&1 &&
  cp "$out"/.types/*.d.ts "$out"/ 2>/dev/null || true
rm -rf "$out/.types"
# Relative `.ts` specifiers (static and dynamic imports) become `.js`.
find "$out" -name '*.js' -print0 | xargs -0 sed -i -E \
  "s#((from|import)[ (]*[\"']\\.{1,2}/[^\"']*)\\.ts([\"'])#\\1.js\\3#g"
deno eval --no-config '
const c = JSON.parse(Deno.readTextFileSync("deno.json"));
const exports = {};
for (const [k, v] of Object.entries(c.exports)) {
  const js = v.replace(/\.ts$/, ".js");
  const types = js.replace(/\.js$/, ".d.ts");
  let has = true;
  try { Deno.statSync(Deno.args[0] + "/" + types); } catch { has = false; }
  exports[k] = has ? { types, default: js } : js;
}
const pkg = { name: c.name, version: c.version, type: "module", exports,
  peerDependencies: { "@anthropic-ai/sdk": "*" },
  peerDependenciesMeta: { "@anthropic-ai/sdk": { optional: true } } };
Deno.writeTextFileSync(Deno.args[0] + "/package.json", JSON.stringify(pkg, null, 2));
' "$out"
