/**
 * Deadlines shared by `exec()` and `BashSession`: option checks, the refusal of
 * a signal that is already aborted, callbacks that may throw, and the steps of
 * the escalation as data.
 *
 * Internal module.
 *
 * @module
 */

/** Longest delay a timer can wait (2^31 − 1 ms, about 24.8 days). */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Checks a duration option: a finite number of milliseconds, positive (or
 * non-negative with `allowZero`) and at most {@linkcode MAX_TIMEOUT_MS}.
 *
 * @example
 * ```ts
 * import { checkDuration } from "./exec.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(checkDuration("timeoutMs", 5), 5);
 * assert.throws(() => checkDuration("timeoutMs", 2 ** 31), RangeError);
 * ```
 */
export function checkDuration(
  name: string,
  value: unknown,
  allowZero = false,
): number {
  if (
    typeof value !== "number" || !Number.isFinite(value) ||
    (allowZero ? value < 0 : value <= 0)
  ) {
    throw new RangeError(
      `Expected ${name} to be a ${
        allowZero ? "non-negative" : "positive"
      } finite number of milliseconds, got ${String(value)}`,
    );
  }
  if (value > MAX_TIMEOUT_MS) {
    throw new RangeError(
      `Expected ${name} to be at most ${MAX_TIMEOUT_MS} milliseconds (about 24.8 days), got ${value}`,
    );
  }
  return value;
}

/** The error for a signal that was aborted before the command started. */
export function abortedBeforeStart(signal: AbortSignal): DOMException {
  const reason = signal.reason instanceof Error
    ? `: ${signal.reason.message}`
    : "";
  return new DOMException(
    `The command was aborted before it started${reason}`,
    "AbortError",
  );
}

/** Checks an optional AbortSignal option. */
export function checkSignal(signal: unknown): AbortSignal | undefined {
  if (signal === undefined) return undefined;
  if (
    signal === null || typeof signal !== "object" ||
    typeof (signal as AbortSignal).addEventListener !== "function" ||
    typeof (signal as AbortSignal).aborted !== "boolean"
  ) {
    throw new TypeError(
      `Expected signal to be an AbortSignal, got ${
        signal === null ? "null" : typeof signal
      }`,
    );
  }
  return signal as AbortSignal;
}

/**
 * Wraps an output callback so that one that throws is called no more and does
 * not stop the drain; `error()` returns what it threw, if it did.
 */
export function guardCallback<A extends unknown[]>(
  callback: ((...args: A) => void) | undefined,
): { call: ((...args: A) => void) | undefined; error: () => unknown } {
  if (callback === undefined) {
    return {
      call: undefined,
      error: () => undefined,
    };
  }
  if (typeof callback !== "function") {
    throw new TypeError(
      `Expected onOutput to be a function, got ${typeof callback}`,
    );
  }
  let failed = false;
  let caught: unknown;
  return {
    call: (...args: A) => {
      if (failed) return;
      try {
        callback(...args);
      } catch (error) {
        failed = true;
        caught = error;
      }
    },
    error: () => failed ? caught : undefined,
  };
}

/**
 * The error a call rejects with when its `onOutput` callback threw: the
 * command itself ran to its end, and `result` holds its complete result.
 *
 * @example
 * ```ts
 * import { exec, OutputCallbackError } from "../mod.ts";
 * import assert from "node:assert/strict";
 *
 * const error = await exec("echo hi", {
 *   onOutput: () => {
 *     throw new Error("sink broke");
 *   },
 * }).catch((e) => e);
 * assert.ok(error instanceof OutputCallbackError);
 * assert.equal(error.result.stdout.text, "hi\n");
 * ```
 */
export class OutputCallbackError<R> extends Error {
  /** The command's result (output complete, as if no callback was given). */
  readonly result: R;
  /** Creates the error; `cause` is what the callback threw. */
  constructor(result: R, cause: unknown) {
    super(
      `The onOutput callback threw, so it was called no more; the command ran to its end: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
    this.name = "OutputCallbackError";
    this.result = result;
  }
}

/** One step of the escalation after a deadline: when, and which signal. */
export interface EscalationStep {
  /** Milliseconds after the interrupt was delivered. */
  readonly afterMs: number;
  /** The signal sent to everything the command started. */
  readonly signal: "SIGTERM" | "SIGKILL";
}

/** The escalation after a deadline: SIGTERM at half the grace, SIGKILL at the grace. */
export function escalation(killGraceMs: number): EscalationStep[] {
  return [
    { afterMs: killGraceMs / 2, signal: "SIGTERM" },
    { afterMs: killGraceMs, signal: "SIGKILL" },
  ];
}
