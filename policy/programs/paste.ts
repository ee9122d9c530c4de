/**
 * GNU coreutils `paste`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `paste`. */
export const paste: Program = {
  names: ["paste"],
  options: {
    short: "d:sz",
    long: ["delimiters=", "serial", "zero-terminated", "help", "version"],
  },
};
