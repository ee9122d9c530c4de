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
# Tracked and new (not ignored) files: a build from a working tree with new
# modules must not leave them out.
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.ts' | sort -u | grep -Ev '^(tests|bench|scripts)/')
mkdir -p "$out"
# JavaScript for every module (no type check: `deno check` does that).
deno bundle --quiet --no-check --packages=external --inline-imports=false \
  --outdir "$out" "${files[@]}"
# Declarations: one .d.ts per module, as JSR emits them, from TypeScript's
# compiler (the pinned one in .tools, a devDependency). Without it, deno's
# best effort: a bundled mod.d.ts only, whose imports of internal modules
# stay unresolved.
if command -v tsc >/dev/null 2>&1; then
  tsc --declaration --emitDeclarationOnly --noCheck --skipLibCheck \
    --allowImportingTsExtensions --target es2022 --module nodenext \
    --moduleResolution nodenext --types node --typeRoots node_modules/@types \
    --outDir "$out" "${files[@]}"
else
  echo "npm_build.sh: no tsc (TypeScript) on PATH: only a bundled mod.d.ts" >&2
  deno bundle --quiet --no-check --packages=external --inline-imports=false \
    --declaration --outdir "$out/.types" mod.ts >/dev/null 2>&1 &&
    cp "$out"/.types/*.d.ts "$out"/ 2>/dev/null || true
  rm -rf "$out/.types"
fi
# Relative `.ts` specifiers (static and dynamic imports, and `import("…")`
# types) become `.js`.
find "$out" \( -name '*.js' -o -name '*.d.ts' \) -print0 | xargs -0 sed -i -E \
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
