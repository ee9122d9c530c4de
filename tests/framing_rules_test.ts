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
  "command",
  "builtin",
];

const breakers: string[] = [
  // descriptors
  "exec 19>&-",
  "exec 17>&- 19>&-",
  "exec 2>&-",
  "exec 0<&-",
  'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done',
  'for fd in {3..255}; do eval "exec $fd>&-" 2>/dev/null; done',
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
  // every variable the take step sets, by each way of making it read-only
  ...["__bbY", "__bbe", "__bbW", "__bbA"].flatMap((v) => [
    `readonly ${v}`,
    `declare -r ${v}=x`,
  ]),
  "typeset -r __bbq=0",
  // a framing variable with a value, read-only before the take step's
  // first assignment (in a function, through a nameref)
  "readonly __bbR=1",
  "f(){ declare -gr __bbR=x; }; f",
  "declare -n __bbR=T; readonly T=1",
  "readonly __bbH",
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
      if (
        next.restarted && !next.output.text.includes(mark) && ++restarts < 2
      ) {
        continue;
      }
      // Its own output, not the previous call's, and exactly once.
      ok(next.output.text.includes(`${mark}\n`), next.output.text);
      equal(next.output.text.split(mark).length, 2, next.output.text);
    }
  });
}

test("BashSession.run(): an alias of the user's in place of one of the framing's is seen", async () => {
  // The count of aliases is the same; a here-document in the alias would
  // read the framing's lines as its body if the command ran unchecked.
  for (
    const setup of [
      'unalias _+K; alias hd="cat <<EOF"',
      'unalias _+E; alias hd="cat <<EOF"',
      'readonly __bbH; unalias _+K; alias hd="cat <<EOF"',
    ]
  ) {
    await using s = new BashSession({ timeoutMs: 8000 });
    await s.run(setup);
    const r = await s.run("hd");
    equal(r.timedOut, false, `${setup}: ${JSON.stringify(r)}`);
    const mark = crypto.randomUUID();
    const next = await s.run(`echo ${mark}`);
    equal(next.output.text, `${mark}\n`, setup);
  }
});

test("BashSession.run(): declare -f, set and typeset -p do not end the command", async () => {
  await using s = new BashSession();
  for (
    const cmd of ["declare -f", "set", "typeset -p", "declare -p", "alias"]
  ) {
    const r = await s.run(`${cmd}; echo end-of-${cmd.length}`);
    ok(r.output.text.endsWith(`end-of-${cmd.length}\n`), cmd);
    equal(r.exitCode, 0);
  }
});

test("BashSession.run(): a user ERR trap does not fire again on the next command", async () => {
  await using s = new BashSession();
  await s.run("trap 'echo ERR' ERR");
  for (
    const fail of [
      "false",
      "(exit 3)",
      "test -f /nonexistent",
      "ls /nonexistent 2>/dev/null",
    ]
  ) {
    await s.run(fail);
    for (const next of ["echo next", "true", ":"]) {
      const r = await s.run(next);
      ok(
        !r.output.text.includes("ERR"),
        `${fail} then ${next}: ${r.output.text}`,
      );
    }
  }
});

// Under `set -e` a prompt survives a command line that fails only through
// bash's errexit exemptions (a && or || list but its last command, a `!`
// pipeline, a condition), and exits where errexit fires.
const exempt = [
  "[ -f /nonexistent ] && echo y",
  "false && true",
  "test -d /nonexistent && ls /nonexistent",
  "! true",
  "! echo quiet >/dev/null",
  "if false; then :; fi; (exit 0) && false && true",
  "[[ -z x ]] && echo never",
  "grep -q nothing-here /dev/null && echo found",
];
const fatal = [
  "false",
  "(exit 3)",
  "test -f /nonexistent || false",
  "true && false",
  "ls /nonexistent 2>/dev/null",
  "{ false; }",
  "f() { return 4; }; f",
];
for (
  const setup of [
    "set -e",
    "set -euo pipefail",
    "set -o errexit",
    "shopt -so errexit",
  ]
) {
  test(`BashSession.run() keeps the shell after errexit-exempt failures (${setup})`, async () => {
    await using s = new BashSession();
    await s.run(`${setup}; cd /tmp; KEEP=1`);
    for (const cmd of exempt) {
      const r = await s.run(cmd);
      equal(r.restarted, false, `${cmd} ended the shell`);
      ok(r.exitCode !== 0, cmd);
      const state = await s.run('echo "$KEEP $PWD $?"');
      equal(state.output.text, `1 /tmp ${r.exitCode}\n`, cmd);
    }
    // With the user's ERR trap too: it fires for the failing command only.
    await s.run("trap 'echo ERR' ERR");
    for (const cmd of exempt) {
      const r = await s.run(cmd);
      equal(r.restarted, false, cmd);
      ok(!r.output.text.includes("ERR"), `${cmd}: ${r.output.text}`);
    }
  });

  test(`BashSession.run() under ${setup}: a failing command ends the shell, as at a prompt, and says so`, async () => {
    // (Without the state journal, which would bring KEEP back.)
    await using s = new BashSession({ restoreState: false });
    for (const cmd of fatal) {
      await s.run(`${setup}; KEEP=1`);
      const r = await s.run(`${cmd}; echo not-reached`);
      ok(!r.output.text.includes("not-reached"), cmd);
      equal(r.restarted, true, cmd);
      equal((await s.run("echo ${KEEP:-fresh}")).output.text, "fresh\n");
    }
  });
}

