/**
 * What the model sees: a command's result as text, status first, output
 * sanitised (ANSI stripped, `\r` progress collapsed, binary summarised) and cut
 * to a character budget that keeps head and tail, plus the `tool_result`
 * block of Anthropic's Messages API.
 *
 * Pure: no Deno, Bun or `node:` APIs, so it loads in a worker with no
 * permissions.
 *
 * @module
 */

import type { Capture } from "../core/_capture.ts";
import { SIGNAL_NAMES } from "../runtime/signals.ts";
import { endsInsideKey, safeEnd, safeStart } from "./redact.ts";

/** The captured output of one stream: the `Capture` of `exec` and `BashSession`. */
export type CaptureLike = Capture;

/** The parts of a command result that {@linkcode formatResult} reads. */
export interface FormattableResult {
  /** The output (stdout and stderr merged, or stdout alone). */
  readonly output: CaptureLike;
  /** stderr, when it was kept apart. */
  readonly stderr?: CaptureLike;
  /** Exit code, or null when a signal ended the command. */
  readonly exitCode: number | null;
  /** The signal that ended the command. */
  readonly signal?: string | null;
  /** The deadline stopped the command. */
  readonly timedOut: boolean;
  /** An abort signal stopped the command. */
  readonly aborted?: boolean;
  /** The shell was replaced and its state lost. */
  readonly restarted?: boolean;
  /** Working directory after the command. */
  readonly cwd?: string;
  /** What a replay of the state journal brought back into the fresh shell. */
  readonly restored?: RestoredLike;
}

/** The parts of a session's `restored` that {@linkcode formatResult} reads. */
export interface RestoredLike {
  /** The working directory restored, when it differed from the start one. */
  readonly cwd?: string;
  /** Variables set (or unset) again, by name. */
  readonly variables: readonly string[];
  /** Functions defined again. */
  readonly functions: readonly string[];
  /** Aliases defined again. */
  readonly aliases: readonly string[];
  /** Options set again. */
  readonly options: readonly string[];
  /** Anything else restored (umask, limits, OLDPWD, the directory stack). */
  readonly other: readonly string[];
  /** What could not be restored, each with why. */
  readonly failed: readonly string[];
  /** What a restart always loses. */
  readonly lost: readonly string[];
}

/** Most names listed per kind in the restore line. */
const RESTORED_NAMES = 20;

/**
 * The line that tells the model its state came back after a restart: what
 * was restored, what could not be, and what is never kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeRestored } from "./format.ts";
 *
 * const line = describeRestored({
 *   cwd: "/src",
 *   variables: ["X"],
 *   functions: [],
 *   aliases: [],
 *   options: [],
 *   other: [],
 *   failed: [],
 *   lost: ["background jobs"],
 * });
 * assert.equal(
 *   line,
 *   "The shell was restarted and its state restored: working directory /src; variable X. Lost: background jobs.",
 * );
 * ```
 */
export function describeRestored(r: RestoredLike): string {
  const names = (kind: string, list: readonly string[]) => {
    if (list.length === 0) return [];
    const shown = list.slice(0, RESTORED_NAMES).join(", ");
    const more = list.length > RESTORED_NAMES
      ? ` and ${list.length - RESTORED_NAMES} more`
      : "";
    return [`${kind} ${shown}${more}`];
  };
  const parts = [
    ...(r.cwd !== undefined ? [`working directory ${r.cwd}`] : []),
    ...names(r.variables.length === 1 ? "variable" : "variables", r.variables),
    ...names(r.functions.length === 1 ? "function" : "functions", r.functions),
    ...names(r.aliases.length === 1 ? "alias" : "aliases", r.aliases),
    ...names(r.options.length === 1 ? "option" : "options", r.options),
    ...r.other,
  ];
  let line = parts.length > 0
    ? `The shell was restarted and its state restored: ${parts.join("; ")}.`
    : "The shell was restarted; its state was the start state, nothing to restore.";
  if (r.failed.length > 0) line += ` Not restored: ${r.failed.join("; ")}.`;
  if (r.lost.length > 0) line += ` Lost: ${r.lost.join(", ")}.`;
  return line;
}

