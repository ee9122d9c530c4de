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

import type { Capture } from "./_capture.ts";
import { SIGNAL_NAMES } from "./_signals.ts";

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
  /** File that holds the full output, named when output was cut. */
  spillPath?: string;
  /** Set when the spill file holds only this many first bytes (it hit its cap). */
  spillCappedAt?: number;
}

/**
 * Default character budget of the output shown to the model.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_CHARS } from "./format.ts";
 *
 * console.assert(DEFAULT_MAX_CHARS === 30_000);
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
 * import { describeStatus } from "./format.ts";
 *
 * console.assert(describeStatus({ exitCode: 0, timedOut: false }) === "Exit code 0");
 * console.assert(describeStatus({ exitCode: 127, timedOut: false }) === "Exit code 127 (command not found)");
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

// ---------------------------------------------------------------------------
// Sanitising.

// CSI (7-bit and 8-bit), OSC up to BEL or ST, and the other two-byte escapes.
const ANSI =
  // deno-lint-ignore no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]/g;
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/**
 * Makes terminal output readable as plain text: strips ANSI escape sequences,
 * turns CRLF into LF, collapses `\r` rewrites to the final state of each line,
 * and replaces other control characters with U+FFFD.
 *
 * @example
 * ```ts
 * import { sanitize } from "./format.ts";
 *
 * console.assert(sanitize("\x1b[31mred\x1b[0m") === "red");
 * console.assert(sanitize("10%\r50%\r100%\n") === "100%\n");
 * ```
 */
export function sanitize(text: string): string {
  let s = text.includes("\x1b") || text.includes("\x9b")
    ? text.replace(ANSI, "")
    : text;
  if (s.includes("\r")) {
    s = s.replaceAll("\r\n", "\n");
    if (s.includes("\r")) s = s.split("\n").map(collapseLine).join("\n");
  }
  return s.replace(CONTROL, "\ufffd");
}

/** The final state of a line written with carriage returns, as a terminal shows it. */
function collapseLine(line: string): string {
  if (!line.includes("\r")) return line;
  let shown = "";
  for (const part of line.split("\r")) {
    shown = part + shown.slice(part.length);
  }
  return shown;
}

/**
 * True when text looks binary: a NUL, or more than 10 % replacement or control
 * characters in its first 8000 characters.
 *
 * @example
 * ```ts
 * import { looksBinary } from "./format.ts";
 *
 * console.assert(looksBinary("ELF\u0000\u0001"));
 * console.assert(!looksBinary("hello\n"));
 * ```
 */
