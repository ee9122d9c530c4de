/**
 * GNU binutils `strings`: `@file` operands read options from a file.
 *
 * @module
 */

import { ask, type Program } from "../program.ts";

/** The option table of `strings`. */
export const strings: Program = {
  names: ["strings"],
  options: {
    short: "adfn:t:wT:e:os:U:hv",
    long: [
      "all",
      "data",
      "print-file-name",
      "bytes=",
      "radix=",
      "target=",
      "encoding=",
      "include-all-whitespace",
      "output-separator=",
      "unicode=",
      "help",
      "version",
    ],
    numeric: /^-\d+$/,
  },
  check(parsed) {
    const at = parsed.operands.find((a) =>
      a.prefix.startsWith("@") || (a.value === null && a.dash)
    );
    return at
      ? ask(`strings ${at.text}: an @file operand reads options from a file`)
      : null;
  },
};
