// Deadlines, aborts, callbacks that throw, and the environment a command gets:
// exec() and BashSession behave alike.
import { equal, ok, rejects, throws } from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BashSession, exec, OutputCallbackError } from "../mod.ts";
import { test } from "./_harness.ts";

const TOO_LONG = [2 ** 31, 2 ** 31 + 5, 1e12, Number.MAX_SAFE_INTEGER];

test("exec() refuses a timeoutMs beyond what a timer can wait", async () => {
  for (const timeoutMs of TOO_LONG) {
    await rejects(exec("true", { timeoutMs }), RangeError);
    await rejects(exec("true", { killGraceMs: timeoutMs }), RangeError);
  }
  // The largest allowed value does not fire at once.
  const r = await exec("echo ok", { timeoutMs: 2 ** 31 - 1 });
  equal(r.timedOut, false);
  equal(r.stdout.text, "ok\n");
});

test("BashSession refuses a timeoutMs beyond what a timer can wait", async () => {
  for (const timeoutMs of TOO_LONG) {
    throws(() => new BashSession({ timeoutMs }), RangeError);
  }
  await using s = new BashSession({ timeoutMs: 2 ** 31 - 1 });
  for (const timeoutMs of TOO_LONG) {
    await rejects(s.run("true", { timeoutMs }), RangeError);
  }
  const r = await s.run("echo ok", { timeoutMs: 2 ** 31 - 1 });
  equal(r.timedOut, false);
  equal(r.output.text, "ok\n");
});

test("exec() and BashSession.run() run nothing for an already-aborted signal", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bashbox-abort-"));
  try {
    await using s = new BashSession();
    for (const reason of [undefined, new Error("stop it"), "why"]) {
      const signal = AbortSignal.abort(reason);
      const file = join(dir, `ran-${crypto.randomUUID()}`);
      const a = await exec(`touch ${file}`, { signal }).catch((e) => e);
      const b = await s.run(`touch ${file}`, { signal }).catch((e) => e);
      for (const error of [a, b]) {
        ok(error instanceof Error || error instanceof DOMException);
        equal(error.name, "AbortError");
      }
      equal(existsSync(file), false);
    }
    // The session is unharmed.
    equal((await s.run("echo ok")).output.text, "ok\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BashSession.run() aborted while queued never starts", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bashbox-abort-"));
  try {
    await using s = new BashSession();
    const slow = s.run("sleep 0.3; echo first");
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const queued = controllers.map((c, i) =>
      s.run(`touch ${join(dir, `q${i}`)}`, { signal: c.signal }).catch((e) => e)
    );
    const kept = s.run(`touch ${join(dir, "kept")}; echo kept`);
    controllers.forEach((c) => c.abort());
    equal((await slow).output.text, "first\n");
    for (const error of await Promise.all(queued)) {
      equal(error.name, "AbortError");
    }
    equal((await kept).output.text, "kept\n");
    for (let i = 0; i < 5; i++) equal(existsSync(join(dir, `q${i}`)), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("exec() with an onOutput that throws drains everything and rejects after the end", async () => {
  for (const at of [1, 2, 5]) {
    let calls = 0;
    const error = await exec("seq 1 200000; echo err >&2", {
      onOutput: () => {
        if (++calls === at) throw new Error("sink broke");
      },
    }).catch((e) => e);
    ok(error instanceof OutputCallbackError, String(error));
    equal(calls, at);
    equal((error.cause as Error).message, "sink broke");
    equal(error.result.exitCode, 0);
    equal(error.result.stdout.totalBytes, 1288895);
    ok(error.result.stdout.text.endsWith("199999\n200000\n"));
    equal(error.result.stderr.text, "err\n");
  }
});

test("BashSession.run() with an onOutput that throws keeps the session and the output", async () => {
  await using s = new BashSession();
  await s.run("X=kept");
  for (const at of [1, 3]) {
    let calls = 0;
    const error = await s.run("seq 1 100000", {
      onOutput: () => {
        if (++calls === at) throw new TypeError("bad sink");
      },
    }).catch((e) => e);
    ok(error instanceof OutputCallbackError, String(error));
    equal(error.result.exitCode, 0);
    equal(error.result.output.totalBytes, 588895);
    equal(error.result.restarted, false);
  }
  equal((await s.run("echo $X")).output.text, "kept\n");
});

test("exec() and BashSession find bash when the command's PATH does not hold it", async () => {
  for (const PATH of ["/nonexistent", "", "/tmp"]) {
    const r = await exec("echo $PATH; type -t ls || echo none", {
      env: { PATH },
    });
    equal(r.stdout.text, `${PATH}\nnone\n`);
    await using s = new BashSession({ env: { PATH } });
    const q = await s.run("echo $PATH");
    equal(q.output.text, `${PATH}\n`);
  }
});

test("BashSession: an editor in the host environment does not make git wait", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bashbox-git-"));
  // deno-lint-ignore no-explicit-any
  const g = globalThis as any;
  const env = g.Deno ? g.Deno.env : undefined;
  const set = (k: string, v: string | undefined) => {
    if (env) v === undefined ? env.delete(k) : env.set(k, v);
    else if (v === undefined) delete g.process.env[k];
    else g.process.env[k] = v;
  };
  const saved = ["EDITOR", "VISUAL", "GIT_EDITOR"].map((k) =>
    [k, env ? env.get(k) : g.process.env[k]] as const
  );
  for (const [k] of saved) set(k, "vi");
  try {
    await using s = new BashSession({ cwd: dir, timeoutMs: 20_000 });
    const setup = await s.run(
      "git init -q . && git config user.email a@b.c && git config user.name A && echo x > f && git add f",
    );
    equal(setup.exitCode, 0, setup.output.text);
    for (const cmd of ["git commit", "git commit --amend", "git tag -a v1"]) {
      if (cmd !== "git commit") await s.run("git commit -qm init");
      const r = await s.run(cmd);
      equal(r.timedOut, false, cmd);
      ok(r.exitCode !== 0, cmd);
      ok(/editor/i.test(r.output.text), r.output.text);
    }
  } finally {
    for (const [k, v] of saved) set(k, v);
    rmSync(dir, { recursive: true, force: true });
  }
});
