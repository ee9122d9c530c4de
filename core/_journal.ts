/**
 * The journal of a session's shell state (issue 28): what a fresh bash needs
 * to be brought back to where the last one was — the working directory,
 * `OLDPWD` and the directory stack, variables (exported or not, arrays,
 * attributes), functions, aliases, `set -o` and `shopt` options, the umask
 * and the resource limits.
 *
 * How it is taken: after a command that may change that state (decided on
 * the host by {@linkcode mayChangeState}, from the command's parse: `ls`,
 * `grep`, `git` cannot, `cd`, `export`, an assignment, a function
 * definition can), the session runs one hidden call of builtins only
 * ({@linkcode dumpCommand}: `declare -p`, `declare -F`, `declare -f`,
 * `alias -p`, `set +o`, `shopt -p`, `umask`, `dirs -l -p`, `ulimit -a`), no
 * fork. Commands that cannot change it cost nothing more.
 *
 * How it is replayed: a fresh shell is first dumped as it starts (its
 * baseline, once per session), and only what differs from it is replayed
 * ({@linkcode replayCommand}), each item on its own, so that one that fails
 * (a function that no longer parses, a directory that is gone) is named and
 * the rest still restored. The same hidden call dumps the state again, so
 * the journal is what the shell really holds afterwards (no drift).
 *
 * Values are kept as bash printed them, byte for byte (one character per
 * byte), and sent back as ANSI-C quoted words of ASCII only: quotes,
 * newlines, `$`, invalid UTF-8 and large values come back the same.
 *
 * A journal is state, not output: it never goes to audit, spill files or
 * logs; results carry only the names of what was restored.
 *
 * Internal module.
 *
 * @module
 */

import { literal, parse, type Statement, type Word } from "../shell/parse.ts";

/**
 * Most bytes a journal keeps (per session, and per conversation the pool
 * keeps for a closed shell): past it, the largest variables and functions are
 * left out, and a replay names them as not restored.
 */
export const JOURNAL_MAX_BYTES = 1024 * 1024;

/** What a replay brought back, and what it could not. */
export interface RestoredState {
  /** The working directory restored, when it differed from the start one. */
  cwd?: string;
  /** Variables set (or unset) again, by name. */
  variables: string[];
  /** Functions defined again. */
  functions: string[];
  /** Aliases defined again. */
  aliases: string[];
  /** Options set again: `set -o errexit`, `shopt -s extglob`. */
  options: string[];
  /** Anything else: `umask 0077`, `ulimit -S -n 256`, `OLDPWD`, `directory stack`. */
  other: string[];
  /** What the journal held but could not be restored, each with why. */
  failed: string[];
  /** What a journal never holds (lost with every restart). */
  lost: string[];
}

/** What no journal holds: said after every restore. */
export const NEVER_RESTORED: readonly string[] = [
  "background jobs",
  "open file descriptors",
  "traps",
  "positional parameters",
  "$? and PIPESTATUS",
];

/** One shell state, as bash printed it (one character per byte). */
export interface Snapshot {
  vars: Map<string, string>;
  funcs: Map<string, string>;
  aliases: Map<string, string>;
  options: Map<string, string>;
  umask: string;
  dirs: string[];
  softLimits: Map<string, string>;
  hardLimits: Map<string, string>;
  /** Items left out to keep under {@linkcode JOURNAL_MAX_BYTES}. */
  dropped: string[];
  /** Bytes held. */
  bytes: number;
}

/**
 * A session's journal as the pool keeps it for a closed conversation:
 * opaque, bounded by {@linkcode JOURNAL_MAX_BYTES}.
 */
export class StateJournal {
  /** @internal */
  readonly snapshot: Snapshot;
  /** @internal */
  constructor(snapshot: Snapshot) {
    this.snapshot = snapshot;
  }
  /** Bytes the journal holds (at most {@linkcode JOURNAL_MAX_BYTES}). */
  get bytes(): number {
    return this.snapshot.bytes;
  }
}

// ---------------------------------------------------------------------------
// Which commands may change the state.