/** Options for {@linkcode formatResult}. */
export interface FormatOptions {
  /** Most characters of output shown (default 30000). */
  maxChars?: number;
  /** Share of the budget given to the head; the rest goes to the tail (default 0.2). */
  headShare?: number;
  /** The deadline that applied, named in a timeout status. */
  timeoutMs?: number;
  /** Working directory before the command: the new one is named when it differs. */
  previousCwd?: string;
  /** File that holds the full output (stdout and stderr, or stdout alone), named when output was cut. */
  spillPath?: string;
  /** Set when the spill file holds only this many first bytes (it hit its cap). */
  spillCappedAt?: number;
  /** File that holds the full stderr when it was kept apart, named when stderr was cut. */
  stderrSpillPath?: string;
  /** Set when the stderr spill file holds only this many first bytes. */
  stderrSpillCappedAt?: number;
  /**
   * How the model reads a spill file, after its name (default: "read it with
   * sed -n or grep"). Say here when the file is not where commands run.
   */
  spillHint?: string;
  /** Why the full output could not be kept, said in the notice instead of a file name. */
  spillError?: string;
  /**
   * Applied to the output before it is cut (and to the working directory), so
   * that no secret is partly shown: each stream is redacted whole, and where
   * bytes were dropped between head and tail the partial line (or token, or
   * private key) at the gap is left out. See `redactSecrets`.
   */
  redact?: (text: string) => string;
  /** The session was closed while the command ran: said in the status line. */
  closed?: boolean;
}

/**
 * Default character budget of the output shown to the model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MAX_CHARS } from "./format.ts";
 *
 * assert.ok(DEFAULT_MAX_CHARS === 30_000);
 * ```
 */
export const DEFAULT_MAX_CHARS = 30_000;

const SIGNAL_MEANINGS: Record<string, string> = {
  SIGINT: "interrupted",
  SIGKILL: "killed; out of memory or a limit is likely",
  SIGSEGV: "segmentation fault",
  SIGABRT: "aborted",
  SIGPIPE: "broken pipe",
  SIGTERM: "terminated",
  SIGXCPU: "CPU time limit exceeded",
  SIGXFSZ: "file size limit exceeded",
};

/**
 * Describes an exit status in words, as the first line the model reads.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeStatus } from "./format.ts";
 *
 * assert.ok(describeStatus({ exitCode: 0, timedOut: false }) === "Exit code 0");
 * assert.ok(describeStatus({ exitCode: 127, timedOut: false }) === "Exit code 127 (command not found)");
 * ```
 */
export function describeStatus(
  result: Pick<
    FormattableResult,
    "exitCode" | "signal" | "timedOut" | "aborted"
  >,
  timeoutMs?: number,
): string {
  const code = result.exitCode;
  if (result.timedOut || result.aborted) {
    const why = result.timedOut
      ? `TIMEOUT: the command ran longer than ${
        timeoutMs ? formatDuration(timeoutMs) : "its deadline"
      } and was stopped`
      : "ABORTED: the command was stopped";
    return code === null ? why : `${why} (exit code ${code})`;
  }
  if (code === null) {
    const sig = result.signal ?? "a signal";
    const meaning = SIGNAL_MEANINGS[sig];
    return `Killed by ${sig}${meaning ? ` (${meaning})` : ""}`;
  }
  if (code === 126) {
    return "Exit code 126 (not executable or permission denied)";
  }
  if (code === 127) return "Exit code 127 (command not found)";
  if (code > 128 && code < 160) {
    const sig = SIGNAL_NAMES[code - 128];
    if (sig) {
      const meaning = SIGNAL_MEANINGS[sig];
      return `Exit code ${code} (${sig}${meaning ? `: ${meaning}` : ""})`;
    }
  }
  return `Exit code ${code}`;
}

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

