/**
 * GNU coreutils `dirname`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `dirname`. */
export const dirname: Program = {
  names: ["dirname"],
  options: {
    short: "z",
    long: ["zero", "help", "version"],
  },
};
