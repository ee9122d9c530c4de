/**
 * Command policy: allow / ask / deny rules checked against every simple
 * command a bash string would run (in lists, pipelines, subshells, control
 * flow and every substitution), found by the pure parser of `parse.ts`, with
 * a read-only preset that fails closed; and `limitsScript` for resource
 * limits.
 *
 * The policy is a tripwire that keeps an agent honest, not a sandbox: for a
 * boundary, run the session in isolation.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

import {
  type Assignment,
  type Command,
  literal,
  parse,
  ParseError,
  type Redirect,
  type Statement,
  type Word,
  type WordPart,
} from "./parse.ts";

/** What to do with a command. */
export type Decision = "allow" | "ask" | "deny";

/** The verdict on one command string. */
export interface PolicyResult {
  /** The strictest decision over every simple command found. */
  decision: Decision;
  /** Why, naming the command or construct that decided. */
  reason: string;
  /** The argv of each simple command found (non-literal words as their source text). */
  commands: string[][];
}

/** Options of a {@linkcode Policy}. */
export interface PolicyOptions {
  /** Rules that allow: a command name or a word prefix (`git status`, `npm run test:*`). */
  allow?: readonly string[];
  /** Rules that ask a person first. */
  ask?: readonly string[];
  /** Rules that refuse. Deny wins over ask, ask over allow. */
  deny?: readonly string[];
  /** The decision for a command no rule matches (default "ask"). */
  default?: Decision;
}

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

/** Environment names that change how programs or the shell behave. */
const DANGEROUS_NAME =
  /^(PATH|LD_\w*|DYLD_\w*|BASH_ENV|ENV|IFS|PS[0-4]|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|BASH_XTRACEFD|BASH_FUNC_\w*|GIT_\w*|PAGER|MANPAGER|LESSOPEN|LESSCLOSE|LESS|EDITOR|VISUAL|BROWSER|NODE_OPTIONS|NODE_PATH|PYTHON\w*|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|HOME|XDG_CONFIG_HOME|GCONV_PATH|LOCPATH|SSH_ASKPASS|SUDO_ASKPASS|NPM_CONFIG_\w*|CDPATH|HISTFILE|TMOUT)$/;

const SHELLS = new Set([
  "bash",
  "sh",
  "dash",
  "zsh",
  "ksh",
  "mksh",
  "ash",
  "busybox",
  "fish",
  "csh",
  "tcsh",
]);
const EVALUATORS = new Set(["eval", "source", "."]);

/** A parsed rule: words, with `prefix` when the last word ends in `*`. */
interface Rule {
  text: string;
  words: string[];
  /** The last word is a string prefix (from a trailing `*`). */
  prefix: boolean;
}

function parseRule(text: string): Rule {
  if (typeof text !== "string" || text.trim() === "") {
    throw new TypeError(
      `Expected a rule to be a non-empty string, got ${JSON.stringify(text)}`,
    );
  }
  let words = text.trim().split(/[ \t]+/);
  let prefix = false;
  let last = words[words.length - 1];
  if (last === "*" || last === ":*") {
    words = words.slice(0, -1);
    last = words[words.length - 1];
  } else if (last.endsWith(":*")) {
    // Claude Code's form: a string prefix of the last word.
    words[words.length - 1] = last.slice(0, -2);
    prefix = true;
  } else if (last.endsWith("*")) {
    words[words.length - 1] = last.slice(0, -1);
    prefix = true;
  }
  if (words.length === 0) {
    throw new TypeError(
      `Expected a rule to name a command, got ${JSON.stringify(text)}`,
    );
  }
  return { text, words, prefix };
}

/**
 * Whether `argv` starts with the rule's words. A non-literal argument (null)
 * matches when `loose` (deny and ask rules: fail closed) and not otherwise.
 */
