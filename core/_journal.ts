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
  return changedSections(command, known) !== "";
}

/**
 * Which parts of the state `command` may change, as the dump's section
 * letters (see {@linkcode dumpCommand}): "" for none, every section when it
 * cannot be told (a user's function or alias, `source`, `eval`, a name known
 * only at run time, text the parser cannot read). Only those sections are
 * taken again after it: a \`cd\` costs a look at the directory and two
 * variables, not the whole state.
 */
export function changedSections(
  command: string,
  known: { functions: ReadonlySet<string>; aliases: ReadonlySet<string> },
): string {
  let body: Statement[];
  try {
    body = parse(command).body;
  } catch {
    return SECTIONS;
  }
  return union(body.map((s) => sectionsOf(s.command, known)));
}

/** The letters of every part, once each, in the dump's order. */
function union(parts: readonly string[]): string {
  const all = parts.join("");
  return [...SECTIONS].filter((l) => all.includes(l)).join("");
}

/** What a builtin's words may change; undefined: not a state builtin. */
function builtinSections(name: string, words: readonly string[]):
  | string
  | undefined {
  const flags = words.filter((w) => /^[-+][A-Za-z]/.test(w)).join("");
  const functions = /f|F/.test(flags);
  switch (name) {
    case "cd":
    case "pushd":
    case "popd":
      return "VD";
    case "dirs":
      return "D";
    case "export":
    case "declare":
    case "typeset":
    case "local":
    case "readonly":
      return functions ? "VFG" : "V";
    case "unset":
      return /f/.test(flags) ? "FG" : /v/.test(flags) ? "V" : "VFG";
    case "alias":
    case "unalias":
      return "A";
    case "set":
    case "shopt":
      return "O";
    case "umask":
      return "U";
    case "ulimit":
      return "SH";
    case "let":
    case "read":
    case "readarray":
    case "mapfile":
    case "getopts":
      return "V";
    case "source":
    case ".":
    case "eval":
    case "exec":
    case "enable":
    case "trap":
      return SECTIONS;
    default:
      return undefined;
  }
}

