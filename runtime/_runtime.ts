/**
 * The process layer: spawn a program as the leader of its own session and
 * process group on Deno, Bun or Node, signal the whole group, drain its pipes, and
 * make sure no group the library started outlives the host process: the
 * host's exit and signal hooks kill them, and should the host die where no
 * hook runs (SIGKILL), its guardian does (see `_guardian.ts`).
 *
 * Internal module: only `exec.ts` and `session.ts` import it.
 *
 * @module
 */

import { appHandlesSignal, hostEnv } from "./host.ts";
import { statSync } from "node:fs";
import { GUARD_VARIABLE, Guardian } from "./_guardian.ts";
import { guardSweep, markSweep, sessionSweep } from "./_sweep.ts";
import type {
  GroupProcess,
  GroupSignal,
  HostSignal,
  RuntimeAdapter,
  SpawnOptions,
  StdinFifo,
} from "./_adapter.ts";

export type {
  ExitStatus,
  GroupProcess,
  GroupSignal,
  SpawnOptions,
  StdinFifo,
} from "./_adapter.ts";

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
/** The runtime's adapter, loaded for the runtime found (and no other). */
const adapter: RuntimeAdapter | undefined =
  typeof g.Deno?.Command === "function"
    ? (await import("./deno.ts")).adapter
    : typeof g.Bun?.spawn === "function"
    ? (await import("./bun.ts")).adapter
    : typeof g.process?.versions?.node === "string"
    ? (await import("./node.ts")).adapter
    : undefined;

/** The runtime's adapter (undefined on a runtime bashbox does not support). */
export function runtimeAdapter(): RuntimeAdapter | undefined {
  return adapter;
}

/** Name of the runtime the library runs on. */
export const RUNTIME: "deno" | "bun" | "node" | "unsupported" = adapter?.name ??
  "unsupported";

/**
 * Error thrown when a program cannot be started: a missing program or cwd, or
 * a permission the runtime refused.
 *
 * @example
 * ```ts
 * import { exec, SpawnError } from "../mod.ts";
 *
 * try {
 *   await exec("true", { cwd: "/no/such/dir" });
 * } catch (error) {
 *   console.assert(error instanceof SpawnError);
 * }
 * ```
 */