function matches(rule: Rule, argv: (string | null)[], loose: boolean): boolean {
  if (argv.length < rule.words.length) return false;
  for (let i = 0; i < rule.words.length; i++) {
    const a = argv[i];
    const w = rule.words[i];
    if (a === null) {
      if (!loose) return false;
      continue;
    }
    const last = i === rule.words.length - 1;
    if (last && rule.prefix ? !a.startsWith(w) : a !== w) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Read-only preset: programs and the arguments they may take.

type ArgCheck = (args: string[]) => string | null;

const none: ArgCheck = () => null;

function refuseOptions(program: string, bad: RegExp): ArgCheck {
  return (args) => {
    for (const a of args) {
      if (a === "--") break;
      if (bad.test(a)) return `${program} ${a} is not read-only`;
    }
    return null;
  };
}

const READ_ONLY: Record<string, ArgCheck> = {
  ls: none,
  cat: none,
  head: none,
  tail: refuseOptions("tail", /^(-f|-F|--follow|--retry)/),
  wc: none,
  grep: none,
  egrep: none,
  fgrep: none,
  rg: refuseOptions("rg", /^(--pre(=|$)|--pre-glob|-z$|--search-zip)/),
  find: findCheck,
  sed: sedCheck,
  awk: awkCheck,
  gawk: awkCheck,
  mawk: awkCheck,
  nawk: awkCheck,
  sort: refuseOptions("sort", /^(-o|--output|--compress-program)/),
  uniq: uniqCheck,
  cut: none,
  tr: none,
  diff: none,
  cmp: none,
  comm: none,
  echo: none,
  printf: (args) =>
    args[0] === "-v" || (args[0]?.startsWith("-v") ?? false)
      ? "printf -v assigns a variable"
      : null,
  pwd: none,
  cd: none,
  true: none,
  false: none,
  ":": none,
  test: testCheck,
  "[": testCheck,
  file: none,
  stat: none,
  du: none,
  df: none,
  which: none,
  type: none,
  whoami: none,
  id: none,
  uname: none,
  date: refuseOptions("date", /^(-s|--set)/),
  hostname: (args) =>
    args.some((a) => !a.startsWith("-"))
      ? "hostname with an argument sets the host name"
      : null,
  printenv: none,
  env: none,
  realpath: none,
  readlink: none,
  dirname: none,
  basename: none,
  nl: none,
  od: none,
  hexdump: none,
  xxd: (args) =>
    args.filter((a) => !a.startsWith("-")).length > 1
      ? "xxd with an output file writes it"
      : null,
  strings: none,
  md5sum: none,
  sha1sum: none,
  sha256sum: none,
  sha512sum: none,
  cksum: none,
  column: none,
  fold: none,
  fmt: none,
  expand: none,
  unexpand: none,
  rev: none,
  tac: none,
  paste: none,
  join: none,
  seq: none,
  tree: refuseOptions("tree", /^-o$/),
  jq: none,
  base64: refuseOptions("base64", /^(-o|--output)/),
  tar: tarCheck,
  git: gitCheck,
  tee: (args) =>
    args.some((a) => !a.startsWith("-")) ? "tee writes to files" : null,
};

function findCheck(args: string[]): string | null {
  for (const a of args) {
    if (
      /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(a)
    ) {
      return `find ${a} runs commands or writes files`;
    }
  }
  return null;
}

function uniqCheck(args: string[]): string | null {
  const operands = args.filter((a) => !a.startsWith("-") || a === "-");
  return operands.length > 1
    ? "uniq with an output operand writes a file"
    : null;
}

function testCheck(args: string[]): string | null {
  if (args.includes("-v")) return "test -v evaluates array subscripts";
  return null;
}

function tarCheck(args: string[]): string | null {
  const first = args[0] ?? "";
  const mode = first.startsWith("-") ? first.slice(1) : first;
  const listing = args.includes("--list") ||
    (!first.startsWith("--") && /^[a-zA-Z]*t/.test(mode));
  if (!listing) return "tar may only list archives (t)";
  for (const a of args) {
    if (
      /^--(checkpoint-action|to-command|use-compress-program|rsh-command|info-script|new-volume-script)|^-[IF]$/
        .test(a)
    ) {
      return `tar ${a} runs a command`;
    }
  }
  return null;
}

const GIT_READ = new Set([
  "status",
  "log",
  "diff",
  "show",
  "branch",
  "tag",
  "rev-parse",
  "ls-files",
  "ls-tree",
  "cat-file",
  "blame",
  "describe",
  "remote",
  "shortlog",
  "grep",
  "reflog",
  "config",
  "stash",
  "whatchanged",
  "name-rev",
  "merge-base",
  "rev-list",
  "show-ref",
  "for-each-ref",
  "count-objects",
  "diff-tree",
  "diff-files",
  "diff-index",
  "cherry",
  "version",
  "help",
]);

function gitCheck(args: string[]): string | null {
  let i = 0;
  // Global options before the subcommand.
  for (; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith("-")) break;
    if (
      a === "-c" || a.startsWith("--config-env") ||
      a.startsWith("--exec-path")
    ) {
      return `git ${a} can run commands`;
    }
    if (
      a === "-C" || a === "--git-dir" || a === "--work-tree" ||
      a === "--namespace"
    ) i++;
    else if (
      !/^(--no-pager|--git-dir=|--work-tree=|--namespace=|--bare|--literal-pathspecs|--no-optional-locks|-P|--paginate|-p)/
        .test(a)
    ) {
      return `git ${a} is not a known read-only option`;
    }
  }
  const sub = args[i];
  if (sub === undefined) return null;
  if (!GIT_READ.has(sub)) return `git ${sub} is not a read-only subcommand`;
  const rest = args.slice(i + 1);
  for (const a of rest) {
    if (
      /^--(output|ext-diff|textconv|exec|upload-pack|receive-pack|open-files-in-pager)(=|$)|^-O/
        .test(a)
    ) {
      return `git ${sub} ${a} can write files or run commands`;
    }
  }
  const operands = rest.filter((a) => !a.startsWith("-"));
  switch (sub) {
    case "branch":
      if (
        rest.some((a) =>
          /^(-[dDmMcCu]|--(delete|move|copy|set-upstream-to|unset-upstream|edit-description|force))/
            .test(a)
        )
      ) {
        return "git branch may only list branches";
      }
      if (
        operands.length > 0 &&
        !rest.some((a) =>
          /^(--list|-l|--contains|--merged|--no-merged|--points-at)/.test(a)
        )
      ) {
        return "git branch with a name creates a branch";
      }
      return null;
    case "tag":
      if (
        operands.length > 0 && !rest.some((a) => a === "-l" || a === "--list")
      ) {
        return "git tag with a name creates a tag";
      }
      if (
        rest.some((a) => /^(-[dasfu]|--(delete|annotate|sign|force))/.test(a))
      ) return "git tag may only list tags";
      return null;
    case "remote":
      if (operands.length > 0 && !["show", "get-url"].includes(operands[0])) {
        return `git remote ${operands[0]} changes remotes`;
      }
      return null;
    case "config":
      if (
        !rest.some((a) => /^(--get|--get-all|--get-regexp|--list|-l)$/.test(a))
      ) return "git config may only read (--get, --list)";
      return null;
    case "stash":
      if (operands.length === 0 || !["list", "show"].includes(operands[0])) {
        return "git stash may only list or show";
      }
      return null;
    case "reflog":
      if (operands.length > 0 && operands[0] !== "show") {
        return `git reflog ${operands[0]} changes the reflog`;
      }
      return null;
  }
  return null;
}

/**
 * A small reading of sed scripts: refuses commands that run programs or touch files.
 *
 * @example
 * ```ts
 * import { sedScriptProblem } from "./policy.ts";
 *
 * console.assert(sedScriptProblem("s/a/b/g") === null);
 * console.assert(sedScriptProblem("s/a/b/e") !== null);
 * ```
 */
export function sedScriptProblem(script: string): string | null {
  let i = 0;
  const n = script.length;
  const skipSpace = () => {
    while (i < n && /[ \t\n;]/.test(script[i])) i++;
  };
  const delimited = (delim: string): boolean => {
    // Reads up to the next unescaped delimiter; false at the end of the script.
    while (i < n) {
      const c = script[i];
      if (c === "\\") {
        i += 2;
        continue;
      }
      if (c === "\n") return false;
      i++;
      if (c === delim) return true;
    }
    return false;
  };
  const address = () => {
    for (let k = 0; k < 2; k++) {
      if (/[0-9$]/.test(script[i] ?? "")) {
        while (i < n && /[0-9$~+]/.test(script[i])) i++;
      } else if (script[i] === "/") {
        i++;
        if (!delimited("/")) return false;
        while (/[IM]/.test(script[i] ?? "")) i++;
      } else if (script[i] === "\\") {
        const d = script[i + 1];
        i += 2;
        if (!delimited(d)) return false;
        while (/[IM]/.test(script[i] ?? "")) i++;
      }
      if (script[i] === "," && k === 0) {
        i++;
        continue;
      }
      break;
    }
    while (script[i] === " " || script[i] === "\t") i++;
    if (script[i] === "!") i++;
    while (script[i] === " " || script[i] === "\t") i++;
    return true;
  };
  while (true) {
    skipSpace();
    if (i >= n) return null;
    if (script[i] === "}" || script[i] === "{") {
      i++;
      continue;
    }
    if (script[i] === "#") {
      while (i < n && script[i] !== "\n") i++;
      continue;
    }
    if (!address()) return "the sed script does not parse";
    const cmd = script[i++];
    switch (cmd) {
      case "s": {
        const d = script[i++];
        if (d === undefined || d === "\n" || d === "\\") {
          return "the sed script does not parse";
        }
        if (!delimited(d) || !delimited(d)) {
          return "the sed script does not parse";
        }
        while (i < n && !/[;\n}]/.test(script[i])) {
          const f = script[i];
          if (f === "e") return "sed s///e runs the pattern space as a command";
          if (f === "w" || f === "W") return "sed s///w writes a file";
          i++;
        }
        break;
      }
      case "y": {
        const d = script[i++];
        if (!delimited(d) || !delimited(d)) {
          return "the sed script does not parse";
        }
        break;
      }
      case "a":
      case "i":
      case "c":
        while (i < n && script[i] !== "\n") {
          if (script[i] === "\\" && script[i + 1] === "\n") i++;
          i++;
        }
        break;
      case ":":
      case "b":
      case "t":
      case "T":
        while (i < n && !/[;\n]/.test(script[i])) i++;
        break;
      case "e":
        return "sed e runs a command";
      case "r":
      case "R":
        return `sed ${cmd} reads a file into the output`;
      case "w":
      case "W":
        return `sed ${cmd} writes a file`;
      case "l":
      case "q":
      case "Q":
      case "L":
        while (i < n && /[0-9 ]/.test(script[i])) i++;
        break;
      default:
        if (cmd === undefined || !"pPdDnNgGhHxz=F".includes(cmd)) {
          return `sed command ${
            JSON.stringify(cmd ?? "")
          } is not known to be read-only`;
        }
    }
  }
}

