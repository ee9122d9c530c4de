/**
 * GNU coreutils `tac`. Reading a pipe it copies its input into a temporary
 * file in $TMPDIR, removed before it exits: not a write the read-only promise
 * is about (see `sort.ts`).
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
