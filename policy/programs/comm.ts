/**
 * GNU coreutils `comm`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `comm`. */
export const comm: Program = {
  names: ["comm"],
  options: {
    short: "123z",
    long: [
      "check-order",
      "nocheck-order",
      "output-delimiter=",
      "total",
      "zero-terminated",
      "help",
      "version",
    ],
  },
};
