import { equal, notEqual, ok, rejects, throws } from "node:assert/strict";
import { BashSession, formatResult, SessionPool } from "../mod.ts";
import { liveGroupCount } from "../runtime/_runtime.ts";
import { test } from "./_harness.ts";
import { alive, gone, marker } from "./_procs.ts";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("SessionPool.acquire() keeps one session per conversation", async () => {
  await using pool = new SessionPool({ max: 4 });
  {
    await using a1 = await pool.acquire("a");
    await using a2 = await pool.acquire("a");
    equal(a1.session, a2.session);
    await a1.run("cd /tmp; export V=a");
    equal((await a2.run("echo $V $PWD")).output.text, "a /tmp\n");
  }
  await pool.run("b", "export V=b");
  equal((await pool.run("a", "echo $V")).output.text, "a\n");
  equal((await pool.run("b", "echo $V")).output.text, "b\n");
  equal(pool.size, 2);
});

test("SessionPool.acquire() never lets the pool close a leased session", async () => {
  await using pool = new SessionPool({ max: 1, idleMs: 50 });
  const lease = await pool.acquire("a");
  await lease.run("export V=kept");
  // Another conversation must wait for the slot; the idle timer must not fire.
  let bDone = false;
  const b = pool.run("b", "echo b").then((r) => {
    bDone = true;
    return r;
  });
  await tick(200);
  equal(bDone, false);
  const r = await lease.run("echo $V");
  equal(r.output.text, "kept\n");
  equal(r.restarted, false);
  equal(lease.session.closed, false);
  lease.release();
  lease.release(); // twice is harmless
  equal((await b).output.text, "b\n");
  await rejects(lease.run("true"), /The lease was released/);
  ok(lease.session.closed, "released and evicted for b");
});

test("SessionPool.acquire() then run() across many conversations never meets a closed session", async () => {
  // The failure this replaces: get() handed out sessions that a concurrent
  // caller evicted before they were used ("The session is closed").
  await using pool = new SessionPool({ max: 8 });
  const errors: string[] = [];
  await Promise.all(Array.from({ length: 200 }, async (_, c) => {
    try {
      await using lease = await pool.acquire(`c${c}`);
      await tick(c % 5);
      const r = await lease.run(`echo ${c}`);
      if (r.output.text !== `${c}\n`) errors.push(`c${c}: ${r.output.text}`);
    } catch (error) {
      errors.push(`c${c}: ${(error as Error).message}`);
    }
  }));
  equal(errors.join("\n"), "");
  ok(pool.size <= 8);
});

test("SessionPool.run() reports restarted: true once after an eviction", async () => {
  await using pool = new SessionPool({ max: 2 });
  await pool.run("a", "export V=a; cd /tmp");
  await pool.run("b", "export V=b");
  // (A session still taking its journal after a command is busy, and no
  // pool evicts a busy session: the next command waits for the journal.)
  await pool.run("b", "true");
  await pool.run("a", "true"); // a is now more recent than b
  await pool.run("c", "export V=c"); // evicts b
  equal(pool.size, 2);
  const a = await pool.run("a", "echo ${V:-fresh}");
  equal(a.output.text, "a\n");
  equal(a.restarted, false);
  const b = await pool.run("b", "echo ${V:-fresh}");
  equal(b.output.text, "b\n"); // restored from the state journal
  equal(b.restarted, true);
  ok(
    formatResult(b).includes("The shell was restarted"),
    "the model is told",
  );
  equal((await pool.run("b", "true")).restarted, false, "only once");
});

test("SessionPool callers wait when every session is busy", async () => {
  await using pool = new SessionPool({ max: 1 });
  const order: string[] = [];
  const slow = pool.run("a", "sleep 0.3; echo a").then((r) =>
    order.push(r.output.text.trim())
  );
  await tick(50);
  const waiting = pool.run("b", "echo b").then((r) =>
    order.push(r.output.text.trim())
  );
  await Promise.all([slow, waiting]);
  equal(order.join(","), "a,b");
  ok(pool.size <= 1);
});

test("SessionPool closes idle sessions after idleMs and says so next time", async () => {
  const mark = marker();
  await using pool = new SessionPool({ idleMs: 100 });
  await pool.run("a", `export V=1; sleep ${mark} &`);
  equal(pool.size, 1);
  await tick(400);
  equal(pool.size, 0);
  equal((await gone(mark)).length, 0);
  const lease = await pool.acquire("a");
  equal(lease.restarted, true);
  lease.release(); // unused: the note waits for the next command
  const r = await pool.run("a", "echo ${V:-unset}");
  equal(r.output.text, "1\n"); // restored from the state journal
  equal(r.restarted, true);
});

