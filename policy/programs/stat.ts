/**
 * GNU coreutils `stat`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `stat`. */
export const stat: Program = {
  names: ["stat"],
  options: {
    short: "c:Lft",
    long: [
      "dereference",
      "file-system",
      "cached=",
      "format=",
      "printf=",
      "terse",
      "help",
      "version",
    ],
  },
};
