/**
 * GNU coreutils `base64`/`base32`/`basenc` (they write only to stdout).
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `base64`. */
export const base64: Program = {
  names: ["base64", "base32", "basenc"],
  options: {
    short: "diw:",
    long: [
      "decode",
      "ignore-garbage",
      "wrap=",
      "base64",
      "base64url",
      "base32",
      "base32hex",
      "base16",
      "base2msbf",
      "base2lsbf",
      "z85",
      "help",
      "version",
    ],
  },
};
