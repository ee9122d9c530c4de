/**
 * GNU coreutils `whoami`, `logname`, `tty`, `groups`, `users`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `whoami`. */
export const whoami: Program = {
  names: ["whoami", "logname", "tty", "groups", "users"],
  options: {
    short: "s",
    long: ["silent", "quiet", "help", "version"],
  },
};
