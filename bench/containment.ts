/**
 * What containment costs (issue 26): session start (a new `BashSession` to
 * its first answered command) and the round trip of a trivial command on a
 * started session, without containment and inside the bubblewrap sandbox the
 * read-only preset asks for (`containmentSandbox(Policy.readOnly().promise,
 * dir)`), interleaved in one run; and, to explain the start, the raw spawns
 * underneath: `bash -c true`, a bare `bwrap … true` (the probe's argv), and
 * the launcher a contained session spawns (`bash -c` opening the seccomp
 * program on a pipe, then `exec bwrap … true`), plus the one-time probe.
 *
 * Run alone: `deno run -A bench/containment.ts`, `bun bench/containment.ts`,
 * `node bench/containment.ts` (`--quick` for a smoke run, `--json`).
 *
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BashSession } from "../core/session.ts";
import { containmentSandbox, sandboxUnavailable } from "../core/containment.ts";
import { bwrapArgv, type Sandbox, sandboxLauncher } from "../core/sandbox.ts";
import { Policy } from "../policy/mod.ts";
import { pump, RUNTIME, spawnGroup } from "../runtime/_runtime.ts";
import { pct, timeInterleaved } from "./_interleave.ts";

/** One measurement, in the shape of the suite's rows. */
export interface ContainmentRow {
  /** What was measured. */
  name: string;
  /** The runtime it was measured on. */
  runtime: string;
  /** Which variant (`uncontained`, `contained`, a raw spawn). */
  impl: string;
  /** `ms` or `µs`. */
  unit: string;
  /** Median. */
  p50: number;
  /** 99th percentile. */
  p99?: number;
  /** p50 over the uncontained (or `bash -c true`) p50. */
  ratioToFloor?: number;
  /** A remark. */
  note?: string;
}

/** A target and whether it was met. */
export interface ContainmentTarget {
  /** Whether the target was met. */
  ok: boolean;
  /** The target in words, with the number measured. */
  text: string;
}

/** Options for {@linkcode containmentBench}. */
export interface ContainmentBenchOptions {
  /** Session starts timed per variant (default 200). */
  starts?: number;
  /** Round trips timed per variant and command (default 2000). */
  trips?: number;
  /** Raw spawns timed per variant (default 200). */
  spawns?: number;
}

/** What {@linkcode containmentBench} measured, or why it could not. */
export interface ContainmentBenchResult {
  /** The rows, empty when bubblewrap cannot run here. */
  rows: ContainmentRow[];
  /** Start ≤ 1.5x and round trip ≤ 1.1x, met or missed. */
  targets: ContainmentTarget[];
  /** Why nothing was measured (no bubblewrap), or null. */
  unavailable: string | null;
}

/** Spawns `argv`, drains its output, and waits for its exit (which must be 0). */
async function spawnOnce(argv: readonly string[]): Promise<void> {
  const proc = spawnGroup(argv);
  const out = pump(proc.stdout, () => {});
  const err = pump(proc.stderr, () => {});
  const status = await proc.status;
  await Promise.all([out.done, err.done]);
  if (status.code !== 0) {
    throw new Error(
      `Expected ${argv[0]} to exit 0, got ${JSON.stringify(status)}`,
    );
  }
}

/** The probe's argv: bwrap with the sandbox's namespaces, no info fd, no seccomp descriptor. */
function bareBwrap(sandbox: Sandbox, command: readonly string[]): string[] {
  return bwrapArgv(sandbox, command).filter((a, i, all) =>
    !(a === "--info-fd" || all[i - 1] === "--info-fd" ||
      a === "--seccomp" || all[i - 1] === "--seccomp")
  );
}

/**
 * Times session start and round trips without containment and inside the
 * read-only preset's sandbox, interleaved, and the raw spawns underneath.
 *
 * @example
 * ```ts ignore
 * import { containmentBench } from "./containment.ts";
 * const { rows, targets } = await containmentBench({ starts: 20, trips: 200, spawns: 20 });
 * for (const t of targets) console.log(t.ok ? "MET " : "MISS", t.text);
 * ```
 */