/** Builtins (and keywords run as commands) that may change what a journal holds. */
const STATE_BUILTINS = new Set([
  "cd",
  "pushd",
  "popd",
  "dirs",
  "export",
  "declare",
  "typeset",
  "local",
  "readonly",
  "unset",
  "alias",
  "unalias",
  "source",
  ".",
  "eval",
  "set",
  "shopt",
  "umask",
  "ulimit",
  "exec",
  "let",
  "read",
  "readarray",
  "mapfile",
  "getopts",
  "enable",
  "trap",
]);
/** Special builtins: an assignment before one may persist (posix mode). */
const SPECIAL_BUILTINS = new Set([
  ":",
  "break",
  "continue",
  "exit",
  "return",
  "shift",
  "times",
]);

/**
 * True when `command` may change the shell's state: false only for commands
 * made of simple commands that run a program or a builtin that changes
 * nothing, with no assignment, no `${x:=…}`, no arithmetic assignment, no
 * function or alias of the user's (`known`). Anything the parser cannot
 * read counts as changing.
 */
export function mayChangeState(
  command: string,
  known: { functions: ReadonlySet<string>; aliases: ReadonlySet<string> },
): boolean {
  let body: Statement[];
  try {
    body = parse(command).body;
  } catch {
    return true;
  }
  return body.some((s) => changes(s.command, known));
}

function changes(
  c: Statement["command"],
  known: { functions: ReadonlySet<string>; aliases: ReadonlySet<string> },
): boolean {
  const list = (b: Statement[]) => b.some((s) => changes(s.command, known));
  const redirects = (rs: { fd?: string; target: Word }[]) =>
    rs.some((r) => r.fd?.startsWith("{") || wordChanges(r.target));
  switch (c.type) {
    case "Simple": {
      if (redirects(c.redirects)) return true;
      if (c.words.some(wordChanges)) return true;
      if (c.assigns.some((a) => a.value && wordChanges(a.value))) return true;
      if (c.words.length === 0) return c.assigns.length > 0;
      let i = 0;
      let name = literal(c.words[0]);
      while (name === "builtin" || name === "command") {
        i++;
        while (i < c.words.length && c.words[i].text.startsWith("-")) i++;
        if (i >= c.words.length) return false;
        name = literal(c.words[i]);
      }
      if (name === null) return true;
      if (STATE_BUILTINS.has(name)) return true;
      if (known.functions.has(name) || known.aliases.has(name)) return true;
      if (known.aliases.has(c.words[0].text)) return true;
      if (name === "printf") return c.words.some((w) => w.text === "-v");
      return c.assigns.length > 0 && SPECIAL_BUILTINS.has(name);
    }
    case "Pipeline":
      return c.commands.some((x) => changes(x, known));
    case "Logical":
      return changes(c.left, known) || changes(c.right, known);
    case "Subshell":
      return false;
    case "Group":
      return redirects(c.redirects) || list(c.body);
    case "If":
      return redirects(c.redirects) ||
        c.clauses.some((k) => list(k.cond) || list(k.body)) ||
        (c.otherwise !== undefined && list(c.otherwise));
    case "Loop":
      return redirects(c.redirects) || list(c.cond) || list(c.body);
    case "Case":
      return redirects(c.redirects) || wordChanges(c.word) ||
        c.items.some((k) => list(k.body));
    case "Test":
      return redirects(c.redirects) || c.words.some(wordChanges);
    case "ArithCmd":
      return /=|\+\+|--/.test(c.expr) || c.inner.some(wordChanges);
    default:
      // for/select (the loop variable), (( ; ; )), function definitions,
      // coproc: they do.
      return true;
  }
}

/** A word that assigns as it expands: `${x:=y}`, `${x=y}`, `$((x=1))`. */
function wordChanges(word: Word): boolean {
  return word.parts.some((p) => {
    if (p.type === "Param") {
      return /^:?=/.test(p.op) || p.op.includes(":=") ||
        p.inner.some(wordChanges);
    }
    if (p.type === "Arith") {
      return /[^=!<>]=(?!=)|\+\+|--/.test(p.expr) || p.inner.some(wordChanges);
    }
    return false;
  });
}

