/**
 * GNU coreutils `cksum`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `cksum`. */
export const cksum: Program = {
  names: ["cksum", "sum"],
  options: {
    short: "a:cl:zw",
    long: [
      "algorithm=",
      "base64",
      "check",
      "length=",
      "raw",
      "tag",
      "untagged",
      "zero",
      "ignore-missing",
      "quiet",
      "status",
      "strict",
      "warn",
      "debug",
      "help",
      "version",
    ],
  },
};
