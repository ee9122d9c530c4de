// "What the command started dies with it": generated variants of processes
// that leave the command's process group (coreutils timeout, job control,
// nested shells) and of the ways a command ends (deadline, abort, restart,
// close), for exec() and BashSession alike.
import { equal, ok } from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BashSession, exec } from "../mod.ts";
import { test } from "./_harness.ts";
import { gone, marker, started } from "./_procs.ts";

/** Commands that start `sleep <mark>` outside the caller's process group. */
const escapes: ((m: string) => string)[] = [
  (m) => `timeout 30 sleep ${m}`,
  (m) => `timeout -s KILL 30 sleep ${m}; echo after`,
  (m) => `set -m; sleep ${m}`,
  (m) => `set -m; sleep ${m} & wait`,
  (m) => `bash -c 'set -m; sleep ${m} & wait'`,
  (m) => `(set -m; timeout 40 sleep ${m} & wait)`,
  (m) => `timeout 50 bash -c 'sleep ${m}' | cat`,
];

for (const [i, make] of escapes.entries()) {
  test(`exec() leaves nothing after a deadline (variant ${i}: ${make("M")})`, async () => {
    const mark = marker();
    const r = await exec(make(mark), { timeoutMs: 400, killGraceMs: 200 });
    ok(r.timedOut);
    equal((await gone(mark)).length, 0);
  });

  test(`exec() leaves nothing after an abort (variant ${i})`, async () => {
    const mark = marker();
    const controller = new AbortController();
    const running = exec(make(mark), { signal: controller.signal });
    equal((await started(mark)).length > 0, true);
    controller.abort();
    const r = await running;
    ok(r.aborted);
    equal((await gone(mark)).length, 0);
  });

  test(`BashSession.run() leaves nothing after a deadline (variant ${i})`, async () => {
    const mark = marker();
    await using s = new BashSession({ killGraceMs: 400 });
    await s.run("KEEP=1");
    const r = await s.run(make(mark), { timeoutMs: 400 });
    ok(r.timedOut);
    equal((await gone(mark)).length, 0);
    // The shell answers afterwards with its state, kept or restored from
    // the journal (job control may report the interrupted job first, as at
    // a prompt).
    const next = await s.run("echo ${KEEP:-lost}");
    ok(next.output.text.endsWith("1\n"), next.output.text);
  });
}

for (const end of ["close", "restart"] as const) {
  for (const [i, make] of escapes.entries()) {
    test(`BashSession.${end}() kills a background job that left the group (variant ${i})`, async () => {
      const mark = marker();
      const s = new BashSession();
      await s.run(`( ${make(mark)} ) >/dev/null 2>&1 &`);
      ok((await started(mark)).length > 0);
      if (end === "close") await s.close();
      else await s.restart();
      equal((await gone(mark)).length, 0);
      await s.close();
    });
  }
}

test("exec() kills what left the group when the pipes stay open after exit", async () => {
  const mark = marker();
  const r = await exec(`(set -m; sleep ${mark} & ) ; echo done`, {
    timeoutMs: 10_000,
  });
  equal(r.stdout.text, "done\n");
  equal((await gone(mark)).length, 0);
});

test("BashSession: a command that calls setsid itself escapes without a sandbox (documented)", async () => {
  const mark = marker();
  const s = new BashSession();
  await s.run(`setsid sleep ${mark} >/dev/null 2>&1 < /dev/null &`);
  ok((await started(mark)).length > 0);
  await s.close();
  // It left the session: close() does not promise to catch it (only a
  // sandbox's PID namespace does; the host's guardian catches it when the
  // host ends). Seen gone already on Bun in a full run, with another test's
  // cleanup in flight: either way, nothing else of the session is left.
  const left = await gone(mark, 300);
  ok(left.length <= 1, `one escaped process at most, got ${left.length}`);
  for (const pid of left) await exec(`kill -KILL ${pid}`);
  equal((await gone(mark)).length, 0);
});

const bwrapProbe = await exec(
  "command -v bwrap >/dev/null && bwrap --ro-bind / / --unshare-pid --unshare-net --die-with-parent -- true && echo ok",
).catch(() => null);
const noBwrap = bwrapProbe?.stdout.text === "ok\n"
  ? false
  : "bubblewrap (bwrap) is not installed or cannot create namespaces here";

test(
  "BashSession sandbox: a command that calls setsid itself dies with close()",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "bashbox-kill-"));
    try {
      for (const make of [(m: string) => `setsid sleep ${m}`, ...escapes]) {
        const mark = marker();
        const s = new BashSession({ sandbox: { kind: "bwrap", workdir: dir } });
        await s.run(`( ${make(mark)} ) >/dev/null 2>&1 </dev/null &`);
        ok((await started(mark)).length > 0);
        await s.close();
        equal((await gone(mark)).length, 0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip: noBwrap },
);

test(
  "BashSession sandbox: a deadline kills what left the group inside",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "bashbox-kill-"));
    try {
      for (const make of escapes.slice(0, 3)) {
        const mark = marker();
        await using s = new BashSession({
          sandbox: { kind: "bwrap", workdir: dir },
          killGraceMs: 400,
        });
        const r = await s.run(make(mark), { timeoutMs: 400 });
        ok(r.timedOut);
        equal((await gone(mark)).length, 0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip: noBwrap },
);
