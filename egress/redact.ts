/**
 * Secret redaction for everything that leaves the process: each secret in a
 * text becomes `[REDACTED:kind]`.
 *
 * What counts as a secret:
 * - the values (8 characters or more) of sensitive variables of the `env`
 *   option: names containing KEY, TOKEN, SECRET, PASSWORD, PASSWD,
 *   CREDENTIAL, AUTH or PRIVATE, or names that read as a secret (below);
 *   multi-line values too, whole, JSON-escaped (`a\nb`) or line by line
 *   (`[REDACTED:env:NAME]`);
 * - private keys: a PEM `BEGIN … PRIVATE KEY` line with its body and `END`
 *   line; a key cut short (a `BEGIN` line without its `END`, or the other way
 *   round) as far as its body lines reach (`[REDACTED:private-key]`);
 * - known token shapes: Anthropic, OpenAI, GitHub, AWS access key ids, Slack,
 *   Google API keys, JWTs (`[REDACTED:anthropic-key]` and so on);
 * - the password of a URL's userinfo, in any scheme, with an empty user, `/`
 *   or `@` inside the password (the last `@` before a space, a quote, `<` or
 *   `>` ends the userinfo), percent-encoded or before an IPv6 host: the user
 *   and the host stay (`postgres://u:[REDACTED:url-credentials]@h`). A
 *   userinfo without `:` goes only when it looks like a token (16 characters
 *   or more with a digit); `ssh://git@host` stays. `host:port/path@x` (as in
 *   `http://localhost:5173/@vite/client`) is a port, not a password;
 * - the value of an assignment whose name reads as a secret
 *   (`[REDACTED:secret-assignment]`, the name stays): `NAME=value` (env dumps,
 *   `.env` files, `export`, `--flag=value`, `?query=value`), `"name": "value"`
 *   and `'name': 'value'` (JSON, Python), `name: value` at the start of a line
 *   after indentation, `- `, `> ` or `< ` (YAML, HTTP headers as `curl -v`
 *   shows them) or after a quote (`-H 'x-api-key: value'`), `name: Bearer x`
 *   anywhere (a credential after an auth scheme), and any quoted literal after
 *   `=`, `:` or `:=` (`password = "hunter2"`). The scheme of an
 *   `Authorization` value stays (`Bearer [REDACTED:secret-assignment]`).
 *
 * A name reads as a secret when one of its segments (split at `_`, `-`, `.`,
 * digits and camelCase) is SECRET, TOKEN, PASSWORD, PASSWD, PASS, PWD,
 * PASSPHRASE, CREDENTIAL(S), AUTH, AUTHORIZATION, PRIVATE or APIKEY, when it
 * ends in PASSWORD, PASSWD, PASSPHRASE, SECRET or TOKEN (`PGPASSWORD`), or
 * when KEY comes with another segment that is not PUBLIC or PUBLISHABLE
 * (`API_KEY`, `apiKey`; a bare `key` is a selector, not a secret).
 *
 * What does not: the names `PWD`, `OLDPWD` and `PASS` alone (a test
 * runner's verdict, `PASS: src/a.test.ts`); names whose last segment is
 * FILE, PATH, DIR, SOCK, URL, URI, ID (`AWS_ACCESS_KEY_ID` is an identifier),
 * NAME, TYPE, COUNT, LENGTH, TTL, EXPIRY, EXPIRES, TIMEOUT or ENABLED (they
 * describe a secret, they do not hold one); placeholder values: empty,
 * `true`, `false`, `null`, `none`, `nil`, `undefined`, only `*`, only `x`
 * (`xxxx-xxxx`), `<…>`, `${…}`, `$(…`, `$NAME`, `{{…}}` and values that
 * hold a `[REDACTED…]` marker (what a secret that spans lines leaves of its
 * line when it is redacted); code: a comparison (`password == x`), an unquoted
 * right-hand side after `=` with spaces (`const token = getToken();`), an
 * unquoted `name: value` that is not at the start of a line, or one that ends
 * in `;`, `,`, `{`, `(` or `[`, or starts a YAML block (`|`, `>`).
 *
 * Redaction is idempotent: a `[REDACTED…]` marker is never matched again, so
 * redacting redacted text changes nothing. Every rule runs in linear time:
 * quantifiers are bounded and scans never go back over what they passed.
 *
 * Everything is found as spans (start, end, kind) over the text first, then
 * rendered once, overlapping spans as one marker (the first to start names
 * it; when two start together, an environment value, then a key, a token, a
 * URL, an assignment).
 *
 * A secret must never be partly shown either: {@linkcode safeEnd} and
 * {@linkcode safeStart} find where a text that was cut can be shown without a
 * fragment of a secret that lies across the cut; {@linkcode redactQuoted}
 * also hides fragments of secrets that a message quotes from a source text;
 * {@linkcode redactStream} redacts a stream chunk by chunk and never emits
 * part of a secret split between chunks, lines or writes. With a redactor
 * made by {@linkcode redactor}, a stream's output is the redaction of the
 * whole text, a complete line is emitted on the push that completes it unless
 * a secret may still be coming (a private key without its `END`, the start of
 * a sensitive value), and the work is linear in the text.
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
   * PRIVATE, or that read as a secret (see the module documentation), with
   * values of 8 characters or more.
   */
  env?: Record<string, string | undefined>;
}

// ---------------------------------------------------------------------------
// Spans.

/** Spans kept in one block of {@linkcode Spans}. */
const BLOCK = 4096;

/** One block of {@linkcode Spans}: parallel arrays of at most BLOCK. */
interface Block {
  from: number[];
  start: number[];
  end: number[];
  kind: string[];
  rank: number[];
}

/**
 * The secrets found in a text, as parallel arrays in blocks (no object for
 * each, and no array so large that growing it costs more than filling it):
 * span `i` hides `[start(i), end(i))` as `[REDACTED:kind(i)]`;
 * `[from(i), end(i))` must not be cut (`from` is where the text that decides
 * the secret begins, a name or a scheme); of two spans that start together,
 * the lower `rank` names the marker.
 */
class Spans {
  readonly #blocks: Block[] = [];
  #length = 0;

  /** How many spans there are. */
  get length(): number {
    return this.#length;
  }

  /** Adds a span. */
  add(
    from: number,
    start: number,
    end: number,
    kind: string,
    rank: number,
  ): void {
    let b = this.#blocks[this.#blocks.length - 1];
    if (b === undefined || b.start.length === BLOCK) {
      b = { from: [], start: [], end: [], kind: [], rank: [] };
      this.#blocks.push(b);
    }
    b.from.push(from);
    b.start.push(start);
    b.end.push(end);
    b.kind.push(kind);
    b.rank.push(rank);
    this.#length++;
  }

  // Span `i`'s fields.
  from(i: number): number {
    return this.#blocks[Math.floor(i / BLOCK)].from[i % BLOCK];
  }

  start(i: number): number {
    return this.#blocks[Math.floor(i / BLOCK)].start[i % BLOCK];
  }

  end(i: number): number {
    return this.#blocks[Math.floor(i / BLOCK)].end[i % BLOCK];
  }

