/**
 * The one way out. Every text that leaves the process — a tool result, MCP
 * content, a spill file, a process log, an audit record, an error that quotes
 * the model's input, the CLI's transcript — is written through an
 * {@linkcode Egress}: redacted last, on the exact text that leaves, and
 * sanitised by the terminal model. Cuts are made on text that is already
 * redacted, so no cut leaves part of a secret; streams are redacted with the
 * lookbehind of {@linkcode redactStream}.
 *
 * {@linkcode CHANNELS} lists every channel; the suite plants secrets in each
 * one (`tests/egress_test.ts`) and fails when a channel is added here without
 * a check there.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

import { redactQuoted, redactStream, type StreamRedactor } from "./redact.ts";
import { sanitizeLine } from "./terminal.ts";

/**
 * Every channel by which text leaves the process, each written through an
 * {@linkcode Egress}:
 * - `tool_result`: the content of a tool result (bash, editor, process tools),
 *   whoever asked (SDK runner, `runAgent`, `answerToolUses`, MCP, CLI);
 * - `mcp_content`: what the MCP server sends besides tool results (job lines);
 * - `spill`: the file that keeps bash output cut from a result;
 * - `process_log`: the log file of a background or terminal process;
 * - `audit`: audit records (commands, reasons, previews, errors);
 * - `error_echo`: error messages that quote the model's input;
 * - `cli_transcript`: the CLI's transcript and repl output.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CHANNELS } from "./egress.ts";
 *
 * assert.ok(CHANNELS.includes("audit"));
 * ```
 */
export const CHANNELS = [
  "tool_result",
  "mcp_content",
  "spill",
  "process_log",
  "audit",
  "error_echo",
  "cli_transcript",
] as const;

/** One of {@linkcode CHANNELS}. */
export type Channel = typeof CHANNELS[number];

/** A redactor: text in, the same text with secrets replaced out. */
export type Redact = (text: string) => string;

/** The marker shown for a text whose redactor failed. */
function withheld(error: unknown): string {
  return `[The text is withheld: the redactor failed (${
    error instanceof Error ? error.name : typeof error
  })]`;
}

/** Where a redaction marker that a cut at `at` would split begins, else `at`. */
function markerSafe(text: string, at: number): number {
  const open = text.lastIndexOf("[REDACTED", at - 1);
  if (open === -1) return at;
  const close = text.indexOf("]", open);
  return close === -1 || close >= at ? open : at;
}

/**
 * Cuts already redacted text to at most `max` characters, adding `…`, never
 * inside a `[REDACTED…]` marker or a UTF-16 surrogate pair.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cutText } from "./egress.ts";
 *
 * assert.equal(cutText("abcdef", 3), "abc…");
 * assert.equal(cutText("a [REDACTED:jwt] b", 6), "a …");
 * ```
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let at = markerSafe(text, max);
  const code = text.charCodeAt(at - 1);
  if (code >= 0xd800 && code <= 0xdbff) at--;
  return `${text.slice(0, at)}…`;
}

/**
 * A value as the model sent it, for a message: JSON where it has one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeValue } from "./egress.ts";
 *
 * assert.equal(describeValue({ cmd: "ls" }), '{"cmd":"ls"}');
 * assert.equal(describeValue(undefined), "undefined");
 * ```
 */
export function describeValue(value: unknown): string {
  try {
    const json = JSON.stringify(value);
    return json === undefined ? String(value) : json;
  } catch {
    return typeof value;
  }
}

/**
 * The message of an error, or the value as text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { messageOf } from "./egress.ts";
 *
 * assert.equal(messageOf(new Error("boom")), "boom");
 * assert.equal(messageOf(42), "42");
 * ```
 */
export function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return typeof error;
  }
}

/** How many writes each channel has had, since the process started (for the suite). */
const counts: Record<Channel, number> = Object.fromEntries(
  CHANNELS.map((c) => [c, 0]),
) as Record<Channel, number>;

