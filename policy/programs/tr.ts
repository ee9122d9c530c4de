/**
 * GNU coreutils `tr`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `tr`. */
export const tr: Program = {
  names: ["tr"],
  options: {
    short: "cCdst",
    long: [
      "complement",
      "delete",
      "squeeze-repeats",
      "truncate-set1",
      "help",
      "version",
    ],
  },
};
