/**
 * debianutils `which`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `which`. */
export const which: Program = {
  names: ["which"],
  options: {
    short: "as",
    long: [],
    noPermute: true,
  },
};
