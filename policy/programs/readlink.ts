/**
 * GNU coreutils `readlink`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `readlink`. */
export const readlink: Program = {
  names: ["readlink"],
  options: {
    short: "femnqsvz",
    long: [
      "canonicalize",
      "canonicalize-existing",
      "canonicalize-missing",
      "no-newline",
      "quiet",
      "silent",
      "verbose",
      "zero",
      "help",
      "version",
    ],
  },
};
