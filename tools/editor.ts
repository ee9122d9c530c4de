/**
 * The client side of Anthropic's text editor tool (`text_editor_20250728`,
 * named `str_replace_based_edit_tool`), carried out through a
 * {@linkcode BashSession}: every read and write runs as a command of the same
 * shell the `bash` tool uses, so edits land where the commands run — on the
 * host, inside a bubblewrap sandbox, or at the far end of an ssh, docker or
 * kubectl transport.
 *
 * {@linkcode EditorTool} answers `tool_use` blocks with `tool_result` blocks;
 * {@linkcode runnableEditorTool} plugs it into the official SDK's tool runner
 * beside `runnableBashTool`; {@linkcode answerToolUses} answers one assistant
 * message for several tools in order.
 *
 * How content moves: a file is read as raw bytes from the command's stdout
 * (binary-safe, never re-encoded by the shell) and written as base64 in a
 * quoted here-document to a temporary file beside the target, which then
 * replaces the target by `mv` (atomic on one file system) after its mode and
 * owner were copied and its checksum was found unchanged since the read. Large
 * files are written in several commands of about 1 MiB each. Nothing the
 * model sent is ever part of the shell syntax except as single-quoted words.
 *
 * @module
 */

import { runnableMembers } from "./_runnable.ts";
import type { AuditSink } from "../egress/audit.ts";
import type { EditorPolicy, ToolUseLike } from "./types.ts";
import { DEFAULT_MAX_CHARS, type ToolResultBlock } from "../egress/format.ts";
import { cutText, describeValue, Egress, messageOf } from "../egress/egress.ts";
import { ToolPipeline, toolUsesOf } from "./pipeline.ts";
import { shellQuote } from "../core/_protocol.ts";
import {
  BashSession,
  type BashSessionOptions,
  type SessionResult,
} from "../core/session.ts";
export type { Containment } from "../core/containment.ts";

export type * from "../core/_session_types.ts";
export type {
  CommandPolicy,
  EditorPolicy,
  PolicyDecision,
  ToolUseLike,
} from "./types.ts";
export type {
  AuditEnd,
  AuditRecord,
  AuditSink,
  AuditStart,
} from "../egress/audit.ts";
export type { ToolResultBlock } from "../egress/format.ts";

/**
 * The tool definition to send in `tools`: Anthropic's schema-less text editor
 * tool. {@linkcode EditorTool.definition} adds the `max_characters` it applies.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TEXT_EDITOR_TOOL } from "./editor.ts";
 *
 * assert.equal(TEXT_EDITOR_TOOL.type, "text_editor_20250728");
 * assert.equal(TEXT_EDITOR_TOOL.name, "str_replace_based_edit_tool");
 * ```
 */
export const TEXT_EDITOR_TOOL: {
  readonly type: "text_editor_20250728";
  readonly name: "str_replace_based_edit_tool";
} = {
  type: "text_editor_20250728",
  name: "str_replace_based_edit_tool",
};

/** The editor's tool definition with the `max_characters` it applies. */
export interface EditorToolDefinition {
  /** The tool type. */
  type: "text_editor_20250728";
  /** The tool name. */
  name: "str_replace_based_edit_tool";
  /** Most characters a `view` shows. */
  max_characters: number;
}

/** Options for {@linkcode EditorTool}. */
export interface EditorToolOptions {
  /** The session to work through (not closed by the tool), e.g. a `BashTool`'s; default: a new one it owns. */
  session?: BashSession;
  /** Options for the session the tool creates. */
  sessionOptions?: BashSessionOptions;
  /** Most characters a `view` shows, cut in the middle like bash output (default 30000, at least 100). */
  maxCharacters?: number;
  /** Largest file the editor reads or writes, in bytes (default 32 MiB). */
  maxFileBytes?: number;
  /**
   * Directories the editor may read and write below, resolved through the
   * session after symlinks (so a link pointing out of them is refused).
   * Default: anywhere.
   */
  roots?: readonly string[];
  /**
   * Judges each call as the equivalent command: `cat 'PATH'` for `view`,
   * `tee 'PATH'` for `create`, `str_replace` and `insert`. A policy with
   * `readOnlyPreset` (`Policy.readOnly()`) refuses every write whatever it
   * says about `tee`.
   */
  policy?: EditorPolicy;
  /** Answers `ask` decisions (default: refuse). */
  onAsk?: (command: string, reason: string) => boolean | Promise<boolean>;
  /** Applied to everything the model and the audit see (e.g. `redactSecrets`). */
  redact?: (text: string) => string;
  /** Receives a record before each call and one after, with SHA-256 hashes of the content, never the content. */
  audit?: AuditSink;
  /** Names the session in audit records (default: a random UUID). */
  sessionId?: string;
  /** Deadline of each shell command the editor runs (default: the session's). */
  timeoutMs?: number;
  /** Let `create` replace an existing file (default false: refused, as the reference client does). */
  overwrite?: boolean;
}

/** The text editor's commands (`undo_edit` is not part of `text_editor_20250728`). */
type Command =
  | { command: "view"; path: string; viewRange?: [number, number] }
  | { command: "create"; path: string; fileText: string }
  | { command: "str_replace"; path: string; oldStr: string; newStr: string }
  | { command: "insert"; path: string; insertLine: number; text: string };

const COMMANDS = ["view", "create", "str_replace", "insert"] as const;
const DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024;
/** Bytes of content per write command (about 1.4 MB of base64). */
const WRITE_CHUNK_BYTES = 1024 * 1024;
/** Lines shown before and after an edit. */
const SNIPPET_LINES = 4;
const SHOWN_INPUT_CHARS = 300;

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", {
  fatal: true,
  ignoreBOM: true,
});
const looseDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** An error the model is told about (the `tool_result` text after "Error: "). */
class EditError extends Error {}

/** What the editor records beyond the common audit fields. */
interface EditAuditFields {
  tool: "str_replace_based_edit_tool";
  editCommand: string;
  path: string;
  resolvedPath?: string;
  beforeSha256?: string | null;
  afterSha256?: string | null;
  bytesBefore?: number | null;
  bytesAfter?: number | null;
}

/** The outcome of one command, before redaction. */
interface Outcome {
  content: string;
  isError: boolean;
  audit: Partial<EditAuditFields>;
}

// ---------------------------------------------------------------------------
// Input.

const INPUT_SHAPE =
  `{"command": "view" | "create" | "str_replace" | "insert", "path": string, ...}`;

/** Describes a value of the model's input for an error message (redacted, then cut). */
type Echo = (value: unknown) => string;

function requireString(
  echo: Echo,
  input: Record<string, unknown>,
  key: string,
  command: string,
): string {
  const value = input[key];
  if (value === undefined || value === null) {
    throw new EditError(
      `Parameter \`${key}\` is required for command: ${command}`,
    );
  }
  if (typeof value !== "string") {
    throw new EditError(
      `Expected \`${key}\` to be a string, got ${echo(value)}`,
    );
  }
  return value;
}

