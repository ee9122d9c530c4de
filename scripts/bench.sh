#!/usr/bin/env bash
# Runs the benchmark suite on Deno, then on Bun, then on Node 24. Extra arguments (e.g. --json) pass through.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="$root/.tools/node_modules/.bin:$PATH"
deno run -A bench/main.ts "$@"
bun bench/main.ts "$@"
node bench/main.ts "$@"
