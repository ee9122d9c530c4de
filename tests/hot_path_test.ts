// The hot path is the same whatever the session holds: after any mix of
// options, traps, functions, aliases and sourced files, a call forks
// nothing, `$?` carries, an ERR trap fires once per failing command and
// xtrace shows the command alone. ("No fork" is read from the kernel: a
// child that ran and was waited for adds its page faults to the shell's
// `cminflt`, field 11 of /proc/<pid>/stat, which the probe reads with
// builtins only.)
import { equal, ok } from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BashSession } from "../mod.ts";
import { test } from "./_harness.ts";

/** Prints the shell's `cminflt` with builtins only (no child of its own). */
const PROBE =
  'read -r __l </proc/$$/stat; __l=${__l##*) }; read -r -a __f <<<"$__l"; echo "cminflt=${__f[8]}"';

function cminflt(text: string): number {
  const m = /^cminflt=(\d+)$/m.exec(text);
  ok(m, `no probe line in ${JSON.stringify(text)}`);
  return Number(m![1]);
}

/** What a setting does to the session, for the checks that depend on it. */
interface Setting {
  name: string;
  setup: (dir: string) => string;
  errexit?: boolean;
  errTrap?: boolean;
  xtrace?: boolean;
  aliases?: boolean;
}

const settings: Setting[] = [
  { name: "plain", setup: () => "" },
  { name: "set -e", setup: () => "set -e", errexit: true },
  {
    name: "set -euo pipefail",
    setup: () => "set -euo pipefail",
    errexit: true,
  },
  {
    name: "shopt -so errexit",
    setup: () => "shopt -so errexit",
    errexit: true,
  },
  { name: "set -u", setup: () => "set -u" },
  { name: "set -E", setup: () => "set -E" },
  { name: "set -T", setup: () => "set -T" },
  {
    name: "ERR and EXIT traps",
    setup: () => "trap 'echo E' ERR; trap 'echo x' EXIT",
    errTrap: true,
  },
  {
    name: "ERR trap in a function, with errtrace",
    setup: () => "on_err(){ echo E; }; set -E; trap on_err ERR",
    errTrap: true,
  },
  {
    name: "RETURN trap and functrace",
    setup: () => "set -T; trap ': ret' RETURN",
  },
  { name: "DEBUG trap", setup: () => "trap ': dbg' DEBUG" },
  {
    name: "shopt and source",
    setup: (dir) => `shopt -s extglob nullglob globstar; source ${dir}/env.sh`,
    aliases: true,
  },
  { name: "set -x", setup: () => "set -x", xtrace: true },
  {
    name: "set -x and PS4",
    setup: () => "PS4='+ [$LINENO] '; set -o xtrace",
    xtrace: true,
  },
  {
    name: "many functions",
    setup: () =>
      Array.from({ length: 300 }, (_, i) => `fn_${i}(){ :; }`).join(";"),
  },
  {
    name: "many aliases",
    setup: () =>
      `shopt -s expand_aliases; ${
        Array.from({ length: 100 }, (_, i) => `alias al_${i}='echo ${i}'`)
          .join(";")
      }`,
    aliases: true,
  },
  {
    name: "set -o posix and an ERR trap",
    setup: () => "set -o posix; trap 'echo E' ERR",
    errTrap: true,
  },
  {
    name: "all of them",
    setup: (dir) =>
      `set -euo pipefail; set -ET; trap 'echo E' ERR; trap 'echo x' EXIT; shopt -s extglob; source ${dir}/env.sh; ${
        Array.from({ length: 50 }, (_, i) => `fn_${i}(){ :; }`).join(";")
      }`,
    errexit: true,
    errTrap: true,
    aliases: true,
  },
];

function sourced(dir: string): void {
  // A file like an activate script: functions, aliases, variables.
  writeFileSync(
    join(dir, "env.sh"),
    [
      "deactivate(){ unset VIRTUAL_ENV; }",
      "shopt -s expand_aliases",
      "alias ll='ls -l'",
      "alias gs='git status'",
      "VIRTUAL_ENV=/tmp/venv; export VIRTUAL_ENV",
      "",
    ].join("\n"),
  );
}

/** Commands of builtins only, each run through the framing as a call. */
const builtinsOnly = [
  "echo hi",
  "n=$((${n:-0}+1))",
  "[[ -n x ]] && v=1",
  "! true",
  "for i in 1 2; do :; done",
  "f_local(){ :; }; f_local",
];