/** Checks the model's input and returns the command, or throws an EditError. */
function parseInput(input: unknown, echo: Echo): Command {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new EditError(
      `Expected input ${INPUT_SHAPE}, got ${echo(input)}`,
    );
  }
  const o = input as Record<string, unknown>;
  const command = o.command;
  if (typeof command !== "string") {
    throw new EditError(
      `Expected input ${INPUT_SHAPE}, got ${echo(input)}`,
    );
  }
  if (!(COMMANDS as readonly string[]).includes(command)) {
    throw new EditError(
      `Unrecognized command ${command}. The allowed commands for the ${TEXT_EDITOR_TOOL.name} tool are: ${
        COMMANDS.join(", ")
      }`,
    );
  }
  const path = requireString(echo, o, "path", command);
  if (path === "") {
    throw new EditError(
      `Parameter \`path\` is required for command: ${command}`,
    );
  }
  if (path.includes("\0")) {
    throw new EditError("Expected a path without NUL bytes");
  }
  switch (command) {
    case "view": {
      const range = o.view_range;
      if (range === undefined || range === null) return { command, path };
      if (
        !Array.isArray(range) || range.length !== 2 ||
        !range.every((n) => Number.isInteger(n))
      ) {
        throw new EditError(
          `Invalid \`view_range\`. It should be a list of two integers, got ${
            echo(range)
          }`,
        );
      }
      return { command, path, viewRange: [range[0], range[1]] };
    }
    case "create":
      return {
        command,
        path,
        fileText: requireString(echo, o, "file_text", command),
      };
    case "str_replace": {
      const oldStr = requireString(echo, o, "old_str", command);
      const newStr = o.new_str ?? "";
      if (typeof newStr !== "string") {
        throw new EditError(
          `Expected \`new_str\` to be a string, got ${echo(newStr)}`,
        );
      }
      return { command, path, oldStr, newStr };
    }
    default: {
      const line = o.insert_line;
      if (line === undefined || line === null) {
        throw new EditError(
          "Parameter `insert_line` is required for command: insert",
        );
      }
      if (!Number.isInteger(line)) {
        throw new EditError(
          `Expected \`insert_line\` to be a whole number, got ${echo(line)}`,
        );
      }
      const a = o.insert_text;
      const b = o.new_str;
      for (const [key, v] of [["insert_text", a], ["new_str", b]] as const) {
        if (v !== undefined && v !== null && typeof v !== "string") {
          throw new EditError(
            `Expected \`${key}\` to be a string, got ${echo(v)}`,
          );
        }
      }
      if (typeof a === "string" && typeof b === "string" && a !== b) {
        throw new EditError(
          "Expected the text to insert in one parameter, got `insert_text` and `new_str` with different values",
        );
      }
      const text = typeof a === "string" ? a : b;
      if (typeof text !== "string") {
        throw new EditError(
          "Parameter `insert_text` (or `new_str`) is required for command: insert",
        );
      }
      return { command: "insert", path, insertLine: line as number, text };
    }
  }
}

/**
 * Collapses repeated slashes and `.` segments and drops a trailing slash;
 * `..` is kept, for the shell to resolve physically.
 */
function normalizePath(path: string): string {
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  return "/" + parts.join("/");
}

// ---------------------------------------------------------------------------
// Text.

/** Lines as `cat -n` counts them: a last line without a newline counts, no phantom empty line. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Line `n` (1-based) for display: a CR before the newline is not shown. */
function displayLine(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** True when every newline of the text is part of a CRLF pair (and there is one). */
function isCrlf(text: string): boolean {
  let any = false;
  for (
    let i = text.indexOf("\n");
    i !== -1;
    i = text.indexOf("\n", i + 1)
  ) {
    if (i === 0 || text.charCodeAt(i - 1) !== 13) return false;
    any = true;
  }
  return any;
}

/** Starting indexes of every occurrence, overlapping ones included. */
function occurrences(text: string, needle: string, limit: number): number[] {
  const found: number[] = [];
  for (
    let i = text.indexOf(needle);
    i !== -1 && found.length < limit;
    i = text.indexOf(needle, i + 1)
  ) found.push(i);
  return found;
}

/** 1-based line numbers of ascending character indexes, in one pass. */
function linesOf(text: string, indexes: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let from = 0;
  for (const index of indexes) {
    for (
      let i = text.indexOf("\n", from);
      i !== -1 && i < index;
      i = text.indexOf("\n", i + 1)
    ) {
      line++;
      from = i + 1;
    }
    out.push(line);
  }
  return out;
}

/**
 * `cat -n` style lines (`%6d\t`), cut in the middle to `budget` characters
 * with a notice in the shape of bash output's, naming the lines left out.
 */
function numbered(
  lines: readonly string[],
  firstLine: number,
  budget: number,
): string {
  const lineCap = Math.max(64, Math.floor(budget / 2) - 64);
  const row = (i: number): string => {
    let text = displayLine(lines[i]);
    if (text.length > lineCap) {
      // The line is redacted already: the cut shows no part of a secret
      // and splits no redaction marker.
      const kept = cutText(text, lineCap).slice(0, -1);
      text = `${kept}[... ${
        text.length - kept.length
      } more characters on this line]`;
    }
    return `${String(i + firstLine).padStart(6)}\t${text}\n`;
  };
  let total = 0;
  for (let i = 0; i < lines.length && total <= budget; i++) {
    total += row(i).length;
  }
  if (total <= budget) {
    let out = "";
    for (let i = 0; i < lines.length; i++) out += row(i);
    return out;
  }
  const headBudget = Math.floor(budget / 2);
  let head = "";
  let i = 0;
  while (i < lines.length) {
    const r = row(i);
    if (head.length + r.length > headBudget) break;
    head += r;
    i++;
  }
  const tailRows: string[] = [];
  let tailLength = 0;
  let j = lines.length;
  while (j > i) {
    const r = row(j - 1);
    if (tailLength + r.length > budget - headBudget) break;
    tailRows.push(r);
    tailLength += r.length;
    j--;
  }
  let omittedChars = 0;
  for (let k = i; k < j; k++) {
    const length = lines[k].length - (lines[k].endsWith("\r") ? 1 : 0);
    omittedChars += length > lineCap
      ? row(k).length
      : Math.max(6, String(k + firstLine).length) + 2 + length;
  }
  const from = i + firstLine;
  const to = j - 1 + firstLine;
  return `${head}[... ${omittedChars} characters (${
    j - i
  } lines) omitted; view_range [${from}, ${to}] shows them ...]\n${
    tailRows.reverse().join("")
  }`;
}

/** The reference client's wording around a `cat -n` listing. */
function catN(described: string, body: string): string {
  return `Here's the result of running \`cat -n\` on ${described}:\n${body}`;
}

/** Lines `[from, to]` (1-based, inclusive, clamped) of `lines`, numbered. */
function snippet(
  lines: readonly string[],
  from: number,
  to: number,
  budget: number,
): string {
  const start = Math.max(1, from);
  return numbered(
    lines.slice(start - 1, Math.max(start - 1, to)),
    start,
    budget,
  );
}

// ---------------------------------------------------------------------------
// Bytes.

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 24;
    for (let k = 0; k < 8; k++) {
      c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    }
    table[i] = c >>> 0;
  }
  return table;
})();

/** What POSIX `cksum` prints for these bytes: "CRC SIZE". */
function cksum(bytes: Uint8Array): string {
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) {
    crc = (crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ bytes[i]) & 0xff];
  }
  for (let n = bytes.length; n > 0; n = Math.floor(n / 256)) {
    crc = (crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ n) & 0xff];
  }
  return `${~crc >>> 0} ${bytes.length}`;
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}