function sedCheck(args: string[]): string | null {
  const scripts: string[] = [];
  let positional = true;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") break;
    if (
      a === "-i" || a.startsWith("--in-place") ||
      (/^-[a-zA-Z]+$/.test(a) && a.includes("i"))
    ) {
      return "sed -i edits files in place";
    }
    if (a === "-f" || a.startsWith("--file")) {
      return "sed -f runs a script from a file";
    }
    if (a === "-e" || a === "--expression") {
      scripts.push(args[++i] ?? "");
      positional = false;
      continue;
    }
    if (a.startsWith("--expression=")) {
      scripts.push(a.slice(13));
      positional = false;
      continue;
    }
    if (a.startsWith("-e") && a.length > 2) {
      scripts.push(a.slice(2));
      positional = false;
      continue;
    }
    if (a.startsWith("-") && a !== "-") continue;
    if (positional) {
      scripts.push(a);
      positional = false;
    }
  }
  for (const s of scripts) {
    const problem = sedScriptProblem(s);
    if (problem) return problem;
  }
  return null;
}

/**
 * Refuses awk programs that can run commands or write files.
 *
 * @example
 * ```ts
 * import { awkProgramProblem } from "./policy.ts";
 *
 * console.assert(awkProgramProblem("NR > 1 { print $2 }") === null);
 * console.assert(awkProgramProblem("BEGIN { system(\"id\") }") !== null);
 * ```
 */
