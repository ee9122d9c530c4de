#!/usr/bin/env bash
# The static gates: format, lint, types, docs of every entry point, and a JSR
# publish dry run. Quiet when a gate passes; its output when it fails.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="$root/.tools/node_modules/.bin:$PATH"
export DENO_NO_UPDATE_CHECK=1 NO_COLOR=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
step() {
  printf '== %s\n' "$*"
  if ! "$@" >"$log" 2>&1; then
    cat "$log"
    echo "check: failed at: $*"
    exit 1
  fi
}
# Every entry point of deno.json's "exports" (".", "./exec", "./cli", ...).
mapfile -t entries < <(deno eval --no-config \
  'const c = JSON.parse(Deno.readTextFileSync("deno.json")); for (const f of Object.values(c.exports)) console.log(f)')
step deno fmt --check
step deno lint
step deno check mod.ts anthropic/ cli/ core/ egress/ mcp/ policy/ runtime/ shell/ tools/ tests/ bench/ scripts/
# One at a time: each must stand on its own (a type it names is exported by it).
for entry in "${entries[@]}"; do step deno doc --lint "$entry"; done
step deno publish --dry-run --allow-dirty
echo "check: all gates passed (doc lint: ${#entries[@]} entry points)"
