// The session and mark sweeps (runtime/_sweep.ts) on each of their paths:
// /proc (Linux), ps with session ids (the path BASHBOX_NO_PROC=1 forces on
// Linux), and ps without session ids (what macOS's ps gives). And the rule
// that a sweep never signals a process that is not the session's: a live
// process with the pid of a leader the host already reaped is left alone.
import { deepEqual, equal, ok } from "node:assert/strict";
import { exec } from "../mod.ts";
import { markSweep, sessionSweep } from "../runtime/_sweep.ts";
import { test } from "./_harness.ts";
import { alive, gone, leader, marker, started } from "./_procs.ts";

const paths = [
  { name: "/proc", script: sessionSweep(false), orphans: true },
  { name: "ps", script: sessionSweep(true), orphans: true },
  {
    name: "ps without session ids",
    script: sessionSweep(true, true),
    orphans: false,
  },
] as const;

const onLinux = await exec(["bash", "-c", "[ -r /proc/$$/stat ]"])
  .then((r) => r.exitCode === 0, () => false);
const skip = onLinux ? false : "these tests watch processes through /proc";

async function sweep(
  script: string,
  sid: number,
  group: number,
  sig: string,
  mode = "live",
): Promise<void> {
  await exec([
    "bash",
    "-c",
    script,
    "bashbox-sweep",
    String(sid),
    String(group),
    sig,
    mode,
  ]);
}

async function killAll(...marks: string[]): Promise<void> {
  const pids = (await Promise.all(marks.map(alive))).flat();
  if (pids.length) {
    await exec(["bash", "-c", `kill -9 ${pids.join(" ")} 2>/dev/null; :`]);
  }
}

for (const path of paths) {
  test(
    `sessionSweep() (${path.name}) signals the session outside the spared group, then everything with KILL`,
    async () => {
      const [a, b, c] = [marker(), marker(), marker()];
      const pid = await leader("set -m; sleep $A & sleep $B & exec sleep $C", {
        A: a,
        B: b,
        C: c,
      });
      try {
        equal((await started(a)).length + (await started(b)).length, 2);
        equal((await started(c)).length, 1);
        await sweep(path.script, pid, pid, "TERM");
        equal((await gone(a)).length + (await gone(b)).length, 0);
        deepEqual(await alive(c), [pid]);
        await sweep(path.script, pid, 0, "KILL");
        equal((await gone(c)).length, 0);
      } finally {
        await killAll(a, b, c);
      }
    },
    { skip },
  );

  test(
    `sessionSweep() (${path.name}) finds a job whose parent exited${
      path.orphans ? "" : " (not without session ids: documented)"
    }`,
    async () => {
      const [o, c] = [marker(), marker()];
      const pid = await leader("set -m; (sleep $A &); exec sleep $C", {
        A: o,
        C: c,
      });
      try {
        equal((await started(o)).length, 1);
        await sweep(path.script, pid, 0, "KILL");
        equal((await gone(c)).length, 0);
        equal(
          (await gone(o, path.orphans ? 3000 : 300)).length,
          path.orphans ? 0 : 1,
        );
      } finally {
        await killAll(o, c);
      }
    },
    { skip },
  );

  test(
    `sessionSweep() (${path.name}) leaves alone a live process with the pid of a reaped leader`,
    async () => {
      const [a, c] = [marker(), marker()];
      const pid = await leader("sleep $A & exec sleep $C", { A: a, C: c });
      try {
        equal((await started(c)).length, 1);
        await sweep(path.script, pid, 0, "KILL", "gone");
        await new Promise((resolve) => setTimeout(resolve, 200));
        deepEqual(await alive(c), [pid]);
        equal((await alive(a)).length, 1);
      } finally {
        await killAll(a, c);
      }
    },
    { skip },
  );
}

for (const noProc of [false, true]) {
  test(
    `markSweep() (${
      noProc ? "ps" : "/proc"
    }) signals the processes whose environment holds the mark`,
    async () => {
      const [m, other] = [marker(), marker()];
      const token = `t${marker().replace(".", "")}`;
      const pid = await leader(
        "BASHBOX_PROCESS=$T sleep $A & BASHBOX_PROCESS=x$T sleep $B & wait",
        { A: m, B: other, T: token },
      );
      try {
        ok(pid > 0);
        equal((await started(m)).length, 1);
        equal((await started(other)).length, 1);
        await exec([
          "bash",
          "-c",
          markSweep(noProc),
          "bashbox-sweep",
          token,
          "KILL",
        ]);
        equal((await gone(m)).length, 0);
        equal((await alive(other)).length, 1);
      } finally {
        await killAll(m, other);
      }
    },
    { skip },
  );
}