export function awkProgramProblem(program: string): string | null {
  // Drop string literals so their text cannot hide or fake a construct.
  const code = program.replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
  if (/\bsystem\s*\(/.test(code)) return "awk system() runs a command";
  if (/[^|]\|[^|]|^\||[^|]\|$/.test(code.replace(/\|\|/g, "  "))) {
    return "awk | runs a command";
  }
  if (/\b(print|printf)\b[^;}\n]*>/.test(code)) {
    return "awk print > writes a file";
  }
  if (/\b(fflush|close)\s*\(/.test(code) && /\|/.test(code)) {
    return "awk pipes run commands";
  }
  if (/@load|@include/.test(code)) return "awk @load/@include loads code";
  return null;
}

function awkCheck(args: string[]): string | null {
  let program: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      program ??= args[i + 1] ?? null;
      break;
    }
    if (
      a === "-f" || a.startsWith("--file") || a === "-i" ||
      a.startsWith("--include") || a === "-l" || a.startsWith("--load") ||
      a === "-E" || a.startsWith("--exec")
    ) {
      return `awk ${a} loads a program from a file`;
    }
    if (a === "-e" || a === "--source") {
      const problem = awkProgramProblem(args[++i] ?? "");
      if (problem) return problem;
      program = "";
      continue;
    }
    if (a === "-v" || a === "-F") {
      i++;
      continue;
    }
    if (a.startsWith("-")) continue;
    if (program === null) {
      program = a;
      break;
    }
  }
  return program ? awkProgramProblem(program) : null;
}

// ---------------------------------------------------------------------------
// Wrappers: options they take, so the wrapped command can be found.

/** Splits a wrapper's argv into the wrapped argv, or a reason to refuse. */
type Unwrap = (
  args: (string | null)[],
) => { inner: (string | null)[]; assigns?: string[] } | string;

function optionsThen(
  program: string,
  withValue: RegExp,
  flags: RegExp,
  positionalsBefore = 0,
): Unwrap {
  return (args) => {
    let i = 0;
    for (; i < args.length; i++) {
      const a = args[i];
      if (a === null) return `${program} has a non-literal option`;
      if (a === "--") {
        i++;
        break;
      }
      if (!a.startsWith("-") || a === "-") break;
      if (withValue.test(a)) {
        if (!a.includes("=") && !/^-[a-zA-Z].+/.test(a)) i++;
        continue;
      }
      if (flags.test(a)) continue;
      return `${program} ${a} is not an option bashbox knows`;
    }
    i += positionalsBefore;
    if (i > args.length) return `${program} is missing its operand`;
    return { inner: args.slice(i) };
  };
}

const WRAPPERS: Record<string, Unwrap> = {
  env: (args) => {
    const assigns: string[] = [];
    let i = 0;
    for (; i < args.length; i++) {
      const a = args[i];
      if (a === null) return "env has a non-literal argument";
      if (a === "--") {
        i++;
        break;
      }
      if (
        a === "-S" || a.startsWith("--split-string") || /^-[a-zA-Z]*S/.test(a)
      ) return "env -S splits a string into a command";
      if (a === "-u" || a === "--unset" || a === "-C" || a === "--chdir") {
        i++;
        continue;
      }
      if (
        /^(-i|-0|--ignore-environment|--null|-)$|^--(unset|chdir)=|^-[u C]./
          .test(a)
      ) continue;
      if (a.startsWith("-")) return `env ${a} is not an option bashbox knows`;
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
        assigns.push(a.slice(0, a.indexOf("=")));
        continue;
      }
      break;
    }
    return { inner: args.slice(i), assigns };
  },
  timeout: optionsThen(
    "timeout",
    /^(-s|--signal|-k|--kill-after)/,
    /^(--preserve-status|--foreground|-v|--verbose)$/,
    1,
  ),
  nice: optionsThen("nice", /^(-n|--adjustment)/, /^-\d+$/),
  nohup: optionsThen("nohup", /^$/, /^$/),
  time: (args) => {
    for (const a of args) {
      if (a === null || !a.startsWith("-")) break;
      if (a === "-o" || a.startsWith("--output")) {
        return "time -o writes a file";
      }
    }
    return optionsThen(
      "time",
      /^(-f|--format)/,
      /^(-p|--portability|-v|--verbose|-a|--append|-q|--quiet)$/,
    )(args);
  },
  command: (args) => {
    if (args.some((a) => a === "-v" || a === "-V")) return { inner: [] };
    return optionsThen("command", /^$/, /^-p$/)(args);
  },
  builtin: optionsThen("builtin", /^$/, /^$/),
  stdbuf: optionsThen("stdbuf", /^(-i|-o|-e|--input|--output|--error)/, /^$/),
  xargs: optionsThen(
    "xargs",
    /^(-a|--arg-file|-d|--delimiter|-E|--eof|-I|--replace|-L|--max-lines|-n|--max-args|-P|--max-procs|-s|--max-chars|--process-slot-var)/,
    /^(-0|--null|-r|--no-run-if-empty|-t|--verbose|-x|--exit|-i.*|-l.*|-e.*)$/,
  ),
  sudo: optionsThen(
    "sudo",
    /^(-u|--user|-g|--group|-h|--host|-p|--prompt|-C|--close-from|-D|--chdir|-r|--role|-t|--type|-T|--command-timeout)/,
    /^(-E|--preserve-env.*|-H|--set-home|-n|--non-interactive|-S|--stdin|-k|-K|-b|--background|-P|-A|--askpass)$/,
  ),
  exec: optionsThen("exec", /^-a$/, /^(-c|-l|-cl|-lc)$/),
};

