import { deepEqual, equal, ok } from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { BashSession, exec } from "../mod.ts";
import { guardToken } from "../runtime/_guardian.ts";
import { guardSweep } from "../runtime/_sweep.ts";
import { envGet, execPath, runtime, test } from "./_harness.ts";
import { alive, gone, leader, marker, started } from "./_procs.ts";

// A child host (tests/fixtures/guardian_host.ts, on the runtime running the
// tests) starts every kind of process, each `sleep <mark><kind>`; it dies in
// a way no handler of it sees (SIGKILL), or with SIGTERM, or as an MCP stdio
// server does when its stdin closes. Nothing with the mark may be left 2 s
// later: the guardian (and, over a transport, the remote side's control
// channel) kills it without any code of the host running.
//
// The guardian sweeps with /proc, or with ps where there is none (macOS):
// BASHBOX_NO_PROC=1 in this host's environment (which the child host
// inherits) forces the ps path on Linux (.ci/run runs this file so too).
// guardSweep() is also tested on its own, on each path, including the one
// macOS's ps gives (no session ids). The tests watch processes through
// /proc, by the unique markers in their command lines: Linux only.

/** True when the hosts here sweep with ps (BASHBOX_NO_PROC=1). */
const NO_PROC = envGet("BASHBOX_NO_PROC") === "1";
/** The line that makes a sweep read /proc where it can (see _sweep.ts). */
const PROC_SWITCH = 'P=; [ -r "/proc/$$/stat" ] && P=1';

const fixture = new URL("./fixtures/guardian_host.ts", import.meta.url)
  .pathname;
const host = runtime === "deno"
  ? `"$BIN" run --allow-run=bash --allow-read --allow-write --allow-env "$FIXTURE"`
  : `"$BIN" "$FIXTURE"`;

const KIND_NAMES: Record<string, string> = {
  "0": "exec() in flight",
  "1": "foreground command",
  "2": "& job",
  "3": "nohup job",
  "4": "setsid -f",
  "5": "double fork",
  "6": "spawned process",
  "7": "terminal (tty) process",
  "8": "pooled session's job",
  "9": "sandboxed session's job",
  "11": "coreutils timeout (its own group)",
  "12": "job under set -m (its own group)",
  "13": "job with an empty environment (env -i)",
  "14": "stopped job",
  "15": "disowned job ignoring INT, TERM, HUP",
};

/** How the host goes away. */
type Death = "SIGKILL" | "SIGTERM" | "stdin";

interface HostOptions {
  death: Death;
  /** Sessions over a transport whose far end is a session of its own. */
  remote?: boolean;
  /** BASHBOX_NO_GUARDIAN=1 in the host (the remote lifeline alone). */
  noGuardian?: boolean;
}

/** Waits up to `ms` until `check()` holds; returns its last value. */
async function until<T>(
  ms: number,
  step: () => Promise<T> | T,
  check: (value: T) => boolean,
): Promise<T> {
  const end = performance.now() + ms;
  let value = await step();
  while (!check(value) && performance.now() < end) {
    await new Promise((r) => setTimeout(r, 25));
    value = await step();
  }
  return value;
}

/**
 * The command lines ("pid: argv…") of the live processes whose command line
 * matches `pattern` (an extended regular expression that does not match
 * itself, e.g. with "[.]" for "."). Read by bash: Deno reads /proc only
 * with --allow-all.
 */
async function commandLines(pattern: string): Promise<string[]> {
  const r = await exec([
    "bash",
    "-c",
    `for f in $(grep -laE -- "$0" /proc/[0-9]*/cmdline 2>/dev/null); do
       l=$(tr '\\0' ' ' <"$f" 2>/dev/null) && [ -n "$l" ] && p=\${f#/proc/} && echo "\${p%/cmdline}: $l"
     done; :`,
    pattern,
  ]);
  return r.stdout.text.split("\n").filter(Boolean);
}

