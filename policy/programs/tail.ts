/**
 * GNU coreutils `tail`: following a file never ends, so it is refused.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `tail`. */
export const tail: Program = {
  names: ["tail"],
  options: {
    short: "c:fFn:qs:vz",
    long: [
      "bytes=",
      "follow=?",
      "lines=",
      "max-unchanged-stats=",
      "pid=",
      "quiet",
      "silent",
      "retry",
      "sleep-interval=",
      "verbose",
      "zero-terminated",
      "help",
      "version",
    ],
    numeric: /^-\d+[bcklfq]*$/,
  },
  hangs: {
    "f": "follows the file and never ends",
    "F": "follows the file and never ends",
    "follow": "follows the file and never ends",
    "retry": "keeps trying to open the file",
    "pid": "waits for a process",
  },
};
