import { deepEqual, equal, match } from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BashSession, exec } from "../mod.ts";
import { liveGroupCount } from "../runtime/_runtime.ts";
import { execPath, runtime, test } from "./_harness.ts";
import { alive, gone, marker } from "./_procs.ts";

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
const nodeOnly = runtime === "node"
  ? false
  : "a session's stdin is a FIFO on Node only (Deno's pipes are pipes; Bun keeps its cat relay)";
const fixture = new URL("./fixtures/host_exit.ts", import.meta.url).pathname;

/** A private directory to serve as TMPDIR; removed by the caller. */
function privateTmp(): string {
  return mkdtempSync(join(tmpdir(), "bashbox-fifo-test-"));
}

/** Runs `fn` with the host's TMPDIR set to `dir` (Node reads it at each call). */
async function withTmpdir<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const saved = g.process.env.TMPDIR;
  g.process.env.TMPDIR = dir;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete g.process.env.TMPDIR;
    else g.process.env.TMPDIR = saved;
  }
}

test(
  "openStdinFifo() gives a Node session's bash a FIFO for stdin and no relay",
  async () => {
    const dir = privateTmp();
    try {
      await withTmpdir(dir, async () => {
        const session = new BashSession();
        try {
          const fds = await session.run(
            'for f in /proc/$$/fd/*; do readlink "$f"; done',
          );
          // The shell reads its script from the FIFO, whose name is gone.
          match(fds.output.text, /bashbox-stdin-[^/]+\/stdin \(deleted\)\n/);
          // No relay: the listing is the shell's only child.
          const children = await session.run("ps -o pid= --ppid $$");
          equal(children.output.text.trim().split("\n").length, 1);
        } finally {
          await session.close();
        }
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip: nodeOnly },
);

test(
  "openStdinFifo() leaves nothing on disk while the session runs or after close()",
  async () => {
    const dir = privateTmp();
    try {
      await withTmpdir(dir, async () => {
        const session = new BashSession();
        try {
          equal((await session.run("echo up")).output.text, "up\n");
          deepEqual(readdirSync(dir), []);
        } finally {
          await session.close();
        }
        deepEqual(readdirSync(dir), []);
        equal(liveGroupCount(), 0);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip: nodeOnly },
);

test("BashSession.run() gives a command reading stdin EOF, and the framing survives it", async () => {
  const session = new BashSession({ timeoutMs: 10_000 });
  try {
    const read = await session.run('read x; echo "rc=$? x=[$x]"');
    equal(read.output.text, "rc=1 x=[]\n");
    equal(read.timedOut, false);
    const cat = await session.run("cat; head -c 100 | wc -c; echo after");
    equal(cat.output.text, "0\nafter\n");
    // The next call's lines were not eaten: state and framing are intact.
    await session.run("kept=yes");
    const next = await session.run('echo "$kept"; read -r -n 1 c; echo "$?"');
    equal(next.output.text, "yes\n1\n");
    equal(next.exitCode, 0);
    equal(next.restarted, false);
  } finally {
    await session.close();
  }
});

test(
  "openStdinFifo(): a host that exits without closing its session leaves no FIFO directory",
  async () => {
    const dir = privateTmp();
    try {
      const mark = marker();
      const r = await exec(`"$BIN" "$FIXTURE" "$MARK" exit`, {
        env: { BIN: execPath(), FIXTURE: fixture, MARK: mark, TMPDIR: dir },
        timeoutMs: 30_000,
      });
      equal(r.stdout.text, "ready\n", r.stderr.text);
      equal((await gone(mark)).length, 0);
      deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip: nodeOnly },
);

test(
  "openStdinFifo(): the host's exit hook removes a FIFO directory still being made",
  async () => {
    const dir = privateTmp();
    const bin = mkdtempSync(join(tmpdir(), "bashbox-fifo-bin-"));
    try {
      const mark = marker();
      // A mkfifo that says it runs and takes its time: the host gets SIGTERM
      // while the directory exists and the FIFO is not made yet.
      writeFileSync(
        join(bin, "mkfifo"),
        `#!/bin/bash\necho started > "$STARTED"\nsleep ${mark}\n`,
        { mode: 0o755 },
      );
      const r = await exec(
        `"$BIN" "$FIXTURE" "$MARK" wait > "$OUT" & host=$!
       for i in $(seq 200); do [ -s "$STARTED" ] && break; sleep 0.05; done
       ls "$TMPDIR" | wc -l
       kill -TERM $host; wait $host; echo "host exit $?"; cat "$OUT"
       ls "$TMPDIR" | wc -l`,
        {
          env: {
            BIN: execPath(),
            FIXTURE: fixture,
            MARK: mark,
            TMPDIR: dir,
            OUT: join(bin, "out"),
            STARTED: join(bin, "started"),
            PATH: `${bin}:${g.process.env.PATH}`,
          },
          timeoutMs: 30_000,
        },
      );
      // One directory while mkfifo ran; none after the host's exit; the
      // session never started.
      equal(r.stdout.text, "1\nhost exit 143\n0\n", r.stderr.text);
      // The slow mkfifo outlives the host (it was no group of the library's).
      for (const pid of await alive(mark)) g.process.kill(pid, "SIGKILL");
      equal((await gone(mark)).length, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(bin, { recursive: true, force: true });
    }
  },
  { skip: nodeOnly },
);

test(
  "spawnGroup() keeps the host's signal listeners between calls and removes them a tick after the last group ends",
  async () => {
    const count = (): number => g.process.listenerCount("SIGTERM");
    // (A removal still pending from an earlier test goes first.)
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = count();
    await exec(["true"]);
    // Still there right after the call: the next one does not add them again.
    equal(count(), before + 1);
    await exec(["true"]);
    equal(count(), before + 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    equal(count(), before);
  },
  {
    skip: runtime === "deno"
      ? "Deno removes its signal listeners at once (no timer may outlive a test), and has no listener count to look at"
      : false,
  },
);