// ---------------------------------------------------------------------------

interface Finding {
  decision: Decision;
  reason: string;
  /** Decided by an allow rule the user wrote. */
  explicit?: boolean;
}

/**
 * Judges bash commands before they run. Every simple command counts,
 * wherever it stands; deny wins over ask, ask over allow; anything the policy
 * cannot read for certain (a parse error, a non-literal command name, a
 * path-qualified name no rule names, code-running expansions) is never
 * allowed.
 *
 * @example Rules
 * ```ts
 * import { Policy } from "./policy.ts";
 *
 * const policy = new Policy({ allow: ["git status", "npm run test:*"], deny: ["rm"] });
 * console.assert(policy.check("git status --short").decision === "allow");
 * console.assert(policy.check("npm run test:unit").decision === "allow");
 * console.assert(policy.check("git status; r''m -rf /").decision === "deny");
 * console.assert(policy.check("make").decision === "ask");
 * ```
 *
 * @example The read-only preset
 * ```ts
 * import { Policy } from "./policy.ts";
 *
 * const ro = Policy.readOnly();
 * console.assert(ro.check("git log --oneline -5 | head").decision === "allow");
 * console.assert(ro.check("find . -name '*.ts' -delete").decision !== "allow");
 * console.assert(ro.check("echo x > out.txt").decision !== "allow");
 * ```
 */
export class Policy {
  readonly #allow: Rule[];
  readonly #ask: Rule[];
  readonly #deny: Rule[];
  readonly #default: Decision;
  readonly #readOnly: boolean;
  readonly #allowAll: boolean;

  /** Creates a policy from rules; commands no rule matches get `default` ("ask"). */
  constructor(options: PolicyOptions = {}) {
    this.#allow = (options.allow ?? []).map(parseRule);
    this.#ask = (options.ask ?? []).map(parseRule);
    this.#deny = (options.deny ?? []).map(parseRule);
    const d = options.default ?? "ask";
    if (!(d in SEVERITY)) {
      throw new TypeError(
        `Expected default to be "allow", "ask" or "deny", got ${
          JSON.stringify(d)
        }`,
      );
    }
    this.#default = d;
    // deno-lint-ignore no-explicit-any
    const internal = options as any;
    this.#readOnly = internal[READ_ONLY_FLAG] === true;
    this.#allowAll = internal[ALLOW_ALL_FLAG] === true;
  }

  /**
   * The read-only preset: the usual inspection tools with per-program
   * argument rules, no writes through redirections, no session-changing
   * builtins. Extra rules may be added.
   *
   * @example
   * ```ts
   * import { Policy } from "./policy.ts";
   *
   * console.assert(Policy.readOnly().check("sed -n 1,5p README.md").decision === "allow");
   * console.assert(Policy.readOnly().check("sed -i s/a/b/ f").decision !== "allow");
   * ```
   */
  static readOnly(extra: Omit<PolicyOptions, "default"> = {}): Policy {
    return new Policy(
      { ...extra, default: "ask", [READ_ONLY_FLAG]: true } as PolicyOptions,
    );
  }

  /**
   * Allows everything except what deny (or ask) rules name.
   *
   * @example
   * ```ts
   * import { Policy } from "./policy.ts";
   *
   * const p = Policy.allowAll({ deny: ["shutdown"] });
   * console.assert(p.check("make && ./run").decision === "allow");
   * console.assert(p.check("shutdown -h now").decision === "deny");
   * ```
   */
  static allowAll(extra: Pick<PolicyOptions, "ask" | "deny"> = {}): Policy {
    return new Policy(
      { ...extra, default: "allow", [ALLOW_ALL_FLAG]: true } as PolicyOptions,
    );
  }

  /**
   * Judges one command string.
   *
   * @example
   * ```ts
   * import { Policy } from "./policy.ts";
   *
   * const r = Policy.readOnly().check("cat a | grep -c b");
   * console.assert(r.decision === "allow");
   * console.assert(JSON.stringify(r.commands) === '[["cat","a"],["grep","-c","b"]]');
   * ```
   */
  check(command: string): PolicyResult {
    if (typeof command !== "string") {
      return {
        decision: "deny",
        reason: `Expected the command to be a string, got ${typeof command}`,
        commands: [],
      };
    }
    let script;
    try {
      script = parse(command);
    } catch (error) {
      if (error instanceof ParseError) {
        return {
          decision: "deny",
          reason: error.limit
            ? error.message
            : `The command does not parse: ${error.message}`,
          commands: [],
        };
      }
      throw error;
    }
    const walker = new Walker(this);
    walker.statements(script.body);
    if (walker.findings.length === 0) {
      return {
        decision: "allow",
        reason: "The command runs nothing",
        commands: [],
      };
    }
    let worst = walker.findings[0];
    for (const f of walker.findings) {
      if (SEVERITY[f.decision] > SEVERITY[worst.decision]) worst = f;
    }
    if (worst.decision === "allow") {
      worst = { decision: "allow", reason: "Every command is allowed" };
    }
    return {
      decision: worst.decision,
      reason: worst.reason,
      commands: walker.argvs,
    };
  }

