/**
 * GNU coreutils `basename`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `basename`. */
export const basename: Program = {
  names: ["basename"],
  options: {
    short: "as:z",
    long: ["multiple", "suffix=", "zero", "help", "version"],
  },
};