function sectionsOf(
  c: Statement["command"],
  known: { functions: ReadonlySet<string>; aliases: ReadonlySet<string> },
): string {
  const list = (b: Statement[]) =>
    union(b.map((s) => sectionsOf(s.command, known)));
  const redirects = (rs: { fd?: string; target: Word }[]) =>
    rs.some((r) => r.fd?.startsWith("{") || wordChanges(r.target)) ? "V" : "";
  switch (c.type) {
    case "Simple": {
      const own = union([
        redirects(c.redirects),
        c.words.some(wordChanges) ? "V" : "",
        c.assigns.some((a) => a.value && wordChanges(a.value)) ? "V" : "",
      ]);
      if (c.words.length === 0) {
        return c.assigns.length > 0 ? union([own, "V"]) : own;
      }
      if (known.aliases.has(c.words[0].text)) return SECTIONS;
      let i = 0;
      let name = literal(c.words[0]);
      while (name === "builtin" || name === "command") {
        i++;
        while (i < c.words.length && c.words[i].text.startsWith("-")) i++;
        if (i >= c.words.length) return own;
        name = literal(c.words[i]);
      }
      if (name === null) return SECTIONS;
      if (known.functions.has(name) || known.aliases.has(name)) {
        return SECTIONS;
      }
      const words = c.words.slice(i + 1).map((w) => literal(w) ?? "-fv");
      const state = builtinSections(name, words);
      if (state !== undefined) return union([own, state]);
      if (name === "printf" && c.words.some((w) => w.text === "-v")) {
        return union([own, "V"]);
      }
      return c.assigns.length > 0 && SPECIAL_BUILTINS.has(name)
        ? union([own, "V"])
        : own;
    }
    case "Pipeline":
      return union(c.commands.map((x) => sectionsOf(x, known)));
    case "Logical":
      return union([sectionsOf(c.left, known), sectionsOf(c.right, known)]);
    case "Subshell":
      return "";
    case "Group":
      return union([redirects(c.redirects), list(c.body)]);
    case "If":
      return union([
        redirects(c.redirects),
        ...c.clauses.map((k) => union([list(k.cond), list(k.body)])),
        c.otherwise !== undefined ? list(c.otherwise) : "",
      ]);
    case "Loop":
      return union([redirects(c.redirects), list(c.cond), list(c.body)]);
    case "For":
      return union([redirects(c.redirects), "V", list(c.body)]);
    case "Case":
      return union([
        redirects(c.redirects),
        wordChanges(c.word) ? "V" : "",
        ...c.items.map((k) => list(k.body)),
      ]);
    case "Test":
      return union([
        redirects(c.redirects),
        c.words.some(wordChanges) ? "V" : "",
      ]);
    case "ArithCmd":
      return /=|\+\+|--/.test(c.expr) || c.inner.some(wordChanges) ? "V" : "";
    case "Function":
      return "FG";
    default:
      // (( ; ; )), coproc: anything.
      return SECTIONS;
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

/** The dump's sections, in order: variables, function names, function bodies, aliases, options, umask, directory stack, soft and hard limits. */
export const SECTIONS = "VFGAOUDSH";

/**
 * The hidden call that prints the state, in sections each after a line of
 * `\x1d<mark><letter>`. Builtins only, in a function (so a user's DEBUG trap,
 * which the framing filters, does not see it), on the left of `||` (no
 * errexit, no ERR trap), with stderr closed (xtrace shows nothing).
 */
export function dumpCommand(mark: string, sections = SECTIONS): string {
  return dumpCall(mark, sections, false);
}

/** The framing's dump function: `__bbjd MARK SECTIONS` (see {@linkcode dumpCall}). */
export const DUMP_FUNCTION = "__bbjd";

const DUMP_STEPS = [
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

/**
 * The definition of the dump function, which prints the sections named in
 * its second word (each after its header, with the mark of its first), then
 * the end mark. Defined once per shell: a call is then a few bytes.
 */
export function dumpDefinition(): string {
  const head = (s: string) => `\\builtin printf '\\035%s\\n' "$1${s}"`;
  const body = DUMP_STEPS.map((step, i) =>
    `[[ $2 != *${SECTIONS[i]}* ]]||{ ${head(SECTIONS[i])};${step}; }`
  ).join(";");
  return `${DUMP_FUNCTION}(){ ${body};${head("E")}; }`;
}

/**
 * The hidden call that dumps `sections` with `mark`, the dump function
 * defined first unless the shell has it (`defined`).
 */
export function dumpCall(
  mark: string,
  sections: string,
  defined: boolean,
): string {
  const call = `${DUMP_FUNCTION} ${mark} ${sections}||:`;
  return defined
    ? `{ ${call};} 2>/dev/null`
    : `{ ${dumpDefinition()}\n${call};} 2>/dev/null`;
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
export function parseDump(
  text: string,
  mark: string,
  previous?: Snapshot | null,
): Snapshot | null {
  // The sections present, each up to the next header; the end mark last.
  const parts = new Map<string, string>();
  const heads: [number, string][] = [];
  for (const letter of `${SECTIONS}E`) {
    const at = text.indexOf(`\x1d${mark}${letter}\n`);
    if (at >= 0) heads.push([at, letter]);
  }
  heads.sort((x, y) => x[0] - y[0]);
  if (heads.at(-1)?.[1] !== "E") return null;
  for (let i = 0; i + 1 < heads.length; i++) {
    const [at, letter] = heads[i];
    parts.set(letter, text.slice(at + mark.length + 2, heads[i + 1][0]));
  }
  // A partial dump keeps the rest of the previous snapshot.
  if (!previous && ![...SECTIONS].every((l) => parts.has(l))) return null;
  const base: Snapshot = previous ?? {
    vars: new Map(),
    funcs: new Map(),
    aliases: new Map(),
    options: new Map(),
    umask: "",
    dirs: [],
    softLimits: new Map(),
    hardLimits: new Map(),
    dropped: [],
    bytes: 0,
  };
  const section = (l: string): string | undefined => parts.get(l);
  const snapshot: Snapshot = { ...base };
  const v = section("V");
  if (v !== undefined) {
    snapshot.vars = new Map();
    for (const entry of entries(v, "declare -")) {
      const m = /^declare -\S+ ([^=\s]+)/.exec(entry);
      if (!m) continue;
      const name = m[1];
      if (FRAMING_NAME.test(name)) continue;
      if (SPECIAL_VARIABLES.has(name) && name !== "PWD" && name !== "OLDPWD") {
        continue;
      }
      snapshot.vars.set(name, entry);
    }
  }
  const f = section("F");
  const g = section("G");
  if (f !== undefined && g !== undefined) {
    const names: string[] = [];
    for (const line of f.split("\n")) {
      const m = /^declare -\S+ (.+)$/.exec(line);
      if (m) names.push(m[1]);
    }
    snapshot.funcs = splitFunctions(g, names);
  }
  const a = section("A");
  if (a !== undefined) {
    snapshot.aliases = new Map();
    for (const entry of entries(a, "alias ")) {
      const m = /^alias (?:-- )?([^=]+)=/.exec(entry);
      if (!m || FRAMING_NAME.test(m[1])) continue;
      snapshot.aliases.set(m[1], entry);
    }
  }
  const o = section("O");
  if (o !== undefined) {
    snapshot.options = new Map();
    for (const line of o.split("\n")) {
      const m = /^(set [+-]o|shopt -[su]) (\S+)$/.exec(line);
      if (!m) continue;
      const key = `${m[1].startsWith("set") ? "set" : "shopt"}:${m[2]}`;
      if (!FRAMING_OPTIONS.has(key)) snapshot.options.set(key, line);
    }
  }
  const u = section("U");
  if (u !== undefined) snapshot.umask = u.trim();
  const d = section("D");
  if (d !== undefined) snapshot.dirs = d.split("\n").filter((l) => l !== "");
  const soft = section("S");
  if (soft !== undefined) snapshot.softLimits = limits(soft);
  const hard = section("H");
  if (hard !== undefined) snapshot.hardLimits = limits(hard);
  // What was left out is judged again for the parts taken again.
  snapshot.dropped = base.dropped.filter((item) =>
    !(v !== undefined && item.startsWith("variable ")) &&
    !(g !== undefined && item.startsWith("function "))
  );
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
