/**
 * `exec()`: run one command (a bash string or an argv array) in its own
 * process group, with a deadline that kills everything it started and capped
 * head/tail capture of stdout and stderr.
 *
 * @module
 */

import {
  type Capture,
  CaptureBuffer,
  captureSink,
  checkByteLimit,
  DEFAULT_HEAD_BYTES,
  DEFAULT_TAIL_BYTES,
} from "./_capture.ts";
import {
  drainAfterExit,
  pump,
  resolveProgram,
  spawnGroup,
} from "../runtime/_runtime.ts";
import { NONINTERACTIVE_ENV } from "./_env.ts";
import {
  abortedBeforeStart,
  checkDuration,
  checkSignal,
  escalation,
  guardCallback,
  OutputCallbackError,
} from "./_deadline.ts";

export { checkDuration, OutputCallbackError };

export type { Capture } from "./_capture.ts";

/** Options for {@linkcode exec}. */
export interface ExecOptions {
  /** Working directory (default: the host's). */
  cwd?: string;
  /** Variables set for the command, over the inherited environment. */
  env?: Record<string, string>;
  /** Start from an empty environment instead of the inherited one (default false). */
  clearEnv?: boolean;
  /** Deadline in milliseconds (default 120000). */
  timeoutMs?: number;
  /** After the deadline, SIGTERM goes to the group, and SIGKILL this much later (default 500). */
  killGraceMs?: number;
  /** Stops the command like a timeout does. */
  signal?: AbortSignal;
  /** Bytes written to stdin, then closed. Default: no input (reads get EOF at once). */
  stdin?: string | Uint8Array;
  /** Bytes kept from the start of each stream (default 256 KiB). */
  headBytes?: number;
  /** Bytes kept from the end of each stream (default 768 KiB). */
  tailBytes?: number;
  /** Called with every chunk as it arrives (a copy the callee may keep). */
  onOutput?: (chunk: Uint8Array, stream: "stdout" | "stderr") => void;
  /** Shell that runs a string command and signals groups where needed (default "bash"). */
  shell?: string;
}

/** What {@linkcode exec} returns. */
export interface ExecResult {
  /** Exit code, or null when a signal ended the command. */
  exitCode: number | null;
  /** Name of the signal that ended the command, or null. */
  signal: string | null;
  /** The deadline passed and the command was killed. */
  timedOut: boolean;
  /** The AbortSignal fired and the command was killed. */
  aborted: boolean;
  /** The command's stdout, capped to head and tail. */
  stdout: Capture;
  /** The command's stderr, capped to head and tail. */
  stderr: Capture;
  /** Wall time from start to result. */
  durationMs: number;
}

/**
 * Default deadline of a command, in milliseconds.
 *
 * @example
 * ```ts
 * import { DEFAULT_TIMEOUT_MS } from "../mod.ts";
 *
 * console.assert(DEFAULT_TIMEOUT_MS === 120_000);
 * ```
 */
export const DEFAULT_TIMEOUT_MS = 120_000;
/**
 * Default time between SIGTERM and SIGKILL, in milliseconds.
 *
 * @example
 * ```ts
 * import { DEFAULT_KILL_GRACE_MS } from "../mod.ts";
 *
 * console.assert(DEFAULT_KILL_GRACE_MS === 500);
 * ```
 */
export const DEFAULT_KILL_GRACE_MS = 500;

const encoder = new TextEncoder();

/**
 * Checks a command string: non-empty and without NUL bytes.
 *
 * @example
 * ```ts
 * import { checkCommand } from "./exec.ts";
 *
 * console.assert(checkCommand("ls") === "ls");
 * ```
 */