  /** @internal Judges one argv (after wrappers are taken off). */
  judgeArgv(argv: (string | null)[]): Finding {
    for (const rule of this.#deny) {
      if (matches(rule, argv, true)) {
        return { decision: "deny", reason: `"${rule.text}" is denied` };
      }
    }
    for (const rule of this.#ask) {
      if (matches(rule, argv, true)) {
        return { decision: "ask", reason: `"${rule.text}" needs approval` };
      }
    }
    const name = argv[0];
    if (name === null) {
      return {
        decision: this.#allowAll ? "allow" : "ask",
        reason: "The command name is not literal (it comes from an expansion)",
      };
    }
    for (const rule of this.#allow) {
      if (matches(rule, argv, false)) {
        return {
          decision: "allow",
          reason: `"${rule.text}" is allowed`,
          explicit: true,
        };
      }
    }
    if (this.#allowAll) {
      return { decision: "allow", reason: "Everything is allowed" };
    }
    if (name.includes("/")) {
      return {
        decision: "ask",
        reason:
          `The path-qualified command "${name}" is not allowed by any rule`,
      };
    }
    if (this.#readOnly) {
      const check = READ_ONLY[name];
      if (check !== undefined) {
        if (argv.some((a) => a === null) && NEEDS_LITERAL_ARGS.has(name)) {
          return {
            decision: "ask",
            reason: `${name} has a non-literal argument`,
          };
        }
        const problem = check(argv.slice(1).map((a) => a ?? ""));
        if (problem) return { decision: "deny", reason: problem };
        return { decision: "allow", reason: `${name} is read-only` };
      }
    }
    return { decision: this.#default, reason: `No rule matches "${name}"` };
  }

  /** @internal */
  get strict(): boolean {
    return !this.#allowAll;
  }

  /** @internal */
  get readOnlyPreset(): boolean {
    return this.#readOnly;
  }
}

const READ_ONLY_FLAG = "__bashboxReadOnly";
const ALLOW_ALL_FLAG = "__bashboxAllowAll";
/** Programs whose safety depends on their arguments: non-literal ones are not judged. */
const NEEDS_LITERAL_ARGS = new Set([
  "find",
  "sed",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "git",
  "tar",
  "sort",
  "uniq",
  "rg",
  "xxd",
  "tee",
  "printf",
  "test",
  "[",
  "date",
  "hostname",
  "base64",
  "tree",
  "tail",
]);

/** Walks the AST and collects a finding for everything that runs or changes state. */
class Walker {
  readonly policy: Policy;
  readonly findings: Finding[] = [];
  readonly argvs: string[][] = [];

  constructor(policy: Policy) {
    this.policy = policy;
  }

  add(decision: Decision, reason: string): void {
    this.findings.push({ decision, reason });
  }

  /** A structural problem: refused unless the policy allows everything. */
  refuse(decision: Decision, reason: string): void {
    if (this.policy.strict) this.add(decision, reason);
  }

  statements(list: Statement[]): void {
    for (const s of list) this.command(s.command);
  }

  command(c: Command): void {
    switch (c.type) {
      case "Simple":
        return this.simple(c.assigns, c.words, c.redirects);
      case "Pipeline":
        c.commands.forEach((x) => this.command(x));
        return;
      case "Logical":
        this.command(c.left);
        this.command(c.right);
        return;
      case "Subshell":
      case "Group":
        this.statements(c.body);
        return this.redirects(c.redirects);
      case "If":
        for (const cl of c.clauses) {
          this.statements(cl.cond);
          this.statements(cl.body);
        }
        if (c.otherwise) this.statements(c.otherwise);
        return this.redirects(c.redirects);
      case "Loop":
        this.statements(c.cond);
        this.statements(c.body);
        return this.redirects(c.redirects);
      case "For":
        if (DANGEROUS_NAME.test(c.name)) {
          this.refuse(
            "deny",
            `The loop sets ${c.name}, which changes how commands run`,
          );
        }
        c.items?.forEach((w) => this.word(w));
        this.statements(c.body);
        return this.redirects(c.redirects);
      case "ArithFor":
        this.arith(c.exprs.join(";"), c.inner);
        this.statements(c.body);
        return this.redirects(c.redirects);
      case "Case":
        this.word(c.word);
        for (const item of c.items) {
          item.patterns.forEach((w) => this.word(w));
          this.statements(item.body);
        }
        return this.redirects(c.redirects);
      case "Function":
        this.refuse(
          this.policy.readOnlyPreset ? "deny" : "ask",
          `Defining the function "${c.name}" changes later commands`,
        );
        this.command(c.body);
        return this.redirects(c.redirects);
      case "ArithCmd":
        this.arith(c.expr, c.inner);
        return this.redirects(c.redirects);
      case "Test":
        this.testWords(c.words);
        return this.redirects(c.redirects);
      case "Coproc":
        this.refuse("ask", "coproc is not supported by the policy");
        this.command(c.body);
        return;
    }
  }

  testWords(words: Word[]): void {
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      this.word(w);
      const text = literal(w);
      if (text === "-v" || text === "-R") {
        this.refuse("deny", `[[ ${text} ]] evaluates array subscripts`);
      }
      if (text !== null && /^-(eq|ne|lt|le|gt|ge)$/.test(text)) {
        for (const side of [words[i - 1], words[i + 1]]) {
          const v = side ? literal(side) : null;
          if (v === null || !/^\s*[+-]?\d+\s*$/.test(v)) {
            this.refuse(
              "deny",
              `[[ ${text} ]] evaluates its operands as arithmetic`,
            );
          }
        }
      }
    }
  }