export function looksBinary(text: string): boolean {
  if (text.includes("\0")) return true;
  const sample = text.length > 8000 ? text.slice(0, 8000) : text;
  if (sample.length === 0) return false;
  let odd = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (
      c === 0xfffd ||
      (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 27)
    ) odd++;
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

/** The output text of one stream, sanitised and cut, with its notice. */
function formatStream(
  capture: CaptureLike,
  budget: number,
  headShare: number,
  spillPath: string | undefined,
  spillCappedAt?: number,
): { text: string; cut: boolean } {
  const whole = capture.truncated ? capture.head + capture.tail : capture.text;
  if (looksBinary(whole)) {
    return {
      text: `[binary output: ${capture.totalBytes} bytes, not shown${
        spillPath ? `; saved in ${spillPath}` : ""
      }]`,
      cut: true,
    };
  }
  const headBudget = Math.floor(budget * headShare);
  let head: Cut;
  let tail: Cut;
  if (capture.truncated) {
    head = keepHead(sanitize(capture.head), headBudget);
    tail = keepTail(sanitize(capture.tail), budget - headBudget);
  } else {
    const text = sanitize(capture.text);
    if (text.length <= budget) return { text, cut: false };
    head = keepHead(text, headBudget);
    tail = keepTail(text.slice(head.text.length), budget - head.text.length);
    head = { text: head.text, omittedChars: 0, omittedLines: 0 };
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
  notice += spillPath
    ? spillCappedAt !== undefined
      ? `; the first ${spillCappedAt} bytes are in ${spillPath}: read them with sed -n or grep ...]`
      : `; the full output is in ${spillPath}: read it with sed -n or grep ...]`
    : " ...]";
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
 * import { formatResult } from "./format.ts";
 *
 * const capture = (text: string) => ({
 *   text, head: text, tail: "", totalBytes: text.length, omittedBytes: 0, truncated: false,
 * });
 * const text = formatResult({ output: capture("hi\n"), exitCode: 0, timedOut: false });
 * console.assert(text === "Exit code 0\nhi\n");
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
  const lines = [describeStatus(result, options.timeoutMs)];
  if (result.restarted) {
    lines.push(
      "The shell was restarted: its state (working directory, variables, functions, background jobs) was lost.",
    );
  }
  if (
    result.cwd !== undefined && options.previousCwd !== undefined &&
    result.cwd !== options.previousCwd
  ) {
    lines.push(`Working directory: ${result.cwd}`);
  }
  const stderr = result.stderr;
  const hasErr = stderr !== undefined && stderr.totalBytes > 0;
  const hasOut = result.output.totalBytes > 0;
  if (!hasOut && !hasErr) {
    lines.push("(no output)");
    return lines.join("\n");
  }
  let head = lines.join("\n") + "\n";
  if (hasOut && hasErr) {
    const outShare = Math.max(
      0.2,
      Math.min(
        0.8,
        result.output.totalBytes /
          (result.output.totalBytes + stderr.totalBytes),
      ),
    );
    const outBudget = Math.floor(maxChars * outShare);
    head += "stdout:\n" +
      ensureNewline(
        formatStream(
          result.output,
          outBudget,
          headShare,
          options.spillPath,
          options.spillCappedAt,
        )
          .text,
      ) +
      "stderr:\n" +
      formatStream(
        stderr,
        maxChars - outBudget,
        headShare,
        options.spillPath,
        options.spillCappedAt,
      )
        .text;
    return head;
  }
  const only = hasOut ? result.output : stderr!;
  return head + (hasOut ? "" : "stderr:\n") +
    formatStream(
      only,
      maxChars,
      headShare,
      options.spillPath,
      options.spillCappedAt,
    ).text;
}

function ensureNewline(s: string): string {
  return s.endsWith("\n") ? s : s + "\n";
}

/**
 * Whether output of `result` was cut for the model (so a spill file helps).
 *
 * @example
 * ```ts
 * import { needsSpill } from "./format.ts";
 *
 * const c = { text: "x", head: "x", tail: "", totalBytes: 1, omittedBytes: 0, truncated: false };
 * console.assert(!needsSpill({ output: c, exitCode: 0, timedOut: false }));
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
 * Exit code 1 means "no match" or "differs" for these programs, not failure.
 * Keys are program names; values are the exit codes that are not errors.
 *
 * @example
 * ```ts
 * import { BENIGN_EXIT_CODES } from "./format.ts";
 *
 * console.assert(BENIGN_EXIT_CODES.grep.includes(1));
 * ```
 */
export const BENIGN_EXIT_CODES: Readonly<Record<string, readonly number[]>> = {
  grep: [1],
  egrep: [1],
  fgrep: [1],
  rg: [1],
  diff: [1],
  cmp: [1],
  test: [1],
  "[": [1],
  "[[": [1],
};

/** Options for {@linkcode toToolResult}. */
export interface ToolResultOptions extends FormatOptions {
  /** The command, used to find its last program for {@linkcode BENIGN_EXIT_CODES}. */
  command?: string;
  /** Exit codes that are not errors, by program (default {@linkcode BENIGN_EXIT_CODES}; `{}` turns it off). */
  benignExitCodes?: Readonly<Record<string, readonly number[]>>;
}

/**
 * The name of the program whose exit status a command returns, as far as a
 * simple reading can tell: the first word of the last command in the last
 * pipeline or list. Used only to soften `is_error`, never for security.
 *
 * @example
 * ```ts
 * import { lastProgram } from "./format.ts";
 *
 * console.assert(lastProgram("cd src && grep -rn TODO .") === "grep");
 * console.assert(lastProgram("LC_ALL=C sort x | diff - y") === "diff");
 * ```
 */
export function lastProgram(command: string): string | undefined {
  const segments = command.trim().split(/\|\||&&|[|;&\n]/);
  const last = segments.reverse().find((s) => s.trim() !== "");
  if (last === undefined) return undefined;
  const words = last.trim().split(/[ \t]+/);
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) i++;
  while (
    i < words.length && ["!", "time", "command", "exec"].includes(words[i])
  ) i++;
  const word = words[i]?.replace(/^\(+|\)+$/g, "");
  return word ? word.slice(word.lastIndexOf("/") + 1) : undefined;
}

/**
 * Whether a result counts as an error for the model: a non-zero exit (except
 * the "no match / differs" codes), a timeout, an abort or a signal.
 *
 * @example
 * ```ts
 * import { isErrorResult } from "./format.ts";
 *
 * console.assert(!isErrorResult({ exitCode: 1, timedOut: false }, { command: "grep x f" }));
 * console.assert(isErrorResult({ exitCode: 1, timedOut: false }, { command: "make" }));
 * ```
 */
export function isErrorResult(
  result: Pick<FormattableResult, "exitCode" | "timedOut" | "aborted">,
  options: Pick<ToolResultOptions, "command" | "benignExitCodes"> = {},
): boolean {
  if (result.timedOut || result.aborted) return true;
  if (result.exitCode === 0) return false;
  if (result.exitCode === null) return true;
  const program = options.command ? lastProgram(options.command) : undefined;
  const benign = program
    ? (options.benignExitCodes ?? BENIGN_EXIT_CODES)[program]
    : undefined;
  return !(benign?.includes(result.exitCode) ?? false);
}

/**
 * The `tool_result` block for a command's result.
 *
 * @example
 * ```ts
 * import { toToolResult } from "./format.ts";
 *
 * const c = { text: "", head: "", tail: "", totalBytes: 0, omittedBytes: 0, truncated: false };
 * const block = toToolResult("toolu_1", { output: c, exitCode: 2, timedOut: false });
 * console.assert(block.is_error === true && block.content === "Exit code 2\n(no output)");
 * ```
 */
export function toToolResult(
  toolUseId: string,
  result: FormattableResult,
  options: ToolResultOptions = {},
): ToolResultBlock {
  const block: ToolResultBlock = {
    type: "tool_result",
    tool_use_id: toolUseId,
    content: formatResult(result, options),
  };
  if (isErrorResult(result, options)) block.is_error = true;
  return block;
}

/**
 * A `tool_result` block carrying an error message (bad input, a policy
 * refusal, a session failure).
 *
 * @example
 * ```ts
 * import { errorToolResult } from "./format.ts";
 *
 * const block = errorToolResult("toolu_1", "Expected a command");
 * console.assert(block.is_error && block.content === "Error: Expected a command");
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
