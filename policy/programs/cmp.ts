/**
 * GNU diffutils `cmp`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `cmp`. */
export const cmp: Program = {
  names: ["cmp"],
  options: {
    short: "bi:ln:sv",
    long: [
      "print-bytes",
      "ignore-initial=",
      "verbose",
      "bytes=",
      "quiet",
      "silent",
      "help",
      "version",
    ],
  },
};
