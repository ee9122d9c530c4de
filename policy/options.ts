/**
 * A getopt_long-compatible option parser over words whose values may be
 * unknown until run time: unique abbreviations of long options, `--opt=value`
 * and `--opt value`, bundled short flags with a value joined at the end
 * (`-uo file`, `-n5`), optional values (`--color`, `--color=auto`), argument
 * permutation (options after operands) and `--`.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

/** One argument as the policy sees it before bash runs the command. */
export interface Arg {
  /** The value, or null when it is only known at run time. */
  value: string | null;
  /** The source text (for messages). */
  text: string;
  /** An unknown value may begin with `-` (so it may be an option). */
  dash: boolean;
  /** An unknown value may become zero or several words (word splitting, globs, `"$@"`). */
  many: boolean;
  /** The literal text the value surely begins with (all of it when known). */
  prefix: string;
  /**
   * With `many`: every word it becomes begins as `prefix` does, never with
   * `-` (a glob after a literal directory, a clean command output), so the
   * words are operands wherever no `--` follows (were it none, a value-taking
   * option before it would take that `--`).
   */
  tame?: boolean;
}

/**
 * A literal argument.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lit } from "./options.ts";
 *
 * assert.equal(lit("-n").value, "-n");
 * ```
 */
export function lit(value: string): Arg {
  return {
    value,
    text: value,
    dash: value.startsWith("-"),
    many: false,
    prefix: value,
  };
}

/** The options a program accepts, in getopt_long terms. */
export interface OptionTable {
  /** getopt's short option string: a letter, then `:` for a required value, `::` for an optional one. */
  short?: string;
  /** Long options: `name`, `name=` (required value), `name=?` (optional value). */
  long?: readonly string[];
  /** Options stop at the first operand (POSIX, or a `+` optstring); default false (GNU permutation). */
  noPermute?: boolean;
  /** Long options may also be written with one dash (`-name`), as `getopt_long_only` (and find) allow. */
  longOnly?: boolean;
  /** A first argument `-NUM` is an obsolete count (head, tail, fold, ...): its text. */
  numeric?: RegExp;
}

/** One option found: its canonical name (the long name, or the short letter) and value. */
export interface ParsedOption {
  /** The long name, or the short letter. */
  name: string;
  /** The value, when the option takes one. */
  value?: Arg;
  /** How it was written. */
  text: string;
}

/** The result of {@linkcode parseOptions}. */
export interface Parsed {
  /** Options in order. */
  options: ParsedOption[];
  /** Operands in order. */
  operands: Arg[];
  /** Some word of unknown value may be one or more options (any of the table's, or none). */
  unknown: boolean;
  /** The source text of the first such word, for messages. */
  unknownText?: string;
}

type Kind = "none" | "required" | "optional";

function shortKinds(spec: string): Map<string, Kind> {
  const out = new Map<string, Kind>();
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i];
    if (c === "+" || c === "-" || c === ":") continue;
    if (spec[i + 1] === ":") {
      if (spec[i + 2] === ":") {
        out.set(c, "optional");
        i += 2;
      } else {
        out.set(c, "required");
        i += 1;
      }
    } else out.set(c, "none");
  }
  return out;
}

function longKinds(spec: readonly string[]): Map<string, Kind> {
  const out = new Map<string, Kind>();
  for (const s of spec) {
    if (s.endsWith("=?")) out.set(s.slice(0, -2), "optional");
    else if (s.endsWith("=")) out.set(s.slice(0, -1), "required");
    else out.set(s, "none");
  }
  return out;
}

/** Finds a long option by its full name or a unique prefix, as getopt_long does. */
function findLong(
  table: Map<string, Kind>,
  name: string,
): [string, Kind] | string {
  const exact = table.get(name);
  if (exact !== undefined) return [name, exact];
  const hits = [...table.keys()].filter((k) => k.startsWith(name));
  if (hits.length === 1) return [hits[0], table.get(hits[0])!];
  if (hits.length === 0) return `unrecognized option "--${name}"`;
  return `option "--${name}" is ambiguous (${hits.join(", ")})`;
}

