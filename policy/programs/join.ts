/**
 * GNU coreutils `join`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `join`. */
export const join: Program = {
  names: ["join"],
  options: {
    short: "a:e:ij:o:t:v:1:2:z",
    long: [
      "ignore-case",
      "check-order",
      "nocheck-order",
      "header",
      "zero-terminated",
      "help",
      "version",
    ],
  },
};