  kind(i: number): string {
    return this.#blocks[Math.floor(i / BLOCK)].kind[i % BLOCK];
  }

  rank(i: number): number {
    return this.#blocks[Math.floor(i / BLOCK)].rank[i % BLOCK];
  }
}

const RANK_ENV = 0;
const RANK_KEY = 1;
const RANK_TOKEN = 2;
const RANK_URL = 3;
const RANK_ASSIGNMENT = 4;

/** A value of the environment to hide, with its KMP failure table (made when needed). */
interface EnvSecret {
  name: string;
  value: string;
  fail?: Int32Array;
}

/** What a scan found: the spans, and for a text that goes on, where it must not be cut after. */
interface Scan {
  spans: Spans;
  /** The earliest start of a secret that may go on past the end (the text length when none). */
  pending: number;
  /** The earliest start of a partial match of an environment value at the end. */
  pendingEnv: number;
  /** The earliest start of a private key whose end is not known yet. */
  pendingKey: number;
  /** The start of the last lines if they look like the body of a key whose `END` may follow. */
  pendingBody: number;
  /** An assignment whose value reaches the end, for a stream that must give up holding it. */
  open: Open | null;
}

/** Where an open value starts and what ends it. */
interface Open {
  from: number;
  valueStart: number;
  until: Until;
}

/** What ends a value that was cut: a line break, a character that ends a token, or a quote. */
type Until = "eol" | "token" | '"' | "'" | "`";

const PEM_LABEL = "[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?";

/** Token shapes, each with its kind (told apart by how the match begins). */
const PATTERNS: [string, RegExp][] = [
  // Distinctive prefixes need no word boundary before them: a token glued to
  // the text around it is still found. `sk-` alone is too common for that,
  // and a JWT keeps its boundary too. The JWT pattern says what
  // `jwtSpans` finds (without a regular expression).
  ["anthropic-key", /sk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_-]{20,200}/],
  ["openai-key", /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,200}/],
  ["github-token", /(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}/],
  ["github-token", /github_pat_[A-Za-z0-9_]{22,255}/],
  ["aws-access-key", /(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}/],
  ["slack-token", /xox[baprs]-[A-Za-z0-9-]{10,200}/],
  ["google-api-key", /AIza[0-9A-Za-z_-]{35}/],
  [
    "jwt",
    /\beyJ[A-Za-z0-9_-]{5,4000}\.eyJ[A-Za-z0-9_-]{5,4000}\.[A-Za-z0-9_-]{0,4000}/,
  ],
];

/**
 * The token shapes but JWTs in one pass, and the same anchored at a place; a
 * match is told apart by {@linkcode tokenKind}. JWTs have their own scan
 * ({@linkcode jwtSpans}): their segments are long and end with a dot, which a
 * regular expression would look for again from every `eyJ`.
 */
const SHAPES = PATTERNS.filter(([kind]) => kind !== "jwt").map(([, re]) =>
  re.source
).join("|");
const TOKENS = new RegExp(SHAPES, "g");
const TOKEN_AT = new RegExp(SHAPES, "y");
/** How an Anthropic key begins (the combined pattern tries it first). */
const ANTHROPIC_START = /^sk-ant-[A-Za-z0-9]{2,10}-/;
/** How each shape but JWTs begins. */
const TRIGGER = /sk-|gh[pousr]_|github_pat_|A[KSBC][IC]A|xox[baprs]-|AIza/g;

function tokenKind(match: string): string {
  if (match.startsWith("sk-")) {
    return ANTHROPIC_START.test(match) ? "anthropic-key" : "openai-key";
  }
  switch (match[0]) {
    case "g":
      return "github-token";
    case "x":
      return "slack-token";
    default:
      return match[1] === "I" && match[2] === "z"
        ? "google-api-key"
        : "aws-access-key";
  }
}

/** Shapes whose characters may hold each other's start (`sk-` keys, GitHub tokens). */
function family(match: string): string {
  return match.startsWith("sk-") ? "sk" : tokenKind(match);
}

/**
 * Adds the token shapes but JWTs: one pass over the text, and inside each
 * match a look for a shape of another family that starts there and reaches
 * past it (so glued tokens are all hidden). Linear: matches do not overlap
 * and each is looked into once.
 */
function tokenSpans(text: string, spans: Spans, midLine: boolean): void {
  const add = (start: number, match: string) =>
    spans.add(start, start, start + match.length, tokenKind(match), RANK_TOKEN);
  TOKENS.lastIndex = 0;
  for (let m = TOKENS.exec(text); m !== null; m = TOKENS.exec(text)) {
    if (midLine && m.index === 0) {
      // Maybe the tail of a longer token: look again from the next place.
      TOKENS.lastIndex = 1;
      continue;
    }
    const end = m.index + m[0].length;
    if (tokenKind(m[0]) === "openai-key" && afterMarker(text, m.index)) {
      TOKENS.lastIndex = m.index + 1;
      continue;
    }
    add(m.index, m[0]);
    const own = family(m[0]);
    // The next start of a shape lies at the next token at the latest, so
    // these searches cover the text about once.
    TRIGGER.lastIndex = m.index + 1;
    for (
      let t = TRIGGER.exec(text);
      t !== null && t.index < end;
      t = TRIGGER.exec(text)
    ) {
      if (family(t[0]) === own) continue;
      TOKEN_AT.lastIndex = t.index;
      const n = TOKEN_AT.exec(text);
      if (n !== null && n.index + n[0].length > end) add(n.index, n[0]);
    }
    TOKENS.lastIndex = end;
  }
}

/**
 * True when a marker ends at `at`. A token that needs a word boundary before
 * it (an `sk-` key, a JWT) and is glued to a secret has none in the text, but
 * would have one after the marker: it is not taken there either, so that
 * redacting again changes nothing.
 */
function afterMarker(text: string, at: number): boolean {
  return text.charCodeAt(at - 1) === 93 &&
    MARKER_END.test(text.slice(Math.max(0, at - 212), at));
}

/** A character of a JWT segment (base64url). */
function isBase64Url(c: number): boolean {
  return isAlpha(c) || isDigit(c) || c === 95 || c === 45;
}

/** A character `\b` counts as part of a word. */
function isWordChar(c: number): boolean {
  return isAlpha(c) || isDigit(c) || c === 95;
}

/** The longest JWT segment. */
const JWT_SEGMENT_MAX = 4000;

/**
 * Adds JWTs: `eyJ…` after a word boundary, a dot, `eyJ…`, a dot and a third
 * segment, each of base64url characters, the first two of 5 to 4000
 * characters after `eyJ`, the third of at most 4000 (what the JWT pattern
 * above says). Linear: the end of each run of base64url characters is found
 * once, however many `eyJ` it holds.
 */
