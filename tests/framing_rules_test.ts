// The framing cannot be broken by the command: generated variants of what a
// command may do to the shell (close or move descriptors, shadow builtins,
// change IFS, turn aliases off, make variables read-only). Each call ends
// promptly — never at the deadline — and the next call's output is its own.
import { equal, ok } from "node:assert/strict";
import { BashSession } from "../mod.ts";
import { test } from "./_harness.ts";

const builtins = [
  "printf",
  "read",
  "local",
  "return",
  "eval",
  "exit",
  "exec",
  "trap",
  "shopt",
  "echo",
  "cd",
  "set",
  "declare",
  "test",
  "[",
  "alias",
  "unalias",
];

const breakers: string[] = [
  // descriptors
  "exec 19>&-",
  "exec 17>&- 19>&-",
  "exec 19>/dev/null",
  "exec 2>&-",
  "exec 0<&-",
  'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done',
  "for fd in {3..255}; do eval \"exec $fd>&-\" 2>/dev/null; done",
  // shadowed builtins (all at once and one by one)
  builtins.map((b) => `${b}() { :; }`).join("; "),
  ...builtins.map((b) => `${b}() { echo shadowed; }`),
  // words and options
  "IFS=/",
  "IFS=0123456789",
  "IFS=$'\\x1e'",
  "IFS=",
  "shopt -u expand_aliases",
  "unalias -a",
  "set -f",
  "set -o noclobber",
  "set -u",
  "set -o pipefail",
  "shopt -s nullglob failglob",
  "readonly __bbc",
  "readonly __bbq",
  "readonly IFS",
  "readonly PATH",
  "LC_ALL=tr_TR.UTF-8",
  "PS4='+$(echo hi) '",
];

for (const [i, breaker] of breakers.entries()) {
  test(`BashSession.run() survives or restarts at once after: ${breaker} (${i})`, async () => {
    await using s = new BashSession({ timeoutMs: 8000 });
    const r = await s.run(`${breaker}`);
    equal(r.timedOut, false, `the call hung: ${JSON.stringify(r)}`);
    let restarts = r.restarted ? 1 : 0;
    for (let k = 0; k < 3; k++) {
      const mark = `m${i}-${k}-${crypto.randomUUID()}`;
      const next = await s.run(`builtin printf '%s\\n' ${mark}`);
      equal(next.timedOut, false, "a later call hung");
      // A framing step that failed ends the shell at once, without running
      // the call: it says so, and the shell after it is sound.
      if (next.restarted && !next.output.text.includes(mark) && ++restarts < 2) {
        continue;
      }
      // Its own output, not the previous call's, and exactly once.
      ok(next.output.text.includes(`${mark}\n`), next.output.text);
      equal(next.output.text.split(mark).length, 2, next.output.text);
    }
  });
}

test("BashSession.run(): declare -f, set and typeset -p do not end the command", async () => {
  await using s = new BashSession();
  for (const cmd of ["declare -f", "set", "typeset -p", "declare -p", "alias"]) {
    const r = await s.run(`${cmd}; echo end-of-${cmd.length}`);
    ok(r.output.text.endsWith(`end-of-${cmd.length}\n`), cmd);
    equal(r.exitCode, 0);
  }
});

test("BashSession.run(): a user ERR trap does not fire again on the next command", async () => {
  await using s = new BashSession();
  await s.run("trap 'echo ERR' ERR");
  for (const fail of ["false", "(exit 3)", "test -f /nonexistent", "ls /nonexistent 2>/dev/null"]) {
    await s.run(fail);
    for (const next of ["echo next", "true", ":"]) {
      const r = await s.run(next);
      ok(!r.output.text.includes("ERR"), `${fail} then ${next}: ${r.output.text}`);
    }
  }
});
