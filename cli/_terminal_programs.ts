/**
 * Which command lines need the person's terminal: full-screen programs
 * (editors, pagers, monitors, multiplexers), and programs that read their
 * commands from the terminal (a REPL started without a script, `ssh` without
 * a remote command). Decided with the project's bash parser by the programs a
 * line runs and their options, never by searching the text: `repl` hosts such
 * a line on a terminal and refuses it when its input is piped.
 *
 * @module
 */

import {
  type Command,
  literal,
  parse,
  type Redirect,
  type Statement,
} from "../shell/parse.ts";

/**
 * How a program uses the terminal:
 * - `screen`: draws the whole screen and reads keys (editors, monitors,
 *   multiplexers, file managers), wherever its input and output go;
 * - `pager`: pages text and reads keys from the terminal, unless its output
 *   is piped or redirected (then it prints, as `cat` does);
 * - `repl`: reads its commands from standard input, unless that is piped or
 *   redirected or the options give it a script or command.
 */
export type TerminalKind = "screen" | "pager" | "repl";

/** A program of a command line that needs the terminal. */
export interface TerminalProgram {
  /** The program's name as the line runs it (no directory). */
  readonly program: string;
  /** How it uses the terminal. */
  readonly kind: TerminalKind;
}

/** How to tell from a program's arguments whether it needs the terminal. */
interface Rule {
  kind: TerminalKind;
  /** Options that take a value (the next word, or the rest of a short cluster, or `=value`). */
  valued?: readonly string[];
  /** Options that make it run without the terminal (a script, a command, batch mode). */
  batch?: readonly string[];
  /** Options that keep it on the terminal whatever follows (`python -i script`). */
  interactive?: readonly string[];
  /** Operands it takes and still reads the terminal (default: any for screen and pager, none for repl). */
  operands?: number;
  /** Options are whole words even with one dash (`sqlite3 -cmd`, `screen -ls`). */
  wordOptions?: boolean;
  /** A test of its own, on the arguments, before the rest (true/false decide). */
  custom?: (args: readonly (string | null)[]) => boolean | undefined;
}

const EDITOR: Rule = { kind: "screen" };
const VIM: Rule = {
  kind: "screen",
  batch: ["-es", "-Es", "--headless", "-ex", "-Ex"],
  wordOptions: true,
};
const MONITOR: Rule = { kind: "screen" };
const PAGER: Rule = { kind: "pager" };
/** A REPL: any script operand or command option makes it run on its own. */
function repl(rule: Omit<Rule, "kind"> = {}): Rule {
  return { kind: "repl", operands: 0, ...rule };
}
const PYTHON = repl({
  valued: ["-W", "-X", "--check-hash-based-pycs"],
  batch: ["-c", "-m"],
  interactive: ["-i"],
});
const MYSQL = repl({
  valued: [
    "-u",
    "--user",
    "-h",
    "--host",
    "-P",
    "--port",
    "-D",
    "--database",
    "-S",
    "--socket",
  ],
  batch: ["-e", "--execute"],
  operands: 1,
});
const SSH_VALUED = [
  "-B",
  "-b",
  "-c",
  "-D",
  "-E",
  "-e",
  "-F",
  "-I",
  "-i",
  "-J",
  "-L",
  "-l",
  "-m",
  "-O",
  "-o",
  "-p",
  "-Q",
  "-R",
  "-S",
  "-W",
  "-w",
];

/**
 * The programs `repl` treats as needing the terminal, with the options that
 * make them run without it. A name not here runs as any command does.
 */