import { sanitize } from "./terminal.ts";
export { sanitize };

/**
 * True when text looks binary rather than a log with a stray byte: more than
 * 10 % of a sample (its first and last 4096 characters) are control bytes or
 * invalid UTF-8 that comes in runs. A NUL in a long log, NULs that end
 * records of text (`find -print0`, `/proc/PID/cmdline`) and Latin-1 prose
 * (isolated invalid bytes between letters) are text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { looksBinary } from "./format.ts";
 *
 * assert.ok(looksBinary("ELF\u0000\u0001\u0000\u0000"));
 * assert.ok(!looksBinary("hello\n"));
 * assert.ok(!looksBinary("log line\n".repeat(100) + "\u0000"));
 * assert.ok(!looksBinary("a.txt\u0000b.txt\u0000c.txt\u0000"));
 * ```
 */
export function looksBinary(text: string): boolean {
  const sample = text.length > 8192
    ? text.slice(0, 4096) + text.slice(-4096)
    : text;
  if (sample.length === 0) return false;
  let odd = 0;
  let previousBad = false;
  let run = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    const control = (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 27 &&
      c !== 8 && c !== 12) || c === 0x7f;
    const invalid = c === 0xfffd;
    // A NUL that ends a run of text (two characters or more: UTF-16 text
    // has one) separates records (`find -print0`, `/proc/PID/cmdline`): text.
    const separator = c === 0 && run >= 2;
    if (!separator && (control || (invalid && previousBad))) odd++;
    previousBad = (control && !separator) || invalid;
    run = control || invalid ? 0 : run + 1;
  }
  return odd / sample.length > 0.1;
}

// ---------------------------------------------------------------------------
// Cutting.

/** A piece of text cut to a budget. */
interface Cut {
  text: string;
  omittedChars: number;
  omittedLines: number;
}

