/**
 * Wrappers: programs that run another program named in their words (`env`,
 * `command`, `timeout`, `nice`, `xargs`, `sudo`, ...). Each one's options
 * are read so that the wrapped command is found exactly; `xargs` adds words
 * read from stdin, which the policy never sees.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

import {
  type Arg,
  OptionError,
  type OptionTable,
  parseOptions,
} from "./options.ts";

/** What unwrapping found. */
export interface Unwrapped {
  /** The wrapped argv (empty when the wrapper runs nothing, e.g. `command -v`). */
  inner: Arg[];
  /** Names `env` assigns. */
  assigns?: string[];
  /** Words added at run time (xargs). */
  addsWords?: boolean;
  /** `{}`-style words replaced at run time (xargs -I, find -exec). */
  replace?: string;
}

/** An unknown word added at run time. */
export const UNSEEN: Arg = {
  value: null,
  text: "<stdin words>",
  dash: true,
  many: true,
  prefix: "",
};

/**
 * A wrapper whose options stop at the wrapped command (after
 * `operandsBefore` operands); `others` are the options that make it act on
 * running processes instead of a command (`ionice -p`, `taskset -p`).
 */
function withTable(
  program: string,
  table: OptionTable,
  operandsBefore = 0,
  others: readonly string[] = [],
): (args: readonly Arg[]) => Unwrapped | string {
  return (args) => {
    let parsed;
    try {
      parsed = parseOptions(args, { ...table, noPermute: true });
    } catch (error) {
      if (error instanceof OptionError) return `${program}: ${error.message}`;
      throw error;
    }
    if (parsed.unknown) return `${program} has a word known only at run time`;
    const other = parsed.options.find((o) => others.includes(o.name));
    if (other) {
      // -p PID and the like: no command; it acts on other processes.
      return `${program} ${other.text} acts on processes that are already running, not on a command`;
    }
    if (parsed.operands.length < operandsBefore) {
      return `${program} is missing its operand`;
    }
    return { inner: parsed.operands.slice(operandsBefore) };
  };
}

/**
 * `env [OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]`: getopt with
 * `+` (options stop at the first operand), so `-uu X` unsets `u` and X is
 * the command, `-uNAME` and `-u NAME` both unset NAME.
 */
function envUnwrap(args: readonly Arg[]): Unwrapped | string {
  let parsed;
  try {
    parsed = parseOptions(args, {
      short: "+i0u:C:S:v",
      long: [
        "ignore-environment",
        "null",
        "unset=",
        "chdir=",
        "split-string=",
        "block-signal=?",
        "default-signal=?",
        "ignore-signal=?",
        "list-signal-handling",
        "debug",
        "help",
        "version",
      ],
      noPermute: true,
    });
  } catch (error) {
    if (error instanceof OptionError) return `env: ${error.message}`;
    throw error;
  }
  if (parsed.unknown) return "env has a word known only at run time";
  for (const o of parsed.options) {
    if (o.name === "S" || o.name === "split-string") {
      return "env -S splits a string into a command";
    }
    if (o.value !== undefined && o.value.value === null) {
      return `env ${o.text} has a value known only at run time`;
    }
  }
  const rest = [...parsed.operands];
  if (rest[0]?.value === "-") rest.shift();
  const assigns: string[] = [];
  while (rest.length > 0) {
    const v = rest[0].value;
    if (v === null) {
      // NAME=$x: the name is known; otherwise the word may be anything.
      const p = rest[0].prefix;
      if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(p)) {
        return "env has a word known only at run time";
      }
      assigns.push(p.slice(0, p.indexOf("=")));
    } else if (/^[^=]+=/.test(v)) {
      // Any NAME=VALUE (env accepts names bash would not) is an assignment.
      assigns.push(v.slice(0, v.indexOf("=")));
    } else break;
    rest.shift();
  }
  return { inner: rest, assigns };
}

