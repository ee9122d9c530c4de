/**
 * The Node side of the process layer: `node:child_process` with
 * `detached: true` (setsid), the child's pipes as web streams, and the
 * helpers `_runtime.ts` uses to run its signalling shell.
 *
 * Internal module: `_runtime.ts` imports it lazily, only under Node, so no
 * `node:child_process` loads on Deno or Bun and nothing runs at import time.
 * It imports nothing from `_runtime.ts` but types.
 *
 * @module
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import process from "node:process";
import type { Readable } from "node:stream";
import type {
  ExitStatus,
  GroupProcess,
  GroupSignal,
  SpawnOptions,
} from "./_runtime.ts";

/** Spawn options plus what the adapter needs from `_runtime.ts`. */
export interface NodeSpawnOptions extends SpawnOptions {
  /** Turns the runtime's error into the library's own. */
  describe(error: unknown): Error;
  /** Signals group `pid`. */
  killGroup(pid: number, signal: GroupSignal): Promise<void>;
  /** Signals group `pid` and the rest of session `pid`. */
  killSession(pid: number, signal: GroupSignal): Promise<void>;
}

/** Chunks the web stream queues before the Node stream is paused. */
const QUEUED_CHUNKS = 16;

/**
 * A web stream over a Node readable: each chunk is the Buffer Node read into
 * (no copy); the Node stream pauses while the reader lags behind.
 */
function webStream(readable: Readable): ReadableStream<Uint8Array> {
  let closed = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const close = (): void => {
        if (closed) return;
        closed = true;
        try {
          controller.close();
        } catch {
          // cancelled by the reader
        }
      };
      readable.on("data", (chunk: Uint8Array) => {
        if (closed) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 1) <= 0) readable.pause();
      });
      readable.on("end", close);
      readable.on("close", close);
      readable.on("error", (error: unknown) => {
        if (closed) return;
        closed = true;
        controller.error(error);
      });
    },
    pull() {
      if (readable.isPaused()) readable.resume();
    },
    cancel() {
      closed = true;
      readable.destroy();
    },
  }, { highWaterMark: QUEUED_CHUNKS });
}

/** Why a spawn that gave no pid failed, as far as the file system tells. */
function spawnFailure(program: string): Error {
  let code = "ENOENT";
  if (program.includes("/")) {
    try {
      if (statSync(program).isFile()) code = "EACCES";
    } catch {
      // missing: ENOENT
    }
  }
  return Object.assign(new Error(`spawn ${program} ${code}`), { code });
}

/** Starts `argv` as the leader of a new session (setsid) with piped output. */
export function spawnNode(
  argv: readonly string[],
  options: NodeSpawnOptions,
): GroupProcess {
  const env = options.clearEnv
    ? { ...options.env }
    : options.env
    ? { ...process.env, ...options.env }
    : undefined;
  let child: ChildProcess;
  try {
    child = spawn(argv[0], argv.slice(1), {
      cwd: options.cwd,
      env,
      stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"],
      detached: true,
    });
  } catch (error) {
    throw options.describe(error);
  }
  // A failed spawn reports asynchronously; without a pid it has failed.
  child.on("error", () => {});
  if (child.pid === undefined) {
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.stdin?.destroy();
    throw options.describe(spawnFailure(argv[0]));
  }
  const pid = child.pid;
  const stdin = child.stdin;
  let stdinOpen = stdin !== null;
  stdin?.on("error", () => stdinOpen = false);
  const status = new Promise<ExitStatus>((resolve) => {
    child.once(
      "exit",
      (code: number | null, signal: string | null) =>
        resolve({ code: signal ? null : code, signal: signal ?? null }),
    );
  });
  return {
    pid,
    stdout: webStream(child.stdout as Readable),
    stderr: webStream(child.stderr as Readable),
    status,
    write(bytes) {
      if (!stdinOpen || !stdin) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        try {
          stdin.write(bytes, (error) => {
            if (error) stdinOpen = false;
            resolve(!error);
          });
        } catch {
          stdinOpen = false;
          resolve(false);
        }
      });
    },
    closeStdin() {
      if (!stdinOpen || !stdin) return Promise.resolve();
      stdinOpen = false;
      if (stdin.destroyed || stdin.writableFinished) return Promise.resolve();
      return new Promise<void>((resolve) => {
        stdin.once("error", () => resolve());
        stdin.once("close", () => resolve());
        try {
          stdin.end(() => resolve());
        } catch {
          resolve();
        }
      });
    },
    killGroup: (signal) => options.killGroup(pid, signal),
    killSession: (signal) => options.killSession(pid, signal),
  };
}

/**
 * Runs `argv` with no I/O; resolves when it ends, never rejects. After
 * `timeoutMs` (if given) it is killed.
 */
export function runQuiet(
  argv: readonly string[],
  timeoutMs?: number,
): Promise<void> {
  return new Promise<void>((resolve) => {
    try {
      const child = spawn(argv[0], argv.slice(1), { stdio: "ignore" });
      const timer = timeoutMs === undefined
        ? undefined
        : setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      };
      child.once("error", done);
      child.once("exit", done);
    } catch {
      resolve();
    }
  });
}

/** Runs `argv` with no I/O, synchronously; never throws. */
export function runQuietSync(
  argv: readonly string[],
  timeoutMs?: number,
): void {
  try {
    spawnSync(argv[0], argv.slice(1), { stdio: "ignore", timeout: timeoutMs });
  } catch {
    // nothing more can be done
  }
}