function countLines(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

/** Moves an index off the middle of a surrogate pair. */
function charBoundary(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return i > 0 && i < s.length && c >= 0xdc00 && c <= 0xdfff ? i - 1 : i;
}

/** The first at most `budget` characters, ending at a line end where one is near. */
function keepHead(s: string, budget: number): Cut {
  if (s.length <= budget) return { text: s, omittedChars: 0, omittedLines: 0 };
  let end = charBoundary(s, budget);
  const nl = s.lastIndexOf("\n", end - 1);
  if (nl >= end / 2) end = nl + 1;
  const rest = s.slice(end);
  return {
    text: s.slice(0, end),
    omittedChars: rest.length,
    omittedLines: countLines(rest),
  };
}

/** The last at most `budget` characters, starting at a line start where one is near. */
function keepTail(s: string, budget: number): Cut {
  if (s.length <= budget) return { text: s, omittedChars: 0, omittedLines: 0 };
  let start = s.length - budget;
  if (
    start > 0 && s.charCodeAt(start) >= 0xdc00 && s.charCodeAt(start) <= 0xdfff
  ) {
    start++;
  }
  const nl = s.indexOf("\n", start);
  if (nl !== -1 && nl + 1 - start <= budget / 2) start = nl + 1;
  const gone = s.slice(0, start);
  return {
    text: s.slice(start),
    omittedChars: gone.length,
    omittedLines: countLines(gone),
  };
}

/** Where one stream's full output was kept. */
interface StreamSpill {
  path?: string;
  cappedAt?: number;
}

/** Sanitises, redacting before and after (a secret split by escapes or `\r` is caught either way). */
function clean(text: string, redact?: (text: string) => string): string {
  if (!redact) return sanitize(text);
  const once = redact(text);
  const clean = sanitize(once);
  // Sanitising changed nothing: nothing new to find.
  return clean === once ? clean : redact(clean);
}

/** The output text of one stream, redacted, sanitised and cut, with its notice. */
/**
 * Around the parts of a long output that can be shown, the redactor sees at
 * least this much more on each side (longer than any secret it finds in a
 * line: a private key is at most 20000 characters).
 */
const WINDOW_MARGIN = 32 * 1024;

/**
 * For a long output with no terminal controls: only the windows that can be
 * shown (the head and the tail, with a margin) are redacted, then cut after
 * redaction as always, so redaction costs the same whatever the output's
 * size. Null when the whole text must be redacted instead (short text,
 * terminal controls, or windows that redaction shrank so much that the
 * margin no longer holds).
 */
function shownWindows(
  text: string,
  budget: number,
  headBudget: number,
  redact: (text: string) => string,
): { head: Cut; tail: Cut } | null {
  const tailBudget = budget - headBudget;
  if (text.length <= budget + 4 * WINDOW_MARGIN) return null;
  if (sanitize(text) !== text) return null;
  let h = redact(text.slice(0, headBudget + WINDOW_MARGIN));
  let t = redact(text.slice(text.length - tailBudget - WINDOW_MARGIN));
  if (
    h.length < headBudget + WINDOW_MARGIN / 2 ||
    t.length < tailBudget + WINDOW_MARGIN / 2
  ) {
    return null;
  }
  // What the windows' edges cut through is never shown.
  h = h.slice(0, safeEnd(h));
  t = t.slice(safeStart(t));
  const head = keepHead(h, headBudget);
  const tail = keepTail(t, tailBudget);
  const omittedChars = Math.max(
    0,
    text.length - head.text.length - tail.text.length,
  );
  const omittedLines = Math.max(
    0,
    countLines(text) - countLines(head.text) - countLines(tail.text),
  );
  return {
    head: { text: head.text, omittedChars: 0, omittedLines: 0 },
    tail: { text: tail.text, omittedChars, omittedLines },
  };
}

function formatStream(
  capture: CaptureLike,
  budget: number,
  spill: StreamSpill,
  options: FormatOptions,
): { text: string; cut: boolean } {
  const headShare = options.headShare ?? 0.2;
  const redact = options.redact;
  const whole = capture.truncated ? capture.head + capture.tail : capture.text;
  if (looksBinary(whole)) {
    return {
      text: `[binary output: ${capture.totalBytes} bytes, not shown${
        spill.path ? `; saved in ${spill.path}` : ""
      }]`,
      cut: true,
    };
  }
  const headBudget = Math.floor(budget * headShare);
  let head: Cut;
  let tail: Cut;
  if (capture.truncated) {
    let h = clean(capture.head, redact);
    let t = clean(capture.tail, redact);
    let dropped = "";
    if (redact) {
      // Bytes are missing between head and tail: what touches the gap may be
      // part of a secret whose rest is gone, so it is left out.
      const end = safeEnd(h);
      const start = safeStart(t, { insideKey: endsInsideKey(capture.head) });
      dropped = h.slice(end) + t.slice(0, start);
      h = h.slice(0, end);
      t = t.slice(start);
    }
    head = keepHead(h, headBudget);
    tail = keepTail(t, budget - headBudget);
    tail.omittedChars += dropped.length;
    tail.omittedLines += countLines(dropped);
  } else {
    const shown = redact
      ? shownWindows(capture.text, budget, headBudget, redact)
      : null;
    if (shown !== null) {
      ({ head, tail } = shown);
    } else {
      const text = clean(capture.text, redact);
      if (text.length <= budget) return { text, cut: false };
      head = keepHead(text, headBudget);
      tail = keepTail(text.slice(head.text.length), budget - head.text.length);
      head = { text: head.text, omittedChars: 0, omittedLines: 0 };
    }
  }
  const chars = head.omittedChars + tail.omittedChars;
  const lines = head.omittedLines + tail.omittedLines;
  if (!capture.truncated && chars === 0) {
    return { text: head.text + tail.text, cut: false };
  }
  const parts: string[] = [];
  if (capture.omittedBytes > 0) parts.push(`${capture.omittedBytes} bytes`);
  if (chars > 0) {
    parts.push(
      `${
        capture.omittedBytes > 0 ? "and " : ""
      }${chars} characters (${lines} lines)`,
    );
  }
  let notice = `[... ${
    parts.join(" ")
  } omitted; the output was ${capture.totalBytes} bytes in all`;
  if (spill.path) {
    const capped = spill.cappedAt !== undefined;
    notice += capped
      ? `; the first ${spill.cappedAt} bytes are in ${spill.path}`
      : `; the full output is in ${spill.path}`;
    notice += `: ${
      options.spillHint ??
        (capped
          ? "read them with sed -n or grep"
          : "read it with sed -n or grep")
    }`;
  } else if (options.spillError) {
    notice += `; the full output could not be kept (${options.spillError})`;
  }
  notice += " ...]";
  const joint = head.text === "" || head.text.endsWith("\n") ? "" : "\n";
  return { text: `${head.text}${joint}${notice}\n${tail.text}`, cut: true };
}

/**
 * The text the model sees for one command: a status line first (exit code,
 * TIMEOUT with its limit, or the signal), a note when the shell was restarted
 * and its state lost, the working directory when it changed, then the output,
 * or `(no output)`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatResult } from "./format.ts";
 *
 * const capture = (text: string) => ({
 *   text, head: text, tail: "", totalBytes: text.length, omittedBytes: 0, truncated: false,
 * });
 * const text = formatResult({ output: capture("hi\n"), exitCode: 0, timedOut: false });
 * assert.ok(text === "Exit code 0\nhi\n");
 * ```
 */
export function formatResult(
  result: FormattableResult,
  options: FormatOptions = {},
): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < 100) {
    throw new RangeError(
      `Expected maxChars to be a whole number of at least 100, got ${maxChars}`,
    );
  }
  const headShare = options.headShare ?? 0.2;
  if (!(headShare >= 0 && headShare <= 1)) {
    throw new RangeError(
      `Expected headShare to be between 0 and 1, got ${headShare}`,
    );
  }
  const lines = [
    options.closed
      ? "CLOSED: the session was closed while the command ran, and the command was stopped"
      : describeStatus(result, options.timeoutMs),
  ];
  // (A result with restored state comes from a fresh shell, whether this
  // session's or one a pool gave a conversation it had closed.)
  if (!options.closed && result.restored) {
    const line = describeRestored(result.restored);
    lines.push(options.redact ? options.redact(line) : line);
  } else if (result.restarted && !options.closed) {
    lines.push(
      "The shell was restarted: its state (working directory, variables, functions, background jobs) was lost.",
    );
  }
  if (
    result.cwd !== undefined && options.previousCwd !== undefined &&
    result.cwd !== options.previousCwd
  ) {
    lines.push(
      `Working directory: ${
        options.redact ? options.redact(result.cwd) : result.cwd
      }`,
    );
  }
  const stderr = result.stderr;
  const hasErr = stderr !== undefined && stderr.totalBytes > 0;
  const hasOut = result.output.totalBytes > 0;
  if (!hasOut && !hasErr) {
    lines.push("(no output)");
    return lines.join("\n");
  }
  const outSpill = { path: options.spillPath, cappedAt: options.spillCappedAt };
  const errSpill = {
    path: options.stderrSpillPath,
    cappedAt: options.stderrSpillCappedAt,
  };
  const head = lines.join("\n") + "\n";
  if (hasOut && hasErr) {
    const outBudget = budgets(result, maxChars).output;
    return head + "stdout:\n" +
      ensureNewline(
        formatStream(result.output, outBudget, outSpill, options).text,
      ) +
      "stderr:\n" +
      formatStream(stderr, maxChars - outBudget, errSpill, options).text;
  }
  return head + (hasOut ? "" : "stderr:\n") +
    formatStream(
      hasOut ? result.output : stderr!,
      maxChars,
      hasOut ? outSpill : errSpill,
      options,
    ).text;
}

