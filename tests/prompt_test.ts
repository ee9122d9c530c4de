// It looks like a prompt: what a command sees of the session ($BASH_SOURCE,
// $0, bash's messages, xtrace, descriptors, locale warnings) is what it would
// see at an interactive bash prompt, never bashbox's machinery. Each rule is
// checked over generated variants.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { BashSession } from "../mod.ts";
import { test } from "./_harness.ts";

async function texts(
  session: BashSession,
  commands: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  for (const command of commands) {
    out.push((await session.run(command)).output.text);
  }
  return out;
}

test("BashSession.run() shows no script path in $BASH_SOURCE or $0", async () => {
  await using s = new BashSession({ cwd: "/tmp" });
  const probes = [
    'echo "[${BASH_SOURCE[0]}]"',
    'echo "[$BASH_SOURCE]"',
    'echo "[${BASH_SOURCE[*]}]"',
    'echo "[$0]"',
    'echo "[${0##*/}]"',
  ];
  // Before and after other calls, and from a nested eval or a subshell.
  for (const round of [0, 1]) {
    const out = await texts(s, probes);
    deepEqual(out, ["[]\n", "[]\n", "[]\n", "[bash]\n", "[bash]\n"]);
    const nested = await texts(s, [
      `eval 'echo "[\${BASH_SOURCE[0]}]"'`,
      '(echo "[${BASH_SOURCE[0]}][$0]")',
      "bash -c 'echo \"[$0]\"'",
    ]);
    deepEqual(nested, ["[]\n", "[][bash]\n", "[bash]\n"], `round ${round}`);
  }
  // The common idiom keeps the session where it is.
  for (
    const idiom of [
      'SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
      'SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]:-$0}")" &>/dev/null && pwd)',
      'SCRIPT_DIR="$(dirname "$(readlink -f "${BASH_SOURCE[0]:-.}")")"',
    ]
  ) {
    const r = await s.run(`${idiom}; echo "$SCRIPT_DIR"; pwd`);
    ok(!r.output.text.includes("/dev/fd"), r.output.text);
    ok(!r.output.text.includes("/proc/"), r.output.text);
    equal(r.output.text.split("\n")[1], "/tmp", idiom);
    equal(r.cwd, "/tmp");
  }
});