/** Base64 in lines of 4096 characters (`base64 -d` takes any line length). */
function base64Lines(bytes: Uint8Array): string {
  // Uint8Array.prototype.toBase64 (Deno 2.5+, Bun 1.2+); btoa otherwise.
  const native = (bytes as { toBase64?: () => string }).toBase64;
  let b64: string;
  if (typeof native === "function") {
    b64 = native.call(bytes);
  } else {
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x2000) {
      binary += String.fromCharCode.apply(
        null,
        bytes.subarray(i, i + 0x2000) as unknown as number[],
      );
    }
    b64 = btoa(binary);
  }
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 4096) lines.push(b64.slice(i, i + 4096));
  return lines.join("\n");
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

// ---------------------------------------------------------------------------
// The helper that runs in the session.

/**
 * Runs in a fresh `bash`: a subshell of the session's shell replaced by
 * `exec -c bash` (an empty environment), so the session's aliases, functions,
 * options and variables neither affect it nor are touched by it; its first
 * argument is the session's PATH, searched after the system's directories. Replies with fields `TAG:LENGTH:VALUE`, then raw
 * content after `C::`, then a trailer line `NONCE:STATUS`.
 */
const HELPER = `exec 2>/dev/null
export PATH="/usr/local/bin:/usr/bin:/bin:$1" LC_ALL=C
op=$2 nonce=$3
shift 3
out() { printf '%s:%d:%s' "$1" "\${#2}" "$2"; }
end() { printf '\\n%s:%s\\n' "$nonce" "$1"; exit 0; }
resolve() {
  local d=$1 rest= t n=0 dir
  while [ ! -e "$d" ] && [ ! -L "$d" ]; do
    rest=/\${d##*/}$rest; d=\${d%/*}; d=\${d:-/}
  done
  case $rest/ in */../*) return 8;; esac
  while [ -L "$d" ]; do
    n=$((n + 1)); [ "$n" -le 40 ] || return 3
    t=$(readlink -- "$d") || return 4
    case $t in /*) ;; *) t=\${d%/*}/$t;; esac
    [ -e "$t" ] || [ -L "$t" ] || return 5
    d=$t
  done
  if [ -d "$d" ]; then
    cd -P -- "$d" || return 6
    d=$PWD
  elif [ -n "$rest" ]; then
    return 7
  else
    dir=\${d%/*}
    cd -P -- "\${dir:-/}" || return 6
    d=\${PWD%/}/\${d##*/}
  fi
  R=\${d%/}$rest; R=\${R:-/}
}
inroots() {
  local r
  [ $# -eq 0 ] && return 0
  for r; do case $R in "$r" | "\${r%/}/"*) return 0;; esac; done
  return 1
}
case $op in
root)
  resolve "$1" || end "r$?"
  [ -d "$R" ] || end notdir
  out P "$R"; end ok;;
read)
  p=$1 max=$2 dirok=$3; shift 3
  resolve "$p" || end "r$?"
  out P "$R"
  inroots "$@" || end outside
  [ -e "$R" ] || end notfound
  if [ -d "$R" ]; then
    [ "$dirok" = 1 ] || end isdir
    [ -r "$R" ] && [ -x "$R" ] || end noread
    out K dir
    printf 'C::d\\0'
    find "$R" -mindepth 1 -maxdepth 2 -name '.*' -prune -o -type d -print0
    printf 'f\\0'
    find "$R" -mindepth 1 -maxdepth 2 -name '.*' -prune -o ! -type d -print0
    end ok
  fi
  [ -f "$R" ] || end special
  [ -r "$R" ] || end noread
  printf 'C::'
  head -c "$((max + 1))" -- "$R" || end readfail
  end ok;;
write)
  phase=$1 p=$2 tmp=$3 expect=$4 mk=$5; shift 5
  case $phase in
  abort)
    case $tmp in */.bbedit-*.tmp) rm -f -- "$tmp";; esac
    end ok;;
  one | begin)
    resolve "$p" || end "r$?"
    out P "$R"
    inroots "$@" || end outside
    if [ -e "$R" ]; then
      [ "$expect" = new ] && end exists
      [ -d "$R" ] && end isdir
      [ -f "$R" ] || end special
      [ -w "$R" ] || end nowrite
    else
      case $expect in new | any) ;; *) end notfound;; esac
      d=\${R%/*}; d=\${d:-/}
      if [ ! -d "$d" ]; then
        [ "$mk" = 1 ] || end nodir
        e=$(mkdir -p -- "$d" 2>&1) || { out M "$e"; end mkdirfail; }
      fi
    fi
    tmp=\${R%/*}/.bbedit-$nonce.tmp
    set -C
    if ! : > "$tmp"; then
      e=$(: 2>&1 > "$tmp"); out M "$e"; end writefail
    fi
    set +C
    trap 'rm -f -- "$tmp"; exit 130' INT TERM HUP
    out T "$tmp";;
  append | commit)
    R=$p
    [ -f "$tmp" ] && [ ! -L "$tmp" ] || end tmpgone;;
  esac
  e=$(base64 -d >> "$tmp" 2>&1) || { rm -f -- "$tmp"; out M "$e"; end writefail; }
  case $phase in begin | append) end ok;; esac
  if [ -e "$R" ]; then
    # Writers lock the file they found, then check it is unchanged: two
    # sessions editing one file cannot both pass the check.
    if command -v flock >/dev/null && exec 9< "$R"; then
      flock -w 30 9 || { rm -f -- "$tmp"; end locked; }
    fi
    case $expect in
    new) rm -f -- "$tmp"; end exists;;
    any) ;;
    *) set -- $(cksum < "$R"); [ "$1 $2" = "$expect" ] || { rm -f -- "$tmp"; end changed; };;
    esac
    set -- $(stat -c '%a %u:%g %h' -- "$R" || stat -f '%Lp %u:%g %l' -- "$R")
    printf -v m '%o' "$((0666 & ~0$(umask)))"
    if [ "$1" != "$m" ]; then
      e=$(chmod "$1" "$tmp" 2>&1) || { rm -f -- "$tmp"; out M "$e"; end writefail; }
    fi
    [ "$EUID" = 0 ] && [ "$2" != 0:0 ] && chown "$2" "$tmp"
    if [ "\${3:-1}" -gt 1 ]; then
      e=$(cat -- "$tmp" 2>&1 > "$R") || { rm -f -- "$tmp"; out M "$e"; end writefail; }
      rm -f -- "$tmp"
      end ok
    fi
  else
    case $expect in new | any) ;; *) rm -f -- "$tmp"; end notfound;; esac
    # No clobbering a file that appeared meanwhile.
    mv -n -- "$tmp" "$R"
    [ -e "$tmp" ] && { rm -f -- "$tmp"; end exists; }
    end ok
  fi
  e=$(mv -f -- "$tmp" "$R" 2>&1) || { rm -f -- "$tmp"; out M "$e"; end writefail; }
  end ok;;
esac
end badop
`;

/** What the helper answered. */
interface Reply {
  status: string;
  fields: Map<string, string>;
  content: Uint8Array | null;
}

/** Resolution failures of the helper's `resolve`, by status. */
function resolveProblem(status: string, path: string): string | null {
  switch (status) {
    case "r3":
      return `The path ${path} goes through too many symbolic links`;
    case "r5":
      return `The path ${path} goes through a symbolic link to something that does not exist`;
    case "r7":
      return `The path ${path} does not exist: one of its parents is a file, not a directory`;
    case "r8":
      return `The path ${path} uses .. below a directory that does not exist`;
    case "r4":
    case "r6":
      return `The path ${path} could not be resolved (permission denied on one of its directories?)`;
    default:
      return null;
  }
}

/** The helper stopped before its trailer; `fields` is what it said so far. */
class HelperStopped extends EditError {
  readonly fields: Map<string, string>;