/** The error {@linkcode parseOptions} reports: a word it does not understand. */
export class OptionError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "OptionError";
  }
}

/**
 * Splits arguments into options and operands exactly as getopt_long would,
 * or throws an {@linkcode OptionError} for an option not in the table (the
 * program would refuse it, and the policy does not guess).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lit, parseOptions } from "./options.ts";
 *
 * const table = { short: "no:u", long: ["numeric-sort", "output=", "unique"] };
 * const p = parseOptions(["f", "-uo", "out", "--num"].map(lit), table);
 * assert.deepEqual(p.options.map((o) => [o.name, o.value?.value]), [
 *   ["u", undefined],
 *   ["o", "out"],
 *   ["numeric-sort", undefined],
 * ]);
 * assert.deepEqual(p.operands.map((a) => a.value), ["f"]);
 * ```
 */
export function parseOptions(args: readonly Arg[], table: OptionTable): Parsed {
  const shorts = shortKinds(table.short ?? "");
  const longs = longKinds(table.long ?? []);
  const options: ParsedOption[] = [];
  const operands: Arg[] = [];
  let unknown = false;
  let unknownText: string | undefined;
  let i = 0;
  const next = (name: string): Arg => {
    const v = args[++i];
    if (v === undefined) {
      throw new OptionError(`option "${name}" requires a value`);
    }
    return v;
  };
  const long = (body: string, text: string) => {
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    const found = findLong(longs, name);
    if (typeof found === "string") throw new OptionError(found);
    const [full, kind] = found;
    if (eq >= 0) {
      if (kind === "none") {
        throw new OptionError(`option "--${full}" does not take a value`);
      }
      options.push({ name: full, value: lit(body.slice(eq + 1)), text });
    } else if (kind === "required") {
      options.push({ name: full, value: next(text), text });
    } else options.push({ name: full, text });
  };
  let operandsOnly = false;
  for (; i < args.length; i++) {
    const a = args[i];
    const v = a.value;
    if (operandsOnly) {
      operands.push(a);
      continue;
    }
    if (v === null) {
      const loose = a.many &&
        !(a.tame && !args.slice(i + 1).some((b) => b.value === "--"));
      if (a.dash || loose) {
        if (!unknown) unknownText = a.text;
        unknown = true;
        if (table.noPermute) operandsOnly = true;
      } else {
        operands.push(a);
        if (table.noPermute) operandsOnly = true;
      }
      continue;
    }
    if (v === "--") {
      operandsOnly = true;
      continue;
    }
    if (!v.startsWith("-") || v === "-") {
      operands.push(a);
      if (table.noPermute) operandsOnly = true;
      continue;
    }
    if (i === 0 && table.numeric?.test(v)) {
      options.push({ name: "#", value: lit(v.slice(1)), text: v });
      continue;
    }
    if (v.startsWith("--")) {
      long(v.slice(2), v);
      continue;
    }
    if (table.longOnly && v.length > 2) {
      const name = v.slice(1).split("=")[0];
      if (
        [...longs.keys()].some((k) => k.startsWith(name)) &&
        !(shorts.has(v[1]) && name.length === 1)
      ) {
        long(v.slice(1), v);
        continue;
      }
    }
    // A bundle of short options; a value-taking one takes the rest or the next word.
    for (let k = 1; k < v.length; k++) {
      const c = v[k];
      const kind = shorts.get(c);
      if (kind === undefined) {
        throw new OptionError(`invalid option "-${c}" in "${v}"`);
      }
      const rest = v.slice(k + 1);
      if (kind === "none") {
        options.push({ name: c, text: v });
        continue;
      }
      if (rest !== "") {
        options.push({ name: c, value: lit(rest), text: v });
      } else if (kind === "required") {
        options.push({ name: c, value: next(`-${c}`), text: v });
      } else options.push({ name: c, text: v });
      break;
    }
  }
  return unknownText === undefined
    ? { options, operands, unknown }
    : { options, operands, unknown, unknownText };
}
