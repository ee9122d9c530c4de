/**
 * GNU coreutils `id`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `id`. */
export const id: Program = {
  names: ["id"],
  options: {
    short: "aZgGnruz",
    long: [
      "context",
      "group",
      "groups",
      "name",
      "real",
      "user",
      "zero",
      "help",
      "version",
    ],
  },
};
