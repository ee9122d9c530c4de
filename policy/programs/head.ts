/**
 * GNU coreutils `head`, with the obsolete `-NUM` count.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `head`. */
export const head: Program = {
  names: ["head"],
  options: {
    short: "c:n:qvz",
    long: [
      "bytes=",
      "lines=",
      "quiet",
      "silent",
      "verbose",
      "zero-terminated",
      "help",
      "version",
    ],
    numeric: /^-\d+[bcklmqv]*$/,
  },
};
