import { deepStrictEqual, equal, match, ok, rejects } from "node:assert/strict";
import { BashSession, exec, SpawnError } from "../mod.ts";
import { liveGroupCount } from "../runtime/_runtime.ts";
import { test } from "./_harness.ts";
import { alive, gone, marker, started } from "./_procs.ts";

test("BashSession.run() keeps cwd, env and functions across calls", async () => {
  await using s = new BashSession();
  await s.run('cd /tmp && export BB_X=42 && greet() { echo "hi $1"; }');
  const r = await s.run("echo $PWD $BB_X; greet you");
  equal(r.output.text, "/tmp 42\nhi you\n");
  equal(r.cwd, "/tmp");
  equal(r.exitCode, 0);
  equal(r.restarted, false);
});

test("BashSession.run() output holds exactly the bytes the command wrote", async () => {
  await using s = new BashSession();
  equal((await s.run("printf foo")).output.text, "foo");
  equal((await s.run("printf ''")).output.text, "");
  equal(
    (await s.run("echo __DONE__; echo '<<exit>>'; printf '\\036x\\0y'")).output
      .text,
    "__DONE__\n<<exit>>\n\x1ex\0y",
  );
});

test("BashSession.run() keeps text that looks like its own sentinel", async () => {
  await using s = new BashSession();
  // What the shell knows of its framing, printed, must not end the command.
  const r = await s.run("declare -f; set; typeset -p; alias; echo end");
  ok(r.output.text.endsWith("end\n"), r.output.text);
  equal(r.exitCode, 0);
});

test("BashSession.run() reports exit codes, and $? carries to the next call", async () => {
  await using s = new BashSession();
  equal((await s.run("(exit 5)")).exitCode, 5);
  equal((await s.run("echo $?")).output.text, "5\n");
  equal((await s.run("(exit 6)")).exitCode, 6);
  equal((await s.run("echo é $?")).output.text, "é 6\n");
  equal((await s.run("false")).exitCode, 1);
  equal((await s.run("(exit 42)")).exitCode, 42);
  equal((await s.run("true")).exitCode, 0);
});

test("BashSession.run() merges stdout and stderr in arrival order", async () => {
  await using s = new BashSession();
  const r = await s.run("echo a; echo b >&2; echo c");
  equal(r.output.text, "a\nb\nc\n");
  equal(r.stderr, undefined);
});

test("BashSession.run() separates stderr on request, draining both at once", async () => {
  await using s = new BashSession({ stderr: "separate" });
  const r = await s.run("echo a; echo b >&2; echo c");
  equal(r.output.text, "a\nc\n");
  equal(r.stderr?.text, "b\n");
  // Both pipes far over their buffer size, written alternately: no deadlock.
  const big = await s.run(
    "for i in 1 2 3 4; do head -c 200000 /dev/zero; head -c 200000 /dev/zero >&2; done",
  );
  equal(big.output.totalBytes, 800_000);
  equal(big.stderr?.totalBytes, 800_000);
});

test("BashSession.run() returns promptly on inputs that hang other tools", async () => {
  await using s = new BashSession({ timeoutMs: 20_000 });
  const cases: [string, (text: string, code: number | null) => void][] = [
    ["echo a # note", (t) => equal(t, "a\n")],
    ["cat <<EOF\nx $((1+1))\nEOF", (t) => equal(t, "x 2\n")],
    ["cat <<-EOF\n\tindented\n\tEOF", (t) => equal(t, "indented\n")],
    ["cat <<'EOF'\n$HOME\nEOF", (t) => equal(t, "$HOME\n")],
    [
      "cat <<EOF\nnever closed",
      (t) => match(t, /here-document.*\n?never closed\n/s),
    ],
    ["echo 'abc", (t, c) => {
      match(t, /unexpected EOF while looking for matching/);
      equal(c, 2);
    }],
    ['echo "abc', (t) => match(t, /unexpected EOF/)],
    ["echo abc\\", (t) => equal(t, "abc\\\n")],
    ["echo $( ", (t) => match(t, /unexpected EOF|syntax error/)],
    ["sleep 0.05 &", (t) => equal(t, "")],
    ["for i in 1 2 3; do\n  echo $i\ndone", (t) => equal(t, "1\n2\n3\n")],
    ["f() {\n  echo in f\n}\nf", (t) => equal(t, "in f\n")],
    ["if true; then", (t) => match(t, /syntax error|unexpected end of file/)],
    [
      "echo '" + "x".repeat(1_000_000) + "' | wc -c",
      (t) => equal(t, "1000001\n"),
    ],
  ];
  for (const [command, check] of cases) {
    const r = await s.run(command);
    equal(r.timedOut, false, command.slice(0, 40));
    equal(r.restarted, false, command.slice(0, 40));
    check(r.output.text, r.exitCode);
    // The session is still usable after each one.
    equal((await s.run("echo ok")).output.text, "ok\n", command.slice(0, 40));
  }
});