function jwtSpans(text: string, spans: Spans, midLine: boolean): void {
  // The last three runs measured, as [from, to) pairs.
  const runs = new Float64Array(6).fill(-1);
  let next = 0;
  const runEnd = (at: number): number => {
    for (let i = 0; i < 6; i += 2) {
      if (at >= runs[i] && at < runs[i + 1]) return runs[i + 1];
    }
    let to = at;
    while (to < text.length && isBase64Url(text.charCodeAt(to))) to++;
    if (to > at) {
      runs[next] = at;
      runs[next + 1] = to;
      next = (next + 2) % 6;
    }
    return to;
  };
  const segment = (at: number, min: number): number => {
    const to = runEnd(at);
    return to - at >= min && to - at <= JWT_SEGMENT_MAX &&
        text.charCodeAt(to) === 46
      ? to
      : -1;
  };
  let done = 0;
  for (let q = text.indexOf("eyJ"); q !== -1; q = text.indexOf("eyJ", q + 1)) {
    if (q < done) continue;
    if (q === 0 ? midLine : isWordChar(text.charCodeAt(q - 1))) continue;
    if (afterMarker(text, q)) continue;
    const one = segment(q + 3, 5);
    if (one === -1 || !text.startsWith("eyJ", one + 1)) continue;
    const two = segment(one + 4, 5);
    if (two === -1) continue;
    const end = Math.min(runEnd(two + 1), two + 1 + JWT_SEGMENT_MAX);
    spans.add(q, q, end, "jwt", RANK_TOKEN);
    done = end;
  }
}

/**
 * The longest text a token shape or a URL's userinfo can span (a JWT: about
 * 12 000 characters), with room: a match that starts this far before the end
 * of a text is complete.
 */
const TOKEN_MAX = 16 * 1024;

/** A PEM header or footer of a private key, alone. */
const PEM_BEGIN = new RegExp(`-----BEGIN ${PEM_LABEL}-----`, "g");
const PEM_END = new RegExp(`-----END ${PEM_LABEL}-----`, "g");
const PEM_BEGIN_ONE = new RegExp(PEM_BEGIN.source);
const PEM_END_ONE = new RegExp(PEM_END.source);
/** A line of a PEM body: base64, or a header such as `Proc-Type: 4,ENCRYPTED`. */
const PEM_BODY_LINE = /^(?!-----)[A-Za-z0-9+/=:, -]{0,100}\r?$/;
/** The most body lines a private key has (an 8192-bit RSA key: about 100). */
const PEM_MAX_LINES = 400;
/** The farthest an `END` line may be from its `BEGIN` line. */
const PEM_MAX_CHARS = 20_000;
/** The longest `BEGIN`/`END` line. */
const PEM_MARKER_MAX = 100;

/** Names of environment variables whose values are hidden (besides names that read as a secret). */
const SENSITIVE_NAME =
  /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|PRIVATE/i;

/** A marker this module wrote; never matched again. */
const MARKER = /\[REDACTED(?::[^\]\s]{1,200})?\]/g;
const MARKER_END = /\[REDACTED(?::[^\]\s]{1,200})?\]$/;

/**
 * Replaces secrets in `text` with `[REDACTED:kind]` (see the module
 * documentation for what counts as a secret). Overlapping secrets become one
 * marker; already redacted text stays as it is.
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
 * assert.equal(
 *   redactSecrets("DATABASE_PASSWORD=hunter2 url=postgres://u:p@ss@db/x"),
 *   "DATABASE_PASSWORD=[REDACTED:secret-assignment] url=postgres://u:[REDACTED:url-credentials]@db/x",
 * );
 * assert.equal(redactSecrets(out), out);
 * ```
 */
export function redactSecrets(
  text: string,
  options: RedactOptions = {},
): string {
  if (typeof text !== "string") {
    throw new TypeError(`Expected text to be a string, got ${typeof text}`);
  }
  return render(text, scan(text, envSecrets(options.env), false).spans);
}

/**
 * Sensitive environment values, longest first; each also as it appears
 * escaped in JSON or a shell's `$'…'` (when it holds a line break, a quote
 * or a backslash), and each line of a multi-line value of 8 characters or
 * more on its own (a cut may keep one line of it).
 */
function envSecrets(
  env: Record<string, string | undefined> | undefined,
): EnvSecret[] {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(env ?? {})) {
    if (
      typeof value !== "string" || value.length < 8 ||
      !(SENSITIVE_NAME.test(name) || isSecretName(name))
    ) continue;
    const forms = [value];
    if (/["\\\n\r\t]/.test(value)) {
      forms.push(JSON.stringify(value).slice(1, -1));
    }
    if (/[\n\r]/.test(value)) forms.push(...value.split(/\r?\n|\r/));
    for (const form of forms) {
      if (form.length >= 8 && !out.has(form)) out.set(form, name);
    }
  }
  return [...out]
    .sort((a, b) => b[0].length - a[0].length)
    .map(([value, name]) => ({ name, value }));
}

/**
 * Finds the secrets of `text`. With `partial`, the text may go on: `pending`
 * says from where a secret may still be growing. With `midLine`, the text
 * starts inside a line (a stream's context was cut short), so a name or a
 * token at its very start may be the tail of a longer one and is skipped.
 * `before` lists where secrets found in an earlier scan end (a stream's
 * context): a name starts after them as it would in the whole text.
 */
function scan(
  text: string,
  secrets: readonly EnvSecret[],
  partial: boolean,
  midLine = false,
  before: readonly number[] = [],
): Scan {
  const spans = new Spans();
  let pending = text.length;
  let pendingEnv = text.length;
  for (const secret of secrets) {
    const { value } = secret;
    const kind = `env:${secret.name}`;
    for (let at = text.indexOf(value); at !== -1;) {
      spans.add(at, at, at + value.length, kind, RANK_ENV);
      at = text.indexOf(value, at + value.length);
    }
    if (partial) {
      const k = suffixPrefix(text, secret);
      if (k > 0) pendingEnv = Math.min(pendingEnv, text.length - k);
    }
  }
  const pendingKey = text.includes("-----")
    ? keySpans(text, spans, partial)
    : text.length;
  const pendingBody = partial ? keyBody(text) : text.length;
  pending = Math.min(pendingEnv, pendingKey, pendingBody);
  tokenSpans(text, spans, midLine);
  if (text.includes("eyJ")) jwtSpans(text, spans, midLine);
  if (text.includes("://")) urlSpans(text, spans);
  const assignments = assignmentSpans(
    text,
    spans,
    () => {
      const ends = new Float64Array(before.length + spans.length);
      ends.set(before);
      for (let i = 0; i < spans.length; i++) {
        ends[before.length + i] = spans.end(i);
      }
      return ends.sort();
    },
    partial,
    midLine,
  );
  pending = Math.min(pending, assignments.pending);
  if (partial) {
    // A token or a userinfo that reaches the end may still grow: it lies in
    // the trailing run of characters that no token holds, and within
    // TOKEN_MAX of the end.
    let run = text.length;
    const floor = Math.max(0, text.length - TOKEN_MAX);
    while (run > floor && !isBreak(text.charCodeAt(run - 1))) run--;
    pending = Math.min(pending, run);
    // A `BEGIN`/`END` line still arriving.
    const tail = lastBreak(text, text.length, PEM_MARKER_MAX) + 1 ||
      Math.max(0, text.length - PEM_MARKER_MAX);
    const dashes = text.indexOf("-----", tail);
    if (dashes !== -1) pending = Math.min(pending, dashes);
  }
  return {
    spans: text.includes("[REDACTED") ? unmarked(text, spans) : spans,
    pending,
    pendingEnv,
    pendingKey,
    pendingBody,
    open: assignments.open,
  };
}

