import { equal, match, ok, rejects } from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BashSession, exec } from "../mod.ts";
import { execPath, runtime, test } from "./_harness.ts";
import { marker } from "./_procs.ts";
import { startSshd } from "./_sshd.ts";

// Transports whose far end is this machine, in a session of its own (as a
// remote shell would be: the local group holds only the connection), so a
// stop must reach the far processes through the transport, by their mark.
/** Joins its words into one command line, as ssh does. */
const WORDS = {
  argv: ["setsid", "-w", "bash", "-c", 'exec bash -c "$*"', "bashbox-words"],
};
/** Passes its words on as they are, as docker exec and kubectl exec do. */
const ARGV = { argv: ["setsid", "-w"] };

/** Pids of live processes whose command line holds `mark` (one grep: quick under load). */
async function alive(mark: string): Promise<number[]> {
  // The pattern does not match itself: "[.]" stands for the marker's ".".
  const r = await exec([
    "bash",
    "-c",
    `grep -laE -- "$0" /proc/[0-9]*/cmdline 2>/dev/null; :`,
    mark.replace(".", "[.]"),
  ]);
  return r.stdout.text.split("\n").filter(Boolean).map((f) =>
    Number(f.split("/")[2])
  );
}

/** Waits up to `ms` until `done(pids)` holds; returns the last pids seen. */
async function poll(
  mark: string,
  ms: number,
  done: (pids: number[]) => boolean,
): Promise<number[]> {
  const until = performance.now() + ms;
  let pids = await alive(mark);
  while (!done(pids) && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 30));
    pids = await alive(mark);
  }
  return pids;
}

const started = (mark: string, ms: number): Promise<number[]> =>
  poll(mark, ms, (pids) => pids.length > 0);
const gone = (mark: string, ms: number): Promise<number[]> =>
  poll(mark, ms, (pids) => pids.length === 0);

const sshd = await startSshd();
const noSsh = typeof sshd === "string" ? sshd : false;
const SSH = { argv: typeof sshd === "string" ? ["ssh"] : sshd.argv };

const bwrapProbe = await exec(
  "command -v bwrap >/dev/null && bwrap --ro-bind / / --unshare-pid --unshare-net --die-with-parent -- true && echo ok",
);
const noBwrap = bwrapProbe.stdout.text === "ok\n"
  ? false
  : "bubblewrap (bwrap) is not installed or cannot create namespaces here";

/**
 * A process over `transport` sees the session's cwd, variables and
 * functions, takes input, and stop() and close() leave nothing at the far
 * end, a daemon in its own session included.
 */
async function checkTransport(transport: { argv: string[] }): Promise<void> {
  const mark = marker();
  const daemon = marker();
  const later = marker();
  await using s = new BashSession({ transport, env: { FROM_OPTIONS: "opt" } });
  await s.run(
    "cd /usr && export APP_MODE=dev && greet() { echo hello $1; }",
  );
  const p = await s.spawn(
    `greet "$APP_MODE $FROM_OPTIONS $EXTRA from $PWD"; read -r line; echo "got $line"; setsid sleep ${daemon} & sleep ${mark}`,
    { env: { EXTRA: "x" } },
  );
  const first = await p.read({ until: "\n", waitMs: 20_000 });
  equal(first.text, "hello dev opt x from /usr\n");
  await p.write("ping\n");
  match((await p.read({ until: "got ping", waitMs: 20_000 })).text, /got ping/);
  equal((await started(mark, 10_000)).length, 1);
  equal((await started(daemon, 10_000)).length, 1);
  ok(p.running);
  await p.stop({ graceMs: 1000 });
  ok(!p.running);
  equal((await gone(mark, 5000)).length, 0, "the process survived stop()");
  equal((await gone(daemon, 5000)).length, 0, "the daemon survived stop()");
  // close() stops what still runs.
  const q = await s.spawn(`trap '' INT TERM; sleep ${later}`);
  equal((await started(later, 10_000)).length, 1);
  await s.close();
  ok(!q.running);
  equal((await gone(later, 5000)).length, 0, "close() left a process");
}

test("BashSession.spawn() over a transport that joins its words (like ssh)", async () => {
  await checkTransport(WORDS);
});

test("BashSession.spawn() over a transport that passes argv on (like docker exec)", async () => {
  await checkTransport(ARGV);
});

test("BashSession.spawn() over ssh", async () => {
  await checkTransport(SSH);
}, { skip: noSsh });

test("BashSession.spawn() over a transport: processes die when the host exits without closing", async () => {
  const mark = marker();
  const code = `import { BashSession } from ${
    JSON.stringify(new URL("../mod.ts", import.meta.url).href)
  };
const s = new BashSession({ transport: ${JSON.stringify(WORDS)} });
const p = await s.spawn("setsid sleep ${mark} & sleep ${mark}");
const r = await p.read({ waitMs: 300 });
console.log("ready", p.running, r.text.length);
if (globalThis.Deno) Deno.exit(0); else process.exit(0);`;
  const file = `/tmp/bashbox-host-${mark}.mts`;
  await exec(["bash", "-c", `cat > "${file}"`], { stdin: code });
  try {
    equal((await gone(mark, 0)).length, 0);
    const r = await exec(
      runtime === "deno" ? `"$BIN" run --allow-all "$FILE"` : `"$BIN" "$FILE"`,
      { env: { BIN: execPath(), FILE: file }, timeoutMs: 30_000 },
    );
    equal(r.stdout.text, "ready true 0\n", r.stderr.text);
    equal((await gone(mark, 5000)).length, 0, "a process outlived the host");
  } finally {
    rmSync(file, { force: true });
  }
});

test(
  "BashSession.spawn() in a bwrap sandbox: the workdir, its own /tmp, nothing left",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "bashbox-sbx-"));
    const mark = marker();
    const daemon = marker();
    try {
      await using s = new BashSession({
        sandbox: { kind: "bwrap", workdir: dir },
      });
      await s.run("export APP_MODE=dev; echo session > /tmp/only-in-session");
      const p = await s.spawn(
        `echo "$APP_MODE $PWD"; ls /tmp/only-in-session 2>&1 | grep -c 'No such'; echo made > made.txt; setsid sleep ${daemon} & sleep ${mark}`,
      );
      const out = await p.read({ until: /\n.*\n/, waitMs: 20_000 });
      equal(out.text, `dev ${dir}\n1\n`);
      equal((await started(mark, 10_000)).length, 1);
      equal((await started(daemon, 10_000)).length, 1);
      equal((await s.run("cat made.txt")).output.text, "made\n");
      await p.stop({ graceMs: 1000 });
      equal((await gone(mark, 5000)).length, 0);
      equal((await gone(daemon, 5000)).length, 0);
      const q = await s.spawn(`sleep ${mark}`);
      equal((await started(mark, 10_000)).length, 1);
      await s.close();
      ok(!q.running);
      equal((await gone(mark, 5000)).length, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip: noBwrap },
);

test("BashSession.spawn() tty: true in a sandbox is a SpawnError", async () => {
  await using s = new BashSession({
    sandbox: { kind: "bwrap", workdir: tmpdir() },
  });
  await rejects(s.spawn("true", { tty: true }), (error: Error) => {
    equal(error.name, "SpawnError");
    match(error.message, /needs a local session, got one in a sandbox/);
    return true;
  });
});

// The server must not outlive the file's tests.
test("(remote process tests: stop the OpenSSH server)", async () => {
  if (typeof sshd !== "string") await sshd.stop();
});
