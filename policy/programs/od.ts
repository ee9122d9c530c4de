/**
 * GNU coreutils `od`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `od`. */
export const od: Program = {
  names: ["od"],
  options: {
    short: "A:j:N:S::t:vw::abcdfilosx",
    long: [
      "address-radix=",
      "endian=",
      "skip-bytes=",
      "read-bytes=",
      "strings=?",
      "format=",
      "output-duplicates",
      "width=?",
      "traditional",
      "help",
      "version",
    ],
  },
};
