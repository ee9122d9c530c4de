/**
 * The Node side of the process layer: `node:child_process` with
 * `detached: true` (setsid), the child's pipes as web streams, and the
 * helpers `_runtime.ts` uses to run its signalling shell.
 *
 * Internal module: `_runtime.ts` imports it lazily, only under Node, so no
 * `node:child_process` loads on Deno or Bun and nothing runs at import time.
 * It imports nothing from `_runtime.ts`.
 *
 * @module
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
} from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import type {
  AdapterSpawnOptions,
  ExitStatus,
  FetchHandler,
  GroupProcess,
  RuntimeAdapter,
  Served,
  ServeOptions,
  StdinFifo,
} from "./_adapter.ts";
import type { GuardianPipe } from "./_guardian.ts";
import { processHooks } from "./_process_hooks.ts";

/** Chunks the web stream queues before the Node stream is paused. */
const QUEUED_CHUNKS = 16;

/**
 * A web stream fed by a Node readable: `feed(enqueue)` starts it and returns
 * the readable (its end, close and error end the web stream); `pull` asks for
 * more. Shared by the two ways below of reading a child's output.
 */
function nodeWebStream(
  feed: (
    enqueue: (chunk: Uint8Array) => void,
    isClosed: () => boolean,
  ) => Readable,
  pull: (readable: Readable) => void,
  highWaterMark: number,
): ReadableStream<Uint8Array> {
  let readable: Readable | null = null;
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
      readable = feed((chunk) => {
        if (!closed) controller.enqueue(chunk);
      }, () => closed || (controller.desiredSize ?? 1) <= 0);
      readable.on("end", close);
      readable.on("close", close);
      readable.on("error", (error: unknown) => {
        if (closed) return;
        closed = true;
        controller.error(error);
      });
    },
    pull() {
      if (readable) pull(readable);
    },
    cancel() {
      closed = true;
      readable?.destroy();
    },
  }, { highWaterMark });
}

/**
 * A web stream over a Node readable: each chunk is the Buffer Node read into
 * (no copy); the Node stream pauses while the reader lags behind.
 */
function webStream(readable: Readable): ReadableStream<Uint8Array> {
  return nodeWebStream((enqueue, full) => {
    readable.on("data", (chunk: Uint8Array) => {
      enqueue(chunk);
      if (full()) readable.pause();
    });
    return readable;
  }, (r) => {
    if (r.isPaused()) r.resume();
  }, QUEUED_CHUNKS);
}

/** Bytes read from a FIFO at a time. */
const READ_BYTES = 64 * 1024;

/**
 * A web stream over the non-blocking read end `fd` of a FIFO, read into one
 * reused buffer: each chunk is a view of it, valid until the next read
 * (what {@linkcode pump} expects). The socket is paused while a chunk is out,
 * so memory stays flat whatever flows through: Node's own streams allocate
 * each chunk afresh, and V8 frees them only at its next collection (a 300 MB
 * drain grew the host by about 70 MB that way).
 */
