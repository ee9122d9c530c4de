/**
 * Secret redaction: known token shapes and the values of sensitive
 * environment variables become `[REDACTED:kind]`. Every pattern is bounded
 * (no ambiguous nested quantifiers), so adversarial input cannot make it
 * backtrack.
 *
 * A secret must never be partly shown either: a private key whose `BEGIN`
 * line is present but whose `END` is not (or the other way round) is redacted
 * as far as its body reaches; {@linkcode safeEnd} and {@linkcode safeStart}
 * find where a text that was cut can be shown without a fragment of a secret
 * that lies across the cut; {@linkcode redactStream} redacts a stream chunk by
 * chunk without missing a secret split between chunks; {@linkcode redactQuoted}
 * also hides fragments of secrets that a message quotes from a source text.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

/** Options of {@linkcode redactSecrets}. */
export interface RedactOptions {
  /**
   * Environment whose sensitive values are redacted wherever they appear:
   * names containing KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH or
   * PRIVATE, with values of 8 characters or more.
   */
  env?: Record<string, string | undefined>;
}

const PEM_LABEL = "[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?";

/** Token shapes, each with its kind. Order matters: specific before general. */
const PATTERNS: [string, RegExp][] = [
  // Distinctive prefixes need no word boundary before them: a token glued to
  // the text around it is still found. `sk-` alone is too common for that, and
  // a JWT keeps its boundary so that a run of `eyJ` cannot make it backtrack.
  ["anthropic-key", /sk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_-]{20,200}/g],
  ["openai-key", /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,200}/g],
  ["github-token", /(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}/g],
  ["github-token", /github_pat_[A-Za-z0-9_]{22,255}/g],
  ["aws-access-key", /(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}/g],
  ["slack-token", /xox[baprs]-[A-Za-z0-9-]{10,200}/g],
  ["google-api-key", /AIza[0-9A-Za-z_-]{35}/g],
  [
    "jwt",
    /\beyJ[A-Za-z0-9_-]{5,4000}\.eyJ[A-Za-z0-9_-]{5,4000}\.[A-Za-z0-9_-]{0,4000}/g,
  ],
];

/** A PEM header or footer of a private key, alone. */
const PEM_BEGIN = new RegExp(`-----BEGIN ${PEM_LABEL}-----`, "g");
const PEM_END = new RegExp(`-----END ${PEM_LABEL}-----`, "g");
const PEM_BEGIN_ONE = new RegExp(PEM_BEGIN.source);
const PEM_END_ONE = new RegExp(PEM_END.source);
/** A line of a PEM body: base64, or a header such as `Proc-Type: 4,ENCRYPTED`. */
const PEM_BODY_LINE = /^(?!-----)[A-Za-z0-9+/=:, -]{0,100}\r?$/;
/** The most body lines a private key has (an 8192-bit RSA key: about 100). */
const PEM_MAX_LINES = 400;

/** user:password@ in URLs: the password goes, the rest stays. */
const URL_CREDENTIALS =
  /([a-zA-Z][a-zA-Z0-9+.-]{0,20}:\/\/[^\s:/@]{1,200}:)[^\s@/]{1,200}@/g;

const SENSITIVE_NAME =
  /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|PRIVATE/i;

/**
 * Replaces secrets in `text` with `[REDACTED:kind]`. A private key cut short
 * (a `BEGIN` line without its `END`, or an `END` without its `BEGIN`) is
 * redacted as far as its body lines reach.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactSecrets } from "./redact.ts";
 *
 * const out = redactSecrets("key=AKIAABCDEFGHIJKLMNOP and pw=hunter2hunter2", {
 *   env: { DB_PASSWORD: "hunter2hunter2" },
 * });
 * assert.equal(out, "key=[REDACTED:aws-access-key] and pw=[REDACTED:env:DB_PASSWORD]");
 * ```
 */
export function redactSecrets(
  text: string,
  options: RedactOptions = {},
): string {
  if (typeof text !== "string") {
    throw new TypeError(`Expected text to be a string, got ${typeof text}`);
  }
  let out = text;
  for (const [name, value] of sensitiveValues(options.env)) {
    if (out.includes(value)) {
      out = out.split(value).join(`[REDACTED:env:${name}]`);
    }
  }
  if (out.includes("-----")) out = redactKeys(out);
  for (const [kind, pattern] of PATTERNS) {
    out = out.replace(pattern, `[REDACTED:${kind}]`);
  }
  return out.replace(URL_CREDENTIALS, "$1[REDACTED:url-credentials]@");
}

/** Sensitive environment values, longest first (so a value inside another goes second). */
function sensitiveValues(
  env: Record<string, string | undefined> | undefined,
): [string, string][] {
  return Object.entries(env ?? {})
    .filter((entry): entry is [string, string] =>
      SENSITIVE_NAME.test(entry[0]) && typeof entry[1] === "string" &&
      entry[1].length >= 8
    )
    .sort((a, b) => b[1].length - a[1].length);
}

