/**
 * GNU coreutils `df` (`--output` names fields, not a file).
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `df`. */
export const df: Program = {
  names: ["df"],
  options: {
    short: "aB:hHiklPt:Tx:v",
    long: [
      "all",
      "block-size=",
      "human-readable",
      "si",
      "inodes",
      "local",
      "no-sync",
      "output=?",
      "portability",
      "sync",
      "total",
      "type=",
      "print-type",
      "exclude-type=",
      "help",
      "version",
    ],
  },
};
