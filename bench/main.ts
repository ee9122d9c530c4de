/**
 * The benchmark suite: round trip, sentinel detection, kill latency, drain
 * throughput and memory, exec overhead, many sessions (host RSS per session,
 * bash RSS per shell), start-up (cold and warm, against a bare bash spawn)
 * and the size of the core's module graph, side by side with
 * the official SDK's `BashSession`, a naive line reader and the physical
 * floor of this machine. Runs on Deno (`deno run -A bench/main.ts`), Bun
 * (`bun bench/main.ts`) and Node 24 (`node bench/main.ts`). `--json` prints one object per measurement;
 * `--quick` shrinks every size for a smoke run; `--only <step>` runs one step
 * (`round trip`, `hot path`, `framing`, `journal`, `detection`,
 * `exec overhead`, `kill`, `drain`, `many sessions`, `mcp`, `guardian`,
 * `egress`, `containment`, `start-up`). `framing` times the protocol's
 * properties one by one from the floor up (bench/framing.ts). `egress`
 * measures formatting and redaction throughput (on vs off) and the terminal
 * model's worst cases (bench/egress.ts). `mcp` drives `BashMcp`
 * over loopback HTTP with the official MCP client: 50 sessions x 20
 * commands, req/s and the p50/p99 latency of a `tools/call`. `guardian`
 * times session start, exec and round trip in child hosts with the guardian
 * and without it (`BASHBOX_NO_GUARDIAN=1`, an internal switch).
 *
 * @module
 */

import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { spawn as nodeSpawn } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { BashSession as SdkBashSession } from "@anthropic-ai/sdk/tools/agent-toolset/node";
import { BashSession, exec } from "../mod.ts";
import { containmentBench } from "./containment.ts";
import { egressBench } from "./egress.ts";
import { hotPath } from "./hot_path.ts";
import { framingLadder } from "./framing.ts";
import { Floor, pct, timeInterleaved } from "./_interleave.ts";
import { journalReplay, journalRoundTrip } from "./journal.ts";
import { pump, RUNTIME, spawnGroup } from "../runtime/_runtime.ts";

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
const args: string[] = g.Deno ? g.Deno.args : g.process.argv.slice(2);
const JSON_OUT = args.includes("--json");
const QUICK = args.includes("--quick");
/** `--only <label>`: run just that step (e.g. `--only start-up`). */
const ONLY = args.includes("--only") ? args[args.indexOf("--only") + 1] : null;
const runtime = RUNTIME;
const enc = new TextEncoder();
const dec = new TextDecoder();

/** One measurement. */
interface Row {
  name: string;
  runtime: string;
  impl: string;
  unit: string;
  p50: number;
  p99?: number;
  max?: number;
  ratioToFloor?: number;
  ratioToSdk?: number;
  note?: string;
}
const rows: Row[] = [];
const targets: string[] = [];

function log(text: string): void {
  if (!JSON_OUT) console.log(text);
}

function rss(): number {
  return g.Deno ? g.Deno.memoryUsage().rss : g.process.memoryUsage().rss;
}

function now(): number {
  return performance.now();
}

function target(ok: boolean, text: string): void {
  targets.push(`${ok ? "MET " : "MISS"} ${text}`);
}

// ---------------------------------------------------------------------------
// Peers.

/** The naive baseline the bash tool docs show: newline sentinel, one line at a time, output in a string. */
class NaiveSession {
  #proc = spawnGroup(["bash", "--noprofile", "--norc"], { stdin: true });
  #buffer = "";
  #waiter: ((out: string) => void) | null = null;
  #pump = pump(this.#proc.stdout, (c) => {
    this.#buffer += dec.decode(c, { stream: true });
    const at = this.#buffer.indexOf("__NAIVE_END__\n");
    if (at !== -1 && this.#waiter) {
      const out = this.#buffer.slice(0, at);
      this.#buffer = this.#buffer.slice(at + 14);
      const w = this.#waiter;
      this.#waiter = null;
      w(out);
    }
  });
  run(command: string): Promise<string> {
    return new Promise((resolve) => {
      this.#waiter = resolve;
      this.#proc.write(enc.encode(`${command}\necho __NAIVE_END__\n`));
    });
  }
  async close(): Promise<void> {
    await this.#proc.killGroup("SIGKILL");
    await this.#proc.status;
    await this.#pump.stop();
    await this.#proc.closeStdin();
  }
}

// ---------------------------------------------------------------------------
// 1. Round trip.

const latencies: Record<string, number[]> = {};