function ensureNewline(s: string): string {
  return s.endsWith("\n") ? s : s + "\n";
}

/**
 * The characters each stream gets of `maxChars`: all of it for a stream
 * alone; with stdout and stderr apart and both printed, a share by size
 * between 20 % and 80 %.
 */
function budgets(
  result: FormattableResult,
  maxChars: number,
): { output: number; stderr: number } {
  const out = result.output.totalBytes;
  const err = result.stderr?.totalBytes ?? 0;
  if (out === 0 || err === 0) return { output: maxChars, stderr: maxChars };
  const share = Math.max(0.2, Math.min(0.8, out / (out + err)));
  const output = Math.floor(maxChars * share);
  return { output, stderr: maxChars - output };
}

/**
 * Which streams of a result the model sees cut (so their full text is worth
 * a spill file), with the budget each stream gets when stdout and stderr are
 * kept apart.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { spillNeeds } from "./format.ts";
 *
 * const big = { text: "x".repeat(700), head: "", tail: "", totalBytes: 700, omittedBytes: 0, truncated: false };
 * const small = { text: "e".repeat(100), head: "", tail: "", totalBytes: 100, omittedBytes: 0, truncated: false };
 * // Alone, 700 characters fit a budget of 1000; beside stderr, stdout gets 700 of it.
 * assert.deepEqual(spillNeeds({ output: big, exitCode: 0, timedOut: false }, 1000), { output: false, stderr: false });
 * assert.deepEqual(spillNeeds({ output: big, stderr: small, exitCode: 0, timedOut: false }, 800), { output: true, stderr: false });
 * ```
 */