/** The farthest an `END` line may be from its `BEGIN` line. */
const PEM_MAX_CHARS = 20_000;

/**
 * Redacts private keys: a `BEGIN` line with the next `END` line and all
 * between; a lone `BEGIN` line with the body lines that follow it, a lone
 * `END` line with the body lines before it. Linear: each match and each line
 * is looked at a bounded number of times.
 */
function redactKeys(text: string): string {
  const begins = [...text.matchAll(PEM_BEGIN)];
  const ends = [...text.matchAll(PEM_END)];
  if (begins.length === 0 && ends.length === 0) return text;
  const spans: [number, number][] = [];
  const used = new Set<number>();
  let e = 0;
  let covered = 0;
  for (const m of begins) {
    if (m.index < covered) continue;
    while (e < ends.length && ends[e].index < m.index) e++;
    const end = ends[e];
    if (end !== undefined && end.index - m.index <= PEM_MAX_CHARS) {
      used.add(e);
      covered = end.index + end[0].length;
      spans.push([m.index, covered]);
      e++;
      continue;
    }
    let at = m.index + m[0].length;
    for (let n = 0; n < PEM_MAX_LINES && at < text.length; n++) {
      if (text[at] !== "\n") break;
      const next = text.indexOf("\n", at + 1);
      const lineEnd = next === -1 ? text.length : next;
      if (!PEM_BODY_LINE.test(text.slice(at + 1, lineEnd))) break;
      at = lineEnd;
    }
    spans.push([m.index, at]);
    covered = at;
  }
  // Each backward walk stops where the previous match ended: linear in total.
  let floor = 0;
  ends.forEach((m, i) => {
    const stop = floor;
    floor = m.index + m[0].length;
    if (used.has(i)) return;
    let start = m.index;
    for (let n = 0; n < PEM_MAX_LINES && start > stop; n++) {
      if (text[start - 1] !== "\n") break;
      const prev = text.lastIndexOf("\n", start - 2);
      if (!PEM_BODY_LINE.test(text.slice(prev + 1, start - 1))) break;
      start = prev + 1;
    }
    spans.push([start, m.index + m[0].length]);
  });
  spans.sort((x, y) => x[0] - y[0]);
  let out = "";
  let at = 0;
  for (const [start, end] of spans) {
    if (end <= at) continue;
    out += text.slice(at, Math.max(at, start)) + "[REDACTED:private-key]";
    at = end;
  }
  return out + text.slice(at);
}

/**
 * A redactor bound to an environment, for `BashTool`'s `redact` option.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactor } from "./redact.ts";
 *
 * const redact = redactor({ API_TOKEN: "abcdefgh12345678" });
 * assert.equal(redact("t=abcdefgh12345678"), "t=[REDACTED:env:API_TOKEN]");
 * ```
 */
export function redactor(
  env: Record<string, string | undefined> = {},
): (text: string) => string {
  return (text) => redactSecrets(text, { env });
}

// ---------------------------------------------------------------------------
// Cuts.