// ---------------------------------------------------------------------------
// Taking the state.

/** Names of the framing's own functions, variables and aliases. */
const FRAMING_NAME = /^(?:__bb|_\+)/;
/** Variables bash keeps itself, or that change on their own. */
const SPECIAL_VARIABLES = new Set([
  "_",
  "BASH",
  "BASHOPTS",
  "BASHPID",
  "BASH_ALIASES",
  "BASH_ARGC",
  "BASH_ARGV",
  "BASH_ARGV0",
  "BASH_CMDS",
  "BASH_COMMAND",
  "BASH_EXECUTION_STRING",
  "BASH_LINENO",
  "BASH_REMATCH",
  "BASH_SOURCE",
  "BASH_SUBSHELL",
  "BASH_VERSINFO",
  "BASH_VERSION",
  "COLUMNS",
  "COMP_WORDBREAKS",
  "DIRSTACK",
  "EPOCHREALTIME",
  "EPOCHSECONDS",
  "EUID",
  "FUNCNAME",
  "GROUPS",
  "HISTCMD",
  "LINENO",
  "LINES",
  "OLDPWD",
  "PIPESTATUS",
  "PPID",
  "PWD",
  "RANDOM",
  "SECONDS",
  "SHELLOPTS",
  "SHLVL",
  "SRANDOM",
  "UID",
]);
/** Options the framing manages or bash does not let a script set. */
const FRAMING_OPTIONS = new Set([
  "set:history",
  "set:monitor",
  "set:emacs",
  "set:vi",
  "shopt:extdebug",
  "shopt:login_shell",
  "shopt:restricted_shell",
  "shopt:progcomp_alias",
]);

const SECTIONS = "VFGAOUDSH";

/**
 * The hidden call that prints the state, in sections each after a line of
 * `\x1d<mark><letter>`. Builtins only, in a function (so a user's DEBUG trap,
 * which the framing filters, does not see it), on the left of `||` (no
 * errexit, no ERR trap), with stderr closed (xtrace shows nothing).
 */
export function dumpCommand(mark: string): string {
  const head = (s: string) => `\\builtin printf '\\035%s\\n' ${mark}${s}`;
  const steps = [
    "\\builtin declare -p",
    "\\builtin declare -F",
    "\\builtin declare -f",
    "\\builtin alias -p",
    "\\builtin set +o;\\builtin shopt -p",
    "\\builtin umask",
    "\\builtin dirs -l -p",
    "\\builtin ulimit -S -a",
    "\\builtin ulimit -H -a",
  ];
  const body = steps.map((step, i) => `${head(SECTIONS[i])};${step}`).join(
    ";",
  );
  return `{ __bbJournal(){ ${body};${
    head("E")
  }; }\n__bbJournal||:;\\builtin unset -f __bbJournal; } 2>/dev/null`;
}

/** Bytes as a string of one character per byte. */
export function bytesToBinary(chunks: readonly Uint8Array[]): string {
  let out = "";
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i += 8192) {
      out += String.fromCharCode(...chunk.subarray(i, i + 8192));
    }
  }
  return out;
}

/** A string of one character per byte, read as UTF-8 (for names shown). */
export function binaryToText(binary: string): string {
  return new TextDecoder().decode(
    Uint8Array.from(binary, (c) => c.charCodeAt(0)),
  );
}

/**
 * Reads a dump (one character per byte); null when its sections are not all
 * there (the call was cut short).
 */