export function spillNeeds(
  result: FormattableResult,
  maxChars: number = DEFAULT_MAX_CHARS,
): { output: boolean; stderr: boolean } {
  const budget = budgets(result, maxChars);
  const cut = (c: CaptureLike, n: number) =>
    c.truncated || c.text.length > n || looksBinary(c.text);
  return {
    output: cut(result.output, budget.output),
    stderr: result.stderr !== undefined && cut(result.stderr, budget.stderr),
  };
}

/**
 * Whether output of `result` was cut for the model (so a spill file helps).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { needsSpill } from "./format.ts";
 *
 * const c = { text: "x", head: "x", tail: "", totalBytes: 1, omittedBytes: 0, truncated: false };
 * assert.ok(!needsSpill({ output: c, exitCode: 0, timedOut: false }));
 * ```
 */
export function needsSpill(
  result: FormattableResult,
  maxChars: number = DEFAULT_MAX_CHARS,
): boolean {
  const streams = [result.output, result.stderr].filter((c) => c !== undefined);
  return streams.some((c) =>
    c.truncated || c.text.length > maxChars || looksBinary(c.text)
  );
}

// ---------------------------------------------------------------------------
// tool_result blocks.

/** A `tool_result` content block of the Messages API. */
export interface ToolResultBlock {
  /** Always "tool_result". */
  type: "tool_result";
  /** The id of the `tool_use` block answered. */
  tool_use_id: string;
  /** The text the model reads. */
  content: string;
  /** Set when the command failed. */
  is_error?: boolean;
}

/**
 * A `tool_result` block carrying an error message (bad input, a policy
 * refusal, a session failure).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorToolResult } from "./format.ts";
 *
 * const block = errorToolResult("toolu_1", "Expected a command");
 * assert.ok(block.is_error && block.content === "Error: Expected a command");
 * ```
 */
export function errorToolResult(
  toolUseId: string,
  message: string,
): ToolResultBlock {
  return {
    type: "tool_result",
    tool_use_id: toolUseId,
    content: `Error: ${message}`,
    is_error: true,
  };
}
