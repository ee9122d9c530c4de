/**
 * The `echo` builtin: prints its words; `-n`, `-e`, `-E` only change how.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** `echo` prints every word it is given. */
export const echo: Program = {
  names: ["echo"],
  judge: () => null,
};