/** The length of the longest proper prefix of the secret's value that ends `text` (Knuth–Morris–Pratt). */
function suffixPrefix(text: string, secret: EnvSecret): number {
  const v = secret.value;
  if (secret.fail === undefined) {
    const fail = new Int32Array(v.length);
    for (let i = 1, k = 0; i < v.length; i++) {
      while (k > 0 && v[i] !== v[k]) k = fail[k - 1];
      if (v[i] === v[k]) k++;
      fail[i] = k;
    }
    secret.fail = fail;
  }
  const fail = secret.fail;
  let q = 0;
  for (let i = Math.max(0, text.length - v.length + 1); i < text.length; i++) {
    const c = text[i];
    while (q > 0 && v[q] !== c) q = fail[q - 1];
    if (v[q] === c) q++;
    if (q === v.length) q = fail[q - 1];
  }
  return q;
}

/** `spans` with the `[REDACTED…]` markers already in `text` cut out of them. */
function unmarked(text: string, spans: Spans): Spans {
  // Starts and ends of the markers, in order, flat.
  const marks: number[] = [];
  for (const m of text.matchAll(MARKER)) {
    marks.push(m.index, m.index + m[0].length);
  }
  if (marks.length === 0) return spans;
  const out = new Spans();
  for (let s = 0; s < spans.length; s++) {
    const end = spans.end(s);
    const add = (start: number, to: number) =>
      out.add(spans.from(s), start, to, spans.kind(s), spans.rank(s));
    let lo = 0;
    let hi = marks.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (marks[2 * mid + 1] <= spans.start(s)) lo = mid + 1;
      else hi = mid;
    }
    let start = spans.start(s);
    for (let i = 2 * lo; i < marks.length && marks[i] < end; i += 2) {
      if (marks[i] > start) add(start, marks[i]);
      start = Math.max(start, marks[i + 1]);
    }
    if (start < end) add(start, end);
  }
  return out;
}

/** The spans' indices by start, then rank, then the longest first. */
function byStart(spans: Spans): Uint32Array {
  const n = spans.length;
  const start = new Float64Array(n);
  const rank = new Float64Array(n);
  const end = new Float64Array(n);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    start[i] = spans.start(i);
    rank[i] = spans.rank(i);
    end[i] = spans.end(i);
    order[i] = i;
  }
  return order.sort((a, b) =>
    start[a] - start[b] || rank[a] - rank[b] || end[b] - end[a]
  );
}

/**
 * `text[from, to)` with its spans replaced by markers: overlapping spans
 * merged into one, the first (then the best ranked) naming the kind.
 */
function render(
  text: string,
  spans: Spans,
  from = 0,
  to = text.length,
): string {
  if (spans.length === 0) return text.slice(from, to);
  let out = "";
  let at = from;
  let start = -1;
  let end = -1;
  let kind = "";
  const flush = () => {
    if (end <= from || start >= to || end <= start) return;
    out += text.slice(at, Math.max(at, start)) + `[REDACTED:${kind}]`;
    at = Math.min(Math.max(at, end), to);
  };
  for (const i of byStart(spans)) {
    if (spans.start(i) < end) {
      end = Math.max(end, spans.end(i));
      continue;
    }
    flush();
    if (spans.start(i) >= to) {
      start = end = -1;
      break;
    }
    start = spans.start(i);
    end = spans.end(i);
    kind = spans.kind(i);
  }
  flush();
  return out + text.slice(at, to);
}

// ---------------------------------------------------------------------------
// Private keys.

/**
 * Adds the spans of private keys: a `BEGIN` line with the next `END` line and
 * all between; a lone `BEGIN` line with the body lines that follow it, a lone
 * `END` line with the body lines before it. Linear: each match and each line
 * is looked at a bounded number of times. Returns where a key that may still
 * go on (`partial`) begins, else the text length.
 */
function keySpans(text: string, spans: Spans, partial: boolean): number {
  let pending = text.length;
  const add = (start: number, end: number) =>
    spans.add(start, start, end, "private-key", RANK_KEY);
  // The END lines, one after the other; each that no BEGIN takes is a lone
  // END, whose walk back stops where the END before it ended.
  PEM_END.lastIndex = 0;
  let end = PEM_END.exec(text);
  let floor = 0;
  const nextEnd = (lone: boolean) => {
    const e = end!;
    if (lone) {
      let start = e.index;
      for (let n = 0; n < PEM_MAX_LINES && start > floor; n++) {
        if (text[start - 1] !== "\n") break;
        const prev = text.lastIndexOf("\n", start - 2);
        if (!PEM_BODY_LINE.test(text.slice(prev + 1, start - 1))) break;
        start = prev + 1;
      }
      add(start, e.index + e[0].length);
    }
    floor = e.index + e[0].length;
    PEM_END.lastIndex = floor;
    end = PEM_END.exec(text);
  };
  let covered = 0;
  PEM_BEGIN.lastIndex = 0;
  for (let m = PEM_BEGIN.exec(text); m !== null; m = PEM_BEGIN.exec(text)) {
    const begin = m.index;
    if (begin < covered) continue;
    while (end !== null && end.index < begin) nextEnd(true);
    if (end !== null && end.index - begin <= PEM_MAX_CHARS) {
      covered = end.index + end[0].length;
      add(begin, covered);
      nextEnd(false);
      PEM_BEGIN.lastIndex = covered;
      continue;
    }
    if (partial && text.length - begin <= PEM_MAX_CHARS + PEM_MARKER_MAX) {
      // Its END may still come.
      pending = Math.min(pending, begin);
    }
    let at = begin + m[0].length;
    for (let n = 0; n < PEM_MAX_LINES && at < text.length; n++) {
      const nl = text[at] === "\r" && text[at + 1] === "\n" ? at + 1 : at;
      if (text[nl] !== "\n") break;
      const next = text.indexOf("\n", nl + 1);
      const lineEnd = next === -1 ? text.length : next;
      if (!PEM_BODY_LINE.test(text.slice(nl + 1, lineEnd))) break;
      at = lineEnd;
    }
    if (partial && at >= text.length - 1) pending = Math.min(pending, begin);
    add(begin, at);
    covered = at;
    PEM_BEGIN.lastIndex = Math.max(PEM_BEGIN.lastIndex, covered);
  }
  while (end !== null) nextEnd(true);
  return pending;
}

/** A line that looks like a line of a key's body: base64, no spaces. */
const KEY_LINE = /^[A-Za-z0-9+/=]{1,100}\r?$/;
/** A key's body has lines this long (64 characters, in PEM). */
const KEY_LINE_MIN = 40;

/**
 * Where the complete lines at the end of `text` start, if they look like the
 * body of a key (base64 lines, one of them 40 characters or more, at most
 * PEM_MAX_LINES): an `END` line that follows would hide them, so a stream
 * holds them. Else the text length.
 */
