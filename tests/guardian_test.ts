import { deepEqual, equal, ok } from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { BashSession, exec } from "../mod.ts";
import { execPath, runtime, test } from "./_harness.ts";
import { alive, marker } from "./_procs.ts";

// A child host (tests/fixtures/guardian_host.ts, on the runtime running the
// tests) starts every kind of process, each `sleep <mark><kind>`; it dies in
// a way no handler of it sees (SIGKILL), or with SIGTERM, or as an MCP stdio
// server does when its stdin closes. Nothing with the mark may be left 2 s
// later: the guardian (and, over a transport, the remote side's control
// channel) kills it without any code of the host running.

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
    deepEqual(left, [], `left ${ms} ms after the host went`);
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