async function checkHostDeath(options: HostOptions): Promise<void> {
  const mark = marker();
  const out = `/tmp/bashbox-guardian-${mark}`;
  // The driver: a session of this host that starts the child host in the
  // background, its stdin a FIFO whose write end the driver holds on fd 7.
  await using driver = new BashSession({
    env: {
      BIN: execPath(),
      FIXTURE: fixture,
      OUT: out,
      ...(options.noGuardian ? { BASHBOX_NO_GUARDIAN: "1" } : {}),
    },
  });
  try {
    const where = options.remote ? "remote" : "local";
    const mode = options.death === "stdin" ? "stdin" : "wait";
    const start = await driver.run(
      `mkfifo "$OUT.in" && { ${host} ${mark} ${mode} ${where} <"$OUT.in" >"$OUT" 2>"$OUT.err" & } && echo $! && exec 7>"$OUT.in"; rm -f "$OUT.in"`,
    );
    const pid = Number(start.output.text.trim());
    ok(pid > 0, start.output.text);
    const read = (name: string) => {
      try {
        return readFileSync(name, "utf8");
      } catch {
        return "";
      }
    };
    const text = await until(
      30_000,
      () => read(out),
      (t) => /^ready /m.test(t),
    );
    const ready = /^ready (\S+) (.*)$/m.exec(text);
    ok(ready, `the host did not start: ${text}${read(`${out}.err`)}`);
    for (const skip of text.matchAll(/^skip (\d+) (.*)$/gm)) {
      console.log(`  (not checked: ${KIND_NAMES[skip[1]]}: ${skip[2]})`);
    }
    const token = ready[1];
    const kinds = ready[2].split(" ").filter(Boolean);
    // Every kind runs before the host goes.
    const missing = await until(
      30_000,
      async () => {
        const lines = await commandLines(mark.replace(".", "[.]"));
        return kinds.filter((k) =>
          !lines.some((l) => l.includes(`sleep ${mark}${k} `))
        );
      },
      (left) => left.length === 0,
    );
    deepEqual(missing.map((k) => KIND_NAMES[k]), [], "not started");
    if (!options.noGuardian) {
      // The guardian takes the path this host's environment asks for.
      // (Its command line is its script: several lines, the first "pid: ".)
      const lines = await commandLines(`[${token[0]}]${token.slice(1)}`);
      const heads = lines.filter((l) => /^\d+: /.test(l));
      equal(heads.length, 1, `one guardian: ${heads.join(" | ")}`);
      equal(lines.join("\n").includes(PROC_SWITCH), !NO_PROC, "its path");
    }

    if (options.death === "stdin") await driver.run("exec 7>&-");
    else await driver.run(`kill -${options.death.slice(3)} ${pid}`);
    const since = performance.now();
    const pattern = mark.replace(".", "[.]");
    const left = await until(
      2000,
      () => commandLines(pattern),
      (l) => l.length === 0,
    );
    const ms = Math.round(performance.now() - since);
    deepEqual(left, [], `left ${ms} ms after the host went: ${left}`);
    // The guardian (the only process with the token in its command line)
    // finishes its sweep and exits.
    // (Without one, the host's processes inherit this host's mark.)
    if (!options.noGuardian) {
      const guardians = await until(
        10_000,
        () => commandLines(`[${token[0]}]${token.slice(1)}`),
        (l) => l.length === 0,
      );
      deepEqual(guardians, [], "the guardian did not exit");
      // The spawned processes' directories (their runners hold the
      // session's exports) went with the host, however it went.
      const dirs = (/^dirs (.*)$/m.exec(text)?.[1] ?? "").split(" ")
        .filter(Boolean);
      if (!options.remote) ok(dirs.length >= 1, "the host named its dirs");
      deepEqual(dirs.filter((d) => existsSync(d)), [], "directories left");
    }
  } finally {
    await driver.run("exec 7>&- 2>/dev/null; :");
    rmSync(out, { force: true });
    rmSync(`${out}.err`, { force: true });
    rmSync(`${out}.in`, { force: true });
  }
}

test(
  "spawnGroup() guardian: nothing the host started outlives a SIGKILL of the host",
  async () => {
    await checkHostDeath({ death: "SIGKILL" });
  },
  { timeoutMs: 120_000 },
);

test(
  "spawnGroup() guardian: nothing the host started outlives a SIGTERM of the host",
  async () => {
    await checkHostDeath({ death: "SIGTERM" });
  },
  { timeoutMs: 120_000 },
);

test(
  "spawnGroup() guardian: nothing outlives a host that exits when its stdin closes (an MCP stdio client going away)",
  async () => {
    await checkHostDeath({ death: "stdin" });
  },
  { timeoutMs: 120_000 },
);

test(
  "spawnGroup() guardian: over a transport, nothing outlives a SIGKILL of the host",
  async () => {
    await checkHostDeath({ death: "SIGKILL", remote: true });
  },
  { timeoutMs: 120_000 },
);

test(
  "ControlChannel: without the guardian, the remote side kills what it started when the host's connection drops",
  async () => {
    await checkHostDeath({ death: "SIGKILL", remote: true, noGuardian: true });
  },
  { timeoutMs: 120_000 },
);

