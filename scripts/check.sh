#!/usr/bin/env bash
# The static gates: format, lint, types, docs, and a JSR publish dry run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="$root/.tools/node_modules/.bin:$PATH"
step() { printf '== %s\n' "$*"; "$@"; }
step deno fmt --check
step deno lint
step deno check ./*.ts tests/ bench/
step deno doc --lint mod.ts
step deno publish --dry-run --allow-dirty
echo "check: all gates passed"