export function parseDump(text: string, mark: string): Snapshot | null {
  const parts = new Map<string, string>();
  const letters = `${SECTIONS}E`;
  let at = text.indexOf(`\x1d${mark}${letters[0]}\n`);
  if (at < 0) return null;
  for (let i = 0; i < SECTIONS.length; i++) {
    const open = `\x1d${mark}${letters[i]}\n`;
    const close = `\x1d${mark}${letters[i + 1]}\n`;
    const end = text.indexOf(close, at + open.length);
    if (end < 0) return null;
    parts.set(letters[i], text.slice(at + open.length, end));
    at = end;
  }
  const vars = new Map<string, string>();
  for (const entry of entries(parts.get("V")!, "declare -")) {
    const m = /^declare -\S+ ([^=\s]+)/.exec(entry);
    if (!m) continue;
    const name = m[1];
    if (FRAMING_NAME.test(name)) continue;
    if (SPECIAL_VARIABLES.has(name) && name !== "PWD" && name !== "OLDPWD") {
      continue;
    }
    vars.set(name, entry);
  }
  const names: string[] = [];
  for (const line of parts.get("F")!.split("\n")) {
    const m = /^declare -\S+ (.+)$/.exec(line);
    if (m) names.push(m[1]);
  }
  const funcs = splitFunctions(parts.get("G")!, names);
  const aliases = new Map<string, string>();
  for (const entry of entries(parts.get("A")!, "alias ")) {
    const m = /^alias (?:-- )?([^=]+)=/.exec(entry);
    if (!m || FRAMING_NAME.test(m[1])) continue;
    aliases.set(m[1], entry);
  }
  const options = new Map<string, string>();
  for (const line of parts.get("O")!.split("\n")) {
    const m = /^(set [+-]o|shopt -[su]) (\S+)$/.exec(line);
    if (!m) continue;
    const key = `${m[1].startsWith("set") ? "set" : "shopt"}:${m[2]}`;
    if (!FRAMING_OPTIONS.has(key)) options.set(key, line);
  }
  const snapshot: Snapshot = {
    vars,
    funcs,
    aliases,
    options,
    umask: parts.get("U")!.trim(),
    dirs: parts.get("D")!.split("\n").filter((l) => l !== ""),
    softLimits: limits(parts.get("S")!),
    hardLimits: limits(parts.get("H")!),
    dropped: [],
    bytes: 0,
  };
  return bound(snapshot);
}

/** Entries that start with `prefix` at a line's start; other lines continue the last. */
function entries(text: string, prefix: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith(prefix) || out.length === 0) out.push(line);
    else out[out.length - 1] += `\n${line}`;
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out.map((e) => e.replace(/\n+$/, ""));
}

/** `declare -f`'s text cut at each named function's header. */
function splitFunctions(text: string, names: string[]): Map<string, string> {
  const starts: [number, string][] = [];
  for (const name of names) {
    const header = `${name} () \n`;
    const at = text.startsWith(header)
      ? 0
      : text.indexOf(`\n${header}`) + 1 || -1;
    if (at >= 0) starts.push([at, name]);
  }
  starts.sort((a, b) => a[0] - b[0]);
  const funcs = new Map<string, string>();
  for (let i = 0; i < starts.length; i++) {
    const [at, name] = starts[i];
    if (FRAMING_NAME.test(name)) continue;
    const end = i + 1 < starts.length ? starts[i + 1][0] : text.length;
    funcs.set(name, text.slice(at, end).replace(/\n+$/, ""));
  }
  return funcs;
}

/** `ulimit -a` lines by flag: `(blocks, -c) 0` → `c` → `0`. */
function limits(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /-([A-Za-z])\)\s+(\S+)\s*$/.exec(line);
    if (m) out.set(m[1], m[2]);
  }
  return out;
}

/** Keeps a snapshot under {@linkcode JOURNAL_MAX_BYTES}: the largest values go first. */
function bound(s: Snapshot): Snapshot {
  const size = (m: Map<string, string>) =>
    [...m].reduce((n, [k, v]) => n + k.length + v.length, 0);
  s.bytes = size(s.vars) + size(s.funcs) + size(s.aliases) +
    size(s.options) + s.dirs.join("\n").length + 256;
  if (s.bytes <= JOURNAL_MAX_BYTES) return s;
  const items = [
    ...[...s.vars].map(([k, v]) => ({ kind: "variable", map: s.vars, k, v })),
    ...[...s.funcs].map(([k, v]) => ({ kind: "function", map: s.funcs, k, v })),
  ].sort((a, b) => b.v.length - a.v.length);
  for (const item of items) {
    if (s.bytes <= JOURNAL_MAX_BYTES) break;
    if (item.k === "PWD") continue;
    item.map.delete(item.k);
    s.bytes -= item.k.length + item.v.length;
    s.dropped.push(
      `${item.kind} ${binaryToText(item.k)} (journal over ${
        JOURNAL_MAX_BYTES / 1024
      } KiB)`,
    );
  }
  return s;
}

