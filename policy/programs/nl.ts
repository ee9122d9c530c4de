/**
 * GNU coreutils `nl`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `nl`. */
export const nl: Program = {
  names: ["nl"],
  options: {
    short: "b:d:f:h:i:l:n:ps:v:w:",
    long: [
      "body-numbering=",
      "section-delimiter=",
      "footer-numbering=",
      "header-numbering=",
      "line-increment=",
      "join-blank-lines=",
      "number-format=",
      "no-renumber",
      "number-separator=",
      "starting-line-number=",
      "number-width=",
      "help",
      "version",
    ],
  },
};
