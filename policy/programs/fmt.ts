/**
 * GNU coreutils `fmt`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `fmt`. */
export const fmt: Program = {
  names: ["fmt"],
  options: {
    short: "cp:stuw:g:",
    long: [
      "crown-margin",
      "prefix=",
      "split-only",
      "tagged-paragraph",
      "uniform-spacing",
      "width=",
      "goal=",
      "help",
      "version",
    ],
    numeric: /^-\d+$/,
  },
};
