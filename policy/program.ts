/**
 * What the read-only preset knows about one program: its option table (from
 * the manual of the version Debian ships), the options that write or run
 * something, and a checker for what the table cannot say (operands that
 * name an output file, mini-language scripts).
 *
 * The rule: a command is allowed only when every word is understood. An
 * option not in the table, or a word whose value is unknown where an option
 * could do harm, is never allowed.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

import {
  type Arg,
  OptionError,
  type OptionTable,
  type Parsed,
  parseOptions,
} from "./options.ts";

/** Why a command is not allowed: refused outright, or left to a person. */
export interface Problem {
  /** `deny` for a known write/exec mode; `ask` for what is not understood. */
  decision: "ask" | "deny";
  /** Why, naming the word. */
  reason: string;
}

/** A refusal: the word is understood and it writes, runs or changes something. */
export function deny(reason: string): Problem {
  return { decision: "deny", reason };
}

/** Not understood: a person decides. */
export function ask(reason: string): Problem {
  return { decision: "ask", reason };
}

/** One program of the read-only set. */
export interface Program {
  /** The names it is run by. */
  names: readonly string[];
  /** Its options, in getopt_long terms (unless `judge` reads the words itself). */
  options?: OptionTable;
  /** Options (by long name or short letter) that write, run or change something, with why. */
  refuse?: Readonly<Record<string, string>>;
  /**
   * Options that only make the program wait forever (`tail -f`): refused,
   * but a word of unknown value is still allowed, since the worst it can do
   * is wait for the session's deadline.
   */
  hangs?: Readonly<Record<string, string>>;
  /** Checks what the table cannot say (operands, option values). */
  check?: (parsed: Parsed, name: string) => Problem | null;
  /** Reads the words itself, for programs with their own grammar (find, git, test, ...). */
  judge?: (args: readonly Arg[], name: string) => Problem | null;
}

/**
 * Judges one program's arguments: null when every word is understood and
 * none writes, runs or changes anything.
 */
export function judgeProgram(
  program: Program,
  name: string,
  args: readonly Arg[],
): Problem | null {
  if (program.judge) return program.judge(args, name);
  let parsed: Parsed;
  try {
    parsed = parseOptions(args, program.options ?? {});
  } catch (error) {
    if (error instanceof OptionError) {
      return ask(`${name}: ${error.message} (not in bashbox's table)`);
    }
    throw error;
  }
  return checkParsed(program, name, parsed);
}

/** The refusals and checker of `program` over an already parsed argv. */
export function checkParsed(
  program: Program,
  name: string,
  parsed: Parsed,
): Problem | null {
  for (const o of parsed.options) {
    const why = program.refuse?.[o.name] ?? program.hangs?.[o.name];
    if (why !== undefined) return deny(`${name} ${o.text}: ${why}`);
  }
  if (
    parsed.unknown &&
    (Object.keys(program.refuse ?? {}).length > 0 || program.check)
  ) {
    return ask(
      `${name} ${
        parsed.unknownText ?? "has a word that"
      } is known only at run time and could be an option (an earlier call may have set it to one)`,
    );
  }
  return program.check?.(parsed, name) ?? null;
}

/** The value of an option's argument when literal, or null. */
export function valueOf(arg: Arg | undefined): string | null {
  return arg?.value ?? null;
}