function xargsUnwrap(args: readonly Arg[]): Unwrapped | string {
  let parsed;
  try {
    parsed = parseOptions(args, {
      short: "0a:d:E:e::I:i::L:l::n:oP:prs:tx",
      long: [
        "null",
        "arg-file=",
        "delimiter=",
        "eof=?",
        "replace=?",
        "max-lines=?",
        "max-args=",
        "open-tty",
        "max-procs=",
        "interactive",
        "process-slot-var=",
        "no-run-if-empty",
        "max-chars=",
        "show-limits",
        "verbose",
        "exit",
        "help",
        "version",
      ],
      noPermute: true,
    });
  } catch (error) {
    if (error instanceof OptionError) return `xargs: ${error.message}`;
    throw error;
  }
  if (parsed.unknown) return "xargs has a word known only at run time";
  const slot = parsed.options.find((o) => o.name === "process-slot-var");
  if (slot) {
    return `xargs ${slot.text} sets an environment variable of the command it runs`;
  }
  let replace: string | undefined;
  for (const o of parsed.options) {
    if (o.name === "I") replace = o.value?.value ?? undefined;
    if (o.name === "i" || o.name === "replace") {
      replace = o.value?.value ?? "{}";
    }
    if (
      o.name === "p" || o.name === "interactive" || o.name === "o" ||
      o.name === "open-tty"
    ) {
      return `xargs ${o.text} reads the terminal`;
    }
  }
  const inner = parsed.operands.length > 0 ? [...parsed.operands] : [{
    value: "echo",
    text: "echo",
    dash: false,
    many: false,
    prefix: "echo",
  }];
  return { inner, addsWords: true, replace };
}

/** The wrappers, by name. */
export const WRAPPERS: Record<
  string,
  (args: readonly Arg[]) => Unwrapped | string
> = {
  env: envUnwrap,
  xargs: xargsUnwrap,
  timeout: withTable("timeout", {
    short: "k:s:v",
    long: [
      "preserve-status",
      "foreground",
      "kill-after=",
      "signal=",
      "verbose",
    ],
  }, 1),
  nice: withTable("nice", {
    short: "n:",
    long: ["adjustment="],
    numeric: /^-\d+$/,
  }),
  nohup: withTable("nohup", {}),
  stdbuf: withTable("stdbuf", {
    short: "i:o:e:",
    long: ["input=", "output=", "error="],
  }),
  setsid: withTable("setsid", { short: "cfw", long: ["ctty", "fork", "wait"] }),
  ionice: withTable(
    "ionice",
    {
      short: "+c:n:tp:P:u:hV",
      long: [
        "class=",
        "classdata=",
        "ignore",
        "pid=",
        "pgid=",
        "uid=",
        "help",
        "version",
      ],
    },
    0,
    ["p", "P", "u", "pid", "pgid", "uid"],
  ),
  taskset: withTable(
    "taskset",
    {
      short: "+acphV",
      long: ["all-tasks", "cpu-list", "pid", "help", "version"],
    },
    1,
    ["p", "pid"],
  ),
  chrt: withTable(
    "chrt",
    {
      short: "+abdfiomRrpT:P:D:hvV",
      long: [
        "all-tasks",
        "batch",
        "deadline",
        "fifo",
        "idle",
        "other",
        "max",
        "reset-on-fork",
        "rr",
        "pid",
        "sched-runtime=",
        "sched-period=",
        "sched-deadline=",
        "help",
        "verbose",
        "version",
      ],
    },
    1,
    ["p", "pid"],
  ),
  time: (args) => {
    const r = withTable("time", {
      short: "af:o:pqv",
      long: ["append", "format=", "output=", "portability", "quiet", "verbose"],
    })(args);
    if (typeof r === "string") return r;
    const head = args.slice(0, args.length - r.inner.length);
    if (head.some((a) => /^-[a-z]*o|^--o/.test(a.value ?? ""))) {
      return "time -o writes a file";
    }
    return r;
  },
  command: (args) => {
    let i = 0;
    let lookup = false;
    for (; i < args.length; i++) {
      const v = args[i].value;
      if (v === null) return "command has a word known only at run time";
      if (v === "--") {
        i++;
        break;
      }
      if (!/^-[pvV]+$/.test(v)) {
        if (v.startsWith("-")) {
          return `command ${v} is not an option of command`;
        }
        break;
      }
      if (/[vV]/.test(v)) lookup = true;
    }
    return { inner: lookup ? [] : args.slice(i) };
  },
  builtin: (args) => ({ inner: [...args] }),
  exec: withTable("exec", { short: "cla:" }),
  sudo: withTable("sudo", {
    short: "AbEeg:Hh:iKknp:PRr:SsT:t:U:u:vD:C:",
    long: [
      "askpass",
      "background",
      "preserve-env=?",
      "edit",
      "group=",
      "set-home",
      "host=",
      "login",
      "remove-timestamp",
      "reset-timestamp",
      "non-interactive",
      "prompt=",
      "chroot=",
      "role=",
      "stdin",
      "shell",
      "type=",
      "other-user=",
      "user=",
      "chdir=",
      "close-from=",
      "command-timeout=",
      "preserve-groups",
    ],
  }),
  doas: withTable("doas", { short: "a:C:Lnsu:" }),
};
