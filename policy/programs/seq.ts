/**
 * GNU coreutils `seq` (negative numbers are operands).
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `seq`. */
export const seq: Program = {
  names: ["seq"],
  options: {
    short: "f:s:w",
    long: ["format=", "separator=", "equal-width", "help", "version"],
    numeric: /^-\d/,
  },
};