export class SpawnError extends Error {
  /** Creates the error; `options.cause` holds the runtime's own error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SpawnError";
  }
}

// ---------------------------------------------------------------------------
// Live groups: killed when the host exits or is interrupted.

const live = new Map<number, string>(); // pgid -> killer program
let hooksInstalled = false;

function killAllSync(): void {
  runExitSweeps();
  if (live.size === 0) return;
  const groups = [...live.entries()];
  live.clear();
  for (const [pgid, killer] of groups) {
    try {
      if (adapter?.mayKill()) {
        adapter.kill(-pgid, "SIGKILL");
        continue;
      }
    } catch {
      // fall through to the shell builtin
    }
    runQuietSync([killer, "-c", `kill -s KILL -- -${pgid} 2>/dev/null`]);
  }
  // What left the group but not the session dies too.
  for (const [sid, killer] of groups) signalSessionSync(sid, killer);
}

const HOST_SIGNAL_CODES: Record<HostSignal, number> = {
  SIGINT: 130,
  SIGTERM: 143,
  SIGHUP: 129,
};
// Where the application listens for the signal itself, its shutdown runs
// (answering calls in flight, removing its files) and the exit hook kills
// what is left when the host exits: cleanup after the application's
// shutdown, never instead of it. Otherwise the signal would end the host
// with nothing run: everything is killed first, then the host exits with the
// signal's code.
const signalHandlers = {} as Record<HostSignal, () => void>;
for (const [sig, code] of Object.entries(HOST_SIGNAL_CODES)) {
  const handler = (): void => {
    if (appHandlesSignal(sig, handler)) return;
    killAllSync();
    adapter?.exit(code);
  };
  signalHandlers[sig as HostSignal] = handler;
}

function setHooks(on: boolean): void {
  if (on === hooksInstalled) return;
  hooksInstalled = on;
  adapter?.hook(on, killAllSync, signalHandlers);
}

/** The pending removal of the hooks (Node and Bun), or undefined. */
let unhookTimer: ReturnType<typeof setTimeout> | undefined;

function track(pgid: number, killer: string): void {
  live.set(pgid, killer);
  keepHooks();
  guardian()?.add(pgid, killer);
}

function untrack(pgid: number): void {
  if (live.delete(pgid)) theGuardian?.remove(pgid);
  releaseHooks();
}

// ---------------------------------------------------------------------------
// The guardian (see _guardian.ts): kills what the host started when the host
// dies where no hook runs. Started with the first group; off (internal, for
// the bench) when the host's environment has BASHBOX_NO_GUARDIAN=1.

/** The host's guardian; null when it is switched off; undefined until asked. */
let theGuardian: Guardian | null | undefined;

function guardian(): Guardian | null {
  if (theGuardian !== undefined) return theGuardian;
  theGuardian = RUNTIME === "unsupported" ||
      readHostEnv("BASHBOX_NO_GUARDIAN") === "1"
    ? null
    : new Guardian(
      (argv, env) => adapter?.spawnGuardian(argv, env) ?? null,
      () => live.keys(),
      { path: readHostEnv("PATH"), noProc: NO_PROC },
    );
  return theGuardian;
}

/**
 * The host's variable `name`, or undefined (also when Deno may not read it:
 * the permission is queried first, so no prompt appears).
 */
function readHostEnv(name: string): string | undefined {
  return adapter?.env(name);
}

/**
 * The environment of a new group: `env` plus the host's guard mark. (The
 * guardian itself starts when the group is tracked, right after its spawn:
 * the new shell starts up while the guardian is spawned.)
 */
function guardedEnv(
  env: Record<string, string> | undefined,
  clearEnv = false,
): Record<string, string> | undefined {
  // A bash whose stdin is a socket (Node's and Bun's pipes) and whose
  // environment has no SHLVL reads ~/.bashrc, as if sshd had started it:
  // slow, with side effects of the user's (a pyenv rehash), and one that
  // hung 60 s on a stale lock here. A host started without a shell (an MCP
  // client, a service manager) has none: give one.
  const shlvl: Record<string, string> = env?.SHLVL === undefined &&
      (clearEnv || hostEnv("SHLVL") === undefined)
    ? { SHLVL: "1" }
    : {};
  const guard = guardian();
  if (guard === null) {
    return Object.keys(shlvl).length ? { ...env, ...shlvl } : env;
  }
  return { ...env, ...shlvl, [GUARD_VARIABLE]: guard.token };
}

/** Installs the hooks, or keeps them: a removal that is pending is cancelled. */
function keepHooks(): void {
  if (unhookTimer !== undefined) {
    clearTimeout(unhookTimer);
    unhookTimer = undefined;
  }
  setHooks(true);
}

/**
 * Removes the hooks once nothing is left to clean up. On Node and Bun one
 * tick later (an unref'd timer, cancelled by the next spawn): adding and
 * removing three signal listeners around every `exec()` starts and stops a
 * signal watcher each time. On Deno at once, so no test leaks a timer.
 */
function releaseHooks(): void {
  if (live.size > 0 || exitSweeps.size > 0 || !hooksInstalled) return;
  if (adapter?.unhookAtOnce) {
    setHooks(false);
    return;
  }
  if (unhookTimer !== undefined) return;
  unhookTimer = setTimeout(() => {
    unhookTimer = undefined;
    if (live.size === 0 && exitSweeps.size === 0) setHooks(false);
  }, 0);
  // deno-lint-ignore no-explicit-any
  (unhookTimer as any).unref?.();
}

/**
 * On Node, a FIFO for a session's stdin: bash reads its script by path
 * (`/dev/fd/0`), which a socket pair (Node's pipes) cannot be opened as, so
 * without it a `cat` relays stdin through a pipe, a third process on every
 * round trip. Undefined elsewhere (Deno's pipes are pipes; Bun keeps its
 * relay) or when no FIFO can be made. Nothing of it stays on disk: the
 * temporary directory is gone when this resolves, and the host's exit hook
 * removes it should the host exit before.
 */
export async function openStdinFifo(): Promise<StdinFifo | undefined> {
  return await adapter?.openStdinFifo?.(addExitSweep);
}

/** Number of process groups the library currently keeps alive (for tests). */
export function liveGroupCount(): number {
  return live.size;
}

// ---------------------------------------------------------------------------
// Killing a group.

function isGone(error: unknown): boolean {
  // deno-lint-ignore no-explicit-any
  const e = error as any;
  return e?.code === "ESRCH" || e?.name === "NotFound" ||
    /ESRCH|No such process/i.test(String(e?.message));
}

/**
 * Signals process group `pgid`; a group that is gone is not an error. Under
 * Deno with scoped `--allow-run`, `killer` (a bash) sends it.
 */
export async function signalGroup(
  pgid: number,
  signal: GroupSignal,
  killer: string,
): Promise<void> {
  if (adapter?.mayKill()) {
    try {
      adapter.kill(-pgid, signal);
      return;
    } catch (error) {
      if (isGone(error)) return;
      // Refused where the adapter may not signal every process (Deno with
      // a scoped --allow-run): the shell builtin sends it from now on.
      if (adapter.mayKill()) throw error;
    }
  }
  const sent = await adapter?.runOk([
    killer,
    "-c",
    `kill -s ${signal.slice(3)} -- -${pgid} 2>/dev/null; :`,
  ]);
  if (!sent) {
    throw new Error(`Could not send ${signal} to process group ${pgid}`);
  }
}

// ---------------------------------------------------------------------------
// Killing a session: processes that left the group but not the session
// (coreutils `timeout`, jobs under `set -m`) are found by their session id.

/**
 * True when sweeps must use `ps`, not `/proc` (the host's
 * `BASHBOX_NO_PROC=1`, read once: the tests run the path macOS takes).
 */
const NO_PROC = readHostEnv("BASHBOX_NO_PROC") === "1";

/**
 * bash that signals every live process of session `$1` whose process group is
 * not `$2`, with signal `$3`; for KILL it repeats while it finds any (children
 * forked meanwhile). `$4` is `gone` when the leader was already reaped (a
 * process with its pid is then not the session's: nothing is signalled).
 * With `/proc` it walks the leader's descendants; without, it lists with
 * `ps` (see `_sweep.ts`). Shared by the local and remote sides.
 */
export const SWEEP_SCRIPT: string = sessionSweep(NO_PROC);

/**
 * bash that signals every process whose environment holds
 * `BASHBOX_PROCESS=$1`, with signal `$2`; for KILL it repeats while it finds
 * any (children forked meanwhile). Shared by the local and remote sides.
 */
export const MARK_SWEEP: string = markSweep(NO_PROC);

/**
 * POSIX sh that SIGKILLs every process whose environment holds the entry
 * `$t`, the process groups listed in `$s` and the rest of their sessions
 * (see `guardSweep` in `_sweep.ts`): the remote side's control channel runs
 * it when its connection drops.
 */
export const GUARD_SWEEP: string = guardSweep(NO_PROC);

/** Options of {@linkcode signalSession}. */
export interface SessionSweepOptions {
  /** Process group left out (default 0: none). */
  readonly exceptGroup?: number;
  /** The bash that runs the sweep. */
  readonly killer: string;
  /**
   * True when the session's leader (pid `sid`) has already been reaped: a
   * process with that pid is then someone else's, and nothing is signalled
   * (default false).
   */
  readonly leaderGone?: boolean;
}

function sweepArgs(
  sid: number,
  signal: GroupSignal,
  exceptGroup: number,
  leaderGone = false,
): string[] {
  const args = [
    String(sid),
    String(exceptGroup),
    signal.slice(3),
    leaderGone ? "gone" : "live",
  ];
  return ["-c", SWEEP_SCRIPT, "bashbox-sweep", ...args];
}

/**
 * Signals every process of session `sid` outside process group
 * `options.exceptGroup`, through `options.killer` (a bash). A session that
 * is gone is not an error; one whose leader's pid now belongs to another
 * process is not touched.
 */
export async function signalSession(
  sid: number,
  signal: GroupSignal,
  options: SessionSweepOptions,
): Promise<void> {
  const args = sweepArgs(
    sid,
    signal,
    options.exceptGroup ?? 0,
    options.leaderGone,
  );
  await runQuiet([options.killer, ...args]);
}

function signalSessionSync(sid: number, killer: string): void {
  runQuietSync([killer, ...sweepArgs(sid, "SIGKILL", 0)]);
}

/** Options of {@linkcode runQuiet}. */
export interface QuietOptions {
  /** Kill the program after this many milliseconds (default: wait for it). */
  readonly timeoutMs?: number;
}

/**
 * Runs a short helper command (`argv`: a program and its arguments) with no
 * input or output, through the runtime's own API (`Deno.Command`,
 * `Bun.spawn`, `node:child_process`); resolves when it ends. Never rejects: a
 * program that cannot start is not an error (there is nothing more to do).
 */
export async function runQuiet(
  argv: readonly string[],
  options: QuietOptions = {},
): Promise<void> {
  await adapter?.runQuiet(argv, options.timeoutMs);
}

/**
 * {@linkcode runQuiet}, synchronously (for the host's exit, when nothing
 * asynchronous runs any more). Never throws.
 */
export function runQuietSync(
  argv: readonly string[],
  options: QuietOptions = {},
): void {
  adapter?.runQuietSync(argv, options.timeoutMs);
}

/**
 * Runs `argv` synchronously for a probe (no input, stdout discarded): its
 * exit code (null when it could not run, was killed or outran `timeoutMs`)
 * and its stderr. Never throws.
 */
export function runSync(
  argv: readonly string[],
  timeoutMs = 10_000,
): { code: number | null; stderr: string } {
  return adapter?.runSync(argv, timeoutMs) ??
    { code: null, stderr: "no runtime to run it with" };
}

// ---------------------------------------------------------------------------
// Spawning.

function describeSpawnError(
  argv: readonly string[],
  options: SpawnOptions,
  error: unknown,
): SpawnError {
  // deno-lint-ignore no-explicit-any
  const e = error as any;
  const name = String(e?.name ?? "");
  const text = String(e?.message ?? e);
  if (
    name === "NotCapable" || name === "PermissionDenied" && /run/i.test(text)
  ) {
    return new SpawnError(
      `Permission to run "${argv[0]}" was denied: start Deno with --allow-run=${
        argv[0]
      }`,
      { cause: error },
    );
  }
  if (options.cwd !== undefined && !directoryExists(options.cwd)) {
    return new SpawnError(
      `Expected cwd to be an existing directory, got "${options.cwd}"`,
      { cause: error },
    );
  }
  if (name === "NotFound" || /ENOENT|not found|No such file/i.test(text)) {
    return new SpawnError(
      `Cannot run "${argv[0]}": the program was not found`,
      { cause: error },
    );
  }
  return new SpawnError(`Cannot run "${argv[0]}": ${text}`, { cause: error });
}

/**
 * The absolute path of `program` on the host's PATH, when the command's own
 * environment replaces PATH (so the runtime would look there); else `program`.
 */
export function resolveProgram(
  program: string,
  env: Record<string, string> | undefined,
  clearEnv = false,
): string {
  if (program.includes("/")) return program;
  if (!clearEnv && (env === undefined || !("PATH" in env))) return program;
  let hostPath: string | undefined;
  try {
    hostPath = adapter?.env("PATH");
  } catch {
    return program; // no permission to read the environment
  }
  for (const dir of (hostPath ?? "/usr/local/bin:/usr/bin:/bin").split(":")) {
    if (!dir.startsWith("/")) continue;
    const candidate = `${dir}/${program}`;
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not there, or not readable: try the next directory
    }
  }
  return program;
}