function keyBody(text: string): number {
  let end = text.lastIndexOf("\n");
  let start = text.length;
  let long = false;
  for (let n = 0; n < PEM_MAX_LINES && end > 0; n++) {
    let prev = end - 1;
    while (prev >= 0 && end - prev <= 102 && text[prev] !== "\n") prev--;
    if (prev >= 0 && text[prev] !== "\n") break; // too long
    const line = text.slice(prev + 1, end);
    if (!KEY_LINE.test(line)) break;
    long ||= line.length >= KEY_LINE_MIN;
    start = prev + 1;
    end = prev;
  }
  return long ? start : text.length;
}

/** Whether a complete line of `text` does not look like a line of a key's body. */
function endsKeyBody(text: string): boolean {
  const lines = text.split("\n");
  lines.pop();
  return lines.some((line) => !KEY_LINE.test(line));
}

// ---------------------------------------------------------------------------
// URL credentials.

/** The longest scheme and userinfo looked at. */
const SCHEME_MAX = 32;
const USER_MAX = 256;
const USERINFO_MAX = 1024;

/**
 * Adds the passwords of URLs' userinfo. For each `://`: the scheme before it,
 * the user up to the first `:`, the password up to the last `@` before a
 * space, a quote, `<` or `>` (at most USERINFO_MAX characters on). Linear:
 * the end of each run and its `@`s are found once.
 */
function urlSpans(text: string, spans: Spans): void {
  let runEnd = -1;
  let ats: number[] = [];
  let consumed = 0;
  for (
    let at = text.indexOf("://");
    at !== -1;
    at = text.indexOf("://", at + 3)
  ) {
    if (at < consumed) continue;
    let s = at;
    while (
      s > 0 && at - s < SCHEME_MAX && isSchemeChar(text.charCodeAt(s - 1))
    ) s--;
    while (s < at && !isAlpha(text.charCodeAt(s))) s++;
    if (s === at) continue;
    const u = at + 3;
    let i = u;
    while (
      i < text.length && i - u < USER_MAX && isUserChar(text.charCodeAt(i))
    ) i++;
    const c = text.charCodeAt(i);
    if (c === COLON) {
      if (u >= runEnd) {
        runEnd = u;
        while (runEnd < text.length && !isBreak(text.charCodeAt(runEnd))) {
          runEnd++;
        }
        ats = [];
        for (
          let a = text.indexOf("@", u);
          a !== -1 && a < runEnd;
          a = text.indexOf("@", a + 1)
        ) {
          ats.push(a);
        }
      }
      const limit = Math.min(runEnd, u + USERINFO_MAX);
      const last = lastBelow(ats, limit);
      if (last <= i) continue;
      const password = text.slice(i + 1, last);
      if (/^\d{1,5}[/?#]/.test(password) && i > u) continue; // host:port/path@x
      if (password !== "" && !isPlaceholder(password)) {
        spans.add(s, i + 1, last, "url-credentials", RANK_URL);
        consumed = last + 1;
      }
    } else if (c === AT && i - u >= 16) {
      const user = text.slice(u, i);
      if (/^[A-Za-z0-9._~%!$&()*+,;=-]+$/.test(user) && /\d/.test(user)) {
        spans.add(s, u, i, "url-credentials", RANK_URL);
        consumed = i + 1;
      }
    }
  }
}

/** The last of the ascending `list` below `limit`, else -1. */
function lastBelow(
  list: ArrayLike<number>,
  limit: number,
): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? -1 : list[lo - 1];
}

const COLON = 58;
const AT = 64;

function isAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isSchemeChar(c: number): boolean {
  return isAlpha(c) || isDigit(c) || c === 43 || c === 45 || c === 46;
}

/** A character of a URL's user name: none of space, `:/@?#[]`, quotes, `<>`. */
function isUserChar(c: number): boolean {
  return !isBreak(c) && c !== COLON && c !== 47 && c !== AT && c !== 63 &&
    c !== 35 && c !== 91 && c !== 93;
}

/** A character no token holds: white space, a quote, `<` or `>`. */
function isBreak(c: number): boolean {
  return c <= 32 || c === 34 || c === 39 || c === 96 || c === 60 ||
    c === 62 || c === 0x85 || c === 0xa0 || c === 0x2028 || c === 0x2029;
}

function isLineBreak(c: number): boolean {
  return c === 10 || c === 13;
}

/** The index of the last line break before `end` and at most `max` characters back, else -1. */
function lastBreak(text: string, end: number, max = end): number {
  for (let i = end - 1; i >= 0 && i >= end - max; i--) {
    if (isLineBreak(text.charCodeAt(i))) return i;
  }
  return -1;
}

// ---------------------------------------------------------------------------
// Assignments.

/** Words that may make a name a secret: the quick test before the closer one. */
const HINT = /pass|pwd|secret|token|auth|private|key|credential/i;
/** The longest name looked at. */
const NAME_MAX = 100;

const SECRET_SEGMENTS = new Set([
  "SECRET",
  "TOKEN",
  "PASSWORD",
  "PASSWD",
  "PASS",
  "PWD",
  "PASSPHRASE",
  "CREDENTIAL",
  "CREDENTIALS",
  "AUTH",
  "AUTHORIZATION",
  "PRIVATE",
  "APIKEY",
]);

/** Last segments of names that describe a secret without holding it. */
const NOT_SECRET_LAST = new Set([
  "FILE",
  "PATH",
  "DIR",
  "SOCK",
  "URL",
  "URI",
  "ID",
  "NAME",
  "TYPE",
  "COUNT",
  "LENGTH",
  "TTL",
  "EXPIRY",
  "EXPIRES",
  "TIMEOUT",
  "ENABLED",
]);

/** Words that make KEY a public key, a path or a data structure's key. */
const NOT_SECRET_KEYS = new Set([
  "PUBLIC",
  "PUB",
  "PUBLISHABLE",
  "PATH",
  "SORT",
  "PRIMARY",
  "FOREIGN",
  "PARTITION",
  "CACHE",
  "ROUTING",
  "IDEMPOTENCY",
  "HOT",
  "SHORTCUT",
  "LOOKUP",
]);

const SEGMENT_SPLIT =
  /[_.-]+|(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])/;

const nameCache = new Map<string, boolean>();

/** True when a variable or key name reads as holding a secret (see the module documentation). */
function isSecretName(name: string): boolean {
  let known = nameCache.get(name);
  if (known === undefined) {
    if (nameCache.size > 1000) nameCache.clear();
    known = secretName(name);
    nameCache.set(name, known);
  }
  return known;
}

function secretName(name: string): boolean {
  const upper = name.toUpperCase();
  // PWD is a directory; PASS alone is a test runner's verdict (`PASS:
  // src/a.test.ts`), only a compound (DB_PASS) names a password.
  if (upper === "PWD" || upper === "OLDPWD" || upper === "PASS") return false;
  const segments = name.split(SEGMENT_SPLIT).filter((s) => s !== "").map((
    s,
  ) => s.toUpperCase());
  if (segments.length === 0) return false;
  if (NOT_SECRET_LAST.has(segments[segments.length - 1])) return false;
  if (segments.some((s) => SECRET_SEGMENTS.has(s))) return true;
  if (/(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN)$/.test(upper)) return true;
  return segments.length > 1 && segments.includes("KEY") &&
    !segments.some((s) => NOT_SECRET_KEYS.has(s));
}