test("BashSession.run() gives commands EOF on stdin", async () => {
  await using s = new BashSession({ timeoutMs: 10_000 });
  const r = await s.run("cat; read x; echo rc=$?; head -c 5; wc -c");
  equal(r.output.text, "rc=1\n0\n");
  equal(r.timedOut, false);
});

test("BashSession.run() notices shell death at once and restarts", async () => {
  await using s = new BashSession({ timeoutMs: 20_000 });
  const cases: [string, number | null][] = [
    ["exit 3", 3],
    ["set -e; false", 1],
    ["exec true", 0],
    ["kill -9 $$", null],
  ];
  for (const [command, code] of cases) {
    await s.run("cd /tmp; export BB_STATE=1");
    const r = await s.run(command);
    equal(r.exitCode, code, command);
    equal(r.restarted, true, command);
    equal(r.timedOut, false, command);
    // The state journal brought the variable back (see journal_test.ts).
    const next = await s.run("echo ${BB_STATE:-fresh}");
    equal(next.output.text, "1\n", command);
    ok(r.restored?.variables.includes("BB_STATE"), command);
    equal(next.restarted, false);
  }
});

test("BashSession.run() recovers from a kill of the shell from outside", async () => {
  await using s = new BashSession();
  await s.run("export BB_STATE=1");
  const pid = s.pid!;
  ok(pid > 0);
  const killer = new BashSession();
  await killer.run(`kill -9 ${pid}`);
  await killer.close();
  await new Promise((r) => setTimeout(r, 50));
  const r = await s.run("echo ${BB_STATE:-fresh}");
  equal(r.output.text, "1\n"); // restored from the state journal
  equal(r.restarted, true);
  equal((await s.run("echo again")).restarted, false);
});

test("BashSession.run() timeout interrupts and keeps the session state", async () => {
  await using s = new BashSession({ killGraceMs: 2000 });
  const mark = marker();
  await s.run("cd /tmp; BB_KEEP=yes");
  const r = await s.run(`echo before; sleep ${mark}`, { timeoutMs: 200 });
  ok(r.timedOut);
  equal(r.restarted, false);
  equal(r.exitCode, 130);
  equal(r.output.text, "before\n");
  ok(r.durationMs < 200 + 2000, `took ${r.durationMs}`);
  equal((await gone(mark)).length, 0);
  equal((await s.run("echo $BB_KEEP $PWD")).output.text, "yes /tmp\n");
});

test("BashSession.run() timeout stops the rest of the command line, as Ctrl-C does", async () => {
  await using s = new BashSession({ killGraceMs: 2000 });
  await s.run("cd /tmp; BB_KEEP=yes");
  for (
    const command of [
      `echo before; sleep ${marker()}; echo after`,
      `echo before; for i in 1 2 3; do sleep ${marker()}; echo loop; done; echo after`,
      `f() { sleep ${marker()}; echo in-f; }; echo before; f; echo after`,
      `echo before; sleep ${marker()} && echo and || echo or`,
    ]
  ) {
    const r = await s.run(command, { timeoutMs: 200 });
    // (Inside a loop bash runs its interrupt handler only after the next
    // simple command: one more line of the loop may run, never more.)
    if (command.includes("for i")) {
      match(r.output.text, /^before\n(loop\n)?$/, command);
    } else equal(r.output.text, "before\n", command);
    equal(r.exitCode, 130);
    ok(r.timedOut);
    equal(r.restarted, false);
  }
  // The session is back to normal: state kept, nothing skipped, no trap left.
  const after = await s.run(
    "echo $BB_KEEP $PWD; shopt -q extdebug || echo no-extdebug; trap -p DEBUG; echo done",
  );
  equal(after.output.text, "yes /tmp\nno-extdebug\ndone\n");
});