test("BashSession.run() reports bash's errors as a prompt does", async () => {
  await using s = new BashSession();
  const cases: Array<[string, RegExp]> = [
    ["nope_cmd_x", /^bash: line \d+: nope_cmd_x: command not found\n$/],
    [
      "cd /nonexistent-dir",
      /^bash: line \d+: cd: \/nonexistent-dir: No such file or directory\n$/,
    ],
    ["echo a\nnope_two", /^a\nbash: line \d+: nope_two: command not found\n$/],
    ["declare -i n=1/0", /^bash: line \d+: declare: 1\/0: division by 0/],
    ["echo $((1+))", /^bash: line \d+: 1\+: syntax error/],
    // (A syntax error names eval: the command line is parsed by eval.)
    [
      "if true; then",
      /^bash: (eval: )?line \d+: syntax error: unexpected end of file\n$/,
    ],
  ];
  for (let round = 0; round < 3; round++) {
    for (const [command, expected] of cases) {
      const r = await s.run(command);
      match(r.output.text, expected, command);
      ok(!/\/dev\/fd|\/proc\//.test(r.output.text), r.output.text);
    }
  }
});

test("BashSession.run() survives errors that make bash drop the rest of the line", async () => {
  // bash abandons the whole command line on these (and so would drop the
  // frame): each call still ends at once with bash's status, state kept.
  const makers = ["declare -i", "typeset -i", "declare -ix", "export -n"];
  const expressions = ["1/0", "5%0", "2**-1", "1/(3-3)"];
  await using s = new BashSession({ timeoutMs: 5000 });
  await s.run("cd /tmp; KEEP=kept");
  for (const maker of makers) {
    for (const expr of expressions) {
      const command = maker === "export -n"
        ? `declare -i v; v="${expr}"; echo after`
        : `${maker} "v=${expr}"; echo after`;
      const r = await s.run(command);
      equal(r.timedOut, false, command);
      equal(r.restarted, false, command);
      equal(r.exitCode, 1, `${command}: ${r.output.text}`);
      match(r.output.text, /division by 0|exponent less than 0/, command);
      ok(!r.output.text.includes("after"), "the rest of the line is dropped");
      const next = await s.run('echo "$KEEP $PWD"');
      equal(next.output.text, "kept /tmp\n", command);
    }
  }
});

test("BashSession.run() under set -x traces the command and nothing of the framing", async () => {
  for (const stderr of ["merge", "separate"] as const) {
    await using s = new BashSession({ stderr });
    const trace = async (command: string): Promise<string> => {
      const r = await s.run(command);
      return stderr === "separate" ? r.stderr!.text : r.output.text;
    };
    for (
      const on of [
        "set -x",
        "set -o xtrace",
        "set -ex; set +e",
        "shopt -so xtrace",
        "set -vx; set +v",
      ]
    ) {
      const first = await trace(`${on}; echo hi`);
      ok(!first.includes("__bb"), first);
      match(first, /^\++ echo hi$/m);
      // xtrace stays on: later calls show their own commands only.
      for (const command of ["echo two", "true", "x=1", "false"]) {
        const out = await trace(command);
        ok(!out.includes("__bb"), `${on} / ${command}: ${out}`);
        const traced = out.split("\n").filter((l) => l.startsWith("+"));
        equal(traced.length, 1, `${on} / ${command}: ${out}`);
        match(
          traced[0],
          new RegExp(`^\\++ ${command.replace(/[+]/g, "\\+")}$`),
        );
      }
      const off = await trace("set +x");
      ok(!off.includes("__bb"), off);
      equal(await trace("echo quiet"), stderr === "separate" ? "" : "quiet\n");
    }
    // A PS4 of the user's own is used for the user's commands.
    const custom = await trace("PS4='>> '; set -x; echo mine; set +x");
    ok(!custom.includes("__bb"), custom);
    match(custom, /^>+> echo mine$/m);
    // errexit and an ERR trap together with xtrace: still nothing of ours.
    const careful = await trace(
      "trap 'echo trapped' ERR; set -x; false; set +x; trap - ERR",
    );
    ok(!careful.includes("__bb"), careful);
  }
});

test("BashSession.run() commands inherit only stdin, stdout and stderr", async () => {
  for (const stderr of ["merge", "separate"] as const) {
    await using s = new BashSession({ stderr });
    for (
      const command of [
        "ls /proc/self/fd",
        "(ls /proc/self/fd)",
        "ls /proc/self/fd | cat",
        "bash -c 'ls /proc/$$/fd'",
      ]
    ) {
      const r = await s.run(command);
      const fds = r.output.text.trim().split(/\s+/).map(Number);
      // The listing's own directory handle (3) is the only other one.
      const extra = fds.filter((fd) => fd > 3);
      deepEqual(extra, [], `${command}: ${r.output.text}`);
    }
    // Background jobs do not hold the framing's descriptors either.
    const bg = await s.run(
      "bash -c 'sleep 0.1; ls /proc/$$/fd; :' & wait",
    );
    deepEqual(bg.output.text.trim().split(/\s+/).sort(), ["0", "1", "2"]);
  }
});

test("BashSession.run() warns about a missing locale once, when it is set", async () => {
  for (
    const set of [
      "export LC_ALL=zz_QQ.UTF-8",
      "export LANG=zz_QQ.UTF-8 LC_ALL=zz_QQ.UTF-8",
      "LC_ALL=zz_QQ.UTF-8",
    ]
  ) {
    await using s = new BashSession();
    const first = await s.run(set);
    match(first.output.text, /setlocale/);
    // ASCII and non-ASCII commands afterwards: no more warnings.
    for (
      const command of ["echo a", "echo é", "echo 日本", "echo b", "echo ü"]
    ) {
      const r = await s.run(command);
      ok(
        !r.output.text.includes("setlocale"),
        `${set} / ${command}: ${r.output.text}`,
      );
      equal(r.output.text, `${command.slice(5)}\n`);
    }
  }
});