  constructor(message: string, fields: Map<string, string>) {
    super(message);
    this.fields = fields;
  }
}

/** Reads the helper's `TAG:LENGTH:VALUE` fields, then the content after `C::`. */
function parseFields(
  body: Uint8Array,
): { fields: Map<string, string>; content: Uint8Array | null } {
  const fields = new Map<string, string>();
  let content: Uint8Array | null = null;
  let pos = 0;
  while (pos < body.length) {
    const colon = body.indexOf(58, pos);
    const colon2 = colon === -1 ? -1 : body.indexOf(58, colon + 1);
    if (colon === -1 || colon2 === -1) break;
    const tag = looseDecoder.decode(body.subarray(pos, colon));
    const lengthText = looseDecoder.decode(body.subarray(colon + 1, colon2));
    if (tag === "C" && lengthText === "") {
      content = body.subarray(colon2 + 1);
      break;
    }
    const n = Number(lengthText);
    if (!Number.isInteger(n) || colon2 + 1 + n > body.length) break;
    fields.set(
      tag,
      looseDecoder.decode(body.subarray(colon2 + 1, colon2 + 1 + n)),
    );
    pos = colon2 + 1 + n;
  }
  return { fields, content };
}

const locks = new WeakMap<BashSession, Promise<unknown>>();

/** Runs `fn` after every earlier editor call on the same session has ended. */
function serialized<T>(session: BashSession, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(session) ?? Promise.resolve();
  const next = previous.then(fn, fn);
  locks.set(session, next.catch(() => {}));
  return next;
}

// ---------------------------------------------------------------------------
// The tool.