async function roundTrip(): Promise<void> {
  const n = QUICK ? 200 : 2000;
  const floor = new Floor();
  const naive = new NaiveSession();
  const sdk = new SdkBashSession("/tmp");
  const session = new BashSession();
  Object.assign(
    latencies,
    await timeInterleaved(n, {
      floor: () => floor.roundTrip(),
      naive: () => naive.run("true"),
      sdk: () => sdk.exec("true"),
      bashbox: () => session.run("true"),
    }),
  );
  await floor.close();
  await naive.close();
  sdk.close();
  await session.close();
  const floorP50 = pct(latencies.floor, 50);
  const sdkP50 = pct(latencies.sdk, 50);
  for (const impl of ["bashbox", "sdk", "naive", "floor"]) {
    const t = latencies[impl];
    rows.push({
      name: "round trip run('true')",
      runtime,
      impl,
      unit: "µs",
      p50: pct(t, 50),
      p99: pct(t, 99),
      ratioToFloor: pct(t, 50) / floorP50,
      ratioToSdk: pct(t, 50) / sdkP50,
    });
  }
  const ours = pct(latencies.bashbox, 50);
  target(
    ours <= sdkP50,
    `round trip p50 ${ours.toFixed(0)} µs <= SDK BashSession ${
      sdkP50.toFixed(0)
    } µs`,
  );
  target(
    ours <= 3 * floorP50,
    `round trip p50 ${(ours / floorP50).toFixed(2)}x floor <= 3x`,
  );
}

// ---------------------------------------------------------------------------
// 2. Detection latency: the shell prints $EPOCHREALTIME last; compare with the host clock.

async function detection(): Promise<void> {
  const n = QUICK ? 100 : 1000;
  const session = new BashSession();
  await session.run("true");
  const lags: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await session.run("printf %s $EPOCHREALTIME");
    const host = performance.timeOrigin + now();
    lags.push((host - Number(r.output.text) * 1000) * 1000);
  }
  await session.close();
  const p50 = pct(lags, 50);
  rows.push({
    name: "sentinel detection latency",
    runtime,
    impl: "bashbox",
    unit: "µs",
    p50,
    p99: pct(lags, 99),
  });
  target(p50 <= 100, `detection latency p50 ${p50.toFixed(0)} µs <= 100 µs`);
}

// ---------------------------------------------------------------------------
// 3. Kill latency.

function markerPids(mark: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8");
      if (
        cmd.includes(mark) &&
        !readFileSync(`/proc/${d}/stat`, "utf8").includes(") Z ")
      ) {
        pids.push(Number(d));
      }
    } catch {
      // gone while reading
    }
  }
  return pids;
}

async function untilGone(mark: string, since: number): Promise<number> {
  while (markerPids(mark).length > 0) {
    if (now() - since > 10_000) return Infinity;
    await new Promise((r) => setTimeout(r, 1));
  }
  return now() - since;
}

async function killLatency(): Promise<void> {
  const reps = QUICK ? 3 : 10;
  const timeoutMs = 100;
  const killGraceMs = 200;
  const cases: [string, (m: string) => string, "session" | "exec"][] = [
    ["(a) sleep 30", (m) => `sleep ${m}`, "session"],
    [
      "(b) trap '' INT TERM; sleep 30",
      (m) => `trap '' INT TERM; sleep ${m}`,
      "session",
    ],
    [
      "(c) background grandchildren (exec)",
      (m) => `sleep ${m} & (sleep ${m} &); sleep ${m}`,
      "exec",
    ],
  ];
  for (const [label, make, via] of cases) {
    const toResult: number[] = [];
    const toGone: number[] = [];
    let survivors = 0;
    const session = new BashSession({ killGraceMs });
    for (let i = 0; i < reps; i++) {
      const mark = `1000.${Math.floor(Math.random() * 1e9)}`;
      // A shell killed by the previous escalation restarts on the next run:
      // start it first, so the deadline counts from the command alone.
      if (via === "session") await session.run("true");
      const start = now();
      if (via === "session") await session.run(make(mark), { timeoutMs });
      else await exec(make(mark), { timeoutMs, killGraceMs });
      const deadline = start + timeoutMs;
      toResult.push(now() - deadline);
      const gone = await untilGone(mark, deadline);
      if (gone === Infinity) survivors++;
      toGone.push(gone);
    }
    await session.close();
    rows.push({
      name: `kill ${label}: deadline to result`,
      runtime,
      impl: "bashbox",
      unit: "ms",
      p50: pct(toResult, 50),
      max: Math.max(...toResult),
    });
    rows.push({
      name: `kill ${label}: deadline to no process`,
      runtime,
      impl: "bashbox",
      unit: "ms",
      p50: pct(toGone, 50),
      max: Math.max(...toGone),
      note: `${survivors} survivors`,
    });
    const p50 = pct(toResult, 50);
    if (label.startsWith("(a)")) {
      target(
        p50 <= 15,
        `kill (a) deadline->result p50 ${p50.toFixed(1)} ms <= 15 ms`,
      );
    }
    if (label.startsWith("(b)")) {
      target(
        p50 <= killGraceMs + 15,
        `kill (b) deadline->result p50 ${
          p50.toFixed(1)
        } ms <= killGraceMs + 15`,
      );
    }
    target(survivors === 0, `kill ${label}: no survivor (${survivors})`);
  }
}

// ---------------------------------------------------------------------------
// 4. Drain throughput and memory.

async function peakDuring(
  work: () => Promise<unknown>,
): Promise<{ ms: number; peak: number }> {
  let peak = rss();
  const timer = setInterval(() => peak = Math.max(peak, rss()), 5);
  const t = now();
  await work();
  const ms = now() - t;
  clearInterval(timer);
  peak = Math.max(peak, rss());
  return { ms, peak };
}