function reusedBufferStream(fd: number): ReadableStream<Uint8Array> {
  const buffer = new Uint8Array(READ_BYTES);
  return nodeWebStream(
    (enqueue) => {
      // (`onread` is documented for the constructor since Node 12; the
      // types bundled with some runtimes know it for connect() only.)
      const options = {
        fd,
        readable: true,
        writable: false,
        onread: {
          buffer,
          callback(bytes: number, into: Uint8Array): boolean {
            enqueue(into.subarray(0, bytes));
            return false;
          },
        },
      };
      return new Socket(options);
    },
    (r) => r.resume(),
    0,
  );
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

/** Closes descriptor `fd`; one already closed (or undefined) is fine. */
export function closeQuietly(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/**
 * Opens the ends of two new FIFOs, the shell's stdin and its stdout:
 * `readFd` (blocking) for the child's stdin and `writeFd` for the host;
 * `outWriteFd` (blocking) for the child's stdout and `outReadFd`
 * (non-blocking) for the host. The FIFOs live in a private temporary
 * directory (mode 0700) only while `mkfifo` runs and their ends are opened:
 * the directory is removed before this resolves, so nothing is left on disk
 * (the open ends keep the FIFOs themselves). `guard(dir)` is called with the
 * directory as soon as it exists and returns the function that stops
 * guarding it (the host's exit hook removes it should the host exit in
 * between). Null when no FIFO can be made (no `mkfifo`, no temporary
 * directory): the caller falls back to pipes.
 */
export async function openFifo(
  guard: (dir: string) => () => void,
): Promise<StdinFifo | null> {
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), "bashbox-stdin-"));
  } catch {
    return null;
  }
  const unguard = guard(dir);
  const path = join(dir, "stdin");
  const outPath = join(dir, "stdout");
  const opened: number[] = [];
  const open = (file: string, flags: number): number => {
    const fd = openSync(file, flags);
    opened.push(fd);
    return fd;
  };
  try {
    if (!await runOk("mkfifo", ["-m", "600", "--", path, outPath])) {
      return null;
    }
    // A FIFO opens for reading without waiting only when non-blocking; once
    // a reader exists, the writer's open and a blocking reader's return at
    // once (the child's stdin must block: bash reads it as its script).
    const probe = open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const writeFd = open(path, constants.O_WRONLY | constants.O_NONBLOCK);
    const readFd = open(path, constants.O_RDONLY);
    closeQuietly(probe);
    // The host's end of stdout is non-blocking (libuv reads it); the
    // child's blocks, as a pipe's would.
    const outReadFd = open(outPath, constants.O_RDONLY | constants.O_NONBLOCK);
    const outWriteFd = open(outPath, constants.O_WRONLY);
    opened.length = 0;
    let ends: ReturnType<StdinFifo["take"]> = {
      readFd,
      writeFd,
      outReadFd,
      outWriteFd,
    };
    return {
      take() {
        const taken = ends;
        ends = null;
        return taken;
      },
      release() {
        closeQuietly(ends?.readFd);
        closeQuietly(ends?.writeFd);
        closeQuietly(ends?.outReadFd);
        closeQuietly(ends?.outWriteFd);
        ends = null;
      },
    };
  } catch {
    return null;
  } finally {
    for (const fd of opened) closeQuietly(fd);
    removeQuietly(dir);
    unguard();
  }
}

/** Removes `path` and what it holds; never throws. */
export function removeQuietly(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {
    // nothing more can be done
  }
}

/** Starts `argv` as the leader of a new session (setsid) with piped output. */
export function spawnNode(
  argv: readonly string[],
  options: AdapterSpawnOptions,
): GroupProcess {
  const env = options.clearEnv
    ? { ...options.env }
    : options.env
    ? { ...process.env, ...options.env }
    : undefined;
  const fifo = options.stdin ? options.fifo?.take() ?? undefined : undefined;
  let child: ChildProcess;
  try {
    child = spawn(argv[0], argv.slice(1), {
      cwd: options.cwd,
      env,
      stdio: [
        fifo ? fifo.readFd : options.stdin ? "pipe" : "ignore",
        fifo ? fifo.outWriteFd : "pipe",
        "pipe",
      ],
      detached: true,
    });
  } catch (error) {
    closeQuietly(fifo?.readFd);
    closeQuietly(fifo?.writeFd);
    closeQuietly(fifo?.outReadFd);
    closeQuietly(fifo?.outWriteFd);
    throw options.describe(error);
  }
  // The child has its own copies of its ends.
  closeQuietly(fifo?.readFd);
  closeQuietly(fifo?.outWriteFd);
  // A failed spawn reports asynchronously; without a pid it has failed.
  child.on("error", () => {});
  if (child.pid === undefined) {
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.stdin?.destroy();
    closeQuietly(fifo?.writeFd);
    closeQuietly(fifo?.outReadFd);
    throw options.describe(spawnFailure(argv[0]));
  }
  const pid = child.pid;
  // The FIFO's write end as a stream: libuv writes it without blocking, as
  // it does a child's stdin pipe.
  const stdin: Writable | null = fifo
    ? new Socket({ fd: fifo.writeFd, readable: false, writable: true })
    : child.stdin;
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
    stdout: fifo
      ? reusedBufferStream(fifo.outReadFd)
      : webStream(child.stdout as Readable),
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
 * Starts the guardian (see `_guardian.ts`): `argv` in a session of its own
 * with environment `env` only, a stdin pipe and no output; neither the
 * process nor its pipe keeps the host alive. Null when it cannot start.
 */
export function spawnGuardian(
  argv: readonly string[],
  env: Record<string, string>,
): GuardianPipe | null {
  let child: ChildProcess;
  try {
    child = spawn(argv[0], argv.slice(1), {
      env,
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
    });
  } catch {
    return null;
  }
  child.on("error", () => {});
  const stdin = child.stdin;
  if (child.pid === undefined || stdin === null) {
    stdin?.destroy();
    return null;
  }
  stdin.on("error", () => {});
  child.unref();
  // deno-lint-ignore no-explicit-any
  (stdin as any).unref?.();
  const exited = new Promise<void>((resolve) => child.once("exit", resolve));
  return {
    write(bytes) {
      if (stdin.destroyed) return;
      try {
        stdin.write(bytes);
      } catch {
        // the guardian is gone; the next group starts another
      }
    },
    exited,
  };
}

/** Runs `program` with `args` and no I/O; true when it exited with 0. */
function runOk(program: string, args: string[]): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    try {
      const child = spawn(program, args, { stdio: "ignore" });
      child.once("error", () => resolve(false));
      child.once("exit", (code) => resolve(code === 0));
    } catch {
      resolve(false);
    }
  });
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

