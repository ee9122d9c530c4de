import { equal, match, ok, rejects } from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import {
  type AuditRecord,
  BashSession,
  BashTool,
  exec,
  PROCESS_TOOLS,
  runnableProcessTools,
} from "../mod.ts";
import type { BackgroundProcess } from "../core/processes.ts";
import { redactor } from "../egress/redact.ts";
import { runtime, test } from "./_harness.ts";
import { alive, gone, marker } from "./_procs.ts";

/** Waits up to `ms` until `count` processes with `mark` run; returns their pids. */
async function started(mark: string, count = 1, ms = 5000): Promise<number[]> {
  const until = performance.now() + ms;
  let found = await alive(mark);
  while (found.length < count && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
    found = await alive(mark);
  }
  return found;
}

const has = async (program: string): Promise<boolean> =>
  (await exec(["bash", "-c", `command -v ${program}`])).exitCode === 0;
const [hasPython, hasVim, hasTop, hasScript, hasCurl] = await Promise.all(
  ["python3", "vim", "top", "script", "curl"].map(has),
);
const noTty = runtime !== "bun" && !hasScript && !hasPython
  ? "neither util-linux script nor python3 is installed (Deno and Node need one for a terminal)"
  : false;

/** Reads until `until` matches; fails with what came when it does not. */
async function expectOutput(
  p: BackgroundProcess,
  until: RegExp | string,
  waitMs = 10_000,
): Promise<string> {
  let text = "";
  const stop = performance.now() + waitMs;
  while (performance.now() < stop) {
    const r = await p.read({ waitMs: stop - performance.now() });
    text += r.text;
    if (typeof until === "string" ? text.includes(until) : until.test(text)) {
      return text;
    }
    if (!r.running) break;
  }
  throw new Error(
    `Expected output matching ${String(until)}, got ${JSON.stringify(text)}`,
  );
}

/** Waits until the terminal's screen matches `pattern`; returns the screen. */
async function expectScreen(
  p: BackgroundProcess,
  pattern: RegExp,
  waitMs = 10_000,
): Promise<string> {
  const stop = performance.now() + waitMs;
  let screen = "";
  while (performance.now() < stop) {
    screen = await p.screen();
    if (pattern.test(screen)) return screen;
    await p.read({ waitMs: 100 });
  }
  throw new Error(
    `Expected the screen to match ${String(pattern)}, got:\n${screen}`,
  );
}

test("BashSession.spawn() starts from the session's cwd, variables and functions", async () => {
  await using s = new BashSession();
  await s.run('cd /tmp && export BB_P=42 && greet() { echo "hi $1"; }');
  const p = await s.spawn('echo "$PWD $BB_P $BB_E"; greet you; echo err >&2', {
    env: { BB_E: "extra" },
  });
  const status = await p.wait();
  equal(status.exitCode, 0);
  const r = await p.read();
  equal(r.text, "/tmp 42 extra\nhi you\nerr\n");
  equal(r.running, false);
  equal(r.totalBytes, r.text.length);
  equal(readFileSync(p.logPath, "utf8"), r.text);
  equal(s.processes().length, 1);
  equal(s.processes()[0].id, p.id);
});

test("BashSession.spawn() process reads what write() sends, until endInput()", async () => {
  await using s = new BashSession();
  const p = await s.spawn("cat; echo done; exit 3");
  ok(p.running);
  await p.write("one\n");
  equal((await p.read({ until: "one", waitMs: 5000 })).text, "one\n");
  // Nothing new: read returns at once with empty text.
  const idle = await p.read();
  equal(idle.text, "");
  equal(idle.running, true);
  await p.endInput();
  equal((await p.wait()).exitCode, 3);
  const end = await p.read();
  equal(end.text, "done\n");
  equal(end.exitCode, 3);
  await rejects(p.write("late"), TypeError);
});

test("BackgroundProcess.read() keeps the last maxBytes and counts the rest", async () => {
  await using s = new BashSession();
  const p = await s.spawn("seq 1 20000");
  await p.wait();
  const r = await p.read({ maxBytes: 12 });
  equal(r.text, "19999\n20000\n");
  equal(r.totalBytes, 108894);
  equal(r.omittedBytes, 108894 - 12);
  equal(readFileSync(p.logPath, "utf8").length, 108894);
});

test("BackgroundProcess.read() waits up to waitMs and returns early on until", async () => {
  await using s = new BashSession();
  const p = await s.spawn("sleep 0.3; echo ready; sleep 30");
  const t0 = performance.now();
  const early = await p.read({ waitMs: 100, until: "ready" });
  ok(performance.now() - t0 >= 90, "waited");
  equal(early.matched, false);
  const r = await p.read({ waitMs: 10_000, until: /rea+dy/ });
  equal(r.matched, true);
  equal(r.text, "ready\n");
  ok(performance.now() - t0 < 5000);
  await p.stop();
});

