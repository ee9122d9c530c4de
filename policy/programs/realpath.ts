/**
 * GNU coreutils `realpath`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `realpath`. */
export const realpath: Program = {
  names: ["realpath"],
  options: {
    short: "emLPqsz",
    long: [
      "canonicalize-existing",
      "canonicalize-missing",
      "logical",
      "physical",
      "quiet",
      "relative-to=",
      "relative-base=",
      "strip",
      "no-symlinks",
      "zero",
      "help",
      "version",
    ],
  },
};
