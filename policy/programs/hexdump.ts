/**
 * util-linux `hexdump`/`hd`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `hexdump`. */
export const hexdump: Program = {
  names: ["hexdump", "hd"],
  options: {
    short: "bcCdoxL::e:f:n:s:vhV",
    long: [
      "one-byte-octal",
      "one-byte-hex",
      "one-byte-char",
      "canonical",
      "two-bytes-decimal",
      "two-bytes-octal",
      "two-bytes-hex",
      "color=?",
      "format=",
      "format-file=",
      "length=",
      "skip=",
      "no-squeezing",
      "help",
      "version",
    ],
  },
};