function directoryExists(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (error) {
    // deno-lint-ignore no-explicit-any
    const name = (error as any)?.name;
    // without read permission we cannot tell: assume it exists
    return name === "NotCapable" || name === "PermissionDenied";
  }
}

/**
 * Signals group `pid` and the rest of session `pid`; never throws.
 * `reaped()` tells whether the leader `pid` was reaped: then the number may
 * belong to another process, so no group signal goes out by number and the
 * sweep checks the leader before it signals anything. SIGKILL goes to the
 * group after the sweep: the sweep walks the live leader's descendants
 * (killing the leader first would send it through a scan of every process).
 */
async function killSession(
  pid: number,
  signal: GroupSignal,
  killer: string,
  reaped: () => boolean,
): Promise<void> {
  if (reaped()) {
    await signalSession(pid, signal, { killer, leaderGone: true });
    return;
  }
  if (signal === "SIGKILL") {
    await signalSession(pid, signal, { killer });
    if (!reaped()) await signalGroup(pid, signal, killer).catch(() => {});
    return;
  }
  await Promise.all([
    signalGroup(pid, signal, killer).catch(() => {}),
    signalSession(pid, signal, { exceptGroup: pid, killer }),
  ]);
}

/**
 * Starts `argv` as the leader of a new session and process group. The group is
 * tracked until the leader exits, and killed if the host exits first.
 */
