/**
 * GNU coreutils `sleep`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `sleep`. */
export const sleep: Program = {
  names: ["sleep"],
  options: {
    short: "",
    long: ["help", "version"],
  },
};
