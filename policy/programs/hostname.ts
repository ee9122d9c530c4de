/**
 * net-tools `hostname`: an operand, `-F` and `-b` set the host name.
 *
 * @module
 */

import { deny, type Program } from "../program.ts";

/** The option table of `hostname`. */
export const hostname: Program = {
  names: ["hostname"],
  options: {
    short: "aAbdfF:iIsy",
    long: ["alias", "all-fqdns", "boot", "domain", "fqdn", "long", "file=", "ip-address", "all-ip-addresses", "short", "yp", "nis", "help", "version"],
  },
  refuse: {
    "F": "sets the host name from a file",
    "file": "sets the host name from a file",
    "b": "sets the host name",
    "boot": "sets the host name",
  },
  check(parsed) {
    return parsed.operands.length > 0
      ? deny("hostname with an operand sets the host name")
      : null;
  },
};
