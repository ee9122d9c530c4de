import { equal, match, ok, rejects } from "node:assert/strict";
import { exec, SpawnError } from "../mod.ts";
import { liveGroupCount } from "../runtime/_runtime.ts";
import { test } from "./_harness.ts";
import { gone, marker, started } from "./_procs.ts";

test("exec() captures stdout, stderr and the exit code separately", async () => {
  const r = await exec("printf out; printf err >&2; exit 7");
  equal(r.stdout.text, "out");
  equal(r.stderr.text, "err");
  equal(r.exitCode, 7);
  equal(r.signal, null);
  equal(r.timedOut, false);
  equal(r.aborted, false);
  ok(r.durationMs >= 0);
});

test("exec() runs an argv array without a shell", async () => {
  const r = await exec([
    "bash",
    "-c",
    'printf "%s|" "$@"',
    "_",
    "a b",
    "$HOME",
    "*",
  ]);
  equal(r.stdout.text, "a b|$HOME|*|");
  equal(r.exitCode, 0);
});

test("exec() reports the signal that ended the command", async () => {
  const r = await exec("kill -TERM $$");
  equal(r.exitCode, null);
  equal(r.signal, "SIGTERM");
});

test("exec() gives EOF on stdin by default", async () => {
  const r = await exec("cat; read x; echo rc=$?");
  equal(r.stdout.text, "rc=1\n");
});

test("exec() feeds stdin from a string or bytes", async () => {
  equal((await exec("cat", { stdin: "héllo" })).stdout.text, "héllo");
  const r = await exec("wc -c", { stdin: new Uint8Array(100_000) });
  equal(r.stdout.text.trim(), "100000");
});

test("exec() passes cwd and env, and sets non-interactive defaults", async () => {
  const r = await exec('echo "$PWD $FOO $PAGER $TERM $GIT_TERMINAL_PROMPT"', {
    cwd: "/tmp",
    env: { FOO: "bar" },
  });
  equal(r.stdout.text, "/tmp bar cat dumb 0\n");
  const clear = await exec(["bash", "-c", 'echo "${HOME-unset}"'], {
    clearEnv: true,
  });
  equal(clear.stdout.text, "unset\n");
});

test("exec() timeout kills the whole group, grandchildren included", async () => {
  const mark = marker();
  const r = await exec(
    `sleep ${mark} & (sleep ${mark} &) ; trap '' TERM; sleep ${mark}`,
    { timeoutMs: 300, killGraceMs: 100 },
  );
  ok(r.timedOut);
  equal(r.exitCode, null);
  equal(r.signal, "SIGKILL");
  ok(r.durationMs < 300 + 100 + 1000, `took ${r.durationMs} ms`);
  equal((await gone(mark)).length, 0);
  equal(liveGroupCount(), 0);
});

test("exec() abort signal stops the command like a timeout", async () => {
  const mark = marker();
  const controller = new AbortController();
  const running = exec(`sleep ${mark}`, { signal: controller.signal });
  await started(mark);
  controller.abort();
  const r = await running;
  ok(r.aborted);
  ok(!r.timedOut);
  equal(r.signal, "SIGTERM");
  equal((await gone(mark)).length, 0);
});

test("exec() rejects an already aborted signal", async () => {
  await rejects(
    exec("true", { signal: AbortSignal.abort() }),
    (e: Error) => e.name === "AbortError",
  );
});

test("exec() returns promptly when a background child holds the pipes", async () => {
  const mark = marker();
  const r = await exec(`sleep ${mark} & echo main done`);
  equal(r.stdout.text, "main done\n");
  equal(r.exitCode, 0);
  ok(r.durationMs < 5000, `took ${r.durationMs} ms`);
  equal((await gone(mark)).length, 0);
});

