import { equal, match, ok, rejects } from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BashSession, exec, formatResult, SpawnError } from "../mod.ts";
import { test } from "./_harness.ts";
import { alive, gone, marker, started } from "./_procs.ts";

const probe = await exec(
  "command -v bwrap >/dev/null && bwrap --ro-bind / / --unshare-pid --unshare-net --die-with-parent -- true && echo ok",
).catch(() => null);
const skip = probe?.stdout.text === "ok\n"
  ? false
  : "bubblewrap (bwrap) is not installed or cannot create namespaces here";

function workdir(): string {
  return mkdtempSync(join(tmpdir(), "bashbox-sandbox-"));
}

test(
  "BashSession sandbox: read-only root, writable workdir, private /tmp, no network",
  async () => {
    const dir = workdir();
    const hostFile = join(tmpdir(), `bashbox-host-${marker()}`);
    writeFileSync(hostFile, "host");
    try {
      await using s = new BashSession({
        sandbox: { kind: "bwrap", workdir: dir },
      });
      const r = await s.run(
        `pwd; touch /etc/bashbox-x 2>/dev/null && echo wrote-etc; echo data > inside.txt && echo wrote-workdir; ls ${hostFile} 2>/dev/null || echo no-host-tmp; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; echo $$`,
      );
      equal(r.output.text, `${dir}\nwrote-workdir\nno-host-tmp\nlo\n2\n`);
      equal(r.cwd, dir);
      const file = await exec([
        "bash",
        "-c",
        'cat "$1"',
        "_",
        join(dir, "inside.txt"),
      ]);
      equal(file.stdout.text, "data\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(hostFile, { force: true });
    }
  },
  { skip },
);

test(
  "BashSession sandbox: a timeout interrupts and keeps state; escalation restarts",
  async () => {
    const dir = workdir();
    try {
      await using s = new BashSession({
        sandbox: { kind: "bwrap", workdir: dir },
        killGraceMs: 300,
      });
      await s.run("export KEEP=yes");
      const slow = await s.run(`sleep ${marker()}`, { timeoutMs: 150 });
      ok(slow.timedOut);
      equal(slow.restarted, false);
      equal((await s.run("echo $KEEP")).output.text, "yes\n");
      const stubborn = await s.run("trap '' INT TERM; while :; do :; done", {
        timeoutMs: 150,
      });
      ok(stubborn.timedOut);
      equal(stubborn.restarted, true);
      // The state journal brings the sandboxed shell's state back too.
      ok(
        stubborn.restored?.variables.includes("KEEP"),
        String(stubborn.restored),
      );
      equal((await s.run("echo ${KEEP:-fresh}")).output.text, "yes\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip },
);

test(
  "BashSession sandbox: close() leaves no survivor, double-forked daemons included",
  async () => {
    const dir = workdir();
    const mark = marker();
    try {
      const s = new BashSession({ sandbox: { kind: "bwrap", workdir: dir } });
      await s.run(
        `(setsid sleep ${mark} &) ; (sleep ${mark} &) ; nohup sleep ${mark} >/dev/null 2>&1 &`,
      );
      equal((await started(mark)).length > 0, true);
      await s.close();
      equal((await gone(mark)).length, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip },
);

test("BashSession sandbox: a missing bwrap fails start() with how to install it", async () => {
  const dir = workdir();
  try {
    const s = new BashSession({
      sandbox: { kind: "bwrap", workdir: dir, bwrap: "/nonexistent/bwrap" },
    });
    await rejects(s.start(), (e: Error) => {
      ok(e instanceof SpawnError);
      match(
        e.message,
        /needs bubblewrap.*\/nonexistent\/bwrap.*apt-get install bubblewrap/,
      );
      return true;
    });
    await s.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BashSession rejects a bad sandbox or limits", () => {
  for (
    const [options, message] of [
      [{ sandbox: { kind: "docker", workdir: "/tmp" } }, /kind: "bwrap"/],
      [
        { sandbox: { kind: "bwrap", workdir: "relative" } },
        /sandbox.workdir to be an absolute path/,
      ],
      [{ limits: { memoryBytes: -1 } }, /limits.memoryBytes/],
    ] as const
  ) {
    let error: Error | undefined;
    try {
      // deno-lint-ignore no-explicit-any
      new BashSession(options as any);
    } catch (e) {
      error = e as Error;
    }
    ok(error, JSON.stringify(options));
    match(error.message, message);
  }
});

test("BashSession limits: a runaway file write is stopped and named", async () => {
  const dir = workdir();
  try {
    await using s = new BashSession({
      cwd: dir,
      limits: { fileSizeBytes: 1 << 20 },
    });
    const r = await s.run("head -c 10M /dev/zero > big");
    equal(r.exitCode, 153);
    match(formatResult(r), /SIGXFSZ: file size limit exceeded/);
    equal(
      (await s.run("stat -c %s big; echo still here")).output.text,
      "1048576\nstill here\n",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BashSession limits: a CPU hog is stopped by SIGXCPU", async () => {
  await using s = new BashSession({ limits: { cpuSeconds: 1 } });
  const r = await s.run("bash -c 'while :; do :; done'", { timeoutMs: 20_000 });
  equal(r.exitCode, 152);
  match(formatResult(r), /SIGXCPU: CPU time limit exceeded/);
  equal(r.timedOut, false);
});

test("BashSession limits: a memory hog fails to allocate", async () => {
  await using s = new BashSession({
    limits: { memoryBytes: 256 * 1024 * 1024 },
  });
  const r = await s.run(
    'awk \'BEGIN { s = sprintf("%600000000s", ""); print length(s) }\'',
  );
  ok(r.exitCode !== 0, r.output.text);
  ok(!r.output.text.includes("600000000"), r.output.text);
  equal((await s.run("echo ok")).output.text, "ok\n");
});

test("BashSession limits: a fork bomb hits the process limit", async () => {
  const mark = marker();
  // RLIMIT_NPROC does not bind root: as root, run the bomb as nobody.
  const asRoot = (await exec("id -u")).stdout.text.trim() === "0";
  const drop = asRoot
    ? "setpriv --reuid=65534 --regid=65534 --clear-groups "
    : "";
  await using s = new BashSession({ limits: { processes: 30 } });
  const r = await s.run(
    `${drop}bash -c 'for i in $(seq 200); do sleep ${mark} & done 2>&1 | grep -m1 -o "Resource temporarily unavailable"; kill $(jobs -p) 2>/dev/null; true'`,
    { timeoutMs: 30_000 },
  );
  match(r.output.text, /Resource temporarily unavailable|retry/, r.output.text);
  ok((await alive(mark)).length <= 30);
  await s.close();
  equal((await gone(mark)).length, 0);
});
