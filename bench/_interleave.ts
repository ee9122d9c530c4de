/**
 * What the bench's steps share: interleaved timing, percentiles, the floor
 * and the bare round trip through a shell's pipes it is built on.
 *
 * @module
 */

import { type GroupProcess, pump, spawnGroup } from "../runtime/_runtime.ts";

const enc = new TextEncoder();

/** The `p`th percentile of `values` (nearest rank). */
export function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/**
 * A bare host: writes to a process's stdin and resolves a round trip at
 * the first `end` byte on its stdout that follows the write.
 */
export class PipeRoundTrip {
  #proc: GroupProcess;
  #waiter: (() => void) | null = null;
  #pending = 0;
  #pump;

  constructor(proc: GroupProcess, end: number) {
    this.#proc = proc;
    this.#pump = pump(proc.stdout, (c) => {
      for (let i = 0; i < c.length; i++) {
        if (c[i] === end && --this.#pending === 0) this.#waiter?.();
      }
    });
  }

  /** Writes `bytes` and resolves at the next `end` byte. */
  roundTrip(bytes: Uint8Array): Promise<void> {
    return new Promise((resolve) => {
      this.#pending = 1;
      this.#waiter = resolve;
      this.#proc.write(bytes);
    });
  }

  /** Kills the process group and waits for it. */
  async close(): Promise<void> {
    await this.#proc.killGroup("SIGKILL");
    await this.#proc.status;
    await this.#pump.stop();
    await this.#proc.closeStdin();
  }
}

/** The physical floor: write a fixed marker through a bash pipe and read it back. */
export class Floor {
  #pipe = new PipeRoundTrip(
    spawnGroup(["bash", "--noprofile", "--norc"], { stdin: true }),
    10,
  );
  #line = enc.encode("echo\n");
  roundTrip(): Promise<void> {
    return this.#pipe.roundTrip(this.#line);
  }
  close(): Promise<void> {
    return this.#pipe.close();
  }
}

/**
 * Times `n` calls of each implementation, interleaved: after a warm-up of
 * each, rounds of a few calls per implementation, in an order that rotates
 * every round, so a noisy neighbour or a drifting clock favours none of them.
 */
export async function timeInterleaved(
  n: number,
  calls: Record<string, () => Promise<unknown>>,
): Promise<Record<string, number[]>> {
  const names = Object.keys(calls);
  const times: Record<string, number[]> = {};
  for (const name of names) {
    times[name] = [];
    for (let i = 0; i < Math.min(200, n / 5); i++) await calls[name]();
  }
  const batch = Math.max(1, Math.min(50, Math.floor(n / 10)));
  for (let round = 0; times[names[0]].length < n; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      const call = calls[name];
      const out = times[name];
      for (let i = 0; i < batch && out.length < n; i++) {
        const t = performance.now();
        await call();
        out.push((performance.now() - t) * 1000);
      }
    }
  }
  return times;
}
