/**
 * GNU coreutils `cat`: no option writes or runs anything.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `cat`. */
export const cat: Program = {
  names: ["cat"],
  options: {
    short: "AbeEnstTuv",
    long: [
      "show-all",
      "number-nonblank",
      "show-ends",
      "number",
      "squeeze-blank",
      "show-tabs",
      "show-nonprinting",
      "help",
      "version",
    ],
  },
};