export function spawnGroup(
  argv: readonly string[],
  options: SpawnOptions = {},
): GroupProcess {
  if (adapter === undefined) {
    throw new SpawnError(
      "Unsupported runtime: bashbox needs Deno (2.5 or later), Bun or Node (20 or later)",
    );
  }
  const killer = options.killer ?? "bash";
  let reaped = false;
  const proc = adapter.spawn(argv, {
    ...options,
    env: guardedEnv(options.env, options.clearEnv),
    describe: (error) => describeSpawnError(argv, options, error),
    killGroup: (pid, signal) => signalGroup(pid, signal, killer),
    killSession: (pid, signal) =>
      killSession(pid, signal, killer, () => reaped),
  });
  track(proc.pid, killer);
  const ended = () => {
    reaped = true;
    untrack(proc.pid);
  };
  proc.status.then(ended, ended);
  return proc;
}

// ---------------------------------------------------------------------------
// Draining.

const CHUNK_BYTES = 64 * 1024;

/** A running drain of one stream; `stop()` cancels it and waits for the end. */
export interface Pump {
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Reads `stream` to its end, handing every chunk to `onChunk`. The chunk is a
 * view of one reused buffer: valid only during the call. Uses a BYOB reader
 * where the runtime offers one, so memory stays flat whatever flows through.
 */
export function pump(
  stream: ReadableStream<Uint8Array>,
  onChunk: (chunk: Uint8Array) => void,
): Pump {
  let reader:
    | ReadableStreamBYOBReader
    | ReadableStreamDefaultReader<Uint8Array>;
  let byob = false;
  try {
    reader = stream.getReader({ mode: "byob" });
    byob = true;
  } catch {
    reader = stream.getReader();
  }
  let stopped = false;
  const done = (async () => {
    // Only a BYOB reader reads into a buffer of ours (Node's streams are
    // not byte streams: there, none is allocated).
    let buffer = byob ? new ArrayBuffer(CHUNK_BYTES) : undefined;
    try {
      while (!stopped) {
        if (buffer !== undefined) {
          const { value, done }: ReadableStreamReadResult<Uint8Array> =
            await (reader as ReadableStreamBYOBReader)
              .read(new Uint8Array(buffer, 0, CHUNK_BYTES));
          if (done || value === undefined) break;
          buffer = value.buffer as ArrayBuffer;
          onChunk(value);
        } else {
          const { value, done } =
            await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
          if (done) break;
          onChunk(value);
        }
      }
    } catch {
      // a cancelled or broken stream ends the drain
    } finally {
      try {
        reader.releaseLock();
      } catch {
        // a pending read keeps the lock; cancel() below settles it
      }
    }
  })();
  return {
    done,
    async stop() {
      if (!stopped) {
        stopped = true;
        try {
          await reader.cancel();
        } catch {
          // already closed
        }
      }
      await done;
    },
  };
}

/** How long output is drained after a process group's leader exits. */
const DRAIN_AFTER_EXIT_MS = 100;

/**
 * After the leader of `proc` exited: waits for `pumps` to reach EOF for a
 * bounded time; when a background child still holds the pipes, kills what is
 * left of the group and, if the pipes stay open even then, stops the pumps.
 */
export async function drainAfterExit(
  proc: GroupProcess,
  pumps: readonly Pump[],
): Promise<void> {
  const drained = Promise.all(pumps.map((p) => p.done));
  if (await within(drained, DRAIN_AFTER_EXIT_MS)) return;
  await proc.killSession("SIGKILL");
  if (!await within(drained, DRAIN_AFTER_EXIT_MS)) {
    await Promise.all(pumps.map((p) => p.stop()));
  }
}

// ---------------------------------------------------------------------------
// Timers that never outlive their purpose.

/** A promise that resolves after `ms`, and a way to cancel it. */
export interface Delay {
  readonly promise: Promise<void>;
  cancel(): void;
}

/** Resolves after `ms` milliseconds unless cancelled (then it resolves at once). */
export function delay(ms: number): Delay {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => resolve = r);
  const id = setTimeout(resolve, ms);
  return {
    promise,
    cancel() {
      clearTimeout(id);
      resolve();
    },
  };
}