/**
 * The redacting, sanitising writer every channel goes through. Built from the
 * `redact` option a tool was given (none: text is only sanitised).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Egress } from "./egress.ts";
 * import { redactor } from "./redact.ts";
 *
 * const out = new Egress(redactor());
 * assert.equal(out.text("key AKIAABCDEFGHIJKLMNOP\x1b]0;t\x07", "tool_result"), "key [REDACTED:aws-access-key]");
 * assert.equal(out.echo({ k: "ghp_" + "a".repeat(36) }, 20), '{"k":"…');
 * ```
 */
export class Egress {
  readonly #redact: Redact | undefined;

  /** An egress that applies `redact` (a function of text) to everything it writes. */
  constructor(redact?: Redact) {
    if (redact !== undefined && typeof redact !== "function") {
      throw new TypeError(
        `Expected redact to be a function, got ${typeof redact}`,
      );
    }
    this.#redact = redact;
  }

  /** The redactor, if any. */
  get redactor(): Redact | undefined {
    return this.#redact;
  }

  /** How many texts each channel has written (for tests that enumerate channels). */
  static counts(): Readonly<Record<Channel, number>> {
    return { ...counts };
  }

  /** Redacts `text`; a redactor that throws withholds it. */
  redact(text: string): string {
    if (!this.#redact) return text;
    try {
      return this.#redact(text);
    } catch (error) {
      return withheld(error);
    }
  }

  /**
   * Text for `channel`: redacted, sanitised (escape sequences dropped, other
   * controls shown escaped, lines kept), redacted again (a secret an escape
   * sequence split is whole after sanitising).
   */
  text(text: string, channel: Channel): string {
    counts[channel]++;
    const once = this.redact(text);
    const clean = sanitizeLine(once);
    return clean === once ? clean : this.redact(clean);
  }

  /**
   * A message that may quote parts of `sources` (the command, the model's
   * input): redacted with fragments of secrets of the sources included, then
   * sanitised.
   */
  quoted(
    message: string,
    sources: readonly string[],
    channel: Channel,
  ): string {
    counts[channel]++;
    if (!this.#redact) return sanitizeLine(message);
    try {
      return this.redact(
        sanitizeLine(redactQuoted(message, sources, this.#redact)),
      );
    } catch (error) {
      return withheld(error);
    }
  }

  /**
   * The model's input quoted in an error message: described as JSON,
   * redacted whole, then cut to `max` characters (so a cut never leaves part
   * of a secret).
   */
  echo(value: unknown, max: number): string {
    return cutText(this.text(describeValue(value), "error_echo"), max);
  }

  /**
   * A text of the model's (such as `old_str`) quoted in an error message:
   * redacted whole, then cut to `max` characters with its length named.
   */
  excerpt(text: string, max: number): string {
    const clean = this.text(text, "error_echo");
    return clean.length > max
      ? `${cutText(clean, max)} (${text.length} characters)`
      : clean;
  }

  /**
   * Lines to be shown as they are numbered (a file view): redacted as one
   * text (a multi-line secret such as a private key is found whole), each
   * line kept in its place, then sanitised. A line a secret covers shows
   * `[REDACTED…]`; the number of lines never changes.
   */
  lines(lines: readonly string[], channel: Channel): string[] {
    counts[channel]++;
    const clean = lines.map(sanitizeLine);
    if (!this.#redact) return clean;
    let each: string[];
    let whole: string;
    try {
      each = clean.map((l) => this.#redact!(l));
      whole = this.#redact(clean.join("\n"));
    } catch (error) {
      return clean.map(() => withheld(error));
    }
    const joined = each.join("\n");
    if (joined === whole) return each;
    // A secret that spans lines: the lines that agree with the whole text's
    // redaction at both ends are kept, those between are withheld.
    const after = whole.split("\n");
    let head = 0;
    while (
      head < each.length && head < after.length && each[head] === after[head]
    ) head++;
    let tail = 0;
    while (
      tail < each.length - head && tail < after.length - head &&
      each[each.length - 1 - tail] === after[after.length - 1 - tail]
    ) tail++;
    return each.map((line, i) =>
      i < head || i >= each.length - tail ? line : "[REDACTED]"
    );
  }

  /**
   * A stream redactor for a file written chunk by chunk (`spill`,
   * `process_log`), or null without a redactor.
   */
  stream(channel: Channel): StreamRedactor | null {
    counts[channel]++;
    return this.#redact ? redactStream(this.#redact) : null;
  }
}