export async function containmentBench(
  options: ContainmentBenchOptions = {},
): Promise<ContainmentBenchResult> {
  const starts = options.starts ?? 200;
  const trips = options.trips ?? 2000;
  const spawns = options.spawns ?? 200;
  const runtime = RUNTIME;
  const rows: ContainmentRow[] = [];
  const targets: ContainmentTarget[] = [];

  // The probe a contained tool runs once per process (synchronous).
  const probeStart = performance.now();
  const unavailable = sandboxUnavailable();
  const probeMs = performance.now() - probeStart;
  if (unavailable !== null) return { rows, targets, unavailable };

  const dir = mkdtempSync(join(tmpdir(), "bashbox-contain-"));
  const sandbox = containmentSandbox(Policy.readOnly().promise!, dir);
  const sessions: BashSession[] = [];
  try {
    // 1. Session start: new BashSession -> first command answered. Each call
    // times its own start and closes the session outside the timed part;
    // the last `starts` samples are the timed ones (the first are warm-up).
    const started: Record<string, number[]> = {
      uncontained: [],
      contained: [],
    };
    const startOnce = async (name: string, make: () => BashSession) => {
      const t = performance.now();
      const session = make();
      const r = await session.run("true");
      started[name].push(performance.now() - t);
      await session.close();
      if (r.exitCode !== 0) {
        throw new Error(`Expected true to exit 0 (${name}), got ${r.exitCode}`);
      }
    };
    await timeInterleaved(starts, {
      uncontained: () =>
        startOnce("uncontained", () => new BashSession({ cwd: dir })),
      contained: () =>
        startOnce("contained", () => new BashSession({ sandbox })),
    });
    const startOf = (name: string) => started[name].slice(-starts);
    const startOff = pct(startOf("uncontained"), 50);
    for (const impl of ["contained", "uncontained"]) {
      const t = startOf(impl);
      rows.push({
        name: "containment: session start (new + first run('true'))",
        runtime,
        impl,
        unit: "ms",
        p50: pct(t, 50),
        p99: pct(t, 99),
        ratioToFloor: pct(t, 50) / startOff,
        note: "x floor: against uncontained",
      });
    }
    const startRatio = pct(startOf("contained"), 50) / startOff;
    targets.push({
      ok: startRatio <= 1.5,
      text: `containment: session start ${
        startRatio.toFixed(2)
      }x uncontained (${pct(startOf("contained"), 50).toFixed(1)} vs ${
        startOff.toFixed(1)
      } ms; target <= 1.5x)`,
    });

    // 2. Round trips on started sessions.
    const plain = new BashSession({ cwd: dir });
    const contained = new BashSession({ sandbox });
    sessions.push(plain, contained);
    for (const s of sessions) {
      const r = await s.run("echo x");
      if (r.output.text !== "x\n") {
        throw new Error(
          `Expected "x\\n", got ${JSON.stringify(r.output.text)}`,
        );
      }
    }
    for (const command of ["true", "echo x"]) {
      const times = await timeInterleaved(trips, {
        uncontained: () => plain.run(command),
        contained: () => contained.run(command),
      });
      const off = pct(times.uncontained, 50);
      for (const impl of ["contained", "uncontained"]) {
        rows.push({
          name: `containment: round trip run('${command}')`,
          runtime,
          impl,
          unit: "µs",
          p50: pct(times[impl], 50),
          p99: pct(times[impl], 99),
          ratioToFloor: pct(times[impl], 50) / off,
          note: "x floor: against uncontained",
        });
      }
      const ratio = pct(times.contained, 50) / off;
      targets.push({
        ok: ratio <= 1.1,
        text: `containment: round trip run('${command}') ${
          ratio.toFixed(2)
        }x uncontained (${pct(times.contained, 50).toFixed(0)} vs ${
          off.toFixed(0)
        } µs; target <= 1.1x)`,
      });
    }
    for (const s of sessions.splice(0)) await s.close();

    // 3. The raw spawns under a start, interleaved: what bwrap adds.
    const raw = await timeInterleaved(spawns, {
      "bash -c true": () => spawnOnce(["bash", "-c", "true"]),
      "bwrap … true": () => spawnOnce(bareBwrap(sandbox, ["true"])),
      "bwrap … true, network kept": () =>
        spawnOnce(bareBwrap({ ...sandbox, network: true }, ["true"])),
      "bwrap --ro-bind / / true": () =>
        spawnOnce(["bwrap", "--ro-bind", "/", "/", "--", "true"]),
      "launcher: bash -c seccomp pipe + exec bwrap … true": () =>
        spawnOnce(sandboxLauncher("bash", bwrapArgv(sandbox, ["true"]))),
    });
    const bashP50 = pct(raw["bash -c true"], 50);
    const notes: Record<string, string> = {
      "bash -c true": "the uncontained shell's spawn",
      "bwrap … true": "the sandbox's argv, no seccomp, no info fd (the probe)",
      "bwrap … true, network kept": "no --unshare-net, /run kept",
      "bwrap --ro-bind / / true": "bwrap's floor: its namespaces, one bind",
      "launcher: bash -c seccomp pipe + exec bwrap … true":
        "what a contained session spawns, with true for bash",
    };
    for (const [impl, t] of Object.entries(raw)) {
      rows.push({
        name: "containment: raw spawn",
        runtime,
        impl,
        unit: "ms",
        p50: pct(t, 50) / 1000,
        p99: pct(t, 99) / 1000,
        ratioToFloor: pct(t, 50) / bashP50,
        note: `x floor: against bash -c true; ${notes[impl]}`,
      });
    }
    rows.push({
      name: "containment: bubblewrap probe, once per process (sync)",
      runtime,
      impl: "sandboxUnavailable()",
      unit: "ms",
      p50: probeMs,
      note: "paid by the first contained tool, pool or server",
    });
  } finally {
    for (const s of sessions) await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { rows, targets, unavailable: null };
}

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
// deno-lint-ignore no-explicit-any
if ((import.meta as any).main) {
  const args: string[] = g.Deno ? g.Deno.args : g.process.argv.slice(2);
  const quick = args.includes("--quick");
  const result = await containmentBench(
    quick ? { starts: 30, trips: 200, spawns: 30 } : {},
  );
  if (args.includes("--json")) console.log(JSON.stringify(result));
  else if (result.unavailable !== null) {
    console.log(`containment not measured: ${result.unavailable}`);
  } else {
    for (const r of result.rows) {
      console.log(
        `${r.name} | ${r.impl}: p50 ${r.p50.toFixed(1)} ${r.unit}${
          r.p99 !== undefined ? `, p99 ${r.p99.toFixed(1)}` : ""
        }${
          r.ratioToFloor !== undefined ? `, ${r.ratioToFloor.toFixed(2)}x` : ""
        }`,
      );
    }
    for (const t of result.targets) {
      console.log(`${t.ok ? "MET " : "MISS"} ${t.text}`);
    }
  }
}