/** True for a value that stands for a secret without being one. */
function isPlaceholder(value: string): boolean {
  const v = value.trim();
  if (v === "" || v.includes("[REDACTED")) return true;
  if (v.length > 200) return false;
  return /^(?:true|false|yes|no|on|off|null|none|nil|undefined)$/i.test(v) ||
    /^\*+$/.test(v) || /^x{3,}(?:[-_ ]x+)*$/i.test(v) ||
    /^<[^<>]*>$/.test(v) || /^\$\{[^}]*\}$/.test(v) || v.startsWith("$(") ||
    /^\$[A-Za-z_][A-Za-z0-9_]*$/.test(v) || /^\{\{[^]*\}\}$/.test(v);
}

/** An `Authorization` scheme, kept before the credential. */
const AUTH_SCHEME =
  /^(?:Bearer|Basic|Token|Digest|Negotiate|NTLM|Bot|OAuth|ApiKey|AWS4-HMAC-SHA256)[ \t]+(?=\S)/i;

function isNameChar(c: number): boolean {
  return isAlpha(c) || isDigit(c) || c === 95 || c === 46 || c === 45;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9;
}

/** True when only indentation and a `- `, `> ` or `< ` lie between the line's start and `at`. */
function atLineStart(text: string, at: number, midLine: boolean): boolean {
  let j = at;
  const floor = Math.max(0, at - 64);
  while (j > floor && isSpace(text.charCodeAt(j - 1))) j--;
  const c = text.charCodeAt(j - 1);
  if (j > 0 && (c === 45 || c === 62 || c === 60) && j < at) {
    j--;
    while (j > floor && isSpace(text.charCodeAt(j - 1))) j--;
  }
  return j === 0 ? !midLine : isLineBreak(text.charCodeAt(j - 1));
}

/** The end of an unquoted value: before punctuation after it and brackets it did not open. */
function tokenEnd(text: string, start: number, end: number): number {
  const body = text.slice(start, end);
  let strip = ",;";
  for (const [o, c] of ["()", "[]", "{}"]) {
    if (!body.includes(o)) strip += c;
  }
  while (end > start && strip.includes(text[end - 1])) end--;
  return end;
}

/**
 * Adds the values of assignments whose name reads as a secret. Each `=` and
 * `:` leads to the name before it (a bounded walk back, that stops at the
 * `ends` of secrets found before) and the value after it; the scan goes on
 * after the value, so each character is looked at a bounded number of times.
 */