/** Waits for `promise` at most `ms`; true when it settled in time. */
export async function within(
  promise: Promise<unknown>,
  ms: number,
): Promise<boolean> {
  const timer = delay(ms);
  let settled = false;
  await Promise.race([
    promise.then(() => settled = true, () => settled = true),
    timer.promise,
  ]);
  timer.cancel();
  return settled;
}

// ---------------------------------------------------------------------------
// Background processes (processes.ts): groups started outside spawnGroup
// (Bun's terminal) and sweeps run when the host exits.

const exitSweeps = new Set<() => void>();

function runExitSweeps(): void {
  const sweeps = [...exitSweeps];
  exitSweeps.clear();
  for (const sweep of sweeps) {
    try {
      sweep();
    } catch {
      // nothing more can be done while the host exits
    }
  }
}

/**
 * Has directory `dir` removed should the host die where no exit hook runs
 * (the guardian removes it, see `_guardian.ts`); the returned function
 * forgets it (call it once the host removed it). `shell` starts the
 * guardian if none runs. Without a guardian, nothing is done.
 */
export function guardDirectory(dir: string, shell: string): () => void {
  const guard = guardian();
  if (guard === null) return () => {};
  guard.removeAtDeath(dir, shell);
  return () => guard.keepDirectory(dir);
}

/**
 * Runs `sweep` (synchronously) when the host exits or is interrupted, until
 * the returned function removes it.
 */
export function addExitSweep(sweep: () => void): () => void {
  exitSweeps.add(sweep);
  keepHooks();
  return () => {
    exitSweeps.delete(sweep);
    releaseHooks();
  };
}

/**
 * Tracks process group `pgid`, started without {@linkcode spawnGroup}, so it
 * is killed when the host exits; the returned function stops tracking it.
 */
export function trackGroup(pgid: number, killer: string): () => void {
  track(pgid, killer);
  return () => untrack(pgid);
}
