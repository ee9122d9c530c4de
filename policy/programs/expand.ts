/**
 * GNU coreutils `expand`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `expand`. */
export const expand: Program = {
  names: ["expand"],
  options: {
    short: "it:",
    long: ["initial", "tabs=", "help", "version"],
    numeric: /^-\d+(,\d+)*$/,
  },
};
