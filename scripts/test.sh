#!/usr/bin/env bash
# Runs the whole suite on Deno (sanitizers on, narrow permissions) and on Bun.
# Ends each runtime's part with the line "<runtime>: N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="$root/.tools/node_modules/.bin:$PATH"
# Run as `deno task test` by someone without the pinned toolchain or the npm
# dependencies: let denow install them (it needs node and npm).
if ! command -v bun >/dev/null 2>&1 || [ ! -d "$root/node_modules/@anthropic-ai/sdk" ]; then
  "$root/denow" --version >/dev/null
fi
status=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# The permissions the library documents, and no more: the shell, temp files,
# the environment (the SDK reads it), loopback for the fake Messages API.
deno test --doc --allow-run=bash,/nonexistent/bashbox-no-such-shell \
  --allow-read --allow-write --allow-env --allow-net=127.0.0.1 \
  --unstable-worker-options "$@" 2>&1 | tee "$log/deno"
deno_rc=${PIPESTATUS[0]}
line=$(sed 's/\x1b\[[0-9;]*m//g' "$log/deno" | grep -E '^(ok|FAILED) \| [0-9]+ passed' | tail -1)
passed=$(sed -E 's/.*\| ([0-9]+) passed.*/\1/' <<<"$line")
failed=$(sed -E 's/.*\| ([0-9]+) failed.*/\1/' <<<"$line")
if [ -z "$line" ]; then passed=0; failed=1; fi
[ "$deno_rc" -ne 0 ] && [ "${failed:-0}" -eq 0 ] && failed=1
echo "deno: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ] || status=1

bun test --timeout 60000 "$@" tests/ 2>&1 | tee "$log/bun"
bun_rc=${PIPESTATUS[0]}
passed=$(grep -E '^ *[0-9]+ pass$' "$log/bun" | tail -1 | tr -dc 0-9)
failed=$(grep -E '^ *[0-9]+ fail$' "$log/bun" | tail -1 | tr -dc 0-9)
if [ -z "$passed" ]; then passed=0; failed=1; fi
failed=${failed:-0}
[ "$bun_rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
echo "bun: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ] || status=1
exit $status
