/**
 * GNU coreutils `sort`: `-o` writes a file, `--compress-program` runs one,
 * `-T DIR` writes temporary files in a directory the command names.
 *
 * Temporary files in $TMPDIR, which sort removes before it exits, are not
 * writes the read-only promise is about: sort makes them for any input
 * larger than its buffer, so `-S SIZE` (a smaller buffer) is allowed, as is
 * `tac` reading a pipe. The contained session gives $TMPDIR a scratch
 * directory; $TMPDIR itself is never settable under a policy.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `sort`. */
export const sort: Program = {
  names: ["sort"],
  options: {
    short: "bcCdfghik:mMno:rRsS:t:T:uVz",
    long: [
      "ignore-leading-blanks",
      "dictionary-order",
      "ignore-case",
      "general-numeric-sort",
      "ignore-nonprinting",
      "month-sort",
      "human-numeric-sort",
      "numeric-sort",
      "random-sort",
      "random-source=",
      "reverse",
      "sort=",
      "version-sort",
      "batch-size=",
      "check=?",
      "compress-program=",
      "debug",
      "files0-from=",
      "key=",
      "merge",
      "output=",
      "stable",
      "buffer-size=",
      "field-separator=",
      "temporary-directory=",
      "parallel=",
      "unique",
      "zero-terminated",
      "help",
      "version",
    ],
  },
  refuse: {
    "o": "writes the output file",
    "output": "writes the output file",
    "compress-program": "runs a program",
    "T": "writes temporary files in a directory",
    "temporary-directory": "writes temporary files in a directory",
  },
};