test("BashSession.run() under set -e: after an exempt failure the next failing command still ends the shell at once", async () => {
  // The framing's own ERR trap must be gone again after the exempt call: a
  // later failure then ends the shell with its status (never a trap that
  // calls itself until bash crashes, never a hang to the deadline).
  await using s = new BashSession({ timeoutMs: 8_000 });
  const fails = fatal.filter((_, i) => i % 2 === 0);
  for (const [i, cmd] of exempt.entries()) {
    const trap = i % 2 === 0 ? "" : "trap 'echo USER-ERR' ERR; ";
    await s.run(`set -e; ${trap}KEEP=1`);
    const kept = await s.run(cmd);
    equal(kept.restarted, false, cmd);
    const end = await s.run(`${fails[i % fails.length]}; echo not-reached`);
    equal(end.signal, null, `${cmd} then ${fails[i % fails.length]}`);
    equal(end.timedOut, false, cmd);
    equal(end.restarted, true, cmd);
    ok(end.exitCode !== 0 && end.exitCode !== null, cmd);
    ok(!end.output.text.includes("not-reached"), cmd);
    equal(
      (end.output.text.match(/USER-ERR/g) ?? []).length,
      trap ? 1 : 0,
      `${cmd}: ${end.output.text}`,
    );
  }
});

test("BashSession.run() in posix mode: failures print nothing of the framing", async () => {
  await using s = new BashSession();
  for (
    const setup of [
      "set -o posix",
      "set -o posix; set -e",
      "set -o posix; trap 'echo E' ERR",
    ]
  ) {
    await s.run(setup);
    for (const cmd of ["false", "[ -f /nonexistent ] && echo y", "! true"]) {
      const r = await s.run(cmd);
      ok(
        !r.output.text.includes("command not found"),
        `${setup}; ${cmd}: ${r.output.text}`,
      );
    }
    await s.restart();
  }
});

test("BashSession.run(): a deadline leaves every shell option as the user set it", async () => {
  // Interrupting a command must not change what `shopt -p` and `set +o`
  // report: the framing's own use of extdebug is undone only where it
  // turned it on.
  const settings = [
    "shopt -s extdebug",
    "shopt -s extdebug nullglob; set -o pipefail",
    "shopt -s extglob lastpipe; set -o noclobber",
    "shopt -u extdebug; set -o nounset",
  ];
  for (const setting of settings) {
    await using s = new BashSession({ killGraceMs: 2000 });
    await s.run(setting);
    const before = (await s.run("shopt -p; set +o")).output.text;
    for (const cmd of ["sleep 30", "while :; do :; done", "echo x; sleep 30"]) {
      const r = await s.run(cmd, { timeoutMs: 300 });
      ok(r.timedOut, cmd);
      equal(r.restarted, false, cmd);
      equal(
        (await s.run("shopt -p; set +o")).output.text,
        before,
        `${setting}; ${cmd}`,
      );
    }
  }
});

test("BashSession.run(): a deadline still interrupts whatever the user did to the INT trap", async () => {
  // [how the trap is set, what its handler prints on an interrupt]
  const settings: [string, string][] = [
    ["trap - INT", ""],
    ["trap - SIGINT", ""],
    ["trap -- - 2", ""],
    ["trap '' INT", ""],
    ["trap 'echo USER-INT' INT", "USER-INT\n"],
    ["trap 'echo USER-INT' INT TERM", "USER-INT\n"],
    [
      "cleanup(){ echo CLEAN; }; trap cleanup INT TERM EXIT; trap - INT TERM EXIT",
      "",
    ],
    ["f(){ trap - INT; }; f", ""],
    ["set -o posix; trap - INT; trap -p INT >/dev/null", ""],
    ["echo 'trap - INT' > trap.sh; source trap.sh; rm trap.sh", ""],
  ];
  await using s = new BashSession({ killGraceMs: 2000 });
  const dir = (await s.run("mktemp -d")).output.text.trim();
  await s.run(`cd ${dir}; KEEP=1`);
  for (const [setting, printed] of settings) {
    await s.run(setting);
    for (const cmd of ["sleep 30", "while :; do :; done"]) {
      const r = await s.run(cmd, { timeoutMs: 300 });
      ok(r.timedOut, `${setting}; ${cmd}`);
      equal(r.restarted, false, `${setting}; ${cmd}`);
      equal(r.output.text, printed, `${setting}; ${cmd}`);
      equal((await s.run('echo "$KEEP $PWD"')).output.text, `1 ${dir}\n`);
    }
    await s.run("trap - INT");
  }
  await s.run(`rm -r ${dir}`);
});

