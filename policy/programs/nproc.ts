/**
 * GNU coreutils `nproc`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `nproc`. */
export const nproc: Program = {
  names: ["nproc"],
  options: {
    short: "",
    long: ["all", "ignore=", "help", "version"],
  },
};