  arith(expr: string, inner: Word[]): void {
    inner.forEach((w) => this.word(w));
    if (
      !/^[\s0-9+\-*/%()<>=!&|^~?:,xXa-fA-F#]*$/.test(expr) ||
      /[a-zA-Z_]{2,}|[g-zG-Z_]/.test(
        expr.replace(/0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z]+/g, "0"),
      )
    ) {
      this.refuse(
        "ask",
        "Arithmetic with names or substitutions can run code through array subscripts",
      );
    }
  }

  assignment(a: Assignment, prefix: boolean): void {
    if (DANGEROUS_NAME.test(a.name)) {
      this.refuse("deny", `Setting ${a.name} changes how commands run`);
    }
    if (a.index !== undefined && !/^\s*\d+\s*$/.test(a.index)) {
      this.refuse(
        "ask",
        `The subscript of ${a.name}[${a.index}] is evaluated as arithmetic`,
      );
    }
    if (a.value) this.word(a.value);
    a.array?.forEach((w) => this.word(w));
    if (!prefix && this.policy.readOnlyPreset) {
      // A bare assignment changes the session's state, harmlessly unless named above.
    }
  }

  redirects(list: Redirect[]): void {
    for (const r of list) {
      this.word(r.target);
      if (r.heredoc) this.word(r.heredoc.body);
      const target = literal(r.target);
      if (target !== null && /^\/dev\/(tcp|udp)\//.test(target)) {
        this.refuse(
          "deny",
          `Redirection to ${target} opens a network connection`,
        );
        continue;
      }
      if (target === null && /^\/dev\/(tcp|udp)/.test(r.target.text)) {
        this.refuse(
          "deny",
          "Redirection to /dev/tcp or /dev/udp opens a network connection",
        );
      }
      if (r.fd?.startsWith("{")) {
        this.refuse(
          "ask",
          "Redirections that allocate a descriptor ({var}>) change the session",
        );
      }
      if (!this.policy.readOnlyPreset) continue;
      const writes = r.op === ">" || r.op === ">>" || r.op === ">|" ||
        r.op === "&>" || r.op === "&>>" || r.op === "<>" || r.op === ">&";
      if (!writes) continue;
      if (r.op === ">&" && target !== null && /^(\d+|-)$/.test(target)) {
        continue;
      }
      if (target === "/dev/null") continue;
      if (r.op === "<>") {
        this.add("deny", "<> opens a file for writing");
        continue;
      }
      this.add(
        "deny",
        `Output redirection to ${target ?? r.target.text} writes a file`,
      );
    }
  }

  word(w: Word): void {
    for (const part of w.parts) this.part(part);
  }