/**
 * Carries out the text editor tool's commands through a {@linkcode BashSession}
 * and answers each `tool_use` with a `tool_result` block in the Messages API's
 * wire shape.
 *
 * Commands (as `text_editor_20250728` defines them): `view` (a file with line
 * numbers, optionally `view_range: [start, end]` with `-1` for the end; a
 * directory two levels deep without hidden entries), `create` (`path`,
 * `file_text`; an existing file is refused unless `overwrite`), `str_replace`
 * (`path`, `old_str` that must occur exactly once, `new_str`), `insert`
 * (`path`, `insert_line`, `insert_text` or `new_str`). Paths must be absolute.
 * Every failure — a wrong input shape, a missing file, a policy refusal, an
 * ambiguous `old_str` — is answered with `is_error: true` and a message.
 *
 * Share the bash tool's session so both tools work in the same place:
 * `new EditorTool({ session: bash.session })`. Calls on one session run one
 * at a time, and a file changed by anything else between the editor's read
 * and its write is not overwritten.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EditorTool } from "./editor.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await using editor = new EditorTool({ roots: [dir] });
 * const made = await editor.handle({
 *   id: "toolu_1",
 *   name: "str_replace_based_edit_tool",
 *   input: { command: "create", path: `${dir}/a.txt`, file_text: "one\ntwo\n" },
 * });
 * assert.equal(made.is_error, undefined);
 * const edit = await editor.handle({
 *   id: "toolu_2",
 *   input: { command: "str_replace", path: `${dir}/a.txt`, old_str: "two", new_str: "2" },
 * });
 * assert.match(edit.content, /has been edited/);
 * assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "one\n2\n");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class EditorTool {
  readonly #session: BashSession;
  readonly #ownsSession: boolean;
  readonly #options: EditorToolOptions;
  readonly #maxChars: number;
  readonly #maxFileBytes: number;
  readonly #sessionId: string;
  readonly #egress: Egress;
  readonly #pipeline: ToolPipeline;
  readonly #rootsGiven: readonly string[] | undefined;
  #roots: Promise<string[]> | null = null;

  /** Checks the options; the shell starts with the first call. */
  constructor(options: EditorToolOptions = {}) {
    if (options === null || typeof options !== "object") {
      throw new TypeError(
        `Expected the options to be an object, got ${
          cutText(describeValue(options), 200)
        }`,
      );
    }
    this.#options = { ...options };
    this.#maxChars = options.maxCharacters ?? DEFAULT_MAX_CHARS;
    if (!Number.isInteger(this.#maxChars) || this.#maxChars < 100) {
      throw new RangeError(
        `Expected maxCharacters to be a whole number of at least 100, got ${this.#maxChars}`,
      );
    }
    this.#maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    if (!Number.isInteger(this.#maxFileBytes) || this.#maxFileBytes < 1) {
      throw new RangeError(
        `Expected maxFileBytes to be a positive whole number, got ${this.#maxFileBytes}`,
      );
    }
    if (options.roots !== undefined) {
      if (
        !Array.isArray(options.roots) ||
        options.roots.some((r) =>
          typeof r !== "string" || !r.startsWith("/") || r.includes("\0")
        )
      ) {
        throw new TypeError(
          `Expected roots to be an array of absolute paths, got ${
            cutText(describeValue(options.roots), 200)
          }`,
        );
      }
      this.#rootsGiven = [...options.roots];
    }
    if (
      options.session !== undefined && !(options.session instanceof BashSession)
    ) {
      throw new TypeError("Expected session to be a BashSession");
    }
    this.#session = options.session ?? new BashSession(options.sessionOptions);
    this.#ownsSession = options.session === undefined;
    this.#sessionId = options.sessionId ?? crypto.randomUUID();
    this.#egress = new Egress(options.redact);
    this.#pipeline = new ToolPipeline({
      policy: options.policy,
      onAsk: options.onAsk,
      audit: options.audit,
      egress: this.#egress,
      sessionId: this.#sessionId,
    });
  }

  /**
   * The definition to send in `tools`, with the `max_characters` the tool applies.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EditorTool } from "./editor.ts";
   *
   * await using editor = new EditorTool({ maxCharacters: 10000 });
   * assert.deepEqual(editor.definition, {
   *   type: "text_editor_20250728",
   *   name: "str_replace_based_edit_tool",
   *   max_characters: 10000,
   * });
   * ```
   */
  get definition(): EditorToolDefinition {
    return { ...TEXT_EDITOR_TOOL, max_characters: this.#maxChars };
  }

  /** The session the editor works through. */
  get session(): BashSession {
    return this.#session;
  }

  /** The id audit records carry. */
  get sessionId(): string {
    return this.#sessionId;
  }

  /**
   * Answers one `tool_use` block. Never throws for what the model sent; throws
   * a `TypeError` only when `toolUse` has no string `id` to answer to.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EditorTool } from "./editor.ts";
   *
   * await using editor = new EditorTool();
   * const bad = await editor.handle({ id: "t", input: { command: "view", path: "src/a.ts" } });
   * assert.equal(bad.is_error, true);
   * assert.match(bad.content, /is not an absolute path/);
   * ```
   */
  async handle(toolUse: ToolUseLike): Promise<ToolResultBlock> {
    if (
      toolUse === null || typeof toolUse !== "object" ||
      typeof toolUse.id !== "string" || toolUse.id === ""
    ) {
      throw new TypeError(
        `Expected a tool_use block with a string id, got ${
          cutText(describeValue(toolUse), 200)
        }`,
      );
    }
    const id = toolUse.id;
    if (toolUse.name !== undefined && toolUse.name !== TEXT_EDITOR_TOOL.name) {
      return this.#error(
        id,
        `Expected a call of the "${TEXT_EDITOR_TOOL.name}" tool, got "${
          String(toolUse.name)
        }"`,
      );
    }
    let command: Command;
    try {
      command = parseInput(toolUse.input, (v) => this.#egress.echo(v, 200));
      if (!command.path.startsWith("/")) {
        let cwd: string | undefined;
        try {
          await this.#session.start();
          cwd = this.#session.cwd;
        } catch {
          cwd = undefined;
        }
        const suggestion = cwd
          ? ` Maybe you meant ${normalizePath(`${cwd}/${command.path}`)}?`
          : "";
        throw new EditError(
          `The path ${command.path} is not an absolute path, it should start with \`/\`.${suggestion}`,
        );
      }
    } catch (error) {
      if (error instanceof EditError) return this.#error(id, error.message);
      throw error;
    }
    return await this.#call(id, command);
  }

  /**
   * Answers every `str_replace_based_edit_tool` call of one assistant message,
   * in order; calls of other tools are left to the caller (see
   * {@linkcode answerToolUses} for both tools in order).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EditorTool } from "./editor.ts";
   *
   * const dir = await Deno.makeTempDir();
   * await using editor = new EditorTool();
   * const results = await editor.handleAll({
   *   content: [
   *     { type: "text", text: "Looking." },
   *     { type: "tool_use", id: "a", name: "str_replace_based_edit_tool", input: { command: "view", path: dir } },
   *     { type: "tool_use", id: "b", name: "bash", input: { command: "ls" } },
   *   ],
   * });
   * assert.equal(results.length, 1);
   * assert.match(results[0].content, /up to 2 levels deep in/);
   * await Deno.remove(dir);
   * ```
   */
  async handleAll(
    message: { content: readonly unknown[] },
  ): Promise<ToolResultBlock[]> {
    const results: ToolResultBlock[] = [];
    for (const use of toolUsesOf(message)) {
      if (use.name === TEXT_EDITOR_TOOL.name) {
        results.push(await this.handle(use));
      }
    }
    return results;
  }

  /** Closes the session when the tool created it. */
  async close(): Promise<void> {
    if (this.#ownsSession) await this.#session.close();
  }

  /** Same as {@linkcode close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #error(id: string, message: string): ToolResultBlock {
    return {
      type: "tool_result",
      tool_use_id: id,
      content: this.#egress.text(`Error: ${message}`, "tool_result"),
      is_error: true,
    };
  }

  async #call(id: string, command: Command): Promise<ToolResultBlock> {
    const write = command.command !== "view";
    const policy = this.#options.policy;
    const base: EditAuditFields = {
      tool: TEXT_EDITOR_TOOL.name,
      editCommand: command.command,
      path: this.#egress.text(command.path, "audit"),
    };
    const inputs = command.command === "str_replace"
      ? [command.oldStr, command.newStr]
      : command.command === "insert"
      ? [command.text]
      : [];
    return await this.#pipeline.call({
      id,
      command: `${TEXT_EDITOR_TOOL.name} ${command.command} ${command.path}`,
      judged: `${write ? "tee" : "cat"} ${shellQuote(command.path)}`,
      preset: write && policy?.readOnlyPreset === true
        ? { decision: "deny", reason: "the read-only policy allows no edits" }
        : undefined,
      fields: { ...base },
      sources: inputs,
      refusal: (reason) =>
        `Error: The ${command.command} command was refused by policy: ${reason}`,
      failure: (error) =>
        error instanceof EditError
          ? `Error: ${error.message}`
          : `Error: The shell failed: ${messageOf(error)}`,
      execute: async () => {
        const outcome = await serialized(
          this.#session,
          () => this.#run(command),
        );
        const content = outcome.isError
          ? `Error: ${outcome.content}`
          : outcome.content;
        return {
          content,
          isError: outcome.isError,
          outputBytes: content.length,
          fields: {
            ...outcome.audit,
            ...(outcome.audit.resolvedPath !== undefined
              ? {
                resolvedPath: this.#egress.text(
                  outcome.audit.resolvedPath,
                  "audit",
                ),
              }
              : {}),
          },
        };
      },
    });
  }

  /** A file's lines as the model may see them: redacted as one text, sanitised, in place. */
  #shownLines(lines: readonly string[]): string[] {
    return this.#egress.lines(lines.map(displayLine), "tool_result");
  }

  #run(command: Command): Promise<Outcome> {
    switch (command.command) {
      case "view":
        return this.#view(command.path, command.viewRange);
      case "create":
        return this.#create(command.path, command.fileText);
      case "str_replace":
        return this.#strReplace(command.path, command.oldStr, command.newStr);
      default:
        return this.#insert(command.path, command.insertLine, command.text);
    }
  }

  // --- Shell round trips -------------------------------------------------

  /** Runs the helper once; `data` goes to its stdin as base64. */
  async #helper(args: readonly string[], data?: Uint8Array): Promise<Reply> {
    const nonce = Array.from(
      crypto.getRandomValues(new Uint8Array(8)),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    const [op, ...rest] = args;
    // A subshell that becomes a fresh bash with an empty environment
    // (`exec -c`): one process, nothing of the session's state.
    let line = `(\\command exec -c "\${BASH:-bash}" --noprofile --norc -c ${
      shellQuote(HELPER)
    } bashbox-edit "\${PATH:-/usr/bin:/bin}" ${
      [op, nonce, ...rest].map(shellQuote).join(" ")
    })`;
    line += data === undefined
      ? " </dev/null"
      : ` <<'__BBX'\n${base64Lines(data)}\n__BBX`;
    const chunks: Uint8Array[] = [];
    let length = 0;
    const result: SessionResult = await this.#session.run(line, {
      timeoutMs: this.#options.timeoutMs,
      onOutput: (chunk, stream) => {
        if (stream === "stdout") {
          chunks.push(chunk);
          length += chunk.length;
        }
      },
    });
    const bytes = concat(chunks, length);
    const tail = encoder.encode(`\n${nonce}:`);
    let at = -1;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 10) {
      const from = Math.max(0, bytes.length - tail.length - 40);
      const window = bytes.subarray(from);
      for (let i = window.length - tail.length; i >= 0; i--) {
        let match = true;
        for (let k = 0; k < tail.length && match; k++) {
          match = window[i + k] === tail[k];
        }
        if (match) {
          at = from + i;
          break;
        }
      }
    }
    if (at === -1) {
      // Stopped part way (a deadline, a dead shell): what it said so far
      // names a temporary file to remove.
      const { fields } = parseFields(bytes);
      if (result.timedOut) {
        throw new HelperStopped(
          `The shell command that carries out the edit timed out${
            this.#options.timeoutMs
              ? ` after ${this.#options.timeoutMs} ms`
              : ""
          }; it was stopped`,
          fields,
        );
      }
      const said = looseDecoder.decode(bytes.subarray(0, 500)).trim();
      throw new HelperStopped(
        `The editor's shell helper did not answer (${
          result.restarted ? "the shell died" : `exit code ${result.exitCode}`
        })${said ? `: ${said}` : ""}`,
        fields,
      );
    }
    const status = looseDecoder.decode(
      bytes.subarray(at + tail.length, bytes.length - 1),
    );
    return { status, ...parseFields(bytes.subarray(0, at)) };
  }

  /** The allowed roots, resolved through the session (once). */
  #resolvedRoots(): Promise<string[]> {
    if (this.#rootsGiven === undefined) return Promise.resolve([]);
    this.#roots ??= (async () => {
      const out: string[] = [];
      for (const root of this.#rootsGiven!) {
        const reply = await this.#helper(["root", normalizePath(root)]);
        const resolved = reply.fields.get("P");
        if (reply.status !== "ok" || resolved === undefined) {
          throw new EditError(
            `The allowed directory ${root} does not exist or is not a directory where the shell runs`,
          );
        }
        out.push(resolved);
      }
      return out;
    })();
    const roots = this.#roots;
    roots.catch(() => {
      if (this.#roots === roots) this.#roots = null;
    });
    return roots;
  }

  /** Maps a failure status shared by every command to a message, or throws nothing. */
  #common(status: string, path: string, resolved: string | undefined): void {
    const problem = resolveProblem(status, path);
    if (problem) throw new EditError(problem);
    switch (status) {
      case "outside":
        throw new EditError(
          `The path ${path}${
            resolved && resolved !== normalizePath(path)
              ? ` (which resolves to ${resolved})`
              : ""
          } is outside the directories the editor may use: ${
            this.#rootsGiven!.join(", ")
          }`,
        );
      case "notfound":
        throw new EditError(
          `File not found: the path ${path} does not exist. Please provide a valid path.`,
        );
      case "special":
        throw new EditError(
          `The path ${path} is not a regular file or directory (a device, FIFO or socket); the editor only reads and writes regular files`,
        );
      case "noread":
        throw new EditError(`Permission denied. Cannot read ${path}.`);
      case "readfail":
        throw new EditError(
          `Reading ${path} failed part way; nothing was changed.`,
        );
      case "badop":
        throw new EditError(
          "The editor's shell helper did not understand its request",
        );
    }
  }

  /** Reads a file (or lists a directory when `dirOk`) through the session. */
  async #read(
    path: string,
    dirOk: boolean,
  ): Promise<
    | { kind: "file"; resolved: string; bytes: Uint8Array }
    | {
      kind: "dir";
      resolved: string;
      entries: { path: string; dir: boolean }[];
    }
  > {
    const roots = await this.#resolvedRoots();
    const reply = await this.#helper([
      "read",
      normalizePath(path),
      String(this.#maxFileBytes),
      dirOk ? "1" : "0",
      ...roots,
    ]);
    const resolved = reply.fields.get("P");
    this.#common(reply.status, path, resolved);
    if (reply.status === "isdir") {
      throw new EditError(
        `The path ${path} is a directory and only the \`view\` command can be used on directories`,
      );
    }

    if (
      reply.status !== "ok" || resolved === undefined || reply.content === null
    ) {
      throw new EditError(
        `The editor could not read ${path} (${reply.status})`,
      );
    }
    if (this.#roots !== null) {
      const roots = await this.#roots;
      if (!withinRoots(resolved, roots)) {
        this.#common("outside", path, resolved);
      }
    }
    const content = reply.content;
    if (reply.fields.get("K") === "dir") {
      // A listing: "d\0" dirs... "f\0" others...
      const parts = looseDecoder.decode(content).split("\0");
      const entries: { path: string; dir: boolean }[] = [];
      let dir = true;
      for (const part of parts) {
        if (part === "d") dir = true;
        else if (part === "f") dir = false;
        else if (part !== "") entries.push({ path: part, dir });
      }
      return { kind: "dir", resolved, entries };
    }
    if (content.length > this.#maxFileBytes) {
      throw new EditError(
        `The file ${path} is larger than the editor's limit of ${this.#maxFileBytes} bytes; use bash (grep -n, sed -n) to work on parts of it`,
      );
    }
    return { kind: "file", resolved, bytes: content };
  }

  /** Reads a text file: refuses binary and non-UTF-8 content. */
  async #readText(
    path: string,
  ): Promise<{ resolved: string; bytes: Uint8Array; text: string }> {
    const read = await this.#read(path, false);
    if (read.kind !== "file") throw new EditError(`Expected a file at ${path}`);
    return { ...read, text: decodeText(read.bytes, path) };
  }

  /** Writes `bytes` to `path` through a temporary file and `mv`. */
  async #write(
    path: string,
    bytes: Uint8Array,
    expect: "new" | "any" | string,
    makeDirs: boolean,
  ): Promise<string> {
    const roots = await this.#resolvedRoots();
    const target = normalizePath(path);
    const single = bytes.length <= WRITE_CHUNK_BYTES;
    const first = bytes.subarray(0, WRITE_CHUNK_BYTES);
    let resolved: string | undefined;
    let tmp: string | undefined;
    try {
      const reply = await this.#helper([
        "write",
        single ? "one" : "begin",
        target,
        "-",
        expect,
        makeDirs ? "1" : "0",
        ...roots,
      ], first);
      resolved = reply.fields.get("P");
      tmp = reply.fields.get("T");
      if (reply.status !== "ok") this.#writeFailure(reply, path, resolved);
      if (single) {
        tmp = undefined;
        return resolved!;
      }
      for (
        let at = WRITE_CHUNK_BYTES;
        at < bytes.length;
        at += WRITE_CHUNK_BYTES
      ) {
        const last = at + WRITE_CHUNK_BYTES >= bytes.length;
        const next = await this.#helper([
          "write",
          last ? "commit" : "append",
          resolved!,
          tmp!,
          expect,
          "0",
        ], bytes.subarray(at, at + WRITE_CHUNK_BYTES));
        if (next.status !== "ok") this.#writeFailure(next, path, resolved);
        if (last) tmp = undefined;
      }
      return resolved!;
    } catch (error) {
      tmp ??= error instanceof HelperStopped
        ? error.fields.get("T")
        : undefined;
      if (tmp !== undefined) {
        // Best effort: the helper removes its file itself on every failure
        // it sees; this covers a deadline or a dead shell.
        await this.#helper(["write", "abort", "-", tmp, "-", "0"]).catch(
          () => {},
        );
      }
      throw error;
    }
  }

  #writeFailure(
    reply: Reply,
    path: string,
    resolved: string | undefined,
  ): never {
    this.#common(reply.status, path, resolved);
    const detail = reply.fields.get("M");
    switch (reply.status) {
      case "exists":
        throw new EditError(
          `File already exists at: ${path}. Cannot overwrite files using command \`create\`.`,
        );
      case "isdir":
        throw new EditError(
          `The path ${path} is a directory and only the \`view\` command can be used on directories`,
        );
      case "nowrite":
        throw new EditError(`Permission denied. Cannot write to file ${path}.`);
      case "nodir":
        throw new EditError(`The directory of ${path} does not exist.`);
      case "mkdirfail":
        throw new EditError(
          `Could not create the directory of ${path}${
            detail ? `: ${detail}` : ""
          }`,
        );
      case "changed":
        throw new EditError(
          `The file ${path} was changed by something else while the editor worked on it; nothing was written. View it again and retry.`,
        );
      case "locked":
        throw new EditError(
          `The file ${path} stayed locked by another edit for 30 s; nothing was written. Try again.`,
        );
      case "tmpgone":
        throw new EditError(
          `The temporary file for ${path} disappeared while it was written; nothing was changed.`,
        );
      case "writefail":
        throw new EditError(
          /permission denied|read-only/i.test(detail ?? "")
            ? `Permission denied. Cannot write to file ${path}${
              detail ? ` (${detail})` : ""
            }.`
            : `Writing ${path} failed${
              detail ? `: ${detail}` : ""
            }; the file was not changed.`,
        );
      default:
        throw new EditError(`Writing ${path} failed (${reply.status})`);
    }
  }

  // --- Commands ------------------------------------------------------------

  async #view(path: string, range?: [number, number]): Promise<Outcome> {
    const read = await this.#read(path, true);
    if (read.kind === "dir") {
      if (range) {
        throw new EditError(
          "The `view_range` parameter is not allowed when `path` points to a directory.",
        );
      }
      const shownRoot = normalizePath(path).replace(/\/$/, "");
      const skip = read.resolved === "/" ? 1 : read.resolved.length + 1;
      const lines = read.entries
        .map((e) => ({
          name: `${shownRoot}/${e.path.slice(skip)}`,
          dir: e.dir,
        }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((e) => visible(e.name) + (e.dir ? "/" : ""));
      return {
        content:
          `Here's the files and directories up to 2 levels deep in ${path}, excluding hidden items:\n${
            cutList(lines, this.#maxChars)
          }`,
        isError: false,
        audit: { resolvedPath: read.resolved },
      };
    }
    const text = decodeText(read.bytes, path);
    const lines = splitLines(text);
    let first = 1;
    let last = lines.length;
    if (range) {
      const [a, b] = range;
      const shownRange = `[${a}, ${b}]`;
      if (a < 1 || a > lines.length) {
        throw new EditError(
          `Invalid \`view_range\`: ${shownRange}. Its first element \`${a}\` should be within the range of lines of the file: [1, ${lines.length}]`,
        );
      }
      if (b > lines.length) {
        throw new EditError(
          `Invalid \`view_range\`: ${shownRange}. Its second element \`${b}\` should be smaller than the number of lines in the file: \`${lines.length}\``,
        );
      }
      if (b !== -1 && b < a) {
        throw new EditError(
          `Invalid \`view_range\`: ${shownRange}. Its second element \`${b}\` should be larger or equal than its first \`${a}\``,
        );
      }
      first = a;
      last = b === -1 ? lines.length : b;
    }
    const hash = await sha256(read.bytes);
    const audit = {
      resolvedPath: read.resolved,
      beforeSha256: hash,
      bytesBefore: read.bytes.length,
    };
    if (lines.length === 0) {
      return { content: `The file ${path} is empty.`, isError: false, audit };
    }
    // Redacted and sanitised whole before any slice, number or cut: a
    // range inside a private key or a cut through a token shows none of it.
    const shown = this.#shownLines(lines);
    return {
      content: catN(
        path,
        numbered(shown.slice(first - 1, last), first, this.#maxChars),
      ),
      isError: false,
      audit,
    };
  }

  async #create(path: string, fileText: string): Promise<Outcome> {
    const bytes = encoder.encode(fileText);
    if (bytes.length > this.#maxFileBytes) {
      throw new EditError(
        `The file_text is ${bytes.length} bytes, more than the editor's limit of ${this.#maxFileBytes} bytes`,
      );
    }
    let existed = false;
    let expect = "new";
    let before: { hash: string | null; size: number | null } = {
      hash: null,
      size: null,
    };
    if (this.#options.overwrite === true) {
      // Learn whether there is a file to replace, for the message, the audit
      // and the check that nothing changed it meanwhile.
      try {
        const read = await this.#read(path, false);
        if (read.kind === "file") {
          existed = true;
          expect = cksum(read.bytes);
          before = { hash: await sha256(read.bytes), size: read.bytes.length };
        }
      } catch (error) {
        const message = (error as Error).message;
        if (/larger than the editor's limit/.test(message)) {
          existed = true;
          expect = "any";
        } else if (!/^File not found/.test(message)) {
          throw error;
        }
      }
    }
    const resolved = await this.#write(path, bytes, expect, true);
    return {
      content: existed
        ? `File overwritten successfully at: ${path}`
        : `File created successfully at: ${path}`,
      isError: false,
      audit: {
        resolvedPath: resolved,
        beforeSha256: before.hash,
        bytesBefore: before.size,
        afterSha256: await sha256(bytes),
        bytesAfter: bytes.length,
      },
    };
  }

  async #strReplace(
    path: string,
    oldStr: string,
    newStr: string,
  ): Promise<Outcome> {
    const { resolved, bytes, text } = await this.#readText(path);
    const crlf = isCrlf(text);
    let needle = oldStr;
    let replacement = newStr;
    if (crlf) replacement = newStr.replace(/\r?\n/g, "\r\n");
    let found = needle === ""
      ? (text === "" ? [0] : [])
      : occurrences(text, needle, 1000);
    if (
      found.length === 0 && crlf && needle.includes("\n") &&
      !needle.includes("\r")
    ) {
      needle = oldStr.replaceAll("\n", "\r\n");
      found = occurrences(text, needle, 1000);
    }
    if (found.length === 0) {
      throw new EditError(
        oldStr === ""
          ? `No replacement was performed: old_str is empty, and ${path} is not. Please give the text to replace.`
          : `No replacement was performed, old_str \`${
            this.#egress.excerpt(oldStr, SHOWN_INPUT_CHARS)
          }\` did not appear verbatim in ${path}.`,
      );
    }
    if (found.length > 1) {
      const lines = linesOf(text, found);
      throw new EditError(
        `No replacement was performed. Found ${
          found.length === 1000 ? "at least 1000" : found.length
        } matches of old_str \`${
          this.#egress.excerpt(oldStr, SHOWN_INPUT_CHARS)
        }\` in ${path}, starting on lines [${lines.slice(0, 50).join(", ")}${
          lines.length > 50 ? ", ..." : ""
        }]. Please provide more context to make a unique match.`,
      );
    }
    const at = found[0];
    const next = text.slice(0, at) + replacement +
      text.slice(at + needle.length);
    const nextBytes = encoder.encode(next);
    await this.#write(path, nextBytes, cksum(bytes), false);
    const [line] = linesOf(text, [at]);
    const addedLines = replacement.split("\n").length - 1;
    return {
      content: `The file ${path} has been edited. ${
        catN(
          `a snippet of ${path}`,
          snippet(
            this.#shownLines(splitLines(next)),
            line - SNIPPET_LINES,
            line + addedLines + SNIPPET_LINES,
            this.#maxChars,
          ),
        )
      }Review the changes and make sure they are as expected. Edit the file again if necessary.`,
      isError: false,
      audit: {
        resolvedPath: resolved,
        beforeSha256: await sha256(bytes),
        bytesBefore: bytes.length,
        afterSha256: await sha256(nextBytes),
        bytesAfter: nextBytes.length,
      },
    };
  }

  async #insert(
    path: string,
    insertLine: number,
    insertText: string,
  ): Promise<Outcome> {
    const { resolved, bytes, text } = await this.#readText(path);
    const lines = splitLines(text);
    if (insertLine < 0 || insertLine > lines.length) {
      throw new EditError(
        `Invalid \`insert_line\` parameter: ${insertLine}. It should be within the range of lines of the file: [0, ${lines.length}]`,
      );
    }
    const eol = isCrlf(text) ? "\r\n" : "\n";
    let insert = eol === "\r\n"
      ? insertText.replace(/\r?\n/g, "\r\n")
      : insertText;
    // Offset just after line `insertLine` (its newline included).
    let offset = 0;
    for (let i = 0; i < insertLine; i++) offset += lines[i].length + 1;
    let next: string;
    if (offset > text.length) {
      // After a last line without a newline: the file keeps ending without one.
      if (insert.endsWith(eol)) insert = insert.slice(0, -eol.length);
      next = text + eol + insert;
    } else {
      if (!insert.endsWith("\n")) insert += eol;
      next = text.slice(0, offset) + insert + text.slice(offset);
    }
    const nextBytes = encoder.encode(next);
    await this.#write(path, nextBytes, cksum(bytes), false);
    const inserted = Math.max(1, splitLines(insert).length);
    return {
      content: `The file ${path} has been edited. ${
        catN(
          "a snippet of the edited file",
          snippet(
            this.#shownLines(splitLines(next)),
            insertLine - SNIPPET_LINES + 1,
            insertLine + inserted + SNIPPET_LINES,
            this.#maxChars,
          ),
        )
      }Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`,
      isError: false,
      audit: {
        resolvedPath: resolved,
        beforeSha256: await sha256(bytes),
        bytesBefore: bytes.length,
        afterSha256: await sha256(nextBytes),
        bytesAfter: nextBytes.length,
      },
    };
  }
}