test("SessionPool.end() closes a conversation and forgets it", async () => {
  const mark = marker();
  await using pool = new SessionPool();
  await pool.run("a", `sleep ${mark} &`);
  await pool.end("a");
  equal(pool.size, 0);
  equal((await gone(mark)).length, 0);
  equal((await pool.run("a", "true")).restarted, false);
  await pool.end("never-seen");
});

test(
  "SessionPool runs 1000 conversations x 10 commands within max 256 and leaves nothing",
  async () => {
    const max = 256;
    const conversations = 1000;
    const commands = 10;
    const marks: string[] = [];
    let created = 0;
    const pool = new SessionPool({
      max,
      factory: () => {
        created++;
        return new BashSession({ timeoutMs: 120_000 });
      },
    });
    let peakGroups = 0;
    let peakSize = 0;
    const sampler = setInterval(() => {
      peakGroups = Math.max(peakGroups, liveGroupCount());
      peakSize = Math.max(peakSize, pool.size);
    }, 2);
    const wrong: string[] = [];
    let restarts = 0;
    // Each command bumps a shell variable: the output says whether the
    // session kept its state, and `restarted` must say exactly when it did not.
    // (The state journal brings the variable back after an eviction.)
    const check = (c: number, j: number, r: {
      output: { text: string };
      exitCode: number | null;
      restarted: boolean;
    }, previous: number): number => {
      const expected = previous + 1;
      if (r.restarted) restarts++;
      if (r.output.text !== `${c}:${expected}\n` || r.exitCode !== 0) {
        wrong.push(
          `conv ${c} cmd ${j}: ${
            JSON.stringify(r.output.text)
          } restarted=${r.restarted} expected ${c}:${expected}`,
        );
      }
      return expected;
    };
    const bump = (c: number) => `n=$((\${n:-0}+1)); echo ${c}:$n`;
    try {
      await Promise.all(
        Array.from({ length: conversations }, async (_, c) => {
          let n = 0;
          if (c % 50 !== 1) {
            // Most hold a lease for the whole exchange ...
            await using lease = await pool.acquire(`conv-${c}`);
            for (let j = 0; j < commands; j++) {
              n = check(c, j, await lease.run(bump(c)), n);
            }
            if (c % 250 === 0) {
              const mark = marker();
              marks.push(mark);
              await lease.run(`sleep ${mark} &`);
            }
          } else {
            // ... one in fifty takes a lease per command, and may be evicted
            // between two commands (1000 busy conversations, 256 shells).
            for (let j = 0; j < commands; j++) {
              n = check(c, j, await pool.run(`conv-${c}`, bump(c)), n);
            }
          }
        }),
      );
    } finally {
      clearInterval(sampler);
    }
    equal(wrong.slice(0, 5).join("\n"), "");
    ok(peakGroups <= max, `peak live shells ${peakGroups} > ${max}`);
    ok(peakSize <= max, `peak pool size ${peakSize}`);
    ok(created >= conversations, `created ${created}`);
    ok(
      restarts === created - conversations,
      `restarts ${restarts}, created ${created}`,
    );
    const before = (await Promise.all(marks.map(alive))).flat().length;
    ok(before <= marks.length);
    await pool.close();
    for (const mark of marks) equal((await gone(mark)).length, 0);
    equal(liveGroupCount(), 0);
    await rejects(pool.acquire("x"), /The pool is closed/);
  },
  { timeoutMs: 300_000 },
);

test("SessionPool rejects bad options and ids", async () => {
  throws(
    () => new SessionPool({ max: 0 }),
    /max to be a positive whole number/,
  );
  throws(() => new SessionPool({ max: 1.5 }), /got 1.5/);
  throws(() => new SessionPool({ idleMs: -1 }), /idleMs/);
  throws(
    // deno-lint-ignore no-explicit-any
    () => new SessionPool({ factory: "bash" as any }),
    /factory to be a function, got string/,
  );
  await using pool = new SessionPool();
  await rejects(pool.acquire(""), /non-empty conversation id/);
  await rejects(
    pool.run(42 as unknown as string, "true"),
    /non-empty conversation id, got 42/,
  );
  const lease = await pool.acquire("a");
  notEqual(lease.session, undefined);
  await rejects(lease.run(""), TypeError);
  lease.release();
});