const RULES: Readonly<Record<string, Rule>> = {
  // Editors.
  vi: VIM,
  vim: VIM,
  nvim: VIM,
  view: VIM,
  vimdiff: VIM,
  nano: EDITOR,
  pico: EDITOR,
  emacs: {
    kind: "screen",
    batch: [
      "--batch",
      "-batch",
      "--script",
      "-script",
      "--daemon",
      "--bg-daemon",
      "--fg-daemon",
    ],
    wordOptions: true,
  },
  micro: EDITOR,
  joe: EDITOR,
  jed: EDITOR,
  ne: EDITOR,
  mcedit: EDITOR,
  kak: EDITOR,
  hx: EDITOR,
  helix: EDITOR,
  sudoedit: EDITOR,
  // Pagers.
  less: PAGER,
  more: PAGER,
  most: PAGER,
  man: PAGER,
  info: PAGER,
  // Monitors and full-screen tools.
  top: { kind: "screen", batch: ["-b"] },
  htop: MONITOR,
  btop: MONITOR,
  atop: MONITOR,
  iotop: { kind: "screen", batch: ["-b", "--batch"] },
  iftop: { kind: "screen", batch: ["-t"] },
  nethogs: { kind: "screen", batch: ["-t"] },
  glances: { kind: "screen", batch: ["--stdout", "--stdout-csv", "--export"] },
  nvtop: MONITOR,
  watch: MONITOR,
  ncdu: { kind: "screen", batch: ["-o", "-f"] },
  mc: MONITOR,
  ranger: MONITOR,
  nnn: MONITOR,
  vifm: MONITOR,
  tig: MONITOR,
  lazygit: MONITOR,
  // Terminal multiplexers: attaching or creating a session.
  tmux: {
    kind: "screen",
    custom: (args) => {
      const operands = operandsOf(args, ["-L", "-S", "-f", "-c", "-T"]);
      if (operands.length === 0) return true;
      const attach = [
        "a",
        "at",
        "att",
        "attach",
        "attach-session",
        "new",
        "new-session",
      ];
      return attach.includes(operands[0] ?? "") && !args.includes("-d");
    },
  },
  screen: {
    kind: "screen",
    batch: ["-ls", "-list", "-X", "-Q", "-dm", "-Dm", "-dmS", "-DmS"],
    wordOptions: true,
    custom: (args) =>
      (args.includes("-d") || args.includes("-D")) && args.includes("-m")
        ? false
        : undefined,
  },
  byobu: MONITOR,
  zellij: MONITOR,
  // Remote shells: without a remote command they read the terminal.
  ssh: repl({
    valued: SSH_VALUED,
    batch: ["-N", "-V", "-G"],
    interactive: ["-t"],
    operands: 1,
  }),
  mosh: repl({
    operands: 1,
    valued: ["-p", "--port", "--ssh", "--server", "--predict"],
  }),
  telnet: repl({ operands: 2 }),
  sftp: repl({ valued: SSH_VALUED, batch: ["-b"], operands: 1 }),
  // REPLs without a script or command.
  python: PYTHON,
  python2: PYTHON,
  python3: PYTHON,
  ipython: repl({ batch: ["-c", "-m"], interactive: ["-i"] }),
  ipython3: repl({ batch: ["-c", "-m"], interactive: ["-i"] }),
  bpython: repl(),
  ptpython: repl(),
  node: repl({
    valued: [
      "-r",
      "--require",
      "--import",
      "--loader",
      "--experimental-loader",
      "-C",
      "--conditions",
      "--env-file",
      "--title",
    ],
    batch: [
      "-e",
      "--eval",
      "-p",
      "--print",
      "-c",
      "--check",
      "--test",
      "--run",
      "-v",
      "--version",
    ],
    interactive: ["-i", "--interactive"],
  }),
  deno: { kind: "repl", custom: (args) => subcommand(args, ["repl"], true) },
  bun: { kind: "repl", custom: (args) => subcommand(args, ["repl"], false) },
  irb: repl(),
  pry: repl(),
  ghci: repl({ batch: ["-e"], operands: Infinity }),
  iex: repl({ operands: Infinity }),
  erl: repl({
    batch: ["-noshell", "-detached"],
    wordOptions: true,
    operands: Infinity,
  }),
  lua: repl({ batch: ["-e"], interactive: ["-i"] }),
  luajit: repl({ batch: ["-e"], interactive: ["-i"] }),
  julia: repl({
    batch: ["-e", "--eval", "-E", "--print"],
    interactive: ["-i"],
  }),
  R: repl({ batch: ["-e", "-f", "--file"] }),
  racket: repl({
    batch: ["-e", "--eval", "-f", "--load"],
    interactive: ["-i", "--repl"],
  }),
  guile: repl({ batch: ["-c", "-s"] }),
  sbcl: repl({
    batch: ["--script", "--eval", "--load", "--non-interactive"],
    wordOptions: true,
  }),
  ocaml: repl(),
  utop: repl(),
  jshell: repl(),
  php: repl({ interactive: ["-a", "--interactive"], operands: -1 }),
  bc: repl({ operands: Infinity }),
  ed: repl({ operands: Infinity }),
  gdb: repl({
    batch: ["-batch", "--batch"],
    wordOptions: true,
    operands: Infinity,
  }),
  lldb: repl({ batch: ["-b", "--batch"], operands: Infinity }),
  // Database shells without a query or script.
  psql: repl({
    valued: [
      "-d",
      "--dbname",
      "-h",
      "--host",
      "-p",
      "--port",
      "-U",
      "--username",
      "-v",
      "--set",
      "--variable",
      "-P",
      "--pset",
      "-o",
      "--output",
      "-L",
      "--log-file",
      "-T",
      "-F",
      "-R",
    ],
    batch: ["-c", "--command", "-f", "--file", "-l", "--list"],
    operands: 2,
  }),
  mysql: MYSQL,
  // (MariaDB's client takes MySQL's options.)
  mariadb: MYSQL,
  sqlite3: repl({
    valued: ["-cmd", "-separator", "-nullvalue", "-newline", "-init"],
    wordOptions: true,
    operands: 1,
  }),
  "redis-cli": repl({
    valued: [
      "-h",
      "-p",
      "-s",
      "-a",
      "-u",
      "-n",
      "-r",
      "-i",
      "--user",
      "--pass",
    ],
    batch: [
      "-x",
      "--scan",
      "--bigkeys",
      "--memkeys",
      "--pipe",
      "--eval",
      "--rdb",
    ],
  }),
  mongosh: repl({
    valued: [
      "--host",
      "--port",
      "-u",
      "--username",
      "-p",
      "--password",
      "--authenticationDatabase",
    ],
    batch: ["--eval", "-f", "--file"],
    operands: 1,
  }),
  mongo: repl({
    valued: [
      "--host",
      "--port",
      "-u",
      "--username",
      "-p",
      "--password",
      "--authenticationDatabase",
    ],
    batch: ["--eval"],
    operands: 1,
  }),
};

