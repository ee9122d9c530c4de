#!/usr/bin/env bash
# Runs the whole suite on Deno (sanitizers on, narrow permissions), on Bun and on
# Node (the pinned Node 24 in .tools, through node:test).
# Ends each runtime's part with the line
#   "<runtime>: N passed, N failed, N skipped"
# followed by each skipped test's reason, once. Tool chatter (type-check
# progress, downloads, update notices) goes to a log only; its path is printed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="$root/.tools/node_modules/.bin:$PATH"
export DENO_NO_UPDATE_CHECK=1
# Run as `deno task test` by someone without the pinned toolchain or the npm
# dependencies: let denow install them (it needs node and npm).
if ! command -v bun >/dev/null 2>&1 || [ ! -d "$root/node_modules/@anthropic-ai/sdk" ]; then
  "$root/denow" --version >/dev/null
fi
status=0
# One directory per run: two runs at once (CI beside a developer) must not
# write into each other's logs.
mkdir -p "${TMPDIR:-/tmp}/bashbox-test-$(id -u)"
logs=$(mktemp -d "${TMPDIR:-/tmp}/bashbox-test-$(id -u)/run-XXXXXX")

# What a person reads: test lines and failures, not the tools' progress.
# Skip reasons come once, in the summary.
noise='^(Check|Download|Warning Failed to fetch|Compile) |npm (notice|warn)|update available|A new release of|^skipped: |^-+ (pre|post)-test output( end)? -+$|^\(skip\) |^[0-9]+ tests? skipped:$'
quiet() { sed -u 's/\x1b\[[0-9;]*m//g' | grep -Ev --line-buffered "$noise"; }

# Prints "<runtime>: P passed, F failed, S skipped" and the skip reasons.
summary() {
  local runtime=$1 passed=$2 failed=$3 skipped=$4 log=$5
  echo "${runtime}: ${passed} passed, ${failed} failed, ${skipped} skipped"
  # The harness prints "skipped: <test>: <reason>" when it registers a skip.
  sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^skipped: ' | sort -u | sed 's/^/  /'
}

# Reads the counts from a runtime's log (the last of each), prints its summary
# and sets status=1 when anything failed: no count, a failure, a cancelled test
# (Node) or a non-zero exit without a counted failure.
tally() {
  local runtime=$1 rc=$2 log=$3 text pass fail cancel='' skip
  text=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
  case $runtime in
    deno) # one line: "ok | 3 passed | 0 failed | 1 ignored (2s)"
      text=$(grep -E '^(ok|FAILED) \| [0-9]+ passed' <<<"$text" | tail -1)
      pass='.*\| ([0-9]+) passed.*' fail='.*\| ([0-9]+) failed.*'
      skip='.*\| ([0-9]+) ignored.*' ;;
    bun) pass='^ *([0-9]+) pass$' fail='^ *([0-9]+) fail$' skip='^ *([0-9]+) skip$' ;;
    node)
      pass='^ℹ pass ([0-9]+)$' fail='^ℹ fail ([0-9]+)$' skip='^ℹ skipped ([0-9]+)$'
      cancel='^ℹ cancelled ([0-9]+)$' ;;
  esac
  count() { [ -n "$1" ] && sed -nE "s/$1/\1/p" <<<"$text" | tail -1; }
  local passed failed cancelled skipped
  passed=$(count "$pass") failed=$(count "$fail")
  cancelled=$(count "$cancel") skipped=$(count "$skip")
  if [ -z "$passed" ]; then passed=0; failed=1; fi
  failed=$((${failed:-0} + ${cancelled:-0}))
  [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
  summary "$runtime" "$passed" "$failed" "${skipped:-0}" "$log"
  [ "$failed" -eq 0 ] || status=1
}

# The permissions the library documents, and no more: the shell, temp files,
# the environment (the SDK reads it), loopback for the fake Messages API.
: >"$logs/deno.log"
deno test --doc --allow-run=bash,/nonexistent/bashbox-no-such-shell \
  --allow-read --allow-write --allow-env --allow-net=127.0.0.1 \
  --unstable-worker-options "$@" >"$logs/deno.log" 2>&1 &
deno_pid=$!
tail -n +1 -f --pid="$deno_pid" "$logs/deno.log" | quiet
wait "$deno_pid"
tally deno $? "$logs/deno.log"

# Test files given as arguments replace the whole tests/ directory.
if [ $# -gt 0 ]; then bun_args=("$@"); else bun_args=(tests/); fi
: >"$logs/bun.log"
bun test --timeout 60000 "${bun_args[@]}" >"$logs/bun.log" 2>&1 &
bun_pid=$!
tail -n +1 -f --pid="$bun_pid" "$logs/bun.log" | quiet
wait "$bun_pid"
tally bun $? "$logs/bun.log"
# Node runs the same files through node:test (Node 24 strips the types).
node_tests=()
if [ $# -gt 0 ]; then
  node_tests=("$@")
else
  for f in tests/*_test.ts; do node_tests+=("$f"); done
fi
: >"$logs/node.log"
node --test --test-reporter=spec "${node_tests[@]}" >"$logs/node.log" 2>&1 &
node_pid=$!
tail -n +1 -f --pid="$node_pid" "$logs/node.log" | quiet | grep -Ev --line-buffered '^(﹣|ℹ) '
wait "$node_pid"
tally node $? "$logs/node.log"
echo "full output: $logs/deno.log, $logs/bun.log, $logs/node.log"
exit $status