/** Characters a secret token can hold; anything else ends a token. */
const TOKEN_CHAR = /[^\s"'`<>()[\]{},;|&]/;
/** A partial line longer than this is cut at a token boundary instead of dropped. */
const LONG_LINE = 2048;

/**
 * Where a text that goes on past its end (the rest was cut) stops being safe
 * to show: before its last, partial line (or, in a very long line, before the
 * partial token at the end), and before a private key that has not ended.
 * `text.slice(0, safeEnd(text))` shows no fragment of a secret that lies
 * across the cut.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { safeEnd } from "./redact.ts";
 *
 * const text = "build ok\ntoken=ghp_abc";
 * assert.equal(text.slice(0, safeEnd(text)), "build ok\n");
 * ```
 */
export function safeEnd(text: string): number {
  let end = text.lastIndexOf("\n") + 1;
  if (text.length - end > LONG_LINE) {
    end = text.length;
    while (end > 0 && TOKEN_CHAR.test(text[end - 1])) end--;
  }
  const head = text.slice(0, end);
  let open = -1;
  for (const m of head.matchAll(PEM_BEGIN)) open = m.index;
  if (open !== -1 && !PEM_END_ONE.test(head.slice(open))) {
    end = head.lastIndexOf("\n", open) + 1;
  }
  return end;
}

/**
 * Where a text that was cut at its start becomes safe to show: after its
 * first, partial line (or, in a very long line, after the partial token at the
 * start), after the end of a private key it starts inside, and, when
 * `insideKey` says the text before the cut left a private key open, after the
 * key's body lines.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { safeStart } from "./redact.ts";
 *
 * const text = "c2VjcmV0\n-----END RSA PRIVATE KEY-----\ndone\n";
 * assert.equal(text.slice(safeStart(text)), "done\n");
 * ```
 */
export function safeStart(
  text: string,
  options: { insideKey?: boolean } = {},
): number {
  let start = text.indexOf("\n") + 1;
  if (start === 0 ? text.length > LONG_LINE : start > LONG_LINE) {
    start = 0;
    while (start < text.length && TOKEN_CHAR.test(text[start])) start++;
  } else if (start === 0) {
    start = text.length;
  }
  const end = PEM_END_ONE.exec(text);
  if (end !== null) {
    const begin = PEM_BEGIN_ONE.exec(text);
    if (begin === null || begin.index > end.index) {
      const lineEnd = text.indexOf("\n", end.index);
      return Math.max(start, lineEnd === -1 ? text.length : lineEnd + 1);
    }
  }
  if (options.insideKey) {
    for (let n = 0; n < PEM_MAX_LINES && start < text.length; n++) {
      const next = text.indexOf("\n", start);
      if (next === -1) {
        if (PEM_BODY_LINE.test(text.slice(start))) start = text.length;
        break;
      }
      if (!PEM_BODY_LINE.test(text.slice(start, next))) break;
      start = next + 1;
    }
  }
  return start;
}

/**
 * True when `text` ends inside a private key: a `BEGIN` line with no `END`
 * after it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { endsInsideKey } from "./redact.ts";
 *
 * assert.ok(endsInsideKey("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE"));
 * assert.ok(!endsInsideKey("no key here\n"));
 * ```
 */
export function endsInsideKey(text: string): boolean {
  let open = -1;
  for (const m of text.matchAll(PEM_BEGIN)) open = m.index;
  if (open === -1) return false;
  return !PEM_END_ONE.test(text.slice(open));
}

/** A redactor that works on a stream of text, chunk by chunk. */
export interface StreamRedactor {
  /** Takes the next chunk; returns the redacted text that is safe to emit so far. */
  push(text: string): string;
  /** Ends the stream; returns the redacted rest. */
  flush(): string;
}

/** Text held back at most, when no safe point comes (a huge line or key). */
const STREAM_HOLD = 256 * 1024;

/**
 * Redacts a stream chunk by chunk with `redact`, so that a secret split
 * between two chunks is still found: text is emitted only up to a safe point
 * (the end of a complete line outside a private key), the rest waits for the
 * next chunk.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactor, redactStream } from "./redact.ts";
 *
 * const stream = redactStream(redactor());
 * const out = stream.push("key AKIAABCDEFGH") + stream.push("IJKLMNOP\n") + stream.flush();
 * assert.equal(out, "key [REDACTED:aws-access-key]\n");
 * ```
 */
export function redactStream(redact: (text: string) => string): StreamRedactor {
  let held = "";
  return {
    push(text: string): string {
      held += text;
      let cut = safeEnd(held);
      if (cut === 0 && held.length > STREAM_HOLD) {
        cut = held.lastIndexOf("\n") + 1 || held.length - LONG_LINE;
      }
      if (cut === 0) return "";
      const out = redact(held.slice(0, cut));
      held = held.slice(cut);
      return out;
    },
    flush(): string {
      const out = held === "" ? "" : redact(held);
      held = "";
      return out;
    },
  };
}

/** Shortest token of a quoted fragment that {@linkcode redactQuoted} hides. */
const MIN_FRAGMENT = 4;

/**
 * Redacts a message that may quote `sources` (a command, an output) in part:
 * besides whole secrets, every token of the message that occurs in a source
 * only inside a secret (so the source's redacted form no longer has it) is
 * hidden too, so a policy reason or an error that quotes a command cut short
 * shows no part of a key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactor, redactQuoted } from "./redact.ts";
 *
 * const command = "curl -H 'x-api-key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz' x";
 * const reason = "curl is denied: curl -H 'x-api-key: sk-ant-api03-abcdefgh…";
 * assert.equal(
 *   redactQuoted(reason, [command], redactor()),
 *   "curl is denied: curl -H 'x-api-key: [REDACTED]…",
 * );
 * ```
 */
export function redactQuoted(
  message: string,
  sources: readonly string[],
  redact: (text: string) => string,
): string {
  let out = redact(message);
  for (const source of sources) {
    const redacted = redact(source);
    if (redacted === source) continue;
    const tokens = new Set(out.split(/[\s"'`()[\]{},;|&<>…]+/));
    for (const token of [...tokens].sort((a, b) => b.length - a.length)) {
      if (
        token.length >= MIN_FRAGMENT && source.includes(token) &&
        !redacted.includes(token)
      ) {
        out = out.replaceAll(token, "[REDACTED]");
      }
    }
  }
  return out;
}
