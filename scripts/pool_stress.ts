/**
 * The pool's stress run (issue 25): conversations that each run a sequence
 * of commands through leases of a {@linkcode SessionPool} much smaller than
 * their number, so sessions are evicted and started all the time, round
 * after round, beside busy loops that keep the machine's cores taken.
 *
 * Every command adds one to a counter in its conversation's shell and prints
 * it. A result is right when it prints the count of commands the
 * conversation ran so far. A session that lost its shell (eviction, idle
 * close) must say so (`restarted: true`) and bring the counter back from its
 * journal: a wrong count is a *silent* loss when the result did not say
 * restarted, a *reported* loss when it did. The run fails on any silent loss,
 * on any reported loss the journal should have prevented, and on any error.
 *
 * Usage (any runtime):
 *   deno run -A scripts/pool_stress.ts [--conversations 200] [--commands 20]
 *     [--max 32] [--rounds 10] [--busy 2] [--think 50]
 *   node scripts/pool_stress.ts …    bun scripts/pool_stress.ts …
 *
 * Prints one line per round and a closing line; exits 1 on any failure.
 *
 * @module
 */

import { SessionPool } from "../core/pool.ts";
import { exec } from "../core/exec.ts";
import { spawnGroup } from "../runtime/_runtime.ts";

/** What a stress run is asked to do. */
export interface StressOptions {
  /** Conversations per round. */
  conversations: number;
  /** Commands per conversation. */
  commands: number;
  /** The pool's `max`. */
  max: number;
  /** Rounds, each with a fresh pool. */
  rounds: number;
  /**
   * Longest pause between two commands of a conversation, in ms (each a
   * random share of it, as a model thinks): other conversations take the
   * slot meanwhile, so sessions are evicted and restored.
   */
  think: number;
}

/** What one round found. */
export interface RoundReport {
  /** Commands whose result was right. */
  right: number;
  /** Results that said restarted (the state came back from the journal). */
  restarted: number;
  /** Wrong results that did not say restarted. */
  silent: string[];
  /** Wrong results that said restarted. */
  reported: string[];
  /** Thrown errors. */
  errors: string[];
  /** Wall time of the round in ms. */
  ms: number;
}

/** Runs one round: a fresh pool, every conversation at once. */
export async function stressRound(
  options: Omit<StressOptions, "rounds">,
): Promise<RoundReport> {
  const report: RoundReport = {
    right: 0,
    restarted: 0,
    silent: [],
    reported: [],
    errors: [],
    ms: 0,
  };
  const started = performance.now();
  await using pool = new SessionPool({ max: options.max });
  await Promise.all(
    Array.from({ length: options.conversations }, async (_, c) => {
      for (let i = 1; i <= options.commands; i++) {
        const pause = Math.floor(Math.random() * (options.think + 1));
        if (pause > 0) await new Promise((r) => setTimeout(r, pause));
        try {
          await using lease = await pool.acquire(`c${c}`);
          const r = await lease.run('n=$(( ${n:-0} + 1 )); echo "$n"');
          if (r.restarted) report.restarted++;
          const got = r.output.text.trim();
          if (got === String(i) && r.exitCode === 0) {
            report.right++;
          } else {
            const what = `c${c} command ${i}: got ${JSON.stringify(got)}${
              r.restored ? ` restored ${JSON.stringify(r.restored)}` : ""
            }`;
            (r.restarted ? report.reported : report.silent).push(what);
          }
        } catch (error) {
          report.errors.push(`c${c} command ${i}: ${(error as Error).message}`);
        }
      }
    }),
  );
  report.ms = performance.now() - started;
  return report;
}

function flag(args: string[], name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(args[at + 1]);
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(
      `Expected --${name} to be a whole number, got ${
        JSON.stringify(args[at + 1])
      }`,
    );
  }
  return value;
}

async function main(args: string[]): Promise<number> {
  const options: StressOptions = {
    conversations: flag(args, "conversations", 200),
    commands: flag(args, "commands", 20),
    max: flag(args, "max", 32),
    rounds: flag(args, "rounds", 10),
    think: flag(args, "think", 50),
  };
  const busy = flag(args, "busy", 2);
  // Busy loops of our own, ended by their ids.
  const loops = Array.from(
    { length: busy },
    () => spawnGroup(["bash", "-c", "while :; do :; done"]),
  );
  const load = (await exec("cut -d' ' -f1 /proc/loadavg 2>/dev/null || uptime"))
    .stdout.text.trim();
  console.log(
    `pool stress: ${options.conversations} conversations x ${options.commands} commands, max ${options.max}, ${options.rounds} rounds, pauses up to ${options.think} ms, ${busy} busy loops (load ${load})`,
  );
  let failed = 0;
  let restarted = 0;
  try {
    for (let round = 1; round <= options.rounds; round++) {
      const r = await stressRound(options);
      restarted += r.restarted;
      const bad = r.silent.length + r.reported.length + r.errors.length;
      failed += bad;
      console.log(
        `round ${round}: ${r.right} right, ${r.restarted} said restarted, ${r.silent.length} silent losses, ${r.reported.length} reported losses, ${r.errors.length} errors (${
          (r.ms / 1000).toFixed(1)
        } s)`,
      );
      for (
        const line of [...r.silent, ...r.reported, ...r.errors].slice(0, 10)
      ) {
        console.log(`  ${line}`);
      }
    }
  } finally {
    for (const loop of loops) await loop.killSession("SIGKILL");
  }
  console.log(
    `pool stress: ${
      failed === 0 ? "passed" : "FAILED"
    } (${failed} wrong results or errors, ${restarted} restarts reported)`,
  );
  return failed === 0 ? 0 : 1;
}

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
if (import.meta.main) {
  const args: string[] = g.Deno ? g.Deno.args : g.process.argv.slice(2);
  const code = await main(args);
  if (g.Deno) g.Deno.exit(code);
  else g.process.exit(code);
}