// ---------------------------------------------------------------------------
// Replaying it.

/** One step of a replay, and how the result names it. */
interface Item {
  kind: "variable" | "function" | "alias" | "option" | "cwd" | "other";
  label: string;
  code: string;
  why: string;
}

/**
 * A string of one character per byte as an ANSI-C quoted word of ASCII only
 * (bytes past 0x7e and control characters as `\xNN`).
 */
export function binaryQuote(binary: string): string {
  return `$'${
    binary.replace(
      // deno-lint-ignore no-control-regex
      /[\\'\x00-\x1f\x7f-\xff]/g,
      (c) =>
        c === "\\" || c === "'"
          ? `\\${c}`
          : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
    )
  }'`;
}

/** The value part of a `declare` line (after the first `=`), or null. */
function valueOf(line: string | undefined): string | null {
  if (line === undefined) return null;
  const m = /^declare -\S+ [^=\s]+=/.exec(line);
  return m ? line.slice(m[0].length) : null;
}

/** What to replay: the journal's differences from a fresh shell's baseline. */
function items(journal: Snapshot, base: Snapshot): Item[] {
  const out: Item[] = [];
  const shown = binaryToText;
  for (const [key, line] of journal.options) {
    if (!key.startsWith("shopt:") || base.options.get(key) === line) continue;
    out.push({ kind: "option", label: line, code: line, why: "refused" });
  }
  for (const [name, line] of journal.vars) {
    if (name === "PWD" || name === "OLDPWD") continue;
    if (base.vars.get(name) === line) continue;
    const reset = base.vars.has(name) ? `builtin unset -v ${name};` : "";
    out.push({
      kind: "variable",
      label: shown(name),
      code: `${reset}${line}`,
      why: "could not be set (read-only in a fresh shell?)",
    });
  }
  for (const name of base.vars.keys()) {
    if (journal.vars.has(name) || name === "PWD" || name === "OLDPWD") continue;
    out.push({
      kind: "variable",
      label: `${shown(name)} (unset)`,
      code: `builtin unset -v ${name}`,
      why: "could not be unset",
    });
  }
  for (const [name, text] of journal.funcs) {
    if (base.funcs.get(name) === text) continue;
    out.push({
      kind: "function",
      label: shown(name),
      code: text,
      why: "no longer parses",
    });
  }
  for (const name of base.funcs.keys()) {
    if (journal.funcs.has(name)) continue;
    out.push({
      kind: "function",
      label: `${shown(name)} (unset)`,
      code: `builtin unset -f ${binaryQuote(name)}`,
      why: "could not be unset",
    });
  }
  for (const [name, line] of journal.aliases) {
    if (base.aliases.get(name) === line) continue;
    out.push({ kind: "alias", label: shown(name), code: line, why: "refused" });
  }
  for (const name of base.aliases.keys()) {
    if (journal.aliases.has(name)) continue;
    out.push({
      kind: "alias",
      label: `${shown(name)} (unset)`,
      code: `builtin unalias -- ${binaryQuote(name)}`,
      why: "could not be removed",
    });
  }
  if (journal.umask !== "" && journal.umask !== base.umask) {
    out.push({
      kind: "other",
      label: `umask ${journal.umask}`,
      code: `builtin umask ${journal.umask}`,
      why: "refused",
    });
  }
  for (
    const [which, j, b] of [
      ["H", journal.hardLimits, base.hardLimits],
      ["S", journal.softLimits, base.softLimits],
    ] as const
  ) {
    for (const [flag, value] of j) {
      if (b.get(flag) === value) continue;
      out.push({
        kind: "other",
        label: `ulimit -${which} -${flag} ${value}`,
        code: `builtin ulimit -${which} -${flag} ${value}`,
        why: "refused (a hard limit cannot be raised)",
      });
    }
  }
  const pwd = valueOf(journal.vars.get("PWD"));
  if (pwd !== null && pwd !== valueOf(base.vars.get("PWD"))) {
    out.push({
      kind: "cwd",
      label: journal.dirs[0] ?? "",
      code: `__bbJd=${pwd};builtin cd -- "$__bbJd"`,
      why: "the directory is gone or not accessible",
    });
  }
  const oldpwd = journal.vars.get("OLDPWD");
  if (oldpwd !== undefined && oldpwd !== base.vars.get("OLDPWD")) {
    out.push({ kind: "other", label: "OLDPWD", code: oldpwd, why: "refused" });
  }
  if (journal.dirs.length > 1) {
    const pushes = journal.dirs.slice(1).reverse().map((d) =>
      `builtin pushd -n -- ${binaryQuote(d)}`
    );
    out.push({
      kind: "other",
      label: `directory stack (${journal.dirs.length - 1} more)`,
      code: `builtin dirs -c;${pushes.join(";")}`,
      why: "refused",
    });
  }
  // Last: errexit, nounset, posix mode and the like apply to nothing above.
  for (const [key, line] of journal.options) {
    if (!key.startsWith("set:") || base.options.get(key) === line) continue;
    out.push({ kind: "option", label: line, code: line, why: "refused" });
  }
  return out;
}

