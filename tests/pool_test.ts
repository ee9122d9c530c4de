import { equal, ok, rejects, throws } from "node:assert/strict";
import { BashSession, SessionPool } from "../mod.ts";
import { liveGroupCount } from "../_runtime.ts";
import { test } from "./_harness.ts";
import { alive, gone, marker } from "./_procs.ts";

test("SessionPool.get() keeps one session per conversation", async () => {
  await using pool = new SessionPool({ max: 4 });
  const a = await pool.get("a");
  equal(await pool.get("a"), a);
  await pool.run("a", "cd /tmp; export V=a");
  await pool.run("b", "export V=b");
  equal((await pool.run("a", "echo $V $PWD")).output.text, "a /tmp\n");
  equal((await pool.run("b", "echo $V")).output.text, "b\n");
  equal(pool.size, 2);
});

test("SessionPool closes the least recently used idle session at max", async () => {
  await using pool = new SessionPool({ max: 2 });
  await pool.run("a", "export V=a");
  await pool.run("b", "export V=b");
  await pool.run("a", "true"); // a is now more recent than b
  await pool.run("c", "export V=c");
  equal(pool.size, 2);
  equal((await pool.run("a", "echo ${V:-fresh}")).output.text, "a\n");
  equal((await pool.run("b", "echo ${V:-fresh}")).output.text, "fresh\n");
});

test("SessionPool callers wait when every session is busy", async () => {
  await using pool = new SessionPool({ max: 1 });
  const order: string[] = [];
  const slow = pool.run("a", "sleep 0.3; echo a").then((r) =>
    order.push(r.output.text.trim())
  );
  await new Promise((r) => setTimeout(r, 50));
  const waiting = pool.run("b", "echo b").then((r) =>
    order.push(r.output.text.trim())
  );
  await Promise.all([slow, waiting]);
  equal(order.join(","), "a,b");
  ok(pool.size <= 1);
});

test("SessionPool closes idle sessions after idleMs", async () => {
  const mark = marker();
  await using pool = new SessionPool({ idleMs: 100 });
  await pool.run("a", `sleep ${mark} &`);
  equal(pool.size, 1);
  await new Promise((r) => setTimeout(r, 400));
  equal(pool.size, 0);
  equal((await gone(mark)).length, 0);
});

test(
  "SessionPool runs 200 conversations x 20 commands within max and leaves nothing",
  async () => {
    const max = 24;
    const marks: string[] = [];
    const pool = new SessionPool({
      max,
      factory: () => new BashSession({ timeoutMs: 60_000 }),
    });
    let peak = 0;
    const sampler = setInterval(() => peak = Math.max(peak, pool.size), 5);
    let wrong = 0;
    try {
      await Promise.all(Array.from({ length: 200 }, async (_, c) => {
        for (let j = 0; j < 20; j++) {
          const r = await pool.run(`conv-${c}`, `echo ${c}-${j}`);
          if (r.output.text !== `${c}-${j}\n` || r.exitCode !== 0) wrong++;
        }
        if (c % 50 === 0) {
          const mark = marker();
          marks.push(mark);
          await pool.run(`conv-${c}`, `sleep ${mark} &`);
        }
      }));
    } finally {
      clearInterval(sampler);
    }
    equal(wrong, 0);
    ok(peak <= max, `peak ${peak}`);
    const before = (await Promise.all(marks.map(alive))).flat().length;
    ok(before <= marks.length);
    await pool.close();
    for (const mark of marks) equal((await gone(mark)).length, 0);
    equal(liveGroupCount(), 0);
    await rejects(pool.get("x"), /The pool is closed/);
  },
  { timeoutMs: 120_000 },
);

test("SessionPool rejects bad options and ids", async () => {
  throws(
    () => new SessionPool({ max: 0 }),
    /max to be a positive whole number/,
  );
  throws(() => new SessionPool({ idleMs: -1 }), /idleMs/);
  await using pool = new SessionPool();
  await rejects(pool.get(""), /non-empty conversation id/);
});