test("BashSession.run() escalates when the command ignores the interrupt", async () => {
  await using s = new BashSession({ killGraceMs: 300 });
  const mark = marker();
  const r = await s.run(`trap '' INT TERM; sleep ${mark}`, { timeoutMs: 200 });
  ok(r.timedOut);
  equal(r.restarted, true);
  ok(r.durationMs < 200 + 300 + 1000, `took ${r.durationMs}`);
  equal((await gone(mark)).length, 0);
  equal((await s.run("echo fresh")).output.text, "fresh\n");
});

test("BashSession.run() escalates for a loop the interrupt cannot stop", async () => {
  await using s = new BashSession({ killGraceMs: 200 });
  const mark = marker();
  const r = await s.run(`while :; do sleep ${mark}; done`, { timeoutMs: 150 });
  ok(r.timedOut);
  equal((await gone(mark)).length, 0);
  equal((await s.run("echo ok")).output.text, "ok\n");
});

test("BashSession.run() abort signal stops the command", async () => {
  await using s = new BashSession();
  const mark = marker();
  const controller = new AbortController();
  const running = s.run(`sleep ${mark}`, { signal: controller.signal });
  await started(mark);
  controller.abort();
  const r = await running;
  ok(r.aborted);
  ok(!r.timedOut);
  equal(r.restarted, false);
  equal((await gone(mark)).length, 0);
});

test("BashSession background jobs survive another command's timeout and die at close()", async () => {
  const s = new BashSession({ killGraceMs: 300 });
  const bg = marker();
  const fg = marker();
  await s.run(`sleep ${bg} &`);
  equal((await started(bg)).length, 1);
  const r = await s.run(`sleep ${fg}`, { timeoutMs: 100 });
  ok(r.timedOut);
  equal((await gone(fg)).length, 0);
  equal((await alive(bg)).length, 1);
  await s.close();
  equal((await gone(bg)).length, 0);
  equal(liveGroupCount(), 0);
});

test("BashSession output of background jobs never corrupts the next framing", async () => {
  await using s = new BashSession();
  const first = await s.run(
    "(for i in 1 2 3 4 5; do echo bg$i; sleep 0.02; done) &",
  );
  // The first lines may arrive while the starting call is still open.
  const seen: string[] = [first.output.text];
  for (let i = 0; i < 20; i++) {
    const r = await s.run(`echo fg${i}`);
    equal(r.exitCode, 0);
    ok(r.output.text.includes(`fg${i}\n`), r.output.text);
    seen.push(r.output.text);
    await new Promise((res) => setTimeout(res, 10));
  }
  const all = seen.join("");
  for (let i = 1; i <= 5; i++) ok(all.includes(`bg${i}\n`), all);
});

test("BashSession.run() keeps head and tail of large output with flat memory", async () => {
  await using s = new BashSession({ headBytes: 4096, tailBytes: 4096 });
  const r = await s.run("head -c 50000000 /dev/zero; echo; echo the end");
  equal(r.output.totalBytes, 50_000_000 + 1 + 8);
  ok(r.output.truncated);
  ok(r.output.text.endsWith("\nthe end\n"));
  equal(r.output.omittedBytes, r.output.totalBytes - 8192);
});

test("BashSession.run() decodes invalid UTF-8", async () => {
  await using s = new BashSession();
  equal((await s.run("printf 'a\\xffb'")).output.text, "a\ufffdb");
});

test("BashSession.run() calls queue in order and never interleave", async () => {
  await using s = new BashSession();
  const runs = Array.from(
    { length: 30 },
    (_, i) => s.run(`for j in 1 2 3; do echo ${i}-$j; done; (exit ${i})`),
  );
  const results = await Promise.all(runs);
  results.forEach((r, i) => {
    equal(r.output.text, `${i}-1\n${i}-2\n${i}-3\n`);
    equal(r.exitCode, i);
  });
});

test("BashSession.run() streams output through onOutput", async () => {
  await using s = new BashSession();
  const dec = new TextDecoder();
  let streamed = "";
  const r = await s.run("echo one; echo two", {
    onOutput: (chunk) => streamed += dec.decode(chunk),
  });
  equal(streamed, r.output.text);
});

