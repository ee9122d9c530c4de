/**
 * GNU coreutils `printenv`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `printenv`. */
export const printenv: Program = {
  names: ["printenv"],
  options: {
    short: "0",
    long: ["null", "help", "version"],
  },
};
