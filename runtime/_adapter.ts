/**
 * What the process layer (`_runtime.ts`) needs from a runtime, and the shapes
 * it hands around: one adapter per runtime (`deno.ts`, `bun.ts`, `node.ts`)
 * implements {@linkcode RuntimeAdapter}; nothing else branches on the runtime.
 *
 * Internal module: types only.
 *
 * @module
 */

import type { GuardianPipe } from "./_guardian.ts";

/** Signals the library sends to a process group. */
export type GroupSignal = "SIGINT" | "SIGTERM" | "SIGKILL";

/** How a process ended. */
export interface ExitStatus {
  /** Exit code, or null when a signal ended the process. */
  readonly code: number | null;
  /** Name of the signal that ended the process, or null. */
  readonly signal: string | null;
}

/** Options for {@linkcode spawnGroup}. */
export interface SpawnOptions {
  readonly cwd?: string;
  /** Variables added to (or, with `clearEnv`, replacing) the inherited environment. */
  readonly env?: Record<string, string>;
  readonly clearEnv?: boolean;
  /** Give the process a stdin pipe (otherwise stdin is /dev/null). */
  readonly stdin?: boolean;
  /** Program used to signal the group when the runtime may not (Deno with scoped --allow-run). */
  readonly killer?: string;
  /**
   * With `stdin`, on Node: the FIFO (from {@linkcode openStdinFifo}) whose
   * read end becomes stdin instead of a socket pair; the process owns both
   * ends from here on, and closes them. Ignored elsewhere.
   */
  readonly fifo?: StdinFifo;
}

/**
 * The FIFOs of a session's shell, as descriptors (Node), owned by one process
 * at most: one for its stdin and one for its stdout.
 */
export interface StdinFifo {
  /**
   * Hands the ends over (once): the stdin FIFO's read end (blocking) for the
   * child and its write end for the host; the stdout FIFO's write end
   * (blocking) for the child and its read end (non-blocking) for the host,
   * which reads it into one reused buffer. Null when taken or released
   * before.
   */
  take(): {
    readFd: number;
    writeFd: number;
    outReadFd: number;
    outWriteFd: number;
  } | null;
  /** Closes both ends unless they were taken; idempotent. */
  release(): void;
}

/** A running process that leads its own process group. */
export interface GroupProcess {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Resolves once when the leader exits. */
  readonly status: Promise<ExitStatus>;
  /** Writes to stdin; false when the pipe is closed. */
  write(bytes: Uint8Array): Promise<boolean>;
  /** Closes stdin; never throws. */
  closeStdin(): Promise<void>;
  /** Signals every process of the group; a group that is gone is not an error. */
  killGroup(signal: GroupSignal): Promise<void>;
  /**
   * Signals the group and every other process of its session (those that
   * moved to a group of their own); never throws.
   */
  killSession(signal: GroupSignal): Promise<void>;
}

/** What a runtime's spawn needs from the process layer. */
export interface AdapterSpawnOptions extends SpawnOptions {
  /** Turns the runtime's error into the library's own. */
  describe(error: unknown): Error;
  /** Signals group `pid`. */
  killGroup(pid: number, signal: GroupSignal): Promise<void>;
  /** Signals group `pid` and the rest of session `pid`. */
  killSession(pid: number, signal: GroupSignal): Promise<void>;
}

/** The host's signals the process layer cleans up on. */
export type HostSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

/** A fetch-shaped handler; `gone` registers what to run when the client leaves. */
export type FetchHandler = (
  request: Request,
  gone: (listener: () => void) => void,
) => Promise<Response>;

/** A server that an adapter's `serve` started. */
export interface Served {
  /** The port it listens on. */
  port: number;
  /** Stops it, closing open connections. */
  stop: () => Promise<void>;
}

/** Where and how to serve. */
export interface ServeOptions {
  /** The address to listen on. */
  hostname: string;
  /** The port (0: any free port). */
  port: number;
  /** A backstop for request bodies, where the runtime has one (Bun). */
  maxBodyBytes: number;
}

/** One runtime's way of doing what the process layer needs. */
export interface RuntimeAdapter {
  /** The runtime's name. */
  readonly name: "deno" | "bun" | "node";
  /**
   * Starts `argv` as the leader of a new session and process group; throws
   * `options.describe(error)` when it cannot start.
   */
  spawn(argv: readonly string[], options: AdapterSpawnOptions): GroupProcess;
  /**
   * Starts the guardian: `argv` in a session of its own with environment
   * `env` only, a stdin pipe and no output, holding the host by nothing.
   * Null when it cannot start.
   */
  spawnGuardian(
    argv: readonly string[],
    env: Record<string, string>,
  ): GuardianPipe | null;
  /** Runs `argv` with no I/O; resolves when it ends (killed after `timeoutMs`); never rejects. */
  runQuiet(argv: readonly string[], timeoutMs?: number): Promise<void>;
  /** {@linkcode RuntimeAdapter.runQuiet}, synchronously; never throws. */
  runQuietSync(argv: readonly string[], timeoutMs?: number): void;
  /**
   * Runs `argv` synchronously with no input, for a probe; the exit code
   * (null when it could not run, was killed or outran `timeoutMs`) and what
   * it printed on stderr. Never throws.
   */
  runSync(
    argv: readonly string[],
    timeoutMs: number,
  ): { code: number | null; stderr: string };
  /** Runs `argv` with no I/O; true when it exited with 0; never rejects. */
  runOk(argv: readonly string[]): Promise<boolean>;
  /** The host's variable `name` (undefined where it may not be read: no prompt). */
  env(name: string): string | undefined;
  /** Whether the host may signal any process itself (Deno: unscoped --allow-run). */
  mayKill(): boolean;
  /** Sends `signal` to `pid` (negative: a group); throws as the runtime does. */
  kill(pid: number, signal: string): void;
  /** Ends the host with `code`. */
  exit(code: number): void;
  /**
   * Adds (`on`) or removes the host's exit hook and signal handlers; never
   * throws (a restricted worker has no signal listeners).
   */
  hook(
    on: boolean,
    onExit: () => void,
    handlers: Readonly<Record<HostSignal, () => void>>,
  ): void;
  /**
   * Whether the hooks are removed at once when nothing is left to clean up
   * (Deno: no test may leak a timer), or a tick later (Node and Bun: adding
   * and removing signal listeners around every spawn is costly).
   */
  readonly unhookAtOnce: boolean;
  /**
   * A FIFO for a session's stdin where the runtime's pipes are socket pairs
   * (Node); `addExitSweep` registers the removal of its temporary
   * directory should the host exit first (and returns its cancellation).
   */
  openStdinFifo?(
    addExitSweep: (sweep: () => void) => () => void,
  ): Promise<StdinFifo | undefined>;
  /** Serves `handler` over HTTP (the MCP server's transport). */
  serve(options: ServeOptions, handler: FetchHandler): Promise<Served>;
}