function withinRoots(path: string, roots: readonly string[]): boolean {
  if (roots.length === 0) return true;
  return roots.some((r) =>
    path === r || path.startsWith(r.endsWith("/") ? r : `${r}/`)
  );
}

/** A file name with control characters made visible. */
function visible(name: string): string {
  // deno-lint-ignore no-control-regex
  return name.replace(/[\x00-\x1f\x7f]/g, "?");
}

/** A directory listing cut in the middle to the budget, like a view. */
function cutList(lines: readonly string[], budget: number): string {
  let total = 0;
  for (const l of lines) total += l.length + 1;
  if (total <= budget) return lines.map((l) => `${l}\n`).join("");
  const headBudget = Math.floor(budget / 2);
  let head = "";
  let i = 0;
  while (i < lines.length && head.length + lines[i].length + 1 <= headBudget) {
    head += `${lines[i++]}\n`;
  }
  const tail: string[] = [];
  let tailLength = 0;
  let j = lines.length;
  while (j > i && tailLength + lines[j - 1].length + 1 <= budget - headBudget) {
    tail.push(`${lines[--j]}\n`);
    tailLength += lines[j].length + 1;
  }
  let omitted = 0;
  for (let k = i; k < j; k++) omitted += lines[k].length + 1;
  return `${head}[... ${omitted} characters (${
    j - i
  } lines) omitted; view a subdirectory or use bash (find, ls) to see them ...]\n${
    tail.reverse().join("")
  }`;
}