test(
  "BashSession.spawn() serves python3 http.server, fetched by another command, stopped with nothing left",
  async () => {
    const mark = marker();
    const dir = `/tmp/bashbox-www-${mark}`;
    mkdirSync(dir);
    try {
      await using s = new BashSession({ cwd: dir });
      await s.run("echo hello-from-server > index.html");
      const server = await s.spawn(
        `python3 -u -m http.server 0 --bind 127.0.0.1 --directory ${dir}`,
      );
      const out = await expectOutput(server, /Serving HTTP on \S+ port (\d+)/);
      const port = out.match(/port (\d+)/)![1];
      const fetcher = hasCurl
        ? `curl -s http://127.0.0.1:${port}/index.html`
        : `python3 -c 'import urllib.request as u; print(u.urlopen("http://127.0.0.1:${port}/index.html").read().decode(), end="")'`;
      const r = await s.run(fetcher);
      equal(r.output.text, "hello-from-server\n");
      match(await expectOutput(server, "GET /index.html"), /200/);
      await server.stop();
      equal(server.running, false);
      equal((await gone(mark)).length, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip: hasPython ? false : "python3 is not installed" },
);

test("BashSession.spawn() watcher output keeps coming while foreground commands run unharmed", async () => {
  await using s = new BashSession();
  const w = await s.spawn(
    "i=0; while :; do i=$((i+1)); echo tick $i; echo warn $i >&2; sleep 0.01; done",
  );
  for (let i = 0; i < 25; i++) {
    const r = await s.run(`echo fg ${i}; printf 'x%.0s' {1..100}`);
    equal(r.output.text, `fg ${i}\n${"x".repeat(100)}`);
    equal(r.exitCode, 0);
  }
  const got = await w.read({ waitMs: 1000 });
  match(got.text, /tick \d+\nwarn \d+\n/);
  ok(!got.text.includes("fg "), "foreground output leaked into the watcher");
  ok(w.running);
  await w.stop();
});

test("BackgroundProcess.stop() kills a process that ignores SIGINT and SIGTERM", async () => {
  const mark = marker();
  await using s = new BashSession();
  const p = await s.spawn(
    `trap '' INT TERM; echo armed; while :; do sleep ${mark}; done`,
  );
  await expectOutput(p, "armed");
  ok((await started(mark)).length > 0);
  const t0 = performance.now();
  const status = await p.stop({ graceMs: 400 });
  const took = performance.now() - t0;
  equal(status.signal, "SIGKILL");
  ok(took >= 350 && took < 3000, `stop took ${took} ms`);
  equal((await gone(mark)).length, 0);
});

test("BackgroundProcess.stop() kills a daemon that moved to its own session (setsid)", async () => {
  const mark = marker();
  await using s = new BashSession();
  const p = await s.spawn(
    `setsid sleep ${mark} </dev/null >/dev/null 2>&1 & echo forked; wait`,
  );
  await expectOutput(p, "forked");
  const pids = await started(mark);
  equal(pids.length, 1);
  // (Found by its command line, it may still be \`setsid\` before the call:
  // its session is read until it changes.)
  let session = p.pid;
  for (let i = 0; i < 100 && session === p.pid; i++) {
    const stat = await exec(["bash", "-c", `cat /proc/${pids[0]}/stat`]);
    session = Number(stat.stdout.text.split(") ")[1]?.split(" ")[3]);
    if (session === p.pid) await new Promise((r) => setTimeout(r, 30));
  }
  ok(session !== p.pid, "the daemon left the process's session");
  await p.stop();
  equal((await gone(mark)).length, 0);
});

test("BashSession.close() and restart() kill every spawned process, daemons too", async () => {
  const a = marker();
  const b = marker();
  const s = new BashSession();
  await s.spawn(`sleep ${a}`);
  const d = await s.spawn(`setsid sleep ${b} & sleep ${a}`);
  ok((await started(b)).length > 0);
  await s.restart();
  equal(s.processes().length, 0);
  const after = await s.spawn("true");
  equal(after.id, "p3", "ids are not reused after a restart");
  equal((await gone(a)).length, 0);
  equal((await gone(b)).length, 0);
  equal(d.running, false);
  const c = marker();
  await s.spawn(`setsid sleep ${c} & sleep ${c}`);
  equal((await started(c, 2)).length, 2);
  await s.close();
  equal((await gone(c)).length, 0);
  await rejects(s.spawn("true"), TypeError);
});

test("BashSession.spawn() processes die when the host exits without closing", async () => {
  const mark = marker();
  // deno-lint-ignore no-explicit-any
  const g = globalThis as any;
  const bin: string = g.Deno ? g.Deno.execPath() : g.process.execPath;
  const code = `import { BashSession } from ${
    JSON.stringify(new URL("../mod.ts", import.meta.url).href)
  };
const s = new BashSession();
const p = await s.spawn("setsid sleep ${mark} & sleep ${mark}");
await new Promise((r) => setTimeout(r, 300));
console.log("ready", p.logPath);
if (globalThis.Deno) Deno.exit(0); else process.exit(0);`;
  const file = `/tmp/bashbox-host-${mark}.mts`;
  await exec(["bash", "-c", `cat > "${file}"`], { stdin: code });
  try {
    const r = await exec(
      runtime === "deno" ? `"$BIN" run --allow-all "$FILE"` : `"$BIN" "$FILE"`,
      { env: { BIN: bin, FILE: file }, timeoutMs: 30_000 },
    );
    match(r.stdout.text, /^ready \/\S+\/output\.log\n$/, r.stderr.text);
    equal(r.timedOut, false);
    equal((await gone(mark)).length, 0);
    const log = r.stdout.text.trim().split(" ")[1];
    equal(existsSync(log), false, "the log was removed at host exit");
  } finally {
    rmSync(file, { force: true });
  }
});

test("BashSession.spawn() refuses a terminal outside a local session with a SpawnError", async () => {
  await using s = new BashSession({ transport: { argv: ["env"] } });
  await rejects(s.spawn("true", { tty: true }), (error: Error) => {
    equal(error.name, "SpawnError");
    match(error.message, /needs a local session, got one over a transport/);
    return true;
  });
});

test("BashSession.spawn() tty: python3 REPL computes 1+1", async () => {
  await using s = new BashSession();
  const py = await s.spawn("python3 -q", { tty: true });
  await expectOutput(py, ">>> ");
  await py.write("import sys; sys.stdin.isatty()\r");
  // Each line is typed once the prompt is back (input typed while readline
  // switches the terminal's mode may be flushed).
  await expectOutput(py, /True\n>>> $/);
  await py.write("1+1\r");
  const out = await expectOutput(py, /^2\n>>> $/m);
  ok(!out.includes("\x1b"), "escape codes in read()");
  await py.write("\x04");
  equal((await py.wait()).exitCode, 0);
}, { skip: hasPython ? noTty : "python3 is not installed" });

test(
  "BashSession.spawn() tty: a password prompt read from the terminal",
  async () => {
    await using s = new BashSession();
    const p = await s.spawn(
      `read -s -p "Password: " pw </dev/tty; echo; echo "got \${#pw} chars"`,
      { tty: true },
    );
    await expectOutput(p, "Password: ");
    await p.write("hunter22\r");
    const out = await expectOutput(p, "got 8 chars");
    ok(!out.includes("hunter22"), "the password was echoed");
    equal((await p.wait()).exitCode, 0);
  },
  { skip: noTty },
);

test(
  "BashSession.spawn() tty: vim opens a file and quits with :q",
  async () => {
    const mark = marker();
    const file = `/tmp/bashbox-vim-${mark}.txt`;
    await exec(["bash", "-c", `echo first-line-of-file > ${file}`]);
    try {
      await using s = new BashSession();
      const vim = await s.spawn(`vim -u NONE -N -n ${file}`, {
        tty: true,
        cols: 60,
        rows: 12,
      });
      const screen = await expectScreen(vim, /first-line-of-file[\s\S]*~/);
      equal(screen.split("\n")[0], "first-line-of-file");
      await vim.write(":q\r");
      equal((await vim.wait()).exitCode, 0);
      equal((await gone(mark)).length, 0);
    } finally {
      rmSync(file, { force: true });
    }
  },
  { skip: noTty || (hasVim ? false : "vim is not installed") },
);

test(
  "BashSession.spawn() top -b -n 1 without a terminal, and top's screen with one",
  async () => {
    await using s = new BashSession();
    const batch = await s.spawn("top -b -n 1");
    equal((await batch.wait()).exitCode, 0);
    match((await batch.read()).text, /PID\s+USER/);
    const top = await s.spawn("top -d 0.5", { tty: true, cols: 100, rows: 20 });
    const screen = await expectScreen(top, /load average[\s\S]*PID\s+USER/);
    ok(screen.split("\n").length <= 20);
    await top.resize(120, 30);
    await expectScreen(top, /PID\s+USER/);
    await top.write("q");
    equal((await top.wait()).exitCode, 0);
  },
  { skip: noTty || (hasTop ? false : "top is not installed") },
);

/** Sets (or, with undefined, removes) a variable of the host's environment. */
function setHostEnv(name: string, value: string | undefined): void {
  // deno-lint-ignore no-explicit-any
  const g = globalThis as any;
  if (g.Deno) {
    if (value === undefined) g.Deno.env.delete(name);
    else g.Deno.env.set(name, value);
  } else if (value === undefined) delete g.process.env[name];
  else g.process.env[name] = value;
}

test(
  "BashSession.spawn() tty: the Python pty helper gives a terminal when forced (BASHBOX_PTY_HELPER=python)",
  async () => {
    const mark = marker();
    setHostEnv("BASHBOX_PTY_HELPER", "python");
    try {
      await using s = new BashSession();
      const p = await s.spawn(
        `[ -t 0 ] && [ -t 1 ] && echo "tty $(stty size)"; read -r line; echo "got $line"; trap 'echo "size $(stty size)"' WINCH; echo ready; while :; do sleep ${mark} & wait $!; done`,
        { tty: true, cols: 70, rows: 15 },
      );
      await expectOutput(p, "tty 15 70");
      // The leader (by now the helper): python3 -I …/bashbox_pty.py.
      // Read through bash: Deno does not let a test read /proc itself.
      const cmdline = (await exec([
        "bash",
        "-c",
        'tr "\\0" "\\n" < "/proc/$0/cmdline"',
        String(p.pid),
      ])).stdout.text.split("\n");
      ok(cmdline.includes("-I"), cmdline.join(" "));
      ok(cmdline.some((a) => a.endsWith("/bashbox_pty.py")), cmdline.join(" "));
      await p.write("hello\r");
      await expectOutput(p, /got hello\n[\s\S]*ready/);
      await p.resize(90, 33);
      await expectOutput(p, "size 33 90");
      // One sleep per WINCH (the trap ends the wait, not the sleep).
      ok((await started(mark)).length >= 1);
      const status = await p.stop({ graceMs: 500 });
      ok(status.signal !== null || status.exitCode !== 0);
      equal((await gone(mark)).length, 0);
    } finally {
      setHostEnv("BASHBOX_PTY_HELPER", undefined);
    }
  },
  { skip: hasPython ? false : "python3 is not installed" },
);

test("BashSession.spawn() tty: a SpawnError names script and python3 when PATH has neither", async () => {
  // "any": look for a helper on Bun too (it has a built-in terminal).
  setHostEnv("BASHBOX_PTY_HELPER", "any");
  try {
    await using s = new BashSession({
      env: { PATH: "/nonexistent/bashbox-empty-path" },
    });
    await rejects(s.spawn("true", { tty: true }), (error: Error) => {
      equal(error.name, "SpawnError");
      match(error.message, /`script` or Python 3 \(`python3`/);
      match(error.message, /neither was found on PATH/);
      return true;
    });
    equal(s.processes().length, 0);
  } finally {
    setHostEnv("BASHBOX_PTY_HELPER", undefined);
  }
});

test(
  "BackgroundProcess.resize() changes what the program sees as its size",
  async () => {
    await using s = new BashSession();
    const p = await s.spawn(
      `stty size; trap 'stty size' WINCH; echo waiting; while :; do sleep 0.05; done`,
      { tty: true, cols: 70, rows: 15 },
    );
    await expectOutput(p, /15 70\n[\s\S]*waiting/);
    await p.resize(90, 33);
    await expectOutput(p, "33 90");
    await p.stop();
  },
  { skip: noTty },
);

test("BackgroundProcess.screen() on a process without a terminal throws a TypeError", async () => {
  await using s = new BashSession();
  const p = await s.spawn("true");
  await p.wait();
  await rejects(p.screen(), TypeError);
  equal(existsSync(p.logPath), true);
  await s.close();
  equal(existsSync(p.logPath), false);
});

test("BashSession.spawn() checks its options", async () => {
  await using s = new BashSession();
  await rejects(s.spawn(""), TypeError);
  await rejects(s.spawn("true", { cols: 1 }), RangeError);
  await rejects(s.spawn("true", { env: { "A B": "x" } }), TypeError);
  await rejects(s.spawn("true", { redact: "x" as never }), TypeError);
  const mark = marker();
  const p = await s.spawn(`sleep ${mark}`);
  await rejects(p.signal("TERM"), TypeError);
  for (const bad of [-1, NaN, Infinity, 2 ** 31, "5" as never]) {
    await rejects(p.read({ waitMs: bad }), RangeError, `waitMs ${bad}`);
    await rejects(p.stop({ graceMs: bad }), RangeError, `graceMs ${bad}`);
  }
  // (Once the program runs: see "signal() before the program runs" in
  // docs/processes.md.)
  ok((await started(mark)).length >= 1);
  await p.signal("SIGHUP");
  equal((await p.wait()).signal, "SIGHUP");
});

// ---------------------------------------------------------------------------
// The process tools, through BashTool.handle.

test("BashTool.handle() process_start/read/write/list/stop drive a background process", async () => {
  const mark = marker();
  const audit: AuditRecord[] = [];
  await using tool = new BashTool({
    audit: { write: (r) => void audit.push(r) },
    redact: (t) => t.replaceAll("s3cr3t", "[REDACTED]"),
  });
  await tool.handle({ id: "a", name: "bash", input: { command: "cd /tmp" } });
  const start = await tool.handle({
    id: "b",
    name: "process_start",
    input: {
      command:
        `echo "in $PWD token s3cr3t"; while read l; do echo "got $l"; done; sleep ${mark}`,
      until: "token",
      wait_ms: 10_000,
    },
  });
  equal(start.is_error, undefined, String(start.content));
  const text = String(start.content);
  match(text, /^Started: Process p1 \(pid \d+\) .* — running for \d+\.\d s/);
  match(text, /in \/tmp token \[REDACTED\]/);
  match(text, /process_read \{"id": "p1"\}/);
  const w = await tool.handle({
    id: "c",
    name: "process_write",
    input: { id: "p1", text: "hello\n", until: "got hello", wait_ms: 10_000 },
  });
  match(String(w.content), /got hello/);
  const idle = await tool.handle({
    id: "d",
    name: "process_read",
    input: { id: "p1", wait_ms: 0 },
  });
  match(String(idle.content), /\(no new output\)/);
  const list = await tool.handle({ id: "e", name: "process_list", input: {} });
  match(String(list.content), /Process p1 .* running for/);
  const stop = await tool.handle({
    id: "f",
    name: "process_stop",
    input: { id: "p1" },
  });
  match(String(stop.content), /^Stopped: Process p1 .* (ended by|exited)/);
  equal((await gone(mark)).length, 0);
  const bad = await tool.handle({
    id: "g",
    name: "process_read",
    input: { id: "p9" },
  });
  equal(bad.is_error, true);
  match(String(bad.content), /Expected the id of a process \(p1\)/);
  for (const screen of ["yes", 1, null]) {
    const r = await tool.handle({
      id: "h",
      name: "process_read",
      input: { id: "p1", screen },
    });
    equal(r.is_error, true, String(screen));
    match(String(r.content), /Expected screen to be true or false/);
  }
  const starts = audit.filter((r) => r.event === "start").map((r) => r.command);
  ok(starts.some((c) => c.includes("while read l")));
  ok(starts.includes("(process_stop p1)"));
  ok(audit.every((r) => !JSON.stringify(r).includes("s3cr3t")));
});

test("BashTool.handle() process_start is judged by the policy like bash", async () => {
  await using tool = new BashTool({
    policy: {
      check: (c) =>
        c.includes("forbidden")
          ? { decision: "deny", reason: "not this one" }
          : { decision: "allow", reason: "ok" },
    },
  });
  const r = await tool.handle({
    id: "a",
    name: "process_start",
    input: { command: "echo forbidden" },
  });
  equal(r.is_error, true);
  match(String(r.content), /refused by policy: not this one/);
  equal(tool.session.processes().length, 0);
  const results = await tool.handleAll({
    content: [
      { type: "text", text: "x" },
      {
        type: "tool_use",
        id: "b",
        name: "process_start",
        input: { command: "echo fine", until: "fine", wait_ms: 5000 },
      },
      { type: "tool_use", id: "c", name: "process_list", input: {} },
    ],
  });
  equal(results.length, 2);
  match(String(results[0].content), /fine/);
  match(String(results[1].content), /Process p1/);
});

test(
  "BashTool.handle() process_read screen returns a tty process's screen",
  async () => {
    await using tool = new BashTool();
    const r = await tool.handle({
      id: "a",
      name: "process_start",
      input: {
        command: "printf '\\033[2J\\033[Htop-left\\033[5;10Hmiddle'; sleep 30",
        tty: true,
        until: "middle",
        wait_ms: 10_000,
      },
    });
    ok(!String(r.content).includes("\x1b"), String(r.content));
    const s = await tool.handle({
      id: "b",
      name: "process_read",
      input: { id: "p1", screen: true },
    });
    match(String(s.content), /--- screen ---\ntop-left\n\n\n\n {9}middle\n/);
    const [start] = runnableProcessTools(tool);
    equal(start.name, "process_start");
    equal(PROCESS_TOOLS.length, 5);
  },
  { skip: noTty },
);

test('BashSession.run() with onTimeout: "background" returns the process still running at the deadline', async () => {
  const mark = marker();
  await using s = new BashSession();
  const quick = await s.run("echo fast; exit 4", {
    onTimeout: "background",
    timeoutMs: 5000,
  });
  equal(quick.output.text, "fast\n");
  equal(quick.exitCode, 4);
  equal(quick.timedOut, false);
  equal(quick.background, undefined);
  const slow = await s.run(
    `echo building; sleep 0.5; echo built; sleep ${mark}`,
    { onTimeout: "background", timeoutMs: 200 },
  );
  equal(slow.timedOut, true);
  equal(slow.exitCode, null);
  equal(slow.output.text, "building\n");
  const p = slow.background!;
  ok(p.running);
  ok((await started(mark)).length > 0, "the command was not killed");
  equal((await p.read({ until: "built", waitMs: 10_000 })).text, "built\n");
  // (The quick run, ended in time, is not kept.)
  equal(s.processes().length, 1);
  equal(s.processes()[0], p);
  await s.close();
  equal((await gone(mark)).length, 0);
  await rejects(
    new BashSession().run("true", {
      onTimeout: "later" as unknown as "kill",
    }),
    TypeError,
  );
});

test(
  "runAgent() offline demo starts, probes and stops a background server",
  async () => {
    // deno-lint-ignore no-explicit-any
    const g = globalThis as any;
    const bin: string = g.Deno ? g.Deno.execPath() : g.process.execPath;
    const cli = new URL("../cli/main.ts", import.meta.url).pathname;
    const r = await exec(
      runtime === "deno"
        ? `"$BIN" run --allow-run=bash --allow-read --allow-write --allow-env --allow-net=127.0.0.1 "$CLI" demo`
        : `"$BIN" "$CLI" demo`,
      { env: { BIN: bin, CLI: cli }, timeoutMs: 60_000 },
    );
    equal(r.exitCode, 0, r.stderr.text);
    match(r.stdout.text, /\$ \(process_start\) python3 -u -m http.server/);
    match(r.stdout.text, /✓ Serving HTTP on 127\.0\.0\.1 port \d+/);
    match(
      r.stdout.text,
      /✓ echo "(Hello|Hi) from \$\(basename "\$PWD"\), \$1!"/,
    );
    match(
      r.stdout.text,
      /✓ Stopped: Process p1 \(pid \d+\) .* — (exited|ended)/,
    );
  },
  {
    skip: hasPython && hasCurl
      ? false
      : "the demo's server needs python3 and curl",
    timeoutMs: 90_000,
  },
);

test("BashSession.spawn() reads no rc file and survives functions named like the builtins its runner uses", async () => {
  const home = (await exec(["bash", "-c", "mktemp -d"])).stdout.text.trim();
  try {
    // A HOME whose rc files announce themselves: no process may read them.
    for (const rc of [".bashrc", ".bash_profile", ".profile"]) {
      await exec(["bash", "-c", `echo 'echo RC-RAN-${rc}' > "$0/${rc}"`, home]);
    }
    await using s = new BashSession({ env: { HOME: home } });
    for (
      const name of ["export", "cd", "exec", "unset", "stty", "exit", "command"]
    ) {
      await s.run(`${name}() { echo SHADOWED-${name}; }`);
    }
    for (const tty of noTty ? [false] : [false, true]) {
      const mark = marker();
      const p = await s.spawn(
        `echo "mark=\${BASHBOX_PROCESS:+set}"; setsid sleep ${mark} </dev/null >/dev/null 2>&1 & echo started; sleep 30`,
        { tty },
      );
      const text = await expectOutput(p, "started");
      ok(!text.includes("RC-RAN"), `tty ${tty}: ${text}`);
      ok(!text.includes("SHADOWED"), `tty ${tty}: ${text}`);
      match(text, /mark=set/);
      equal((await started(mark)).length, 1, `tty ${tty}: the daemon runs`);
      await p.stop({ graceMs: 500 });
      equal((await gone(mark)).length, 0, `tty ${tty}: the daemon is gone`);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("BackgroundProcess.write() to a process that closed its input throws a TypeError, every time", async () => {
  await using s = new BashSession();
  const p = await s.spawn("exec 0<&-; echo closed; sleep 30");
  await expectOutput(p, "closed");
  for (const size of [10, 200_000]) {
    await rejects(p.write("x".repeat(size)), TypeError, `write of ${size}`);
  }
  await p.stop({ graceMs: 200 });
});

test("BackgroundProcess.signal() refuses a signal name that does not exist", async () => {
  await using s = new BashSession();
  const mark = marker();
  const p = await s.spawn(`sleep ${mark}`);
  for (const bad of ["SIGFOO", "SIGKILLX", "SIG", "TERM", "SIGRTMIN+99"]) {
    await rejects(p.signal(bad), TypeError, bad);
  }
  ok((await started(mark)).length >= 1);
  await p.signal("SIGUSR1");
  equal((await p.wait()).signal, "SIGUSR1");
});

test(
  "BashSession.spawn() tty: Ctrl-C reaches the command itself, which decides its exit status",
  async () => {
    await using s = new BashSession();
    const p = await s.spawn(
      "trap 'echo got-int' INT; echo ready; sleep 1; sleep 1; echo done; exit 0",
      { tty: true },
    );
    await expectOutput(p, "ready");
    await p.write("\x03");
    await expectOutput(p, "done");
    const status = await p.wait();
    equal(status.exitCode, 0);
    equal(status.signal, null);
  },
  { skip: noTty },
);

test("BashTool.handle() process_write returns within its wait when the process does not read", async () => {
  await using tool = new BashTool();
  const call = (id: string, name: string, input: Record<string, unknown>) =>
    tool.handle({ id, name, input });
  const start = await call("t1", "process_start", {
    command: "sleep 30",
    wait_ms: 0,
  });
  const id = /Process (p\d+)/.exec(JSON.stringify(start.content))![1];
  const t = performance.now();
  const wrote = await call("t2", "process_write", {
    id,
    text: "é".repeat(60_000),
    wait_ms: 300,
  });
  ok(!wrote.is_error, JSON.stringify(wrote.content));
  // (Deno's pipe writer waits for the reader and says so; Node and Bun buffer
  // the rest in the host.)
  // The tool is free for the next call (not held until the process ends).
  const next = await call("t3", "bash", { command: "echo next-call" });
  match(JSON.stringify(next.content), /next-call/);
  ok(performance.now() - t < 30_000, "the calls waited for the process to end");
  await call("t4", "process_stop", { id });
});

test('BashSession.run() with onTimeout: "background" gives the command stdin at its end, as every run does', async () => {
  await using s = new BashSession();
  for (
    const reader of [
      "cat",
      "read -r line",
      "head -c 10",
      "sed -n p",
    ]
  ) {
    const r = await s.run(`${reader}; echo after-read`, {
      onTimeout: "background",
      timeoutMs: 10_000,
    });
    equal(r.timedOut, false, reader);
    equal(r.output.text, "after-read\n", reader);
  }
  // Runs that ended in time are not kept as processes.
  equal(s.processes().length, 0);
});

test("BashSession.spawn() with redact keeps secrets out of the full log, split or not", async () => {
  const secret = "Zq9-SECRET-VALUE-77";
  await using s = new BashSession();
  const redact = (t: string) => t.replaceAll(secret, "[REDACTED]");
  // Whole, split across writes at every place, and many times over.
  const halves = Array.from(
    { length: secret.length - 1 },
    (_, i) =>
      `printf '%s' '${secret.slice(0, i + 1)}'; sleep 0.01; printf '%s\\n' '${
        secret.slice(i + 1)
      }'`,
  ).join("; ");
  const p = await s.spawn(
    `echo "${secret}"; ${halves}; for i in $(seq 200); do echo "line $i ${secret}"; done; echo done`,
    { redact },
  );
  await expectOutput(p, "done", 20_000);
  await p.wait();
  const log = readFileSync(p.logPath, "utf8");
  ok(!log.includes(secret), "the secret is in the log");
  equal(
    (log.match(/\[REDACTED\]/g) ?? []).length,
    1 + (secret.length - 1) + 200,
  );
  match(log, /done\n$/);
});

test(
  "BackgroundProcess.read() tty: no read shows part of an escape sequence, split between reads or cut by maxBytes",
  async () => {
    await using s = new BashSession();
    const split = await s.spawn(
      "printf 'A\\033[3'; sleep 1; printf '1mRED\\033[0m\\n'; sleep 30",
      { tty: true },
    );
    const first = await split.read({ until: "A", waitMs: 10_000 });
    equal(first.text.replace(/\n/g, ""), "A");
    const second = await split.read({ until: "RED", waitMs: 10_000 });
    equal(second.text.trim(), "RED");
    await split.stop({ graceMs: 200 });
    for (const maxBytes of [10, 12, 14, 16, 18, 20, 22]) {
      const cut = await s.spawn(
        "printf 'AAAA\\033[38;5;196mRED\\033[0m\\n'; printf '\\033P+q544e\\033\\\\ok\\033OA\\n'; echo end",
        { tty: true },
      );
      await cut.wait();
      const r = await cut.read({ maxBytes });
      ok(
        !/[;\[]\d|\d+m|q544e/.test(r.text),
        `maxBytes ${maxBytes}: ${JSON.stringify(r.text)}`,
      );
    }
    const whole = await s.spawn(
      "printf '\\033P+q544e\\033\\\\ok\\033OA\\n'; echo end",
      { tty: true },
    );
    await whole.wait();
    equal((await whole.read()).text.replace(/\n/g, "|"), "ok|end|");
  },
  { skip: noTty },
);

test("BackgroundProcess.read() until matches across chunks and after much output", async () => {
  await using s = new BashSession();
  const split = await s.spawn(
    "printf 'REA'; sleep 0.3; printf 'DY\\n'; sleep 30",
  );
  const a = await split.read({ until: "READY", waitMs: 10_000 });
  ok(a.matched, JSON.stringify(a.text));
  await split.stop({ graceMs: 200 });
  const chatty = await s.spawn(
    "for i in $(seq 30000); do echo \"line $i\"; done; sleep 0.2; echo 'READY 42'; sleep 30",
  );
  const b = await chatty.read({ until: /^READY (\d+)$/m, waitMs: 20_000 });
  ok(b.matched, b.text.slice(-200));
  match(b.text, /READY 42\n$/);
  await chatty.stop({ graceMs: 200 });
});

test("BackgroundProcess.read() with redact holds back a token still arriving: no read shows part of it, a prompt shows at once", async () => {
  const token = `ghp_${"Ab1".repeat(12)}`;
  const redact = redactor();
  await using s = new BashSession();
  const p = await s.spawn(
    `printf 'key: ${token.slice(0, 11)}'; sleep 0.6; printf '${
      token.slice(11)
    } end\\n'; sleep 0.3; printf 'Password: '; sleep 30`,
    { redact },
  );
  const pieces = Array.from(
    { length: token.length - 7 },
    (_, i) => token.slice(i, i + 8),
  );
  let seen = "";
  const stop = performance.now() + 10_000;
  while (performance.now() < stop && !seen.includes("Password: ")) {
    const r = await p.read({ waitMs: 150 });
    const shown = redact(r.text);
    for (const piece of pieces) {
      ok(!shown.includes(piece), `a read showed ${piece}: ${shown}`);
    }
    seen += shown;
  }
  match(seen, /key: \[REDACTED:github-token\] end\nPassword: $/);
  await p.stop({ graceMs: 200 });
});

// ---------------------------------------------------------------------------
// Signals reach the program (issue 25): in a terminal, its foreground process
// group (never the terminal helper); everywhere, the runner in between
// neither dies first nor hides how the program ended.

/** The ways a process gets its terminal here: a helper, or Bun's own. */
const terminalKinds: { name: string; helper?: string; skip: string | false }[] =
  [
    {
      name: "script",
      helper: "script",
      skip: hasScript ? false : "util-linux script is not installed",
    },
    {
      name: "python",
      helper: "python",
      skip: hasPython ? false : "python3 is not installed",
    },
    ...(runtime === "bun" ? [{ name: "bun", skip: false as const }] : []),
  ];
const RELAYED = ["SIGUSR1", "SIGHUP", "SIGTERM", "SIGINT", "SIGUSR2"];

for (const kind of [...terminalKinds, { name: "pipe", skip: false as const }]) {
  const tty = kind.name !== "pipe";
  test(
    `BackgroundProcess.signal() reaches a program that handles it and keeps it running (${kind.name})`,
    async () => {
      if ("helper" in kind && kind.helper) {
        setHostEnv("BASHBOX_PTY_HELPER", kind.helper);
      }
      try {
        await using s = new BashSession();
        const mark = marker();
        // A program of its own (a child of the runner, the marker its $0),
        // trapping each signal; its loop's sleep dies of the signal and the
        // loop goes on. (Short sleeps: a signal that lands between a fork
        // and the sleep's exec is taken by the child's copy of the trap,
        // and the sleep lives on, as at a terminal: the trap then runs when
        // the sleep ends.)
        const traps = RELAYED.map((sig) =>
          `trap "echo got-${sig}" ${sig.slice(3)}`
        ).join(";");
        const p = await s.spawn(
          `bash --norc --noprofile -c '${traps}; echo ready; while :; do sleep 0.2; done' ${mark}`,
          { tty },
        );
        await expectOutput(p, "ready");
        for (const sig of RELAYED) {
          await p.signal(sig);
          await expectOutput(p, `got-${sig}`);
          equal(p.running, true, `running after ${sig}`);
        }
        const status = await p.stop({ graceMs: 300 });
        ok(status.signal !== null || status.exitCode !== 0);
        equal((await gone(mark)).length, 0);
      } finally {
        setHostEnv("BASHBOX_PTY_HELPER", undefined);
      }
    },
    { skip: tty && noTty ? noTty : kind.skip },
  );

  test(
    `BackgroundProcess.signal() reports the signal a program died of, not 128+n (${kind.name})`,
    async () => {
      if ("helper" in kind && kind.helper) {
        setHostEnv("BASHBOX_PTY_HELPER", kind.helper);
      }
      try {
        await using s = new BashSession();
        for (const sig of RELAYED) {
          const mark = marker();
          const p = await s.spawn(`echo ready; sleep ${mark}`, { tty });
          await expectOutput(p, "ready");
          ok((await started(mark)).length >= 1, `${sig}: the sleep started`);
          await p.signal(sig);
          const status = await p.wait();
          equal(status.signal, sig, `${sig}: ${JSON.stringify(status)}`);
          equal(status.exitCode, null);
          equal((await gone(mark)).length, 0);
        }
        // A program that exits with 128+n itself is an exit code.
        const p = await s.spawn("echo ready; sleep 0.2; exit 138", { tty });
        equal((await p.wait()).exitCode, 138);
      } finally {
        setHostEnv("BASHBOX_PTY_HELPER", undefined);
      }
    },
    { skip: tty && noTty ? noTty : kind.skip },
  );
}

for (const kind of terminalKinds) {
  test(
    `BackgroundProcess.signal() in a terminal goes to its foreground group: a shell's trap fires (${kind.name})`,
    async () => {
      if (kind.helper) setHostEnv("BASHBOX_PTY_HELPER", kind.helper);
      try {
        await using s = new BashSession();
        // An interactive shell with job control takes a process group of
        // its own, as at a terminal: the signal must reach it there.
        const p = await s.spawn("PS1='$ ' bash --norc --noprofile -i", {
          tty: true,
        });
        await expectOutput(p, "$ ");
        await p.write(
          "trap 'echo got-USR1' USR1; trap 'echo got-USR2' USR2; trap 'echo got-INT' INT\r",
        );
        await expectOutput(p, /\$ $/);
        // (An interactive bash runs such a trap once readline returns, at a
        // terminal too: a key after the signal. SIGHUP and SIGTERM end
        // readline's wait as an end of input would: not tried here.)
        for (const sig of ["SIGUSR1", "SIGUSR2", "SIGINT"]) {
          await p.signal(sig);
          await p.write("\r");
          await expectOutput(p, `got-${sig.slice(3)}`);
        }
        equal(p.running, true);
        await p.write("exit 7\r");
        equal((await p.wait()).exitCode, 7);
      } finally {
        setHostEnv("BASHBOX_PTY_HELPER", undefined);
      }
    },
    { skip: noTty || kind.skip },
  );
}

test("PROCESS_TOOLS tells the model what stops a job started with & in bash, and that is what happens", async () => {
  // The model-facing words (process_start's description) ...
  const start = PROCESS_TOOLS.find((t) => t.name === "process_start")!;
  match(start.description, /ignores SIGINT/);
  match(start.description, /stop it with `kill`/);
  // ... say what a session does: without job control a background job
  // ignores SIGINT, and SIGTERM stops it.
  await using s = new BashSession();
  for (const program of ["sleep", "bash -c 'sleep $0'"]) {
    const mark = marker();
    await s.run(`${program} ${mark} &`);
    ok((await started(mark)).length >= 1, program);
    await s.run("kill -INT $!; sleep 0.2");
    ok((await alive(mark)).length >= 1, `${program}: SIGINT left it running`);
    await s.run("kill $!; wait $! 2>/dev/null; true");
    equal((await gone(mark)).length, 0, `${program}: SIGTERM stopped it`);
  }
});
