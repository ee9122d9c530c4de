/**
 * util-linux `rev`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `rev`. */
export const rev: Program = {
  names: ["rev"],
  options: {
    short: "0hV",
    long: ["zero", "help", "version"],
  },
};