for (const setting of settings) {
  test(`BashSession.run() forks nothing per call after: ${setting.name}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "bashbox-hot-"));
    sourced(dir);
    try {
      await using s = new BashSession({ cwd: dir, timeoutMs: 20_000 });
      const setup = setting.setup(dir);
      if (setup) {
        const r = await s.run(setup);
        equal(r.restarted, false, r.output.text);
      }
      const before = cminflt((await s.run(PROBE)).output.text);
      for (let round = 0; round < 5; round++) {
        for (const command of builtinsOnly) {
          const r = await s.run(command);
          equal(r.restarted, false, `${command}: ${r.output.text}`);
          equal(r.timedOut, false, command);
        }
      }
      const after = cminflt((await s.run(PROBE)).output.text);
      equal(after, before, "a child ran and was waited for during the calls");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test(`BashSession.run() carries $? and fires ERR once after: ${setting.name}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "bashbox-hot-"));
    sourced(dir);
    try {
      await using s = new BashSession({ cwd: dir, timeoutMs: 20_000 });
      const setup = setting.setup(dir);
      if (setup) await s.run(setup);
      const traced = (text: string) =>
        text.split("\n").filter((l) => /^\++ /.test(l) || l.startsWith("+ ["));
      // Failures bash exempts from errexit and the ERR trap: the status
      // carries to the next call, nothing fires, the shell stays.
      for (
        const [command, status] of [
          ["! true", 1],
          ["false && true", 1],
          ["[[ -z x ]] || (exit 4) && true", 4],
        ] as const
      ) {
        if (setting.errexit && command.includes("exit 4")) continue;
        const r = await s.run(command);
        equal(r.restarted, false, `${command}: ${r.output.text}`);
        equal(r.exitCode, status, `${command}: ${r.output.text}`);
        ok(!/^E$/m.test(r.output.text), `${command}: ${r.output.text}`);
        const next = await s.run('echo "st=$?"');
        ok(next.output.text.includes(`st=${status}\n`), next.output.text);
      }
      // Aliases of the user's still apply.
      if (setting.aliases) {
        const r = await s.run(
          setting.name === "many aliases" ? "al_7" : "type -t ll",
        );
        equal(
          r.output.text,
          setting.name === "many aliases" ? "7\n" : "alias\n",
        );
      }
      // A failing command: the ERR trap fires once; under errexit the shell
      // ends (as at a prompt), and says so.
      for (const command of ["f_fail(){ return 3; }; f_fail", "false"]) {
        const r = await s.run(command);
        const fired = (r.output.text.match(/^E$/gm) ?? []).length;
        equal(fired, setting.errTrap ? 1 : 0, `${command}: ${r.output.text}`);
        if (setting.errexit) {
          equal(r.restarted, true, command);
          break;
        }
        equal(r.exitCode, command === "false" ? 1 : 3, r.output.text);
        const next = await s.run('echo "st=$?"');
        equal(
          next.output.text.split("\n").filter((l) => l.startsWith("st="))[0],
          `st=${command === "false" ? 1 : 3}`,
        );
      }
      // xtrace shows the command, once, and nothing of the framing.
      if (setting.xtrace) {
        for (const command of ["echo hi", "x=1", "true"]) {
          const text = (await s.run(command)).output.text;
          ok(!text.includes("__bb"), text);
          equal(traced(text).length, 1, `${command}: ${text}`);
          ok(traced(text)[0].endsWith(` ${command}`), text);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test(
  "BashSession.run() survives or restarts at once when any framing variable is made read-only",
  async () => {
    // Every variable of the framing's (found, not listed), made read-only
    // by a command: later calls end promptly, run their command once or
    // restart at once, and the shell after a restart is sound.
    await using probe = new BashSession();
    const names = (await probe.run("compgen -v __bb")).output.text.trim()
      .split("\n").filter((n) => n !== "");
    ok(names.length > 5, names.join(" "));
    for (const name of names) {
      await using s = new BashSession({ timeoutMs: 8000 });
      await s.run(`readonly ${name}`);
      let restarts = 0;
      for (let k = 0; k < 3; k++) {
        const mark = `m-${name}-${k}`;
        const r = await s.run(`builtin printf '%s\\n' ${mark}`);
        equal(r.timedOut, false, `${name}: the call hung`);
        if (r.restarted && !r.output.text.includes(mark)) {
          ok(++restarts < 2, `${name}: restarted twice`);
          continue;
        }
        equal(r.output.text.split(mark).length, 2, `${name}: ${r.output.text}`);
      }
    }
  },
  { timeoutMs: 240_000 },
);