/** Decodes UTF-8 text, refusing binary and other encodings. */
function decodeText(bytes: Uint8Array, path: string): string {
  if (bytes.includes(0)) {
    throw new EditError(
      `The file ${path} looks binary (it contains NUL bytes); the editor only views and edits UTF-8 text, so it was not changed. Use bash to inspect it (e.g. file, xxd | head).`,
    );
  }
  try {
    return strictDecoder.decode(bytes);
  } catch {
    throw new EditError(
      `The file ${path} is not valid UTF-8 text; the editor only views and edits UTF-8, so it was not changed. Use bash to inspect or convert it (e.g. file, iconv).`,
    );
  }
}

// ---------------------------------------------------------------------------
// The SDK's tool runner, and several tools at once.

/**
 * The shape of the SDK's `BetaRunnableTool` for the text editor tool
 * (structurally the same, so it can be passed in `tools` of
 * `client.beta.messages.toolRunner`).
 */
export interface RunnableEditor {
  /** The tool type. */
  type: "text_editor_20250728";
  /** The tool name. */
  name: "str_replace_based_edit_tool";
  /** Most characters a view shows (sent to the API with the definition). */
  max_characters: number;
  /** Returns the input unchanged: {@linkcode EditorTool.handle} checks it. */
  parse: (content: unknown) => unknown;
  /** Runs one call; an error result is thrown, and the runner answers it with `is_error`. */
  run: (
    input: unknown,
    context?: { toolUse?: { id: string } },
  ) => Promise<string>;
}