test("BashSession.run(): a user's DEBUG trap sees the user's commands, never the framing's", async () => {
  for (const setup of ["", "set -e", "set -x", "shopt -s extdebug"]) {
    await using s = new BashSession({ killGraceMs: 2000 });
    const dir = (await s.run("mktemp -d")).output.text.trim();
    await s.run(`cd ${dir}; ${setup}`);
    await s.run(`trap 'printf "%s\\n" "$BASH_COMMAND" >> ${dir}/seen' DEBUG`);
    await s.run(`: > ${dir}/seen`);
    const commands = [
      "echo one",
      "f(){ echo in-f; }; f",
      "for i in 1 2; do echo $i; done",
      "true && echo and",
      "[ -f /nonexistent ] || echo or",
    ];
    for (const cmd of commands) await s.run(cmd);
    const late = await s.run("sleep 30; touch reached", { timeoutMs: 300 });
    ok(late.timedOut, setup);
    equal(late.restarted, false, setup);
    equal(
      (await s.run("[ -e reached ] && echo reached || echo stopped")).output
        .text.split("\n").filter((l) => !l.startsWith("+")).join("\n"),
      "stopped\n",
      setup,
    );
    await s.run("echo after-deadline");
    // (Under set -x the output also holds the trace: lines starting with +.)
    const seen = (await s.run(`trap - DEBUG; cat ${dir}/seen`)).output.text
      .split("\n").filter((line) => !line.startsWith("+")).join("\n");
    // (Functions do not inherit the DEBUG trap: \`echo in-f\` is not seen,
    // as at a prompt.)
    for (const line of seen.split("\n")) {
      ok(!line.includes("__bb"), `${setup}: the trap saw ${line}`);
    }
    for (
      const expected of [
        "echo one",
        "f",
        "echo and",
        "echo or",
        "sleep 30",
        "echo after-deadline",
      ]
    ) {
      ok(
        seen.split("\n").includes(expected),
        `${setup}: ${expected} not in ${JSON.stringify(seen)}`,
      );
    }
    await s.run(`rm -r ${dir}`);
  }
});

test("BashSession.run() under set -e: a deadline interrupts without ending the shell", async () => {
  await using s = new BashSession({ killGraceMs: 2000 });
  await s.run("set -e; KEEP=1");
  for (const cmd of ["sleep 30", "sleep 30; echo no", "echo start; sleep 30"]) {
    const r = await s.run(cmd, { timeoutMs: 300 });
    ok(r.timedOut);
    equal(r.restarted, false, cmd);
    ok(!r.output.text.includes("no\n"));
    equal((await s.run('echo "$KEEP ${-//[^e]/}"')).output.text, "1 e\n");
  }
});

test("BashSession.run(): a user ERR trap fires once for a failing command", async () => {
  await using s = new BashSession();
  await s.run("trap 'echo ERR' ERR");
  for (
    const fail of [
      "false",
      "(exit 3)",
      "test -f /nonexistent",
      "f(){ return 2; }; f",
    ]
  ) {
    const r = await s.run(fail);
    equal(r.output.text, "ERR\n", fail);
  }
});

test("BashSession.run() keeps the call's sentinel id in no variable or function a command could read", async () => {
  await using s = new BashSession({ timeoutMs: 20_000 });
  // Print every variable's value, every word of every function and of the
  // traps as a would-be sentinel: a match would end the call early.
  const forge = [
    "for __v in $(compgen -v); do printf '%s\\x1e0 /\\0' \"${!__v}\"; done; echo end-vars",
    "for __w in $(declare -f); do printf '%s\\x1e0 /\\0' \"$__w\"; done; echo end-funcs",
    "for __w in $(trap -p; alias); do printf '%s\\x1e0 /\\0' \"$__w\"; done; echo end-traps",
  ];
  for (const command of forge) {
    const r = await s.run(command);
    const end = /end-\w+/.exec(command)![0];
    ok(r.output.text.endsWith(`${end}\n`), `${command}: ended early`);
    equal((await s.run("echo next")).output.text, "next\n");
  }
});
