/**
 * GNU coreutils `du`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `du`. */
export const du: Program = {
  names: ["du"],
  options: {
    short: "0aB:bcDd:HhkLlmPSst:X:x",
    long: [
      "null",
      "all",
      "apparent-size",
      "block-size=",
      "bytes",
      "total",
      "dereference-args",
      "max-depth=",
      "summarize",
      "files0-from=",
      "human-readable",
      "inodes",
      "dereference",
      "count-links",
      "no-dereference",
      "separate-dirs",
      "si",
      "threshold=",
      "time=?",
      "time-style=",
      "exclude-from=",
      "exclude=",
      "one-file-system",
      "help",
      "version",
    ],
  },
};
