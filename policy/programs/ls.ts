/**
 * GNU coreutils `ls`: lists; no option writes or runs anything.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `ls`. */
export const ls: Program = {
  names: ["ls"],
  options: {
    short: "aAbBcCdDfFgGhHiI:klLmnNopqQrRsStT:uUvw:xXZ1",
    long: [
      "all",
      "almost-all",
      "author",
      "escape",
      "block-size=",
      "ignore-backups",
      "color=?",
      "directory",
      "dired",
      "classify=?",
      "file-type",
      "format=",
      "full-time",
      "group-directories-first",
      "no-group",
      "human-readable",
      "si",
      "dereference-command-line",
      "dereference-command-line-symlink-to-dir",
      "hide=",
      "hyperlink=?",
      "indicator-style=",
      "inode",
      "ignore=",
      "kibibytes",
      "dereference",
      "numeric-uid-gid",
      "literal",
      "hide-control-chars",
      "show-control-chars",
      "quote-name",
      "quoting-style=",
      "reverse",
      "recursive",
      "size",
      "sort=",
      "time=",
      "time-style=",
      "tabsize=",
      "width=",
      "context",
      "zero",
      "help",
      "version",
    ],
  },
};
