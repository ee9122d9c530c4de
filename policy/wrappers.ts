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

/** A wrapper whose options stop at the wrapped command (after `operandsBefore` operands). */
function withTable(
  program: string,
  table: OptionTable,
  operandsBefore = 0,
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
    if (parsed.operands.length < operandsBefore) {
      return `${program} is missing its operand`;
    }
    return { inner: parsed.operands.slice(operandsBefore) };
  };
}

function envUnwrap(args: readonly Arg[]): Unwrapped | string {
  const assigns: string[] = [];
  let i = 0;
  const head: Arg[] = [];
  for (; i < args.length; i++) {
    const v = args[i].value;
    if (v === null) return "env has a word known only at run time";
    if (v.startsWith("-") && v !== "-") {
      head.push(args[i]);
      if (/^(-[a-zA-Z0-9]*[uC]|--(unset|chdir))$/.test(v)) {
        head.push(args[++i] ?? UNSEEN);
      }
      continue;
    }
    if (v === "-") continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) {
      assigns.push(v.slice(0, v.indexOf("=")));
      continue;
    }
    break;
  }
  try {
    const p = parseOptions(head, {
      short: "i0u:C:S:v",
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
    });
    if (p.options.some((o) => o.name === "S" || o.name === "split-string")) {
      return "env -S splits a string into a command";
    }
  } catch (error) {
    if (error instanceof OptionError) return `env: ${error.message}`;
    throw error;
  }
  return { inner: args.slice(i), assigns };
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
  ionice: withTable("ionice", {
    short: "c:n:tp:P:u:",
    long: ["class=", "classdata=", "ignore"],
  }),
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