test("exec() keeps memory flat and counts bytes exactly for 100 MB", async () => {
  // Warm up (JIT, allocator pools) and collect garbage where the runtime lets
  // us, so that the figure is what the capture keeps, not garbage not yet freed.
  await exec("head -c 10485760 /dev/zero", {
    headBytes: 4096,
    tailBytes: 4096,
  });
  collect();
  const before = memory();
  const r = await exec("head -c 104857600 /dev/zero", {
    headBytes: 4096,
    tailBytes: 4096,
  });
  collect();
  const grown = memory() - before;
  equal(r.stdout.totalBytes, 104_857_600);
  equal(r.stdout.omittedBytes, 104_857_600 - 8192);
  ok(r.stdout.truncated);
  equal(r.stdout.head.length, 4096);
  equal(r.stdout.tail.length, 4096);
  ok(grown < 64 * 1024 * 1024, `RSS grew by ${grown} bytes`);
});

test("exec() decodes invalid UTF-8 and keeps multi-byte characters whole at cuts", async () => {
  const bad = await exec("printf 'a\\xff\\xfeb'");
  equal(bad.stdout.text, "a\ufffd\ufffdb");
  const r = await exec("printf 'é%.0s' {1..1000}", {
    headBytes: 3,
    tailBytes: 5,
  });
  equal(r.stdout.head, "é");
  equal(r.stdout.tail, "éé");
  equal(r.stdout.totalBytes, 2000);
  equal(r.stdout.omittedBytes, 2000 - 2 - 4);
});

test("exec() streams output through onOutput", async () => {
  const seen: string[] = [];
  const dec = new TextDecoder();
  await exec("echo one; echo two >&2", {
    onOutput: (chunk, stream) => seen.push(`${stream}:${dec.decode(chunk)}`),
  });
  ok(seen.includes("stdout:one\n"), seen.join());
  ok(seen.includes("stderr:two\n"), seen.join());
});

test("exec() rejects bad input with a clear message", async () => {
  const cases: [unknown, unknown, RegExp][] = [
    ["", {}, /non-empty command/],
    ["   \n", {}, /non-empty command/],
    ["echo a\0b", {}, /NUL/],
    [[], {}, /non-empty argv/],
    [["bash", 3], {}, /argv\[1\] to be a string/],
    [42, {}, /string or a non-empty argv/],
    ["true", { timeoutMs: 0 }, /timeoutMs to be a positive/],
    ["true", { timeoutMs: -5 }, /timeoutMs/],
    ["true", { timeoutMs: Infinity }, /timeoutMs/],
    ["true", { timeoutMs: NaN }, /timeoutMs/],
    ["true", { killGraceMs: -1 }, /killGraceMs/],
    ["true", { headBytes: -1 }, /headBytes/],
  ];
  for (const [command, options, message] of cases) {
    await rejects(
      // deno-lint-ignore no-explicit-any
      exec(command as any, options as any),
      (e: Error) => {
        match(e.message, message);
        return true;
      },
    );
  }
});

test("exec() names a missing cwd", async () => {
  await rejects(
    exec("true", { cwd: "/nonexistent/bashbox-dir" }),
    (e: Error) => {
      ok(e instanceof SpawnError);
      match(
        e.message,
        /Expected cwd to be an existing directory, got "\/nonexistent\/bashbox-dir"/,
      );
      return true;
    },
  );
});

test("exec() names a missing shell binary", async () => {
  await rejects(
    exec("true", { shell: "/nonexistent/bashbox-no-such-shell" }),
    (e: Error) => {
      ok(e instanceof SpawnError);
      match(e.message, /bashbox-no-such-shell/);
      return true;
    },
  );
});

function collect(): void {
  // deno-lint-ignore no-explicit-any
  (globalThis as any).Bun?.gc?.(true);
}

function memory(): number {
  // deno-lint-ignore no-explicit-any
  const g = globalThis as any;
  return g.Deno?.memoryUsage?.().rss ?? g.process.memoryUsage().rss;
}