/** A prepared replay: the hidden command and how to read its answer. */
export interface Replay {
  command: string;
  read(output: string, mark: string): {
    restored: RestoredState;
    snapshot: Snapshot | null;
  };
}

/**
 * The hidden call that brings a fresh shell (whose state is `base`) to
 * `journal`, item by item, then dumps the state again with `mark`.
 */
export function replayCommand(
  journal: Snapshot,
  base: Snapshot,
  mark: string,
): Replay {
  const list = items(journal, base);
  const lines = list.map((item, i) =>
    `builtin eval ${binaryQuote(item.code)} >/dev/null 2>&1||__bbJf+=" ${i}"`
  );
  const command = `{ __bbJf=\n${
    lines.join("\n")
  }\nbuiltin printf '\\035%sR%s\\n' ${mark} "$__bbJf";builtin unset -v __bbJf __bbJd; } 2>/dev/null\n${
    dumpCommand(mark)
  }`;
  return {
    command,
    read(output: string): {
      restored: RestoredState;
      snapshot: Snapshot | null;
    } {
      const m = new RegExp(`\x1d${mark}R([ 0-9]*)\n`).exec(output);
      const failed = new Set(
        m ? m[1].trim().split(/\s+/).filter(Boolean).map(Number) : [],
      );
      const restored: RestoredState = {
        variables: [],
        functions: [],
        aliases: [],
        options: [],
        other: [],
        failed: journal.dropped.slice(),
        lost: [...NEVER_RESTORED],
      };
      list.forEach((item, i) => {
        if (m === null || failed.has(i)) {
          const what = item.kind === "cwd"
            ? `working directory ${binaryToText(item.label)}`
            : item.kind === "other" || item.kind === "option"
            ? binaryToText(item.label)
            : `${item.kind} ${item.label}`;
          restored.failed.push(
            `${what}: ${m === null ? "not replayed" : item.why}`,
          );
          return;
        }
        if (item.kind === "cwd") restored.cwd = binaryToText(item.label);
        else if (item.kind === "variable") restored.variables.push(item.label);
        else if (item.kind === "function") restored.functions.push(item.label);
        else if (item.kind === "alias") restored.aliases.push(item.label);
        else if (item.kind === "option") restored.options.push(item.label);
        else restored.other.push(binaryToText(item.label));
      });
      return { restored, snapshot: parseDump(output, mark) };
    },
  };
}

/** The names a snapshot holds that may change state when run (functions, aliases). */
export function knownNames(
  snapshot: Snapshot | null,
): { functions: ReadonlySet<string>; aliases: ReadonlySet<string> } {
  return {
    functions: new Set(snapshot ? [...snapshot.funcs.keys()] : []),
    aliases: new Set(snapshot ? [...snapshot.aliases.keys()] : []),
  };
}
