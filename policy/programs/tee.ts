/**
 * GNU coreutils `tee`: every operand but /dev/null is a file it writes.
 *
 * @module
 */

import { deny, type Program } from "../program.ts";

/** The option table of `tee`. */
export const tee: Program = {
  names: ["tee"],
  options: {
    short: "aip",
    long: ["append", "ignore-interrupts", "output-error=?", "help", "version"],
  },
  check(parsed) {
    const file = parsed.operands.find((a) => a.value !== "/dev/null");
    return file ? deny(`tee writes ${file.text}`) : null;
  },
};
