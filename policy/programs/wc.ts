/**
 * GNU coreutils `wc`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `wc`. */
export const wc: Program = {
  names: ["wc"],
  options: {
    short: "cmlLw",
    long: [
      "bytes",
      "chars",
      "lines",
      "files0-from=",
      "max-line-length",
      "total=",
      "words",
      "help",
      "version",
    ],
  },
};