test("BashSession sets non-interactive defaults", async () => {
  await using s = new BashSession({ env: { BB_OPT: "v" } });
  const r = await s.run(
    'echo "$PAGER $GIT_PAGER $MANPAGER $TERM $NO_COLOR $GIT_TERMINAL_PROMPT $DEBIAN_FRONTEND $BB_OPT [$PS1] [$PS2] [$PROMPT_COMMAND]"; [ -n "$LANG" ] && echo lang',
  );
  equal(
    r.output.text,
    "cat cat cat dumb 1 0 noninteractive v [] [] []\nlang\n",
  );
});

test("BashSession.restart() resets state and kills what the shell started", async () => {
  await using s = new BashSession();
  const mark = marker();
  await s.run(`cd /tmp; export BB_X=1; sleep ${mark} &`);
  await started(mark);
  await s.restart();
  equal((await gone(mark)).length, 0);
  const r = await s.run("echo ${BB_X:-unset}");
  equal(r.output.text, "unset\n");
});

test("BashSession.close() leaves no process and later runs throw", async () => {
  const s = new BashSession();
  const mark = marker();
  await s.run(`sleep ${mark} & (sleep ${mark} &)`);
  equal((await started(mark)).length > 0, true);
  await s.close();
  await s.close();
  equal((await gone(mark)).length, 0);
  await rejects(s.run("true"), /The session is closed/);
  await rejects(s.start(), /The session is closed/);
});

test("BashSession.close() ends a command in flight", async () => {
  const s = new BashSession();
  const mark = marker();
  const running = s.run(`sleep ${mark}`);
  await started(mark);
  await s.close();
  const r = await running;
  equal(r.restarted, true);
  equal((await gone(mark)).length, 0);
});

test("BashSession.run() rejects bad input with a clear message", async () => {
  await using s = new BashSession();
  // deno-lint-ignore no-explicit-any
  const bad: [any, RegExp][] = [
    ["", /non-empty command/],
    ["  ", /non-empty command/],
    ["echo \0", /NUL/],
    [42, /to be a string, got number/],
    [undefined, /to be a string, got undefined/],
  ];
  for (const [command, message] of bad) await rejects(s.run(command), message);
  await rejects(s.run("true", { timeoutMs: -1 }), /timeoutMs/);
  equal((await s.run("echo still fine")).output.text, "still fine\n");
});

test("BashSession rejects bad options", () => {
  const bad: [object, RegExp][] = [
    [{ timeoutMs: 0 }, /timeoutMs/],
    [{ killGraceMs: NaN }, /killGraceMs/],
    [{ stderr: "both" }, /"merge" or "separate"/],
    [{ headBytes: 1.5 }, /headBytes/],
  ];
  for (const [options, message] of bad) {
    let error: Error | undefined;
    try {
      new BashSession(options);
    } catch (e) {
      error = e as Error;
    }
    ok(error, JSON.stringify(options));
    match(error.message, message);
  }
});

test("BashSession.start() fails clearly on a missing cwd", async () => {
  const s = new BashSession({ cwd: "/nonexistent/bashbox-dir" });
  await rejects(s.start(), (e: Error) => {
    ok(e instanceof SpawnError);
    match(e.message, /Expected cwd to be an existing directory/);
    return true;
  });
  await s.close();
});

test("BashSession.start() starts the shell in cwd", async () => {
  await using s = new BashSession({ cwd: "/tmp" });
  await s.start();
  ok(typeof s.pid === "number");
  deepStrictEqual((await s.run("pwd")).output.text, "/tmp\n");
});

test("BashSession with login: true loads the user's profile", async () => {
  const home = await exec(["bash", "-c", "mktemp -d"]);
  const dir = home.stdout.text.trim();
  await exec([
    "bash",
    "-c",
    'echo "export BB_FROM_PROFILE=loaded" > "$1/.bash_profile"',
    "_",
    dir,
  ]);
  try {
    await using login = new BashSession({ login: true, env: { HOME: dir } });
    equal(
      (await login.run("echo ${BB_FROM_PROFILE:-none}")).output.text,
      "loaded\n",
    );
    await using plain = new BashSession({ env: { HOME: dir } });
    equal(
      (await plain.run("echo ${BB_FROM_PROFILE:-none}")).output.text,
      "none\n",
    );
  } finally {
    await exec(["bash", "-c", 'rm -rf "$1"', "_", dir]);
  }
});