/** {@linkcode RuntimeAdapter.runSync} for Node. */
function runSync(
  argv: readonly string[],
  timeoutMs: number,
): { code: number | null; stderr: string } {
  try {
    const out = spawnSync(argv[0], argv.slice(1), {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: timeoutMs,
    });
    if (out.error) return { code: null, stderr: out.error.message };
    return {
      code: out.signal ? null : out.status,
      stderr: out.stderr?.toString() ?? "",
    };
  } catch (error) {
    return { code: null, stderr: String((error as Error)?.message ?? error) };
  }
}

/** `node:http` behind the same fetch-shaped handler, for Node. */
async function serveNode(
  options: ServeOptions,
  handler: FetchHandler,
): Promise<Served> {
  const { hostname: host, port } = options;
  const http = await import("node:http");
  const { Readable } = await import("node:stream");
  const server = http.createServer(async (req, res) => {
    try {
      await answer(req, res);
    } catch (error) {
      // A request that cannot even be read as one (a Host header with a
      // blank, a malformed URL): a 400, never an unhandled rejection.
      if (!res.headersSent) {
        res.writeHead(400, { "content-type": "text/plain" });
      }
      res.end(`Bad request: ${error instanceof Error ? error.message : error}`);
    }
  });
  // deno-lint-ignore no-explicit-any
  async function answer(req: any, res: any): Promise<void> {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, [value].flat().join(", "));
    }
    const method = req.method ?? "GET";
    const request = new Request(
      `http://${req.headers.host ?? host}${req.url}`,
      {
        method,
        headers,
        body: method === "GET" || method === "HEAD"
          ? undefined
          : Readable.toWeb(req) as ReadableStream<Uint8Array>,
        // @ts-ignore: a streamed request body (fetch's "duplex" option)
        duplex: "half",
      },
    );
    const response = await handler(request, (listener) => {
      res.once("close", () => {
        if (!res.writableFinished) listener();
      });
    });
    res.writeHead(response.status, [...response.headers]);
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    res.once("close", () => void reader.cancel().catch(() => {}));
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // the client went away
    }
    res.end();
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** The process layer on Node. */
export const adapter: RuntimeAdapter = {
  name: "node",
  spawn: spawnNode,
  spawnGuardian,
  runQuiet,
  runQuietSync,
  runSync,
  runOk: (argv) => runOk(argv[0], argv.slice(1)),
  env: (name) => process.env[name],
  mayKill: () => true,
  kill: (pid, signal) => process.kill(pid, signal),
  exit: (code) => process.exit(code),
  hook: processHooks,
  unhookAtOnce: false,
  serve: serveNode,
  openStdinFifo: async (addExitSweep) =>
    await openFifo((dir) => addExitSweep(() => removeQuietly(dir))) ??
      undefined,
};
