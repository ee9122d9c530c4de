/**
 * The Deno side of the process layer: `Deno.Command` with `detached: true`
 * (setsid), its pipes as they are (web streams), `Deno.kill` where the
 * permissions allow it, and the permission queries that keep Deno from
 * prompting.
 *
 * Internal module: `_runtime.ts` loads it only under Deno.
 *
 * @module
 */

import type {
  AdapterSpawnOptions,
  ExitStatus,
  FetchHandler,
  GroupProcess,
  HostSignal,
  RuntimeAdapter,
  Served,
  ServeOptions,
} from "./_adapter.ts";
import type { GuardianPipe } from "./_guardian.ts";

// deno-lint-ignore no-explicit-any
const D = (globalThis as any).Deno;

function spawn(
  argv: readonly string[],
  options: AdapterSpawnOptions,
): GroupProcess {
  // deno-lint-ignore no-explicit-any
  let child: any;
  try {
    child = new D.Command(argv[0], {
      args: argv.slice(1),
      cwd: options.cwd,
      env: options.env,
      clearEnv: options.clearEnv ?? false,
      stdin: options.stdin ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (error) {
    throw options.describe(error);
  }
  const pid: number = child.pid;
  const writer: WritableStreamDefaultWriter<Uint8Array> | undefined = options
      .stdin
    ? child.stdin.getWriter()
    : undefined;
  let stdinOpen = writer !== undefined;
  const status: Promise<ExitStatus> = child.status.then((
    s: { code: number; signal: string | null },
  ) => ({ code: s.signal ? null : s.code, signal: s.signal ?? null }));
  return {
    pid,
    stdout: child.stdout,
    stderr: child.stderr,
    status,
    async write(bytes) {
      if (!stdinOpen || !writer) return false;
      try {
        await writer.write(bytes);
        return true;
      } catch {
        stdinOpen = false;
        return false;
      }
    },
    async closeStdin() {
      if (!stdinOpen || !writer) return;
      stdinOpen = false;
      try {
        await writer.close();
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
    const child = new D.Command(argv[0], {
      args: argv.slice(1),
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "null",
      stderr: "null",
      detached: true,
    }).spawn();
    child.unref();
    const writer: WritableStreamDefaultWriter<Uint8Array> = child.stdin
      .getWriter();
    return {
      write(bytes) {
        writer.write(bytes).catch(() => {});
      },
      exited: child.status,
    };
  } catch {
    return null; // no bash, or no permission to run it: no guardian
  }
}

function quiet(argv: readonly string[]) {
  return new D.Command(argv[0], {
    args: argv.slice(1),
    stdin: "null",
    stdout: "null",
    stderr: "null",
  });
}

async function runQuiet(
  argv: readonly string[],
  timeoutMs?: number,
): Promise<void> {
  try {
    const child = quiet(argv).spawn();
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {
        // ended meanwhile
      }
    }, timeoutMs);
    await child.status;
    if (timer !== undefined) clearTimeout(timer);
  } catch {
    // no program to run it with: nothing more can be done
  }
}

function runQuietSync(argv: readonly string[]): void {
  try {
    quiet(argv).outputSync();
  } catch {
    // nothing more can be done while the host exits
  }
}

function runSync(
  argv: readonly string[],
  timeoutMs: number,
): { code: number | null; stderr: string } {
  try {
    // (outputSync has no timeout: the probe's own argv bounds itself.)
    void timeoutMs;
    const out = new D.Command(argv[0], {
      args: argv.slice(1),
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    return {
      code: out.signal === null ? out.code : null,
      stderr: new TextDecoder().decode(out.stderr),
    };
  } catch (error) {
    return { code: null, stderr: String((error as Error)?.message ?? error) };
  }
}

async function runOk(argv: readonly string[]): Promise<boolean> {
  try {
    return (await quiet(argv).output()).success;
  } catch {
    return false;
  }
}

function env(name: string): string | undefined {
  try {
    const state = D.permissions.querySync({ name: "env", variable: name })
      .state;
    return state === "granted" ? D.env.get(name) : undefined;
  } catch {
    return undefined;
  }
}

let mayKillAll: boolean | undefined;

function mayKill(): boolean {
  if (mayKillAll === undefined) {
    try {
      mayKillAll = D.permissions.querySync({ name: "run" }).state === "granted";
    } catch {
      mayKillAll = false;
    }
  }
  return mayKillAll;
}

function kill(pid: number, signal: string): void {
  try {
    D.kill(pid, signal);
  } catch (error) {
    // deno-lint-ignore no-explicit-any
    const e = error as any;
    // Refused (not gone): from now on the process layer signals through a
    // shell.
    if (e?.name !== "NotFound" && !/ESRCH|No such process/i.test(e?.message)) {
      mayKillAll = false;
    }
    throw error;
  }
}

function hook(
  on: boolean,
  onExit: () => void,
  handlers: Readonly<Record<HostSignal, () => void>>,
): void {
  if (on) globalThis.addEventListener("unload", onExit);
  else globalThis.removeEventListener("unload", onExit);
  for (const [sig, handler] of Object.entries(handlers)) {
    try {
      if (on) D.addSignalListener(sig, handler);
      else D.removeSignalListener(sig, handler);
    } catch {
      // signal listeners are unavailable (e.g. in a restricted worker)
    }
  }
}

function serve(options: ServeOptions, handler: FetchHandler): Promise<Served> {
  const server = D.serve(
    { hostname: options.hostname, port: options.port, onListen: () => {} },
    (request: Request, info: { completed?: Promise<void> }) =>
      // The response could not be delivered: the client went away.
      handler(request, (listener) => {
        info.completed?.catch(listener);
      }),
  );
  return Promise.resolve({
    port: server.addr.port,
    stop: async () => {
      await server.shutdown();
    },
  });
}

/** The process layer on Deno. */
export const adapter: RuntimeAdapter = {
  name: "deno",
  spawn,
  spawnGuardian,
  runQuiet,
  runQuietSync,
  runSync,
  runOk,
  env,
  mayKill,
  kill,
  exit: (code) => D.exit(code),
  hook,
  unhookAtOnce: true,
  serve,
};
