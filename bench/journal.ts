/**
 * The state journal's cost (issue 28): the round trip of a command that
 * cannot change the state (`echo hi`) and of one that can (`cd .`), with
 * `restoreState` on and off, interleaved in blocks; and the time of the
 * call that replaces a dead shell and replays a large state (1000
 * variables, 200 functions) against the same call without a journal.
 *
 * Run alone: `deno run -A bench/journal.ts`, `bun bench/journal.ts`,
 * `node bench/journal.ts` (`--n 1000` calls each).
 *
 * @module
 */

import { BashSession } from "../mod.ts";
import { RUNTIME } from "../runtime/_runtime.ts";

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

/**
 * p50 and p99 round trips of `command` in µs, on and off, interleaved;
 * with `pauseMs`, that long between calls (as a model reading each result),
 * so that a journal taken after a result is not in the next call's way.
 */
export async function journalRoundTrip(
  command: string,
  n: number,
  pauseMs = 0,
): Promise<{ on: number[]; off: number[] }> {
  await using on = new BashSession();
  await using off = new BashSession({ restoreState: false });
  const times = { on: [] as number[], off: [] as number[] };
  for (const s of [on, off]) for (let i = 0; i < 50; i++) await s.run(command);
  for (let block = 0; block < n / 50; block++) {
    for (const [name, s] of [["on", on], ["off", off]] as const) {
      for (let i = 0; i < 50; i++) {
        const t = performance.now();
        await s.run(command);
        times[name].push((performance.now() - t) * 1000);
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      }
    }
  }
  const p = (xs: number[]) => {
    xs.sort((a, b) => a - b);
    return [quantile(xs, 0.5), quantile(xs, 0.99)];
  };
  return { on: p(times.on), off: p(times.off) };
}

/** Milliseconds (p50) of the call during which the shell dies and is replaced, with or without the journal's replay of 1000 variables and 200 functions. */
export async function journalReplay(
  restoreState: boolean,
  rounds: number,
): Promise<number> {
  await using s = new BashSession({ restoreState });
  const vars = Array.from(
    { length: 1000 },
    (_, i) => `v${i}=$'value ${i} with \\'quotes\\' and\\nnewline'`,
  ).join("\n");
  const funcs = Array.from(
    { length: 200 },
    (_, i) =>
      `fn${i}(){ local x=$1; echo "fn${i} $x"; [[ -n $x ]] && return 0; }`,
  ).join("\n");
  await s.run(`${vars}\n${funcs}`);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    const r = await s.run("exit");
    times.push(performance.now() - t);
    if (restoreState && r.restored?.variables.length !== 1000) {
      throw new Error(
        `Expected 1000 variables restored, got ${r.restored?.variables.length}`,
      );
    }
  }
  times.sort((a, b) => a - b);
  return quantile(times, 0.5);
}

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
// deno-lint-ignore no-explicit-any
if ((import.meta as any).main) {
  const args: string[] = g.Deno ? g.Deno.args : g.process.argv.slice(2);
  const at = args.indexOf("--n");
  const n = at >= 0 ? Number(args[at + 1]) : 1000;
  for (const command of ["echo hi", "cd ."]) {
    const { on, off } = await journalRoundTrip(command, n);
    console.log(
      `${RUNTIME} round trip ${JSON.stringify(command)}: journal on p50 ${
        on[0].toFixed(0)
      } µs p99 ${on[1].toFixed(0)} µs; off p50 ${off[0].toFixed(0)} µs p99 ${
        off[1].toFixed(0)
      } µs; ${(on[0] / off[0]).toFixed(2)}x`,
    );
  }
  const withJournal = await journalReplay(true, 5);
  const without = await journalReplay(false, 5);
  console.log(
    `${RUNTIME} restart with replay of 1000 variables + 200 functions: p50 ${
      withJournal.toFixed(1)
    } ms (restart without journal ${without.toFixed(1)} ms)`,
  );
}
