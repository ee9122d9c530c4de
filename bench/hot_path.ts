/**
 * The hot path under settings: the round trip of `echo hi` in a bashbox
 * session after each of a few set-ups (options, traps, a sourced file with
 * functions and aliases, many functions), side by side with the official
 * SDK's `BashSession` and a raw bash pipe (the floor), interleaved in blocks
 * in one process so that a noisy neighbour favours none of them.
 *
 * Run alone: `deno run -A bench/hot_path.ts`, `bun bench/hot_path.ts`,
 * `node bench/hot_path.ts` (`--n 2000` calls each, `--json`).
 *
 * @module
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BashSession as SdkBashSession } from "@anthropic-ai/sdk/tools/agent-toolset/node";
import { BashSession } from "../mod.ts";
import { RUNTIME } from "../runtime/_runtime.ts";
import { Floor, pct, timeInterleaved } from "./_interleave.ts";

/** One set-up's p50 and p99, in microseconds, with ratios. */
export interface HotPathRow {
  /** The set-up's name (`plain`, `set -euo pipefail`, …, `sdk`, `floor`). */
  name: string;
  /** The runtime the row was measured on. */
  runtime: string;
  /** Median round trip in µs. */
  p50: number;
  /** 99th percentile in µs. */
  p99: number;
  /** p50 over the SDK's p50. */
  ratioToSdk: number;
  /** p50 over the floor's p50. */
  ratioToFloor: number;
  /** p50 over bashbox's plain p50. */
  ratioToPlain: number;
}

/** Options for {@linkcode hotPath}. */
export interface HotPathOptions {
  /** Calls timed per implementation (default 2000). */
  n?: number;
  /** The command each call runs (default `echo hi`). */
  command?: string;
}

/** The set-ups each bashbox session runs once before it is timed. */
export function hotPathSetups(dir: string): Record<string, string> {
  const file = join(dir, "env.sh");
  const lines = [
    "# a sourced file: functions, aliases, variables (like an activate script)",
    "deactivate(){ unset VIRTUAL_ENV; }",
    "alias ll='ls -l'",
    "alias gs='git status'",
    "VIRTUAL_ENV=/tmp/venv; export VIRTUAL_ENV",
    'PATH="$VIRTUAL_ENV/bin:$PATH"',
  ];
  for (let i = 0; i < 50; i++) lines.push(`f${i}(){ echo ${i}; }`);
  writeFileSync(file, lines.join("\n") + "\n");
  const many = Array.from({ length: 500 }, (_, i) => `g${i}(){ :; }`)
    .join(";");
  return {
    plain: "",
    "set -euo pipefail": "set -euo pipefail",
    "trap ERR + EXIT": "trap 'echo e' ERR; trap 'echo x' EXIT",
    "shopt + source": `shopt -s extglob; source ${file}`,
    "set -x": "set -x",
    "500 functions, 20 aliases": `${many}; ${
      Array.from({ length: 20 }, (_, i) => `alias a${i}=true`).join(";")
    }`,
    "all of them":
      `set -euo pipefail; trap 'echo e' ERR; trap 'echo x' EXIT; shopt -s extglob nullglob; source ${file}; ${many}`,
  };
}

/**
 * Times `echo hi` in a session after each set-up, beside the SDK and the
 * floor, interleaved in blocks (the order rotates every round).
 *
 * @example
 * ```ts ignore
 * import { hotPath } from "./hot_path.ts";
 * for (const row of await hotPath({ n: 500 })) console.log(row);
 * ```
 */
export async function hotPath(
  options: HotPathOptions = {},
): Promise<HotPathRow[]> {
  const n = options.n ?? 2000;
  const command = options.command ?? "echo hi";
  const dir = mkdtempSync(join(tmpdir(), "bashbox-hot-"));
  const setups = hotPathSetups(dir);
  const sessions: Record<string, BashSession> = {};
  const calls: Record<string, () => Promise<unknown>> = {};
  const floor = new Floor();
  const sdk = new SdkBashSession(dir);
  try {
    for (const [name, setup] of Object.entries(setups)) {
      const session = new BashSession({ cwd: dir });
      sessions[name] = session;
      if (setup) await session.run(setup);
      const check = await session.run(command);
      if (check.exitCode !== 0 || !check.output.text.includes("hi")) {
        throw new Error(
          `Expected "${command}" to print hi after ${name}, got ${
            JSON.stringify(check)
          }`,
        );
      }
      calls[name] = () => session.run(command);
    }
    calls.sdk = () => sdk.exec(command);
    calls.floor = () => floor.roundTrip();
    const times = await timeInterleaved(n, calls);
    const names = Object.keys(calls);
    const sdkP50 = pct(times.sdk, 50);
    const floorP50 = pct(times.floor, 50);
    const plainP50 = pct(times.plain, 50);
    return names.map((name) => {
      const p50 = pct(times[name], 50);
      return {
        name,
        runtime: RUNTIME,
        p50,
        p99: pct(times[name], 99),
        ratioToSdk: p50 / sdkP50,
        ratioToFloor: p50 / floorP50,
        ratioToPlain: p50 / plainP50,
      };
    });
  } finally {
    for (const session of Object.values(sessions)) await session.close();
    sdk.close();
    await floor.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints the rows as a table. */
export function formatHotPath(rows: readonly HotPathRow[]): string {
  const head = `${"set-up".padEnd(28)} ${"p50 µs".padStart(8)} ${
    "p99 µs".padStart(8)
  } ${"x SDK".padStart(6)} ${"x floor".padStart(8)} ${"x plain".padStart(8)}`;
  return [
    `hot path, echo hi (${rows[0]?.runtime})`,
    head,
    ...rows.map((r) =>
      `${r.name.padEnd(28)} ${r.p50.toFixed(0).padStart(8)} ${
        r.p99.toFixed(0).padStart(8)
      } ${r.ratioToSdk.toFixed(2).padStart(6)} ${
        r.ratioToFloor.toFixed(2).padStart(8)
      } ${r.ratioToPlain.toFixed(2).padStart(8)}`
    ),
  ].join("\n");
}

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
// deno-lint-ignore no-explicit-any
if ((import.meta as any).main) {
  const args: string[] = g.Deno ? g.Deno.args : g.process.argv.slice(2);
  const at = args.indexOf("--n");
  const rows = await hotPath({ n: at >= 0 ? Number(args[at + 1]) : 2000 });
  console.log(
    args.includes("--json") ? JSON.stringify(rows) : formatHotPath(rows),
  );
}
