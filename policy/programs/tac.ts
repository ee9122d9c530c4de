/**
 * GNU coreutils `tac`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `tac`. */
export const tac: Program = {
  names: ["tac"],
  options: {
    short: "brs:",
    long: ["before", "regex", "separator=", "help", "version"],
  },
};
