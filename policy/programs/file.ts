/**
 * `file` (libmagic): `-C` writes a compiled magic file, `-p` changes file times.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `file`. */
export const file: Program = {
  names: ["file"],
  options: {
    short: "bcCde:f:F:hiklLm:nNpP:rsvzZ0S",
    long: [
      "help",
      "version",
      "magic-file=",
      "uncompress",
      "uncompress-noreport",
      "brief",
      "checking-printout",
      "exclude=",
      "exclude-quiet=",
      "files-from=",
      "separator=",
      "mime",
      "mime-encoding",
      "apple",
      "extension",
      "mime-type",
      "keep-going",
      "list",
      "dereference",
      "no-dereference",
      "no-buffer",
      "no-pad",
      "print0",
      "preserve-date",
      "parameter=",
      "raw",
      "special-files",
      "no-sandbox",
      "compile",
      "debug",
    ],
  },
  refuse: {
    "C": "writes a compiled magic file",
    "compile": "writes a compiled magic file",
    "p": "changes the files' access times",
    "preserve-date": "changes the files' access times",
  },
};
