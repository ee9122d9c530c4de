/**
 * Builtins and tiny programs that only report or move the working directory:
 * `pwd`, `cd`, `true`, `false`, `:`, `type`, `jobs`, `help`, `hash` (listing,
 * `-r`), `dirs`, `times`, `wait`, `exit`-free. Their options are in the table.
 *
 * @module
 */

import { ask, type Program } from "../program.ts";

/** `pwd`. */
export const pwd: Program = { names: ["pwd"], options: { short: "LP" } };

/** `cd`: changes the directory of later commands, as the user expects. */
export const cd: Program = { names: ["cd"], options: { short: "LPe@" } };

/** `true`, `false`, `:`: ignore their words. */
export const truth: Program = {
  names: ["true", "false", ":"],
  judge: () => null,
};

/** `type`: reports what a name is. */
export const type: Program = { names: ["type"], options: { short: "afptP" } };

/** `jobs`, `dirs`, `times`, `help`: report. */
export const reporters: Program = {
  names: ["jobs", "dirs", "times", "help"],
  options: { short: "lnprsdcvs+-0123456789", noPermute: true },
};

/** `hash` without `-p`: lists or forgets remembered paths. */
export const hash: Program = {
  names: ["hash"],
  options: { short: "drlt" },
  check(parsed) {
    return parsed.operands.length > 0 &&
        !parsed.options.some((o) => o.name === "t")
      ? ask("hash NAME looks a command up and remembers it")
      : null;
  },
};
