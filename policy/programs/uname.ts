/**
 * GNU coreutils `uname`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `uname`. */
export const uname: Program = {
  names: ["uname", "arch"],
  options: {
    short: "asnrvmpio",
    long: [
      "all",
      "kernel-name",
      "nodename",
      "kernel-release",
      "kernel-version",
      "machine",
      "processor",
      "hardware-platform",
      "operating-system",
      "help",
      "version",
    ],
  },
};
