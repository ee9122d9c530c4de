/**
 * GNU coreutils `unexpand`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `unexpand`. */
export const unexpand: Program = {
  names: ["unexpand"],
  options: {
    short: "at:",
    long: ["all", "first-only", "tabs=", "help", "version"],
    numeric: /^-\d+(,\d+)*$/,
  },
};