/**
 * The names `repl` treats as needing the terminal, by kind (for the docs and
 * the help).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terminalProgramNames } from "./_terminal_programs.ts";
 *
 * assert.ok(terminalProgramNames("screen").includes("vim"));
 * assert.ok(terminalProgramNames("repl").includes("python3"));
 * ```
 */
export function terminalProgramNames(kind: TerminalKind): string[] {
  return Object.keys(RULES).filter((name) => RULES[name].kind === kind);
}

/** The operands among `args`, skipping options and the values of `valued` ones. */
function operandsOf(
  args: readonly (string | null)[],
  valued: readonly string[],
): (string | null)[] {
  const operands: (string | null)[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") return [...operands, ...args.slice(i + 1)];
    if (a !== null && a.startsWith("-") && a !== "-") {
      if (valued.includes(a)) i++;
    } else operands.push(a);
  }
  return operands;
}

/** A program that is a REPL with no arguments (`deno`) or as `<name> repl`. */
function subcommand(
  args: readonly (string | null)[],
  names: readonly string[],
  bare: boolean,
): boolean {
  const first = operandsOf(args, [])[0];
  if (first === undefined) return bare && args.length === 0;
  return first !== null && names.includes(first) &&
    operandsOf(args, []).length === 1;
}

/** Whether `args` (after the program) keep it on the terminal, by its rule. */
function needsTerminal(rule: Rule, args: readonly (string | null)[]): boolean {
  // Help and version texts are printed, whatever the program.
  if (args.length === 1 && (args[0] === "--help" || args[0] === "--version")) {
    return false;
  }
  const custom = rule.custom?.(args);
  if (custom !== undefined) return custom;
  const valued = rule.valued ?? [];
  const batch = rule.batch ?? [];
  const interactive = rule.interactive ?? [];
  let operands = 0;
  let forced = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === null) {
      operands++;
      continue;
    }
    if (a === "--") {
      operands += args.length - i - 1;
      break;
    }
    if (!a.startsWith("-") || a === "-") {
      operands++;
      continue;
    }
    if (a.startsWith("--") || rule.wordOptions) {
      const name = a.includes("=") ? a.slice(0, a.indexOf("=")) : a;
      if (batch.includes(name)) return false;
      if (interactive.includes(name)) forced = true;
      if (valued.includes(name) && !a.includes("=")) i++;
      continue;
    }
    // A cluster of short options: `-bn1`, `-ic`, `-W error`.
    for (let j = 1; j < a.length; j++) {
      const option = `-${a[j]}`;
      if (batch.includes(option)) return false;
      if (interactive.includes(option)) forced = true;
      if (valued.includes(option)) {
        if (j === a.length - 1) i++;
        break;
      }
    }
  }
  if (forced) return true;
  const allowed = rule.operands ??
    (rule.kind === "repl" ? 0 : Number.POSITIVE_INFINITY);
  return operands <= allowed;
}