  part(part: WordPart): void {
    switch (part.type) {
      case "Lit":
        return;
      case "Param": {
        part.inner.forEach((w) => this.word(w));
        const op = part.op;
        if (/@P/.test(op)) {
          this.refuse(
            "deny",
            `\${${part.name}${op}} expands prompt escapes, which run commands`,
          );
        }
        if (op.startsWith("!")) {
          this.refuse("ask", `\${!${part.name}} is an indirect expansion`);
        }
        const sub = /^\[([^\]]*)\]/.exec(op.replace(/^[!#]/, ""));
        if (sub && !/^(\s*\d+\s*|@|\*)$/.test(sub[1])) {
          this.refuse(
            "ask",
            `The subscript [${sub[1]}] is evaluated as arithmetic`,
          );
        }
        if (/^:?[-=?+]/.test(op) === false && /^\s*:\s*[^-=?+]/.test(op)) {
          // ${x:offset:length}: offsets are arithmetic.
          if (!/^:\s*-?\d+(\s*:\s*-?\d+)?$/.test(op)) {
            this.refuse(
              "ask",
              `The offset in \${${part.name}${op}} is arithmetic`,
            );
          }
        }
        return;
      }
      case "CmdSubst":
      case "ProcSubst":
        return this.statements(part.body);
      case "Arith":
        return this.arith(part.expr, part.inner);
    }
  }

  simple(assigns: Assignment[], words: Word[], redirects: Redirect[]): void {
    assigns.forEach((a) => this.assignment(a, words.length > 0));
    words.forEach((w) => this.word(w));
    this.redirects(redirects);
    if (words.length === 0) return;
    const argv = words.map(literal);
    this.argvs.push(words.map((w, i) => argv[i] ?? w.text));
    this.argv(argv, 0);
  }

  argv(argv: (string | null)[], depth: number): void {
    if (argv.length === 0) return;
    if (depth > 8) {
      this.refuse("ask", "Too many nested wrappers");
      return;
    }
    const verdict = this.policy.judgeArgv(argv);
    const name = argv[0];
    if (verdict.decision === "deny" || name === null) {
      this.add(verdict.decision, verdict.reason);
      return;
    }
    const base = name.slice(name.lastIndexOf("/") + 1);
    const unwrap = WRAPPERS[base];
    if (unwrap !== undefined && this.policy.strict) {
      const out = unwrap(argv.slice(1));
      if (typeof out === "string") {
        this.add("ask", out);
        return;
      }
      for (const a of out.assigns ?? []) {
        if (DANGEROUS_NAME.test(a)) {
          this.add("deny", `Setting ${a} changes how commands run`);
        }
      }
      if (base === "sudo") {
        this.add(
          this.policy.readOnlyPreset ? "deny" : "ask",
          "sudo runs a command as another user",
        );
      }
      if (out.inner.length === 0) {
        this.add(verdict.decision, verdict.reason);
        return;
      }
      // The wrapper itself must be acceptable too (unless it is only a wrapper).
      if (
        verdict.decision !== "allow" && !(base in READ_ONLY) &&
        !this.policy.readOnlyPreset
      ) {
        this.add(verdict.decision, verdict.reason);
      }
      this.argv(out.inner, depth + 1);
      return;
    }
    if (this.policy.strict && verdict.decision !== "allow") {
      if (
        SHELLS.has(base) &&
        argv.slice(1).some((a) => a === null || /^-[a-zA-Z]*c/.test(a))
      ) {
        this.add("ask", `${base} -c runs a string as a command`);
        return;
      }
      if (EVALUATORS.has(base)) {
        this.add("ask", `${base} runs text as commands`);
        return;
      }
    }
    if (this.policy.strict && !verdict.explicit) {
      const problem = stateChange(base, argv.slice(1));
      if (problem) {
        this.add("deny", problem);
        return;
      }
    }
    this.add(verdict.decision, verdict.reason);
  }
}

/** Builtins that change how later commands behave, refused by every strict policy. */
function stateChange(name: string, args: (string | null)[]): string | null {
  switch (name) {
    case "alias":
      return args.some((a) => a === null || a.includes("="))
        ? "alias changes what later commands run"
        : null;
    case "hash":
      return args.some((a) =>
          a === null || a === "-p" || /^-[a-z]*p/.test(a ?? "")
        )
        ? "hash -p changes what later commands run"
        : null;
    case "trap":
      return args.length > 0 &&
          !(args.length === 1 && (args[0] === "-p" || args[0] === "-l"))
        ? "trap runs code on later events"
        : null;
    case "enable":
      return "enable changes the shell's builtins";
    case "shopt":
      return args.some((a) => a === "-s" || a === "-u")
        ? "shopt changes how later commands are read"
        : null;
    case "set": {
      const harmless =
        /^[-+]([euxv]+|o)$|^(pipefail|errexit|nounset|xtrace|verbose)$/;
      return args.every((a) => a !== null && harmless.test(a))
        ? null
        : "set changes how later commands run";
    }
    case "export":
    case "declare":
    case "typeset":
    case "readonly":
    case "local": {
      for (const a of args) {
        if (a === null) return `${name} with a non-literal argument`;
        if (/^-[a-zA-Z]*[fn]/.test(a) && name !== "export") {
          return `${name} ${a} changes functions or references`;
        }
        const n = a.split("=")[0];
        if (!a.startsWith("-") && DANGEROUS_NAME.test(n)) {
          return `${name} ${n} changes how commands run`;
        }
      }
      return null;
    }
    case "let":
      return "let evaluates arithmetic, which can run code through array subscripts";
    case "read":
    case "mapfile":
    case "readarray":
      return `${name} assigns through names that are evaluated`;
    case "printf":
      return args[0] === "-v" || (args[0]?.startsWith("-v") ?? false)
        ? "printf -v assigns through a name that is evaluated"
        : null;
    case "test":
    case "[":
      return args.includes("-v") || args.includes("-R")
        ? "test -v evaluates array subscripts"
        : null;
    case "complete":
    case "compgen":
    case "bind":
    case "fc":
    case "ulimit":
    case "umask":
      return args.length > 0 &&
          !(name === "umask" && args.length === 1 && args[0] === "-S")
        ? `${name} changes the session`
        : null;
  }
  return null;
}

/** Resource limits applied when a shell starts. */
export interface Limits {
  /** CPU seconds per process (`ulimit -t`: SIGXCPU at this soft limit, SIGKILL a second later). */
  cpuSeconds?: number;
  /** Virtual memory per process in bytes (`ulimit -v`, rounded down to KiB). */
  memoryBytes?: number;
  /** Largest file a process may write, in bytes (`ulimit -f`, in 1024-byte blocks). */
  fileSizeBytes?: number;
  /** Processes of the user (`ulimit -u`). */
  processes?: number;
  /** Open files per process (`ulimit -n`). */
  openFiles?: number;
}

/**
 * The `ulimit` lines that apply `limits` (hard and soft) in a shell.
 *
 * @example
 * ```ts
 * import { limitsScript } from "./policy.ts";
 *
 * console.assert(limitsScript({ openFiles: 256 }) === "ulimit -n 256\n");
 * ```
 */
export function limitsScript(limits: Limits): string {
  const lines: string[] = [];
  const put = (key: keyof Limits, flag: string, scale: number) => {
    const v = limits[key];
    if (v === undefined) return;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
      throw new RangeError(
        `Expected limits.${key} to be a positive number, got ${String(v)}`,
      );
    }
    const n = Math.max(1, Math.floor(v / scale));
    lines.push(`ulimit ${flag} ${n}`);
  };
  put("cpuSeconds", "-t", 1);
  if (lines.length > 0 && limits.cpuSeconds !== undefined) {
    // Soft limit first (SIGXCPU, which names the cause), hard a second later (SIGKILL).
    const n = Math.max(1, Math.floor(limits.cpuSeconds));
    lines[0] = `ulimit -t ${n + 1}; ulimit -S -t ${n}`;
  }
  put("memoryBytes", "-v", 1024);
  put("fileSizeBytes", "-f", 1024);
  put("processes", "-u", 1);
  put("openFiles", "-n", 1);
  return lines.map((l) => l + "\n").join("");
}