/**
 * Wraps an {@linkcode EditorTool} as a `BetaRunnableTool`, so the official
 * SDK's `client.beta.messages.toolRunner` drives it beside
 * `runnableBashTool`. An error result is thrown as an `Error` whose message
 * the runner sends back as `Error: <message>` with `is_error: true` — the
 * same text `handle()` answers.
 *
 * @example
 * ```ts ignore
 * import Anthropic from "@anthropic-ai/sdk";
 * import { BashTool, EditorTool, runnableBashTool, runnableEditorTool } from "@bashbox/core";
 *
 * await using bash = new BashTool();
 * await using editor = new EditorTool({ session: bash.session });
 * const final = await new Anthropic().beta.messages.toolRunner({
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 4096,
 *   messages: [{ role: "user", content: "Fix the failing test in /work/app" }],
 *   tools: [runnableBashTool(bash), runnableEditorTool(editor)],
 * });
 * console.log(final.content);
 * ```
 *
 * @example What the runner sees
 * ```ts
 * import assert from "node:assert/strict";
 * import { EditorTool, runnableEditorTool } from "./editor.ts";
 *
 * await using editor = new EditorTool();
 * const runnable = runnableEditorTool(editor);
 * assert.equal(runnable.name, "str_replace_based_edit_tool");
 * await assert.rejects(runnable.run({ command: "view", path: "/nonexistent/x" }), /File not found/);
 * ```
 */
export function runnableEditorTool(tool: EditorTool): RunnableEditor {
  if (!(tool instanceof EditorTool)) {
    throw new TypeError("Expected an EditorTool");
  }
  return {
    ...tool.definition,
    ...runnableMembers((call) => tool.handle(call), {
      name: TEXT_EDITOR_TOOL.name,
      error: (content) => new Error(content.replace(/^Error: /, "")),
    }),
  };
}

/** Anything that answers `tool_use` blocks: a `BashTool`, an {@linkcode EditorTool}. */
export interface ToolUseHandler {
  /** Answers one call. */
  handle(toolUse: ToolUseLike): Promise<ToolResultBlock>;
}

/**
 * Answers every `tool_use` block of one assistant message, in order, with the
 * handler named like the tool (`{ bash, str_replace_based_edit_tool }`); a
 * call of any other tool gets an `is_error` result naming the tools there are.
 * The blocks form the content of the next `user` message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BashTool } from "../anthropic/mod.ts";
 * import { answerToolUses, EditorTool } from "./editor.ts";
 *
 * await using bash = new BashTool();
 * await using editor = new EditorTool({ session: bash.session });
 * const path = `/tmp/bashbox-doc-${crypto.randomUUID()}.txt`;
 * const results = await answerToolUses({
 *   content: [
 *     { type: "tool_use", id: "a", name: "str_replace_based_edit_tool", input: { command: "create", path, file_text: "hi\n" } },
 *     { type: "tool_use", id: "b", name: "bash", input: { command: `cat ${path} && rm ${path}` } },
 *     { type: "tool_use", id: "c", name: "web_search", input: {} },
 *   ],
 * }, { bash, [editor.definition.name]: editor });
 * assert.equal(results[1].content, "Exit code 0\nhi\n");
 * assert.equal(results[2].is_error, true);
 * ```
 */
export async function answerToolUses(
  message: { content: readonly unknown[] },
  handlers: Readonly<Record<string, ToolUseHandler>>,
): Promise<ToolResultBlock[]> {
  const results: ToolResultBlock[] = [];
  for (const { id, name, input } of toolUsesOf(message)) {
    const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
    results.push(
      handler ? await handler.handle({ id, name, input }) : {
        type: "tool_result",
        tool_use_id: id,
        content: `Error: Unknown tool "${name}": the tools available are ${
          Object.keys(handlers).map((k) => `"${k}"`).join(", ")
        }`,
        is_error: true,
      },
    );
  }
  return results;
}
