/**
 * GNU coreutils checksum programs.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `md5sum`. */
export const md5sum: Program = {
  names: [
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
  ],
  options: {
    short: "bctzw",
    long: [
      "binary",
      "check",
      "tag",
      "text",
      "zero",
      "ignore-missing",
      "quiet",
      "status",
      "strict",
      "warn",
      "help",
      "version",
    ],
  },
};
