/**
 * GNU coreutils `uniq`: a second operand is a file it writes.
 *
 * @module
 */

import { deny, type Program } from "../program.ts";

/** The option table of `uniq`. */
export const uniq: Program = {
  names: ["uniq"],
  options: {
    short: "cdDf:is:uzw:",
    long: [
      "count",
      "repeated",
      "all-repeated=?",
      "skip-fields=",
      "group=?",
      "ignore-case",
      "skip-chars=",
      "unique",
      "zero-terminated",
      "check-chars=",
      "help",
      "version",
    ],
    numeric: /^-\d+$/,
  },
  check(parsed) {
    return parsed.operands.length > 1
      ? deny("uniq with a second operand writes that file")
      : null;
  },
};