function assignmentSpans(
  text: string,
  spans: Spans,
  endsOf: () => Float64Array,
  partial: boolean,
  midLine: boolean,
): { pending: number; open: Open | null } {
  const len = text.length;
  let pending = len;
  let open: Open | null = null;
  const wait = (from: number, valueStart = -1, until: Until = "eol") => {
    if (!partial) return;
    if (from < pending) pending = from;
    if (valueStart !== -1 && open === null) open = { from, valueStart, until };
  };
  let eq = text.indexOf("=");
  let colon = text.indexOf(":");
  let ends: Float64Array | undefined;
  while (eq !== -1 || colon !== -1) {
    let at: number;
    if (colon === -1 || (eq !== -1 && eq < colon)) {
      at = eq;
      eq = text.indexOf("=", at + 1);
    } else {
      at = colon;
      colon = text.indexOf(":", at + 1);
    }
    // The name before the separator, maybe quoted, maybe spaced.
    let ne = at;
    while (ne > 0 && at - ne < 16 && isSpace(text.charCodeAt(ne - 1))) ne--;
    const spaced1 = ne < at;
    const q = text[ne - 1];
    const quote = q === '"' || q === "'" ? q : "";
    if (quote !== "") ne--;
    let ns = ne;
    while (
      ns > 0 && ne - ns <= NAME_MAX && isNameChar(text.charCodeAt(ns - 1))
    ) {
      ns--;
    }
    // A name starts where a secret found before ends: once that is a
    // marker, the name is what follows it.
    ends ??= endsOf();
    const after = lastBelow(ends, ne + 1);
    if (after > ns) ns = after;
    if (ns === ne || ne - ns > NAME_MAX || (ns === 0 && midLine)) continue;
    if (quote !== "" && text[ns - 1] !== quote) continue;
    let nameStart = ns;
    while (nameStart < ne && "-.".includes(text[nameStart])) nameStart++;
    let nameEnd = ne;
    while (nameEnd > nameStart && "-.".includes(text[nameEnd - 1])) nameEnd--;
    const c0 = text.charCodeAt(nameStart);
    if (nameEnd <= nameStart || !(isAlpha(c0) || c0 === 95)) continue;
    const name = text.slice(nameStart, nameEnd);
    if (!HINT.test(name) || !isSecretName(name)) continue;
    const from = quote !== "" ? ns - 1 : nameStart;
    /** The character before an unquoted name: a quote it is in, or `?`/`&` of a query. */
    const before = quote === "" && ns > 0 ? text[ns - 1] : "";
    const inQuote = before === '"' || before === "'" || before === "`"
      ? before
      : "";
    // The separator.
    if (at + 1 >= len) {
      wait(from);
      continue;
    }
    let sep: string;
    if (text[at] === "=") {
      const n = text[at + 1];
      if (n === "=" || n === ">" || n === "~") continue;
      sep = "=";
      at++;
    } else {
      const n = text[at + 1];
      if (n === ":") continue;
      sep = n === "=" ? ":=" : ":";
      at += sep.length;
    }
    const ws2 = at;
    while (at < len && at - ws2 < 16 && isSpace(text.charCodeAt(at))) at++;
    const spaced2 = at > ws2;
    if (at === len) {
      wait(from);
      continue;
    }
    // The value.
    const v = text[at];
    let start: number;
    let end: number;
    /** How far the value was looked at (before trimming it). */
    let scanned: number;
    if (v === '"' || v === "'" || v === "`") {
      // The quote that closes a string the name is in (`"Password: "`)
      // opens no value.
      if (v === inQuote) continue;
      start = at + 1;
      end = start;
      while (
        end < len && text[end] !== v && !isLineBreak(text.charCodeAt(end))
      ) {
        end += text[end] === "\\" && v !== "'" && end + 1 < len ? 2 : 1;
      }
      if (end >= len) {
        end = len;
        wait(from, start, v);
      }
      scanned = end;
      if (
        text[end] !== v && quote === "" && !(sep === "=" && !spaced1) &&
        !atLineStart(text, from, midLine)
      ) {
        // A quote that is not closed on its line opens a value (cut short)
        // only after a quoted name, `NAME=` or at the start of a line:
        // elsewhere it more likely closes a string (`f("PASS:")`).
        continue;
      }
    } else if (quote !== "") {
      // JSON or a dict: a scalar.
      start = at;
      end = start;
      while (
        end < len && !isBreak(text.charCodeAt(end)) &&
        !",}]".includes(text[end])
      ) end++;
      if (end === len) wait(from, start, "token");
      scanned = end;
      if (v === "{" || v === "[") end = start;
    } else if (sep === "=" && !spaced1 && !spaced2) {
      // NAME=value: up to white space or a quote; in a query, up to `&` or `#`.
      const query = before === "?" || before === "&";
      start = at;
      end = start;
      while (
        end < len && !isBreak(text.charCodeAt(end)) &&
        !(query && (text[end] === "&" || text[end] === "#"))
      ) end++;
      if (end === len) wait(from, start, "token");
      scanned = end;
      end = tokenEnd(text, start, end);
    } else if (
      sep === ":" && spaced2 &&
      (inQuote !== "" || atLineStart(text, from, midLine))
    ) {
      // YAML or a header line: the rest of the line, or up to the quote it is in.
      start = at;
      end = start;
      while (
        end < len && !isLineBreak(text.charCodeAt(end)) && text[end] !== inQuote
      ) end++;
      if (end === len) {
        wait(from, start, inQuote === "" ? "eol" : (inQuote as Until));
      }
      scanned = end;
      if (inQuote === "") {
        const comment = text.slice(start, end).search(/[ \t]#/);
        if (comment !== -1) end = start + comment;
      }
      while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
      const last = text[end - 1];
      if (
        ";,{([".includes(last) || /^[|>][-+]?$/.test(text.slice(start, end))
      ) end = start;
    } else if (
      sep === ":" && spaced2 && AUTH_SCHEME.test(text.slice(at, at + 40))
    ) {
      // `Authorization: Bearer x` inside a line: the credential after its scheme.
      start = at;
      end = at + AUTH_SCHEME.exec(text.slice(at, at + 40))![0].length;
      while (end < len && !isBreak(text.charCodeAt(end))) end++;
      if (end === len) wait(from, start, "token");
      scanned = end;
      end = tokenEnd(text, start, end);
    } else {
      continue;
    }
    // Go on after all that was looked at as the value (trimmed or not): what
    // it holds is hidden or known not to be, and a second redaction, which
    // may see a longer line (a secret that spans lines is one marker then),
    // looks at no more of it.
    if (eq !== -1 && eq < scanned) eq = text.indexOf("=", scanned);
    if (colon !== -1 && colon < scanned) colon = text.indexOf(":", scanned);
    const scheme = AUTH_SCHEME.exec(text.slice(start, start + 40));
    if (scheme !== null) start += scheme[0].length;
    if (end <= start || isPlaceholder(text.slice(start, end))) continue;
    spans.add(from, start, end, "secret-assignment", RANK_ASSIGNMENT);
  }
  return { pending, open };
}

// ---------------------------------------------------------------------------
// Redactors.

/**
 * What a redactor made by {@linkcode redactor} tells {@linkcode redactStream}:
 * how long a sensitive value may be, and the scan itself, which says where a
 * secret may still be growing at the end of a text.
 */
interface Profile {
  /** The longest sensitive value. */
  readonly maxValue: number;
  /** Scans a text with the redactor's environment. */
  scan(
    text: string,
    partial: boolean,
    midLine: boolean,
    before: readonly number[],
  ): Scan;
}

/**
 * Where a redactor keeps its {@linkcode Profile} (a property keyed by a
 * registered symbol, so copies of this module share it); a function without
 * one is redacted as an opaque function.
 */
const PROFILE: unique symbol = Symbol.for("bashbox.redact.profile") as never;

/**
 * A redactor bound to an environment, for `BashTool`'s `redact` option: the
 * environment is read once, here. The function it returns also tells
 * {@linkcode redactStream} how far back a secret can reach, so streams
 * redacted with it are exact and need little lookbehind.
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
  const secrets = envSecrets(env);
  const redact = (text: string): string => {
    if (typeof text !== "string") {
      throw new TypeError(`Expected text to be a string, got ${typeof text}`);
    }
    return render(text, scan(text, secrets, false).spans);
  };
  const profile: Profile = {
    maxValue: secrets.reduce((n, s) => Math.max(n, s.value.length), 0),
    scan: (text, partial, midLine, before) =>
      scan(text, secrets, partial, midLine, before),
  };
  Object.defineProperty(redact, PROFILE, { value: profile });
  return redact;
}

function profileOf(redact: (text: string) => string): Profile | undefined {
  return (redact as unknown as { [PROFILE]?: Profile })[PROFILE];
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

// ---------------------------------------------------------------------------
// Streams.

/** A redactor that works on a stream of text, chunk by chunk. */
export interface StreamRedactor {
  /** Takes the next chunk; returns the redacted text that is safe to emit so far. */
  push(text: string): string;
  /** Ends the stream; returns the redacted rest. */
  flush(): string;
}

/** Text held back at most, when no safe point comes (a huge secret value). */
const STREAM_HOLD = 256 * 1024;
/** Held text past which a partial sensitive value is looked at again only as the text doubles. */
const LAZY_HOLD = 64 * 1024;
/**
 * Text of the current line kept after it was emitted, as context for what
 * follows: longer than a name with its separator, and than any token but a
 * JWT, so that a scan that starts inside a line sees what a scan of the
 * whole line would.
 */
const STREAM_CONTEXT = 512;

/**
 * Redacts a stream chunk by chunk with `redact`, so that a secret split
 * between chunks is still found and never partly emitted.
 *
 * With a redactor made by {@linkcode redactor}, the stream knows the rules:
 * it emits everything up to the earliest point where a secret may still be
 * growing (a partial token, an assignment whose line has not ended, a
 * private key without its `END`, lines that look like a key's body and may
 * be followed by its `END`, the start of a sensitive value, multi-line ones
 * included), with the rest of the current line kept as context, so that:
 * - its output equals `redact` of the whole text (a lone `END` line hides
 *   only the body lines still held: those that look like base64);
 * - a complete line is emitted on the push that completes it, unless a
 *   secret may still be coming; a short partial line waits for its end, a
 *   long one is emitted up to 16 KiB before its end (less where spaces are);
 * - the work is linear in the text: the held text is scanned again only when
 *   a line ends, an `END` line comes or the held text has doubled.
 *
 * An assignment value longer than 256 KiB is emitted as its marker and the
 * rest of it is dropped.
 *
 * With any other function, the stream holds the last, partial line (up to
 * 16 KiB of a longer line, cut at white space) and redacts whole lines; it
 * cuts inside a long line only where `redact` of the held text agrees with
 * `redact` of the part before the cut. It cannot know of secrets that span
 * lines.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactor, redactStream } from "./redact.ts";
 *
 * const stream = redactStream(redactor());
 * assert.equal(stream.push("build ok\nkey AKIAABCDEFGH"), "build ok\n");
 * assert.equal(stream.push("IJKLMNOP\n"), "key [REDACTED:aws-access-key]\n");
 * assert.equal(stream.flush(), "");
 * ```
 */
export function redactStream(redact: (text: string) => string): StreamRedactor {
  if (typeof redact !== "function") {
    throw new TypeError(
      `Expected redact to be a function, got ${typeof redact}`,
    );
  }
  const profile = profileOf(redact);
  return profile === undefined ? lineStream(redact) : spanStream(profile);
}

function hasLineBreak(text: string): boolean {
  return text.includes("\n") || text.includes("\r");
}

/** The stream of a redactor whose rules are known. */
function spanStream(profile: Profile): StreamRedactor {
  /** Held text past which the stream gives up waiting (room for a whole sensitive value). */
  const hold = Math.max(STREAM_HOLD, 2 * profile.maxValue + TOKEN_MAX);
  let held = "";
  /** The emitted text of the current line (at most STREAM_CONTEXT). */
  let context = "";
  /** Whether the context was cut short, so it starts inside the line. */
  let midLine = false;
  /** Where secrets end in the context. */
  let ends: number[] = [];
  /** What ends a value whose marker was emitted and whose rest is dropped. */
  let swallow: Until | null = null;
  /** Held length at which to try again even without a line break. */
  let due = 0;
  /**
   * A private key waits for its `END` (or a long multi-line value for its
   * rest): a line break alone does not help, an `END` line or `due` does.
   */
  let lazy = false;
  /** What is held looks like the body of a key: a line that does not, or its `END`, helps. */
  let body = false;

  const drop = (text: string): string => {
    let i = 0;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (
        swallow === "eol"
          ? isLineBreak(c)
          : swallow === "token"
          ? isBreak(c)
          : text[i] === swallow || isLineBreak(c)
      ) break;
    }
    if (i === text.length) return "";
    swallow = null;
    context = "";
    ends = [];
    midLine = true;
    return text.slice(i);
  };

  const emit = (final: boolean): string => {
    const window = context + held;
    const base = context.length;
    const found = profile.scan(window, !final, midLine, ends);
    let cut = window.length;
    if (!final) {
      cut = found.pending;
      // A short partial line waits for its end.
      const brk = lastBreak(window, window.length, LONG_LINE + 1);
      if (brk !== -1 || window.length <= LONG_LINE) {
        cut = Math.min(cut, brk + 1);
      }
      cut = outside(found.spans, cut);
      if (cut < base) cut = base;
      if (window.length - cut > hold) {
        const open = found.open;
        if (open !== null && open.valueStart >= cut) {
          // A value too long to hold: its marker now, the rest dropped.
          const out = render(window, found.spans, base, open.valueStart) +
            "[REDACTED:secret-assignment]";
          swallow = open.until;
          held = "";
          context = "";
          ends = [];
          midLine = true;
          due = 0;
          lazy = false;
          body = false;
          return out;
        }
        // Nothing else grows this long; should it, cut TOKEN_MAX before the
        // end (or before a partial value or key), after any secret that
        // holds that point.
        cut = Math.min(
          window.length - TOKEN_MAX,
          found.pendingEnv,
          found.pendingKey,
        );
        const spans = found.spans;
        const order = Array.from({ length: spans.length }, (_, i) => i)
          .sort((a, b) => spans.from(a) - spans.from(b));
        for (const i of order) {
          if (spans.from(i) < cut && cut < spans.end(i)) cut = spans.end(i);
        }
      }
    }
    const out = render(window, found.spans, base, cut);
    // The context: the emitted part of the current line, at most
    // STREAM_CONTEXT, with where secrets end in it.
    const brk = lastBreak(
      window,
      cut,
      Math.min(cut - base, STREAM_CONTEXT + 1),
    );
    let from = 0; // the old context goes on
    if (brk !== -1) {
      from = brk + 1;
      midLine = false;
    }
    if (cut - from > STREAM_CONTEXT) {
      from = cut - STREAM_CONTEXT;
      midLine = true;
    }
    context = window.slice(from, cut);
    const kept = new Set<number>();
    for (const e of ends) if (e >= from && e <= cut) kept.add(e - from);
    for (let i = 0; i < found.spans.length; i++) {
      const e = found.spans.end(i);
      if (e >= from && e <= cut) kept.add(e - from);
    }
    ends = [...kept];
    held = window.slice(cut);
    due = held.length + Math.max(LONG_LINE, held.length);
    body = found.pendingBody < window.length;
    lazy = body || found.pendingKey < window.length ||
      (found.pendingEnv < window.length && held.length > LAZY_HOLD);
    return out;
  };

  return {
    push(text: string): string {
      if (typeof text !== "string") {
        throw new TypeError(`Expected text to be a string, got ${typeof text}`);
      }
      if (swallow !== null) text = drop(text);
      if (text === "") return "";
      const before = held.length;
      held += text;
      const now = held.length >= due ||
        (lazy
          ? held.indexOf("-----", Math.max(0, before - 4)) !== -1 ||
            (body &&
              endsKeyBody(held.slice(held.lastIndexOf("\n", before - 1) + 1)))
          : hasLineBreak(text));
      return now ? emit(false) : "";
    },
    flush(): string {
      const out = swallow !== null || held === "" ? "" : emit(true);
      held = "";
      context = "";
      ends = [];
      midLine = false;
      swallow = null;
      due = 0;
      lazy = false;
      body = false;
      return out;
    },
  };
}

