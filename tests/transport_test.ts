import { equal, match, ok, rejects } from "node:assert/strict";
import { BashSession } from "../mod.ts";
import { test } from "./_harness.ts";
import { alive, gone, marker, started } from "./_procs.ts";
import { startSshd } from "./_sshd.ts";

const sshd = await startSshd();
const skip = typeof sshd === "string" ? sshd : false;
const transport = typeof sshd === "string"
  ? { argv: ["ssh"] }
  : { argv: sshd.argv };

test("BashSession over ssh keeps state and reports exit codes", async () => {
  await using s = new BashSession({
    transport,
    cwd: "/tmp",
    env: { BB_REMOTE: "yes" },
  });
  await s.run("cd /usr && export V=kept");
  const r = await s.run("echo $V $PWD $BB_REMOTE $PAGER; (exit 7)");
  equal(r.output.text, "kept /usr yes cat\n");
  equal(r.exitCode, 7);
  equal(r.cwd, "/usr");
  const open = await s.run("echo 'abc");
  match(open.output.text, /unexpected EOF/);
  equal((await s.run("printf foo")).output.text, "foo");
}, { skip });

test(
  "BashSession over ssh: a remote shell that dies comes back with its state (the journal)",
  async () => {
    await using s = new BashSession({ transport, cwd: "/tmp" });
    await s.run("cd /usr && export BB_J='a b' && bb_f() { echo f-ran; }");
    for (const death of ["exit 3", "kill -9 $$"]) {
      const r = await s.run(death);
      equal(r.restarted, true, death);
      ok(r.restored?.variables.includes("BB_J"), death);
      const back = await s.run('echo "$BB_J" $PWD; bb_f');
      equal(back.output.text, "a b /usr\nf-ran\n", death);
    }
  },
  { skip },
);

test(
  "BashSession over ssh: a timeout interrupts the remote command in-band",
  async () => {
    const mark = marker();
    await using s = new BashSession({ transport, killGraceMs: 1000 });
    await s.run("export KEEP=1");
    const r = await s.run(`sleep ${mark}`, { timeoutMs: 300 });
    ok(r.timedOut);
    equal(r.restarted, false);
    equal((await gone(mark)).length, 0);
    equal((await s.run("echo $KEEP")).output.text, "1\n");
  },
  { skip },
);

test(
  "BashSession over a transport whose connections take a second: a timeout keeps the state, signals do not wait for a connection",
  async () => {
    // Every new connection is delayed by a second, as a slow ssh would be.
    const slow = {
      argv: ["bash", "-c", 'sleep 1; exec "$@"', "slow", ...transport.argv],
    };
    for (const grace of [300, 1000]) {
      const mark = marker();
      await using s = new BashSession({
        transport: slow,
        killGraceMs: grace,
      });
      await s.run("export KEEP=1");
      const before = performance.now();
      const r = await s.run(`sleep ${mark}`, { timeoutMs: 300 });
      ok(r.timedOut);
      equal(r.restarted, false);
      // The interrupt went through the channel opened with the session.
      ok(performance.now() - before < 300 + 900, "the signal waited");
      equal((await gone(mark)).length, 0);
      const next = await s.run("echo $KEEP");
      equal(next.restarted, false);
      equal(next.output.text, "1\n");
    }
  },
  { skip },
);

test(
  "BashSession over ssh: a deadline kills what left the remote group",
  async () => {
    const mark = marker();
    await using s = new BashSession({ transport, killGraceMs: 400 });
    const r = await s.run(`timeout 30 sleep ${mark}; echo after`, {
      timeoutMs: 300,
    });
    ok(r.timedOut);
    equal((await gone(mark)).length, 0);
  },
  { skip },
);

test(
  "BashSession over ssh: escalation and close() leave nothing on the server",
  async () => {
    const stubborn = marker();
    const bg = marker();
    const s = new BashSession({ transport, killGraceMs: 400 });
    await s.run(`sleep ${bg} &`);
    equal((await started(bg)).length, 1);
    const r = await s.run(`trap '' INT TERM; sleep ${stubborn}`, {
      timeoutMs: 200,
    });
    ok(r.timedOut);
    equal(r.restarted, true);
    equal((await gone(stubborn)).length, 0);
    await s.run(`sleep ${bg} &`);
    await s.close();
    equal((await gone(bg)).length, 0);
    equal((await alive(bg)).length, 0);
  },
  { skip },
);

test("BashSession over ssh: a missing remote cwd fails start()", async () => {
  const s = new BashSession({ transport, cwd: "/nonexistent/bashbox" });
  await rejects(s.start(), /existing directory on the remote side/);
  await s.close();
}, { skip });

test("BashSession rejects a bad transport", () => {
  for (
    const transport of [{ argv: [] }, { argv: "ssh" }, {}, { argv: ["ssh", 3] }]
  ) {
    let error: Error | undefined;
    try {
      // deno-lint-ignore no-explicit-any
      new BashSession({ transport: transport as any });
    } catch (e) {
      error = e as Error;
    }
    ok(error);
    match(error.message, /Expected transport to be \{ argv/);
  }
});

// The server must not outlive the file's tests.
test("(transport tests: stop the OpenSSH server)", async () => {
  if (typeof sshd !== "string") await sshd.stop();
});