test("spawnGroup() guardian: every process carries the host's mark; one guardian per host, in a session of its own, replaced when killed", async () => {
  const a = await exec('echo "$BASHBOX_GUARD"');
  const token = a.stdout.text.trim();
  ok(/^[0-9a-f]{16}$/.test(token), a.stdout.text);
  // The same mark for every process of this host, with a cleared
  // environment too.
  const b = await exec(["bash", "-c", 'echo "$BASHBOX_GUARD"'], {
    clearEnv: true,
  });
  equal(b.stdout.text.trim(), token);
  // The guardian is the only process with the token in its command line.
  const pattern = `[${token[0]}]${token.slice(1)}`;
  const guardians = await alive(pattern);
  equal(guardians.length, 1);
  const sid = await exec([
    "bash",
    "-c",
    'l=$(</proc/$0/stat); set -- ${l##*) }; echo "$4"',
    String(guardians[0]),
  ]);
  equal(Number(sid.stdout.text), guardians[0], "its own session");
  // Its environment is its own, with SHLVL: without, a bash whose stdin is
  // a socket (Node's and Bun's pipes) reads ~/.bashrc.
  const environ = await exec([
    "bash",
    "-c",
    `tr '\\0' '\\n' </proc/$0/environ | sed 's/=.*//' | sort`,
    String(guardians[0]),
  ]);
  deepEqual(environ.stdout.text.split("\n").filter(Boolean), [
    "LC_ALL",
    "PATH",
    "SHLVL",
  ]);
  // Killed by someone, it is replaced when the next group starts.
  await exec(["bash", "-c", 'kill -KILL "$0"', String(guardians[0])]);
  await until(5000, () => alive(pattern), (p) => !p.includes(guardians[0]));
  const next = await until(5000, async () => {
    await exec("true"); // (once the host has seen the guardian end)
    return alive(pattern);
  }, (p) => p.length > 0);
  equal(next.length, 1);
  ok(next[0] !== guardians[0]);
});

const sweepPaths = [
  { name: "/proc", script: guardSweep(false), orphans: true },
  { name: "ps", script: guardSweep(true), orphans: true },
  {
    name: "ps without session ids",
    script: guardSweep(true, true),
    orphans: false,
  },
] as const;

for (const path of sweepPaths) {
  test(
    `guardSweep() (${path.name}) kills the marked processes, the listed groups and the rest of their sessions${
      path.orphans ? "" : " (their descendants and groups)"
    }, and nothing else`,
    async () => {
      const mark = marker();
      const spare = marker();
      const token = guardToken();
      // A marked session: its leader, a job, an unmarked job in its group,
      // an unmarked job in a group of its own (set -m), a marked setsid
      // escape, and (where session ids are read) an unmarked job in a group
      // of its own whose parent exited.
      await leader(
        `sleep "$M"1 &
        env -u GUARDTEST sleep "$M"2 &
        set -m; env -u GUARDTEST sleep "$M"3 & set +m
        setsid -f sleep "$M"4
        ${path.orphans ? '(set -m; env -u GUARDTEST sleep "$M"5 &)' : ""}
        exec sleep "$M"0`,
        { M: mark, GUARDTEST: token },
      );
      // An unmarked session whose group is listed, with a job in a group of
      // its own.
      const listed = await leader(
        `set -m; sleep "$M"6 & set +m
        exec sleep "$M"7`,
        { M: mark },
      );
      // Neither marked nor listed: another token, no mark.
      await leader(`exec sleep "$S"1`, { S: spare, GUARDTEST: "0" + token });
      await leader(`sleep "$S"2 & exec sleep "$S"3`, { S: spare });
      try {
        const expected = path.orphans ? 8 : 7;
        const up = await started(mark, 5000);
        let all = up;
        for (let i = 0; i < 100 && all.length < expected; i++) {
          await new Promise((r) => setTimeout(r, 20));
          all = await alive(mark);
        }
        equal(all.length, expected, "started");
        equal((await started(spare, 5000)).length, 3, "bystanders started");
        await exec([
          "bash",
          "-c",
          `t=GUARDTEST=$0 s=" $1 "\n${path.script}`,
          token,
          String(listed),
        ]);
        deepEqual(await gone(mark), [], "left by the sweep");
        equal((await alive(spare)).length, 3, "a bystander was killed");
      } finally {
        const pids = [...await alive(mark), ...await alive(spare)];
        if (pids.length) {
          await exec([
            "bash",
            "-c",
            `kill -9 ${pids.join(" ")} 2>/dev/null; :`,
          ]);
        }
      }
    },
  );
}