/**
 * The latest cut at or before `cut` that lies inside no span's `[from, end)`:
 * overlapping ranges are merged first, so the start of the merged range that
 * holds `cut` lies inside none.
 */
function outside(spans: Spans, cut: number): number {
  const order: number[] = [];
  for (let i = 0; i < spans.length; i++) {
    if (spans.from(i) < cut) order.push(i);
  }
  order.sort((a, b) => spans.from(a) - spans.from(b));
  let from = -1;
  let end = -1;
  for (const i of order) {
    if (spans.from(i) < end) {
      end = Math.max(end, spans.end(i));
    } else {
      from = spans.from(i);
      end = spans.end(i);
    }
  }
  return from < cut && cut < end ? from : cut;
}

/** The stream of a redactor whose rules are not known: whole lines, and long lines where `redact` agrees. */
function lineStream(redact: (text: string) => string): StreamRedactor {
  let held = "";
  let due = 0;
  return {
    push(text: string): string {
      if (typeof text !== "string") {
        throw new TypeError(`Expected text to be a string, got ${typeof text}`);
      }
      held += text;
      if (!hasLineBreak(text) && held.length < due) return "";
      let cut = lastBreak(held, held.length) + 1;
      let out = "";
      if (held.length - cut > TOKEN_MAX) {
        // A long line: cut TOKEN_MAX before its end, at white space if near.
        let mid = held.length - TOKEN_MAX;
        for (let i = mid; i > Math.max(cut, mid - 4096); i--) {
          if (isBreak(held.charCodeAt(i - 1))) {
            mid = i;
            break;
          }
        }
        const part = redact(held.slice(0, mid));
        if (held.length > STREAM_HOLD || redact(held).startsWith(part)) {
          out = part;
          cut = mid;
        } else if (cut > 0) {
          out = redact(held.slice(0, cut));
        }
      } else if (cut > 0) {
        out = redact(held.slice(0, cut));
      }
      held = held.slice(cut);
      due = held.length + Math.max(LONG_LINE, held.length);
      return out;
    },
    flush(): string {
      const out = held === "" ? "" : redact(held);
      held = "";
      due = 0;
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
 * const command = "deploy --token sk-ant-api03-abcdefghijklmnopqrstuvwxyz now";
 * const reason = "deploy is denied: deploy --token sk-ant-api03-abcdefgh…";
 * assert.equal(
 *   redactQuoted(reason, [command], redactor()),
 *   "deploy is denied: deploy --token [REDACTED]…",
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