/** Wrappers that run the program named after their own options, and their valued options. */
const WRAPPERS: Readonly<Record<string, readonly string[]>> = {
  command: [],
  exec: ["-a"],
  env: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
  nice: ["-n", "--adjustment"],
  nohup: [],
  stdbuf: ["-i", "-o", "-e"],
  timeout: ["-s", "--signal", "-k", "--kill-after"],
  sudo: ["-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t", "-T"],
  doas: ["-u", "-C"],
  chrt: [],
  ionice: ["-c", "-n", "-p"],
  taskset: [],
};

/** The program a simple command runs and its arguments, wrappers taken off. */
function programOf(
  words: readonly (string | null)[],
): { name: string; args: (string | null)[] } | null {
  let i = 0;
  for (let depth = 0; depth < 8; depth++) {
    const word = words[i];
    if (word === undefined || word === null) return null;
    const name = word.slice(word.lastIndexOf("/") + 1);
    if (!Object.hasOwn(WRAPPERS, name)) {
      return name === "" ? null : { name, args: words.slice(i + 1) };
    }
    const valued = WRAPPERS[name];
    i++;
    while (i < words.length) {
      const w = words[i];
      if (w === null) return null;
      if (w === "--") {
        i++;
        break;
      }
      if (name === "command" && /^-[pvV]*[vV]/.test(w)) return null;
      if (name === "sudo" && (w === "-e" || w === "--edit")) {
        return { name: "sudoedit", args: words.slice(i + 1) };
      }
      if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) i++;
      else if (name === "nice" && /^-[0-9]+$/.test(w)) i++;
      else if (w.startsWith("-") && w !== "-") {
        i += valued.includes(w) ? 2 : 1;
      } else break;
    }
    // Operands of the wrapper itself: timeout's duration, taskset's mask,
    // chrt's priority.
    if (name === "timeout" || name === "taskset" || name === "chrt") i++;
  }
  return null;
}

/** Where a command's standard input and output go, from its surroundings. */
interface Streams {
  /** Standard input is piped or redirected. */
  stdinTaken: boolean;
  /** Standard output is piped or redirected. */
  stdoutTaken: boolean;
}

function redirected(redirects: readonly Redirect[], fd: 0 | 1): boolean {
  return redirects.some((r) => {
    const input = r.op.startsWith("<") && r.op !== "<>";
    const output = r.op.includes(">") && r.op !== "<>";
    if (fd === 0) {
      return (input || r.op === "<>") && (r.fd === undefined || r.fd === "0");
    }
    return output &&
      (r.fd === undefined || r.fd === "1" || r.op.startsWith("&"));
  });
}

function within(streams: Streams, redirects: readonly Redirect[]): Streams {
  return {
    stdinTaken: streams.stdinTaken || redirected(redirects, 0),
    stdoutTaken: streams.stdoutTaken || redirected(redirects, 1),
  };
}

/** The first program of `body` that needs the terminal. */
function ofStatements(
  body: readonly Statement[],
  streams: Streams,
  depth: number,
): TerminalProgram | null {
  for (const statement of body) {
    // A background job does not get the terminal.
    if (statement.background) continue;
    const found = ofCommand(statement.command, streams, depth + 1);
    if (found) return found;
  }
  return null;
}

