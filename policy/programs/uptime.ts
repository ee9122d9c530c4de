/**
 * procps `uptime`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `uptime`. */
export const uptime: Program = {
  names: ["uptime"],
  options: {
    short: "phsV",
    long: ["pretty", "help", "since", "version"],
  },
};
