/**
 * The Bun side of the process layer: `Bun.spawn` with `detached: true`
 * (setsid), its pipes as web streams, `process.kill` and `process.on` for
 * signals and the host's exit.
 *
 * Internal module: `_runtime.ts` loads it only under Bun.
 *
 * @module
 */

import process from "node:process";
import type {
  AdapterSpawnOptions,
  ExitStatus,
  FetchHandler,
  GroupProcess,
  RuntimeAdapter,
  Served,
  ServeOptions,
} from "./_adapter.ts";
import type { GuardianPipe } from "./_guardian.ts";
import { SIGNAL_NAMES } from "./signals.ts";
import { processHooks } from "./_process_hooks.ts";

// deno-lint-ignore no-explicit-any
const B = (globalThis as any).Bun;

function spawn(
  argv: readonly string[],
  options: AdapterSpawnOptions,
): GroupProcess {
  const env = options.clearEnv
    ? { ...options.env }
    : options.env
    ? { ...process.env, ...options.env }
    : undefined;
  // deno-lint-ignore no-explicit-any
  let child: any;
  try {
    child = B.spawn([...argv], {
      cwd: options.cwd,
      env,
      stdin: options.stdin ? "pipe" : "ignore",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
  } catch (error) {
    throw options.describe(error);
  }
  const pid: number = child.pid;
  let stdinOpen = options.stdin === true;
  const status: Promise<ExitStatus> = child.exited.then(() => {
    const signal: string | number | null = child.signalCode ?? null;
    return {
      code: signal ? null : child.exitCode,
      signal: typeof signal === "number"
        ? SIGNAL_NAMES[signal] ?? `SIG${signal}`
        : signal,
    };
  });
  return {
    pid,
    stdout: child.stdout,
    stderr: child.stderr,
    status,
    async write(bytes) {
      if (!stdinOpen) return false;
      try {
        // (Bun's sink may answer with a promise; one that rejects, say with
        // EPIPE from a process that closed its input, is caught here.)
        await child.stdin.write(bytes);
        await child.stdin.flush();
        return true;
      } catch {
        stdinOpen = false;
        return false;
      }
    },
    async closeStdin() {
      if (!stdinOpen) return;
      stdinOpen = false;
      try {
        await child.stdin.end();
      } catch {
        // already closed by the other side
      }
    },
    killGroup: (signal) => options.killGroup(pid, signal),
    killSession: (signal) => options.killSession(pid, signal),
  };
}

function spawnGuardian(
  argv: readonly string[],
  env: Record<string, string>,
): GuardianPipe | null {
  try {
    const child = B.spawn([...argv], {
      env,
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
      detached: true,
    });
    child.unref();
    child.stdin.unref?.();
    return {
      write(bytes) {
        try {
          child.stdin.write(bytes);
          Promise.resolve(child.stdin.flush()).catch(() => {});
        } catch {
          // the guardian is gone; the next group starts another
        }
      },
      exited: child.exited,
    };
  } catch {
    return null; // no bash: no guardian
  }
}

const IGNORED = { stdin: "ignore", stdout: "ignore", stderr: "ignore" };

async function runQuiet(
  argv: readonly string[],
  timeoutMs?: number,
): Promise<void> {
  try {
    const child = B.spawn([...argv], IGNORED);
    const timer = timeoutMs === undefined
      ? undefined
      : setTimeout(() => child.kill(9), timeoutMs);
    await child.exited;
    if (timer !== undefined) clearTimeout(timer);
  } catch {
    // no program to run it with: nothing more can be done
  }
}

function runQuietSync(argv: readonly string[], timeoutMs?: number): void {
  try {
    B.spawnSync([...argv], {
      ...IGNORED,
      ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
    });
  } catch {
    // nothing more can be done while the host exits
  }
}

function runSync(
  argv: readonly string[],
  timeoutMs: number,
): { code: number | null; stderr: string } {
  try {
    const out = B.spawnSync([...argv], {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      timeout: timeoutMs,
    });
    return {
      code: out.signalCode ? null : out.exitCode,
      stderr: new TextDecoder().decode(out.stderr ?? new Uint8Array()),
    };
  } catch (error) {
    return { code: null, stderr: String((error as Error)?.message ?? error) };
  }
}

async function runOk(argv: readonly string[]): Promise<boolean> {
  try {
    return await B.spawn([...argv], IGNORED).exited === 0;
  } catch {
    return false;
  }
}

function serve(options: ServeOptions, handler: FetchHandler): Promise<Served> {
  const server = B.serve({
    hostname: options.hostname,
    port: options.port,
    fetch: (request: Request) =>
      handler(request, (listener) => {
        request.signal.addEventListener("abort", listener, { once: true });
      }),
    idleTimeout: 0,
    // A backstop only: the handler answers bodies over its limit itself.
    maxRequestBodySize: options.maxBodyBytes,
  });
  return Promise.resolve({
    port: server.port,
    stop: async () => {
      await server.stop(true);
    },
  });
}

/** The process layer on Bun. */
export const adapter: RuntimeAdapter = {
  name: "bun",
  spawn,
  spawnGuardian,
  runQuiet,
  runQuietSync,
  runSync,
  runOk,
  env: (name) => process.env[name],
  mayKill: () => true,
  kill: (pid, signal) => process.kill(pid, signal),
  exit: (code) => process.exit(code),
  hook: processHooks,
  unhookAtOnce: false,
  serve,
};