function ofCommand(
  command: Command,
  streams: Streams,
  depth: number,
): TerminalProgram | null {
  if (depth > 64) return null;
  switch (command.type) {
    case "Simple": {
      const found = programOf(command.words.map(literal));
      if (found === null || !Object.hasOwn(RULES, found.name)) return null;
      const rule = RULES[found.name];
      const s = within(streams, command.redirects);
      if (rule.kind === "pager" && s.stdoutTaken) return null;
      if (
        rule.kind === "repl" && s.stdinTaken &&
        !(rule.interactive ?? []).some((o) => found.args.includes(o))
      ) return null;
      if (!needsTerminal(rule, found.args)) return null;
      return { program: found.name, kind: rule.kind };
    }
    case "Pipeline": {
      const last = command.commands.length - 1;
      for (let i = 0; i <= last; i++) {
        const found = ofCommand(command.commands[i], {
          stdinTaken: streams.stdinTaken || i > 0,
          stdoutTaken: streams.stdoutTaken || i < last,
        }, depth + 1);
        if (found) return found;
      }
      return null;
    }
    case "Logical":
      return ofCommand(command.left, streams, depth + 1) ??
        ofCommand(command.right, streams, depth + 1);
    case "Subshell":
    case "Group":
    case "For":
    case "ArithFor":
      return ofStatements(
        command.body,
        within(streams, command.redirects),
        depth,
      );
    case "Loop": {
      const s = within(streams, command.redirects);
      return ofStatements(command.cond, s, depth) ??
        ofStatements(command.body, s, depth);
    }
    case "If": {
      const s = within(streams, command.redirects);
      for (const clause of command.clauses) {
        const found = ofStatements(clause.cond, s, depth) ??
          ofStatements(clause.body, s, depth);
        if (found) return found;
      }
      return command.otherwise
        ? ofStatements(command.otherwise, s, depth)
        : null;
    }
    case "Case": {
      const s = within(streams, command.redirects);
      for (const item of command.items) {
        const found = ofStatements(item.body, s, depth);
        if (found) return found;
      }
      return null;
    }
    default:
      // A function definition runs nothing; a coprocess has no terminal.
      return null;
  }
}

/**
 * The first program of a command line that needs the person's terminal, or
 * null: a full-screen program (`vim`, `less`, `top`, `tmux`, …), or one that
 * reads its commands from the terminal (`python3` without a script, `psql`
 * without `-c`, `ssh host` without a command). Found with the project's bash
 * parser: through assignments (`FOO=1 vim`), wrappers (`command`, `env`,
 * `sudo`, `nice`, `timeout`, …), lists, pipelines, groups, loops and
 * branches; a pager whose output is piped or redirected prints instead, and a
 * REPL whose input is piped or redirected reads it instead; background jobs,
 * function definitions, `--help`/`--version` and names that are not literal
 * (`$EDITOR`) are not counted. Null for a line that does not parse.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terminalProgram } from "./_terminal_programs.ts";
 *
 * assert.deepEqual(terminalProgram("FOO=1 vim notes.txt"), { program: "vim", kind: "screen" });
 * assert.deepEqual(terminalProgram("git log | less"), { program: "less", kind: "pager" });
 * assert.equal(terminalProgram("less f | grep x"), null);
 * assert.deepEqual(terminalProgram("python3"), { program: "python3", kind: "repl" });
 * assert.equal(terminalProgram("python3 -c 'print(1)'"), null);
 * assert.equal(terminalProgram("echo 'print(1)' | python3"), null);
 * assert.equal(terminalProgram("top -bn1"), null);
 * assert.equal(terminalProgram("echo vim"), null);
 * ```
 */
export function terminalProgram(line: string): TerminalProgram | null {
  let body: Statement[];
  try {
    body = parse(line).body;
  } catch {
    return null;
  }
  return ofStatements(body, { stdinTaken: false, stdoutTaken: false }, 0);
}

/**
 * Why `repl` with piped input does not run a line that needs the terminal,
 * and what to do instead (`name` is how the user invoked bashbox).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terminalRefusal } from "./_terminal_programs.ts";
 *
 * const text = terminalRefusal({ program: "vim", kind: "screen" }, "bashbox");
 * assert.match(text, /^vim is a full-screen program: it needs a terminal/);
 * assert.match(text, /process_start/);
 * ```
 */
export function terminalRefusal(found: TerminalProgram, name: string): string {
  const p = found.program;
  const why =
    "and this repl's standard input is not one, so the line was not run";
  switch (found.kind) {
    case "screen":
      return `${p} is a full-screen program: it needs a terminal, ${why}. Run \`${name} repl\` on a terminal to use it on your screen, or drive it with the process tools (process_start with "tty": true, process_write, process_read with "screen": true).`;
    case "pager":
      return `${p} pages its text on a terminal and reads keys from it, ${why}. To print the text instead, pipe it (\`| cat\`) or run the line with \`${name} run\` (as the model runs it: the pager prints).`;
    default:
      return `${p} reads its commands from a terminal when it gets no script or command, ${why}. Give it its input (a script, a command option such as -c or -e, or a pipe) and run it here or with \`${name} run\`, or drive it with the process tools (process_start, process_write, process_read).`;
  }
}
