/**
 * net-tools `hostname`: an operand, `-F` and `-b` set the host name;
 * `-f`, `-d`, `-a`, `-A`, `-i` and `-y` look names up over the network.
 *
 * @module
 */

import { deny, type Program } from "../program.ts";

/** The option table of `hostname`. */
export const hostname: Program = {
  names: ["hostname"],
  options: {
    short: "aAbdfF:iIsy",
    long: [
      "alias",
      "all-fqdns",
      "boot",
      "domain",
      "fqdn",
      "long",
      "file=",
      "ip-address",
      "all-ip-addresses",
      "short",
      "yp",
      "nis",
      "help",
      "version",
    ],
  },
  refuse: {
    a: "looks the name up over the network",
    alias: "looks the name up over the network",
    A: "looks the name up over the network",
    "all-fqdns": "looks the name up over the network",
    d: "looks the name up over the network",
    domain: "looks the name up over the network",
    f: "looks the name up over the network",
    fqdn: "looks the name up over the network",
    long: "looks the name up over the network",
    i: "looks the name up over the network",
    "ip-address": "looks the name up over the network",
    y: "asks NIS over the network",
    yp: "asks NIS over the network",
    nis: "asks NIS over the network",
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
