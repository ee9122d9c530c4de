/**
 * GNU coreutils `date`: `-s` and an operand not starting with `+` set the clock.
 *
 * @module
 */

import { deny, type Program } from "../program.ts";

/** The option table of `date`. */
export const date: Program = {
  names: ["date"],
  options: {
    short: "d:f:I::Rr:s:u",
    long: [
      "date=",
      "debug",
      "file=",
      "iso-8601=?",
      "resolution",
      "rfc-email",
      "rfc-3339=",
      "reference=",
      "set=",
      "utc",
      "universal",
      "help",
      "version",
    ],
  },
  refuse: {
    "s": "sets the clock",
    "set": "sets the clock",
  },
  check(parsed) {
    const bad = parsed.operands.find((a) => !a.prefix.startsWith("+"));
    return bad
      ? deny(`date ${bad.text}: an operand without + sets the clock`)
      : null;
  },
};
