/**
 * GNU grep (`-NUM` is a context count; `-f` only reads).
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `grep`. */
export const grep: Program = {
  names: ["grep", "egrep", "fgrep"],
  options: {
    short: "0123456789EFGPe:f:iywxzsvVm:bnHhoqaId:D:rRLlcTZB:A:C:U",
    long: [
      "extended-regexp",
      "fixed-strings",
      "basic-regexp",
      "perl-regexp",
      "regexp=",
      "file=",
      "ignore-case",
      "no-ignore-case",
      "word-regexp",
      "line-regexp",
      "null-data",
      "no-messages",
      "invert-match",
      "max-count=",
      "byte-offset",
      "line-number",
      "no-line-number",
      "line-buffered",
      "with-filename",
      "no-filename",
      "label=",
      "only-matching",
      "quiet",
      "silent",
      "binary-files=",
      "text",
      "directories=",
      "devices=",
      "recursive",
      "dereference-recursive",
      "include=",
      "exclude=",
      "exclude-from=",
      "exclude-dir=",
      "files-without-match",
      "files-with-matches",
      "count",
      "initial-tab",
      "null",
      "before-context=",
      "after-context=",
      "context=",
      "group-separator=",
      "no-group-separator",
      "color=?",
      "colour=?",
      "binary",
      "help",
      "version",
    ],
  },
};
