/**
 * GNU coreutils `cut`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `cut`. */
export const cut: Program = {
  names: ["cut"],
  options: {
    short: "b:c:d:f:nsz",
    long: [
      "bytes=",
      "characters=",
      "delimiter=",
      "fields=",
      "complement",
      "only-delimited",
      "output-delimiter=",
      "zero-terminated",
      "help",
      "version",
    ],
  },
};