async function rawDrain(command: string): Promise<void> {
  const proc = spawnGroup(["bash", "-c", command]);
  const p = pump(proc.stdout, () => {});
  const e = pump(proc.stderr, () => {});
  await proc.status;
  await Promise.all([p.done, e.done]);
}

async function drain(): Promise<void> {
  const big = QUICK ? 64 << 20 : 1 << 30;
  const small = 10 << 20;
  const mb = (bytes: number, ms: number) => bytes / (1 << 20) / (ms / 1000);
  const session = new BashSession();
  await session.run("true");
  // Growth while a 300 MB drain runs, measured first (the SDK's run below
  // grows the heap): what a host pays on top of what it had (issue 25).
  const fresh = rss();
  const m300 = await peakDuring(() =>
    session.run("head -c 300000000 /dev/zero")
  );
  const grew = (m300.peak - fresh) / (1 << 20);
  rows.push({
    name: "RSS growth during a 300 MB drain",
    runtime,
    impl: "bashbox session",
    unit: "MB",
    p50: grew,
    note: `host RSS before ${(fresh / (1 << 20)).toFixed(0)} MB`,
  });
  target(
    grew <= 32,
    `RSS growth during a 300 MB drain <= 32 MB (${grew.toFixed(1)} MB)`,
  );
  const sdk = new SdkBashSession("/tmp");
  await sdk.exec("true");
  const results: Record<string, number> = {};
  for (
    const [label, gen] of [["zero", "head -c N /dev/zero"], [
      "lines",
      "yes | head -c N",
    ]] as const
  ) {
    const cmd = (n: number) => gen.replace("N", String(n));
    const floor = await peakDuring(() => rawDrain(cmd(big)));
    results[`floor-${label}`] = mb(big, floor.ms);
    const s = await peakDuring(() => session.run(cmd(big)));
    results[`session-${label}`] = mb(big, s.ms);
    const x = await peakDuring(() => exec(cmd(big)));
    results[`exec-${label}`] = mb(big, x.ms);
    const sdkBytes = QUICK ? 16 << 20 : 256 << 20;
    const k = await peakDuring(() =>
      sdk.exec(cmd(sdkBytes), { timeoutMs: 120_000 })
    );
    results[`sdk-${label}`] = mb(sdkBytes, k.ms);
    for (const impl of ["session", "exec", "sdk", "floor"]) {
      const v = results[`${impl}-${label}`];
      rows.push({
        name: `drain ${label} (${
          impl === "sdk" ? sdkBytes >> 20 : big >> 20
        } MB)`,
        runtime,
        impl: impl === "session"
          ? "bashbox session"
          : impl === "exec"
          ? "bashbox exec"
          : impl,
        unit: "MB/s",
        p50: v,
        ratioToFloor: v / results[`floor-${label}`],
        ratioToSdk: v / results[`sdk-${label}`],
      });
    }
    const ratio = results[`session-${label}`] / results[`floor-${label}`];
    target(
      ratio >= 0.8,
      `drain ${label}: session ${ratio.toFixed(2)}x floor >= 0.8x`,
    );
    const vsSdk = results[`session-${label}`] / results[`sdk-${label}`];
    target(
      vsSdk >= 2,
      `drain ${label}: session ${vsSdk.toFixed(1)}x SDK >= 2x`,
    );
  }
  // Memory: peak RSS for 10 MB versus 1 GB through the session.
  const base = rss();
  const m10 = await peakDuring(() => session.run(`head -c ${small} /dev/zero`));
  const m1g = await peakDuring(() => session.run(`head -c ${big} /dev/zero`));
  const grow = (m1g.peak - m10.peak) / (1 << 20);
  rows.push({
    name: "peak RSS 10 MB run",
    runtime,
    impl: "bashbox session",
    unit: "MB",
    p50: m10.peak / (1 << 20),
    note: `host RSS before ${(base / (1 << 20)).toFixed(0)} MB`,
  });
  rows.push({
    name: `peak RSS ${big >> 20} MB run`,
    runtime,
    impl: "bashbox session",
    unit: "MB",
    p50: m1g.peak / (1 << 20),
  });
  target(
    grow <= 32,
    `peak RSS for ${big >> 20} MB within 32 MB of the 10 MB run (${
      grow.toFixed(1)
    } MB)`,
  );
  await session.close();
  sdk.close();
}

// ---------------------------------------------------------------------------
// 5. exec overhead.

async function drainRaw(stream: ReadableStream<Uint8Array>): Promise<void> {
  const reader = stream.getReader({ mode: "byob" });
  let buffer = new ArrayBuffer(65536);
  while (true) {
    const { value, done } = await reader.read(new Uint8Array(buffer));
    if (done || !value) break;
    buffer = value.buffer as ArrayBuffer;
  }
}

