import { equal, ok } from "node:assert/strict";
import { stressRound } from "../scripts/pool_stress.ts";
import { spawnGroup } from "../runtime/_runtime.ts";
import { test } from "./_harness.ts";

// One round of the pool's stress run (scripts/pool_stress.ts runs ten, and
// prints them: `deno run -A scripts/pool_stress.ts`): 200 conversations of 20
// commands each through leases of a pool of 32, with pauses so sessions are
// evicted and restored, beside two busy loops of our own.
test(
  "SessionPool.acquire() under churn and load: every result right, every restart reported",
  async () => {
    const loops = [0, 1].map(() =>
      spawnGroup(["bash", "-c", "while :; do :; done"])
    );
    try {
      const r = await stressRound({
        conversations: 200,
        commands: 20,
        max: 32,
        think: 20,
      });
      equal(r.errors.join("\n"), "", "errors");
      equal(r.silent.join("\n"), "", "silent losses");
      equal(r.reported.join("\n"), "", "losses the journal should have kept");
      equal(r.right, 4000);
      // (The round must have made the pool evict and restore sessions.)
      ok(r.restarted > 0, "no session was evicted: the round tested nothing");
    } finally {
      for (const loop of loops) await loop.killSession("SIGKILL");
    }
    // (A round took 30–90 s on Deno beside the busy loops, over 60 s on Node.)
  },
  { timeoutMs: 300_000 },
);
