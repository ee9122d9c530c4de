/**
 * GNU coreutils `fold`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `fold`. */
export const fold: Program = {
  names: ["fold"],
  options: {
    short: "bsw:",
    long: ["bytes", "spaces", "width=", "help", "version"],
    numeric: /^-\d+$/,
  },
};