async function execOverhead(): Promise<void> {
  const n = QUICK ? 50 : 300;
  const { raw, direct, plain, ours } = await timeInterleaved(n, {
    raw: async () => {
      const p = spawnGroup(["true"]);
      const a = pump(p.stdout, () => {});
      const b = pump(p.stderr, () => {});
      await p.status;
      await Promise.all([a.done, b.done]);
    },
    // The raw spawn with the same semantics (a new session and process
    // group). Deno's Command.output() ignores `detached`, so spawn() it is.
    direct: async () => {
      if (g.Deno) {
        const c = new g.Deno.Command("true", {
          stdout: "piped",
          stderr: "piped",
          detached: true,
        }).spawn();
        await Promise.all([drainRaw(c.stdout), drainRaw(c.stderr)]);
        await c.status;
      } else if (g.Bun) {
        await g.Bun.spawn(["true"], {
          stdout: "pipe",
          stderr: "pipe",
          detached: true,
        }).exited;
      } else await nodeTrue(true);
    },
    // ...and without it, to show what setsid itself costs on this runtime.
    plain: async () => {
      if (g.Deno) {
        await new g.Deno.Command("true", { stdout: "piped", stderr: "piped" })
          .output();
      } else if (g.Bun) {
        await g.Bun.spawn(["true"], { stdout: "pipe", stderr: "pipe" }).exited;
      } else await nodeTrue(false);
    },
    ours: () => exec(["true"]),
  });
  const ratio = pct(ours, 50) / pct(direct, 50);
  const name = runtime === "deno"
    ? "Deno.Command"
    : runtime === "bun"
    ? "Bun.spawn"
    : "child_process.spawn";
  rows.push({
    name: "exec(['true'])",
    runtime,
    impl: "bashbox exec",
    unit: "µs",
    p50: pct(ours, 50),
    p99: pct(ours, 99),
    ratioToFloor: ratio,
  });
  rows.push({
    name: "raw spawn of true, detached (setsid)",
    runtime,
    impl: name,
    unit: "µs",
    p50: pct(direct, 50),
    p99: pct(direct, 99),
    ratioToFloor: 1,
  });
  rows.push({
    name: "raw spawn of true, not detached",
    runtime,
    impl: name,
    unit: "µs",
    p50: pct(plain, 50),
    p99: pct(plain, 99),
    ratioToFloor: pct(plain, 50) / pct(direct, 50),
  });
  rows.push({
    name: "spawnGroup + pumps (internal)",
    runtime,
    impl: "spawnGroup",
    unit: "µs",
    p50: pct(raw, 50),
    p99: pct(raw, 99),
  });
  target(
    ratio <= 1.2,
    `exec overhead ${ratio.toFixed(2)}x raw detached spawn <= 1.2x`,
  );
}

// ---------------------------------------------------------------------------
// 5b. The guardian (runtime/_guardian.ts): session start, exec and round trip
// with it and without it (BASHBOX_NO_GUARDIAN=1, internal), each in hosts of
// their own (the switch is read once per host), the two kinds alternating.

async function guardianCost(): Promise<void> {
  mkdirSync(join(ROOT, "bench/results"), { recursive: true });
  const dir = mkdtempSync(join(ROOT, "bench/results/guardian-"));
  const n = QUICK ? 20 : 100;
  const probe = join(dir, "probe.ts");
  writeFileSync(
    probe,
    `import { BashSession, exec } from ${JSON.stringify(join(ROOT, "mod.ts"))};
const t = () => performance.now();
const starts = [], execs = [], trips = [];
for (let i = 0; i < ${n}; i++) {
  const a = t(); const s = new BashSession(); await s.start(); starts.push(t() - a);
  await s.close();
  const b = t(); await exec("true"); execs.push((t() - b) * 1000);
}
const s = new BashSession();
for (let i = 0; i < ${n * 10}; i++) {
  const a = t(); await s.run("true"); trips.push((t() - a) * 1000);
}
await s.close();
console.log(JSON.stringify({ starts, execs, trips }));
`,
  );
  const self: string = g.Deno ? g.Deno.execPath() : g.process.execPath;
  const argv = g.Deno
    ? [self, "run", "--allow-run=bash", "--allow-env", "--allow-read", probe]
    : [self, probe];
  const samples: Record<string, Record<string, number[]>> = {};
  try {
    for (let round = 0; round < (QUICK ? 2 : 4); round++) {
      for (const on of round % 2 ? [false, true] : [true, false]) {
        const impl = on ? "guardian on" : "guardian off";
        const r = await exec(argv, {
          cwd: ROOT,
          env: { BASHBOX_NO_GUARDIAN: on ? "0" : "1" },
          timeoutMs: 300_000,
        });
        if (r.exitCode !== 0) {
          throw new Error(
            `guardian probe failed: ${r.stderr.text.slice(0, 500)}`,
          );
        }
        const got = JSON.parse(r.stdout.text);
        const into = samples[impl] ??= {
          first: [],
          starts: [],
          execs: [],
          trips: [],
        };
        into.first.push(got.starts[0]);
        into.starts.push(...got.starts.slice(1));
        into.execs.push(...got.execs);
        into.trips.push(...got.trips);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const off = samples["guardian off"];
  for (
    const [name, key, unit] of [
      ["guardian: first session start in a host", "first", "ms"],
      ["guardian: session start (new + start())", "starts", "ms"],
      ["guardian: exec('true')", "execs", "µs"],
      ["guardian: round trip run('true')", "trips", "µs"],
    ] as const
  ) {
    for (const impl of ["guardian on", "guardian off"]) {
      const t = samples[impl][key];
      rows.push({
        name,
        runtime,
        impl,
        unit,
        p50: pct(t, 50),
        p99: pct(t, 99),
        ratioToFloor: pct(t, 50) / pct(off[key], 50),
        note: "x floor: against guardian off",
      });
    }
  }
}

// ---------------------------------------------------------------------------
// 6. Start-up: a script that imports the core and runs `true` once, against
// one that spawns bash bare; cold (empty module cache) and warm.

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");

/** The modules `entry` reaches by static imports: local bytes and npm specifiers. */
function staticGraph(
  entry: string,
): { files: number; bytes: number; npm: string[] } {
  const seen = new Set<string>();
  const npm = new Set<string>();
  let bytes = 0;
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    bytes += statSync(file).size;
    // Static imports and re-exports only; `import type` loads nothing.
    const re =
      /^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']/gm;
    for (const m of text.matchAll(re)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec));
      else if (!spec.startsWith("node:")) npm.add(spec);
    }
  };
  visit(resolve(ROOT, entry));
  return { files: seen.size, bytes, npm: [...npm] };
}