export function checkCommand(command: unknown): string {
  if (typeof command !== "string") {
    throw new TypeError(
      `Expected the command to be a string, got ${describe(command)}`,
    );
  }
  if (command.trim() === "") {
    throw new TypeError("Expected a non-empty command, got an empty string");
  }
  const nul = command.indexOf("\0");
  if (nul !== -1) {
    throw new TypeError(
      `Expected a command without NUL bytes, got one at index ${nul}`,
    );
  }
  return command;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

function toArgv(command: string | readonly string[], shell: string): string[] {
  if (typeof command === "string") {
    return [shell, "-c", checkCommand(command)];
  }
  if (!Array.isArray(command) || command.length === 0) {
    throw new TypeError(
      `Expected the command to be a string or a non-empty argv array, got ${
        Array.isArray(command) ? "an empty array" : describe(command)
      }`,
    );
  }
  command.forEach((arg, i) => {
    if (typeof arg !== "string") {
      throw new TypeError(
        `Expected argv[${i}] to be a string, got ${describe(arg)}`,
      );
    }
    if (arg.includes("\0")) {
      throw new TypeError(`Expected argv[${i}] without NUL bytes`);
    }
  });
  if (command[0] === "") {
    throw new TypeError(
      "Expected argv[0] to name a program, got an empty string",
    );
  }
  return [...command];
}

/**
 * Runs one command to completion. A string runs through `bash -c`; an array
 * runs that argv directly. The command leads its own process group: at the
 * deadline (or abort) the whole group gets SIGTERM, then SIGKILL after
 * `killGraceMs`, so nothing it started survives. When the main process exits
 * while a background child still holds the output pipes, the output is drained
 * for a bounded time and what is left of the group is killed.
 *
 * Bad input (empty command, NUL byte, missing cwd, bad timeout, missing
 * program) throws a `TypeError`, `RangeError` or `SpawnError` with a clear
 * message.
 *
 * @example Run a command and read its output
 * ```ts
 * import { exec } from "../mod.ts";
 *
 * const r = await exec("echo hello; echo oops >&2; exit 3");
 * console.assert(r.stdout.text === "hello\n");
 * console.assert(r.stderr.text === "oops\n");
 * console.assert(r.exitCode === 3);
 * ```
 *
 * @example An argv array, a deadline and input
 * ```ts
 * import { exec } from "../mod.ts";
 *
 * const r = await exec(["bash", "-c", "cat; sleep 10"], { stdin: "hi", timeoutMs: 200 });
 * console.assert(r.stdout.text === "hi" && r.timedOut && r.exitCode === null);
 * ```
 */
export async function exec(
  command: string | readonly string[],
  options: ExecOptions = {},
): Promise<ExecResult> {
  const started = performance.now();
  const shell = options.shell ?? "bash";
  const argv = toArgv(command, shell);
  const timeoutMs = checkDuration(
    "timeoutMs",
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  const killGraceMs = checkDuration(
    "killGraceMs",
    options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    true,
  );
  const headBytes = checkByteLimit(
    "headBytes",
    options.headBytes ?? DEFAULT_HEAD_BYTES,
  );
  const tailBytes = checkByteLimit(
    "tailBytes",
    options.tailBytes ?? DEFAULT_TAIL_BYTES,
  );
  if (typeof options.cwd === "string" && options.cwd.includes("\0")) {
    throw new TypeError("Expected cwd without NUL bytes");
  }
  const signal = checkSignal(options.signal);
  if (signal?.aborted) throw abortedBeforeStart(signal);
  const onOutput = guardCallback(options.onOutput);
  const input = options.stdin === undefined
    ? undefined
    : typeof options.stdin === "string"
    ? encoder.encode(options.stdin)
    : options.stdin;

  if (typeof command === "string") {
    argv[0] = resolveProgram(argv[0], options.env, options.clearEnv);
  }
  const child = spawnGroup(argv, {
    cwd: options.cwd,
    env: { ...NONINTERACTIVE_ENV, ...options.env },
    clearEnv: options.clearEnv,
    stdin: input !== undefined,
    killer: shell,
  });

  const out = new CaptureBuffer(headBytes, tailBytes);
  const err = new CaptureBuffer(headBytes, tailBytes);
  const outPump = pump(
    child.stdout,
    captureSink(out, "stdout", onOutput.call),
  );
  const errPump = pump(
    child.stderr,
    captureSink(err, "stderr", onOutput.call),
  );
  if (input !== undefined) {
    child.write(input).then(() => child.closeStdin());
  }

  let timedOut = false;
  let aborted = false;
  const killTimers: ReturnType<typeof setTimeout>[] = [];
  const stop = (why: "timeout" | "abort") => {
    if (timedOut || aborted) return;
    if (why === "timeout") timedOut = true;
    else aborted = true;
    // No interrupt step: a one-shot command has no state worth keeping.
    child.killSession("SIGTERM");
    const [, kill] = escalation(killGraceMs);
    killTimers.push(
      setTimeout(() => child.killSession(kill.signal), kill.afterMs),
    );
  };
  const deadline = setTimeout(() => stop("timeout"), timeoutMs);
  const onAbort = () => stop("abort");
  signal?.addEventListener("abort", onAbort, { once: true });

  let status;
  try {
    status = await child.status;
  } finally {
    clearTimeout(deadline);
    signal?.removeEventListener("abort", onAbort);
  }
  await drainAfterExit(child, [outPump, errPump]);
  if (timedOut || aborted) {
    // Whatever ignored SIGTERM, even with the pipes closed, dies now.
    killTimers.forEach(clearTimeout);
    await child.killSession("SIGKILL");
  }
  await child.closeStdin();
  const result: ExecResult = {
    exitCode: status.code,
    signal: status.signal,
    timedOut,
    aborted,
    stdout: out.finish(),
    stderr: err.finish(),
    durationMs: performance.now() - started,
  };
  if (onOutput.error() !== undefined) {
    throw new OutputCallbackError(result, onOutput.error());
  }
  return result;
}