async function startOnce(
  argv: string[],
  env: Record<string, string>,
): Promise<number> {
  const t = now();
  const r = await exec(argv, { cwd: ROOT, env, timeoutMs: 120_000 });
  const ms = now() - t;
  if (r.exitCode !== 0) {
    throw new Error(`${argv.join(" ")} failed: ${r.stderr.text.slice(0, 500)}`);
  }
  return ms;
}

async function startup(): Promise<void> {
  const graph = staticGraph("mod.ts");
  rows.push({
    name: "core graph (mod.ts, static imports)",
    runtime,
    impl: "bashbox",
    unit: "KB",
    p50: graph.bytes / 1000,
    note: `${graph.files} files; npm: ${graph.npm.join(", ") || "none"}`,
  });
  target(
    graph.bytes <= 300_000 && graph.npm.length === 0,
    `core graph ${
      (graph.bytes / 1000).toFixed(0)
    } KB <= 300 KB, no npm package (${graph.npm.length})`,
  );

  // Inside the checkout, as a user's script beside its deno.json would be.
  mkdirSync(join(ROOT, "bench/results"), { recursive: true });
  const dir = mkdtempSync(join(ROOT, "bench/results/start-"));
  try {
    const core = join(dir, "core.ts");
    const bare = join(dir, "bare.ts");
    writeFileSync(
      core,
      `import { exec } from ${JSON.stringify(join(ROOT, "mod.ts"))};\n` +
        `const r = await exec("true");\nif (r.exitCode !== 0) throw new Error("true failed");\n`,
    );
    writeFileSync(
      bare,
      g.Deno
        ? `const r = await new Deno.Command("bash", { args: ["-c", "true"] }).output();\nif (!r.success) throw new Error("true failed");\n`
        : g.Bun
        ? `const p = Bun.spawn(["bash", "-c", "true"]);\nif (await p.exited !== 0) throw new Error("true failed");\n`
        : `import { spawn } from "node:child_process";\nconst code = await new Promise((r) => spawn("bash", ["-c", "true"]).on("exit", r));\nif (code !== 0) throw new Error("true failed");\n`,
    );
    const self: string = g.Deno ? g.Deno.execPath() : g.process.execPath;
    const argvOf = (script: string) =>
      g.Deno
        ? [
          self,
          "run",
          "--allow-run=bash",
          "--allow-env",
          "--allow-read",
          script,
        ]
        : [self, script];
    const warmRuns = QUICK ? 3 : 10;
    for (
      const [impl, script] of [["bashbox core", core], ["bare spawn", bare]]
    ) {
      // Cold: an empty module/transpiler cache of its own.
      const cache = mkdtempSync(join(tmpdir(), "bashbox-bench-cache-"));
      const env: Record<string, string> = g.Deno
        ? { DENO_DIR: cache, DENO_NO_UPDATE_CHECK: "1" }
        : g.Bun
        ? { BUN_RUNTIME_TRANSPILER_CACHE_PATH: cache }
        : { NODE_COMPILE_CACHE: cache };
      try {
        const cold = await startOnce(argvOf(script), env);
        const warm: number[] = [];
        for (let i = 0; i < warmRuns; i++) {
          warm.push(await startOnce(argvOf(script), env));
        }
        rows.push({
          name: "start-up, cold cache: import + run true",
          runtime,
          impl,
          unit: "ms",
          p50: cold,
        });
        rows.push({
          name: "start-up, warm: import + run true",
          runtime,
          impl,
          unit: "ms",
          p50: pct(warm, 50),
          max: Math.max(...warm),
        });
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    }
    const warmOf = (impl: string) =>
      rows.find((r) => r.name.startsWith("start-up, warm") && r.impl === impl)!
        .p50;
    const ratio = warmOf("bashbox core") / warmOf("bare spawn");
    rows.find((r) =>
      r.name.startsWith("start-up, warm") && r.impl === "bashbox core"
    )!.ratioToFloor = ratio;
    target(
      ratio <= 1.5,
      `warm start-up ${ratio.toFixed(2)}x a bare bash spawn <= 1.5x`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// 7. Many sessions.

/** Resident memory of a process in KiB (Linux /proc), or NaN. */
function procRssKiB(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(
      readFileSync(`/proc/${pid}/status`, "utf8"),
    );
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

async function manySessions(): Promise<void> {
  for (const count of QUICK ? [1, 16] : [1, 16, 128]) {
    const before = rss();
    const sessions = Array.from({ length: count }, () => new BashSession());
    await Promise.all(sessions.map((s) => s.start()));
    const during = rss();
    const shellRss = sessions.map((s) => procRssKiB(s.pid)).filter((v) =>
      !Number.isNaN(v)
    );
    const t = now();
    await Promise.all(sessions.map(async (s, i) => {
      for (let j = 0; j < 50; j++) {
        const r = await s.run(`echo ${i}-${j}`);
        if (r.output.text !== `${i}-${j}\n`) {
          throw new Error(`Wrong output: ${r.output.text}`);
        }
      }
    }));
    const ms = now() - t;
    const closing = now();
    await Promise.all(sessions.map((s) => s.close()));
    const closeMs = now() - closing;
    rows.push({
      name: `close ${count} sessions`,
      runtime,
      impl: "bashbox",
      unit: "ms",
      p50: closeMs,
      note: "all at once (each close sweeps its session)",
    });
    rows.push({
      name: `${count} sessions x 50 commands`,
      runtime,
      impl: "bashbox",
      unit: "cmd/s",
      p50: (count * 50) / (ms / 1000),
      note: `host RSS per session ${
        ((during - before) / count / 1024).toFixed(0)
      } KiB`,
    });
    if (count === (QUICK ? 16 : 128)) {
      rows.push({
        name: `host RSS per live session (${count} live)`,
        runtime,
        impl: "bashbox",
        unit: "KiB",
        p50: (during - before) / count / 1024,
      });
      rows.push({
        name: `bash RSS per shell (${count} live)`,
        runtime,
        impl: "bash",
        unit: "KiB",
        p50: shellRss.length ? pct(shellRss, 50) : NaN,
        max: shellRss.length ? Math.max(...shellRss) : undefined,
        note: shellRss.length ? "VmRSS from /proc" : "no /proc access",
      });
    }
  }
}

// ---------------------------------------------------------------------------
// MCP over loopback HTTP: the official client against `bashbox mcp --http`'s server.

async function mcpLoad(): Promise<void> {
  const { BashMcp } = await import("../mcp/server.ts");
  const { Client, StreamableHTTPClientTransport } = await import(
    "@modelcontextprotocol/client"
  );
  const sessions = QUICK ? 10 : 50;
  const commands = QUICK ? 5 : 20;
  const mark = `1000.${String(Date.now()).slice(-10)}`;
  const before = rss();
  const mcp = new BashMcp({ maxSessions: sessions + 8 });
  const http = await mcp.serveHttp({ port: 0 });
  const clients = await Promise.all(
    Array.from({ length: sessions }, async () => {
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(http.url)),
      );
      return client;
    }),
  );
  const text = (r: { content: unknown }) =>
    (r.content as { text?: string }[]).map((c) => c.text ?? "").join("");
  await Promise.all(clients.map((c, i) =>
    c.callTool({
      name: "bash",
      arguments: { command: `n=0; me=${i}; sleep ${mark} &` },
    })
  ));
  const during = rss();
  const latency: number[] = [];
  const t = now();
  await Promise.all(clients.map(async (c, i) => {
    for (let k = 1; k <= commands; k++) {
      const s = now();
      const r = await c.callTool({
        name: "bash",
        arguments: { command: "n=$((n+1)); echo $me:$n" },
      });
      latency.push((now() - s) * 1000);
      if (text(r) !== `Exit code 0\n${i}:${k}\n`) {
        throw new Error(`Wrong MCP result: ${text(r)}`);
      }
    }
  }));
  const ms = now() - t;
  await Promise.all(clients.map((c) => c.close()));
  await mcp.close();
  const left = await untilGone(mark, now());
  rows.push({
    name: `MCP HTTP: ${sessions} sessions x ${commands} commands`,
    runtime,
    impl: "bashbox mcp",
    unit: "req/s",
    p50: latency.length / (ms / 1000),
    note: `host RSS per MCP session ${
      ((during - before) / sessions / 1024).toFixed(0)
    } KiB; all results right; processes left after close: ${
      Number.isFinite(left) ? 0 : "some"
    }`,
  });
  rows.push({
    name: "MCP HTTP: tools/call latency under that load",
    runtime,
    impl: "bashbox mcp",
    unit: "µs",
    p50: pct(latency, 50),
    p99: pct(latency, 99),
  });
  target(
    Number.isFinite(left),
    "MCP: nothing left running after the server closed",
  );
}

// ---------------------------------------------------------------------------
// Report.

function svg(): string {
  const impls = Object.keys(latencies);
  const colors = ["#d62728", "#1f77b4", "#2ca02c", "#7f7f7f"];
  const all = impls.flatMap((k) => latencies[k]);
  const lo = Math.log10(Math.max(1, Math.min(...all)));
  const hi = Math.log10(pct(all, 99.9));
  const W = 720, H = 360, L = 60, B = 40;
  const x = (v: number) =>
    L + ((Math.log10(Math.max(v, 1)) - lo) / (hi - lo)) * (W - L - 20);
  const y = (p: number) => H - B - p * (H - B - 20);
  const lines = impls.map((k, i) => {
    const s = [...latencies[k]].sort((a, b) => a - b);
    const pts = s.filter((_, j) => j % Math.ceil(s.length / 300) === 0).map((
      v,
      j,
      arr,
    ) => `${x(v).toFixed(1)},${y(j / (arr.length - 1)).toFixed(1)}`);
    return `<polyline fill="none" stroke="${
      colors[i]
    }" stroke-width="2" points="${pts.join(" ")}"/>` +
      `<text x="${W - 150}" y="${30 + i * 18}" fill="${
        colors[i]
      }" font-size="13">${k} p50 ${pct(s, 50).toFixed(0)} µs</text>`;
  });
  const ticks = [];
  for (let e = Math.floor(lo); e <= Math.ceil(hi); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (Math.log10(v) < lo || Math.log10(v) > hi) continue;
      ticks.push(
        `<line x1="${x(v)}" x2="${x(v)}" y1="${H - B}" y2="${
          H - B + 5
        }" stroke="#000"/><text x="${x(v)}" y="${
          H - B + 18
        }" font-size="11" text-anchor="middle">${v}</text>`,
      );
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif">
<rect width="100%" height="100%" fill="#fff"/>
<text x="${L}" y="16" font-size="14">Round-trip latency CDF, run('true'), ${runtime} (µs, log scale)</text>
<line x1="${L}" x2="${W - 20}" y1="${H - B}" y2="${H - B}" stroke="#000"/>
<line x1="${L}" x2="${L}" y1="20" y2="${H - B}" stroke="#000"/>
<text x="10" y="${y(0.5)}" font-size="11">50 %</text><text x="10" y="${
    y(1)
  }" font-size="11">100 %</text>
${ticks.join("\n")}
${lines.join("\n")}
</svg>
`;
}

function fmt(v: number | undefined, digits = 1): string {
  if (v === undefined) return "";
  if (!Number.isFinite(v)) return String(v);
  return v >= 100 ? v.toFixed(0) : v.toFixed(digits);
}

/**
 * The hot path under settings (bench/hot_path.ts): `echo hi` after each
 * set-up, beside the SDK and the floor in one run.
 */
async function hotPathRows(): Promise<void> {
  const hot = await hotPath({ n: QUICK ? 200 : 2000 });
  for (const r of hot) {
    rows.push({
      name: `hot path: ${r.name}`,
      impl: r.name === "sdk" || r.name === "floor" ? r.name : "bashbox",
      runtime,
      unit: "µs",
      p50: r.p50,
      p99: r.p99,
      ratioToFloor: r.ratioToFloor,
      ratioToSdk: r.ratioToSdk,
      note: `${r.ratioToPlain.toFixed(2)}x plain`,
    });
  }
  const plain = hot.find((r) => r.name === "plain");
  if (plain === undefined) return;
  if (runtime !== "bun") {
    target(
      plain.ratioToSdk <= 0.9,
      `hot path: plain ${
        plain.ratioToSdk.toFixed(2)
      }x the SDK (target <= 0.9x)`,
    );
  }
  target(
    plain.ratioToFloor <= 3,
    `hot path: plain ${
      plain.ratioToFloor.toFixed(2)
    }x the floor (target <= 3x)`,
  );
  for (const r of hot) {
    if (["plain", "sdk", "floor"].includes(r.name)) continue;
    target(
      r.ratioToPlain <= 1.3,
      `hot path: ${r.name} ${
        r.ratioToPlain.toFixed(2)
      }x plain (target <= 1.3x)`,
    );
  }
}

/**
 * The framing ladder (bench/framing.ts): what each property of the protocol
 * costs a round trip, from the floor up, with the same bare host; then
 * bashbox's own framing with that host, and bashbox. It says where the
 * plain round trip's distance to the floor comes from.
 */
async function framingRows(): Promise<void> {
  const ladder = await framingLadder({ n: QUICK ? 200 : 2000 });
  for (const r of ladder) {
    rows.push({
      name: `framing ladder: ${r.name}`,
      impl: ["floor", "bashbox"].includes(r.name) ? r.name : "rung",
      runtime,
      unit: "µs",
      p50: r.p50,
      p99: r.p99,
      ratioToFloor: r.ratioToFloor,
    });
  }
}

/**
 * The state journal (bench/journal.ts): round trips with it on and off, back
 * to back and with a pause between calls, and the replay of a large state.
 */
async function journalRows(): Promise<void> {
  const n = QUICK ? 100 : 500;
  for (
    const [command, pause] of [["echo hi", 0], ["cd .", 0], [
      "cd .",
      5,
    ]] as const
  ) {
    const { on, off } = await journalRoundTrip(command, n, pause);
    const ratio = on[0] / off[0];
    const name = `journal: ${command}${
      pause ? `, ${pause} ms between calls` : ", back to back"
    }`;
    rows.push({
      name,
      impl: "journal on",
      runtime,
      unit: "µs",
      p50: on[0],
      p99: on[1],
    });
    rows.push({
      name,
      impl: "journal off",
      runtime,
      unit: "µs",
      p50: off[0],
      p99: off[1],
      note: `on ${ratio.toFixed(2)}x off`,
    });
    if (command === "echo hi" || pause > 0) {
      target(
        ratio <= 1.1,
        `${name}: journal on ${ratio.toFixed(2)}x off (target <= 1.1x)`,
      );
    }
  }
  const rounds = QUICK ? 2 : 5;
  rows.push({
    name: "journal: restart + replay of 1000 variables, 200 functions",
    impl: "journal on",
    runtime,
    unit: "ms",
    p50: await journalReplay(true, rounds),
  });
  rows.push({
    name: "journal: restart + replay of 1000 variables, 200 functions",
    impl: "journal off",
    runtime,
    unit: "ms",
    p50: await journalReplay(false, rounds),
  });
}

/** Formatting, redaction and the terminal model (bench/egress.ts). */
function egressRows(): Promise<void> {
  for (const r of egressBench(QUICK)) {
    rows.push({ ...r, runtime });
    if (r.impl === "redaction on") {
      const off = rows.find((o) =>
        o.name === r.name && o.impl === "redaction off" && o.runtime === runtime
      );
      if (off) {
        target(
          r.p50 >= 0.5 * off.p50,
          `${r.name}: redaction on ${r.p50} MB/s vs off ${off.p50} MB/s (target >= 0.5x)`,
        );
      }
    }
  }
  return Promise.resolve();
}

/** Session start and round trip, contained vs not (bench/containment.ts). */
async function containmentRows(): Promise<void> {
  const r = await containmentBench(
    QUICK ? { starts: 30, trips: 200, spawns: 30 } : {},
  );
  if (r.unavailable !== null) {
    log(`  containment not measured: ${r.unavailable}`);
  }
  rows.push(...r.rows);
  for (const t of r.targets) target(t.ok, t.text);
}

const started = now();
log(`bashbox bench on ${runtime}${QUICK ? " (quick)" : ""}`);
for (
  const [label, step] of [
    ["round trip", roundTrip],
    ["hot path", hotPathRows],
    ["framing", framingRows],
    ["journal", journalRows],
    ["detection", detection],
    // Before the drain: Deno's detached spawn forks, and fork costs grow with the heap.
    ["exec overhead", execOverhead],
    ["kill", killLatency],
    ["drain", drain],
    ["many sessions", manySessions],
    ["mcp", mcpLoad],
    ["guardian", guardianCost],
    ["egress", egressRows],
    ["containment", containmentRows],
    // Last: it spawns whole runtimes, and each child competes for the cores.
    ["start-up", startup],
  ] as const
) {
  if (ONLY !== null && label !== ONLY) continue;
  const t = now();
  await step();
  log(`  ${label} done in ${((now() - t) / 1000).toFixed(1)} s`);
}

mkdirSync("bench/results", { recursive: true });
if (Object.keys(latencies).length > 0) {
  writeFileSync(`bench/results/roundtrip-${runtime}.svg`, svg());
}
writeFileSync(
  `bench/results/results-${runtime}.json`,
  JSON.stringify(rows, null, 2),
);
if (JSON_OUT) {
  console.log(JSON.stringify({ runtime, rows, targets }, null, 2));
} else {
  const header = [
    "measurement",
    "impl",
    "p50",
    "p99/max",
    "unit",
    "x floor",
    "x SDK",
    "note",
  ];
  const table = rows.map((r) => [
    r.name,
    r.impl,
    fmt(r.p50),
    fmt(r.p99 ?? r.max),
    r.unit,
    fmt(r.ratioToFloor, 2),
    fmt(r.ratioToSdk, 2),
    r.note ?? "",
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...table.map((r) => r[i].length))
  );
  const line = (cells: string[]) =>
    cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  console.log("\n" + line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of table) console.log(line(r));
  console.log("\nTargets:");
  for (const t of targets) console.log(`  ${t}`);
  console.log(
    `\n${runtime}: bench took ${((now() - started) / 1000).toFixed(1)} s${
      Object.keys(latencies).length > 0
        ? `; SVG in bench/results/roundtrip-${runtime}.svg`
        : ""
    }`,
  );
}

/** Node's raw `true`: piped output drained, optionally in a new session. */
function nodeTrue(detached: boolean): Promise<void> {
  return new Promise((resolve) => {
    const c = nodeSpawn("true", [], {
      stdio: ["ignore", "pipe", "pipe"],
      detached,
    });
    c.stdout!.resume();
    c.stderr!.resume();
    c.on("close", () => resolve());
  });
}
