/**
 * ripgrep 13/14: `--pre` runs a preprocessor for every file, `-z` runs
 * decompression programs, `--hostname-bin` runs a program. Its config file
 * (RIPGREP_CONFIG_PATH) adds options the policy never sees, so the engine
 * refuses setting that variable.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `rg`. */
export const rg: Program = {
  names: ["rg"],
  options: {
    short: "0123456789A:aB:bC:cd:E:e:f:Fg:HhiIj:lLm:M:nNoOpPqr:RsStT:uUvVwxz",
    long: [
      "after-context=", "before-context=", "context=", "auto-hybrid-regex",
      "binary", "block-buffered", "byte-offset", "case-sensitive", "color=",
      "colors=", "column", "context-separator=", "count", "count-matches",
      "crlf", "debug", "dfa-size-limit=", "encoding=", "engine=",
      "field-context-separator=", "field-match-separator=", "file=", "files",
      "files-with-matches", "files-without-match", "fixed-strings", "follow",
      "generate=", "glob=", "glob-case-insensitive", "heading", "help",
      "hidden", "hostname-bin=", "hyperlink-format=", "iglob=",
      "ignore-case", "ignore-file=", "ignore-file-case-insensitive",
      "include-zero", "invert-match", "json", "line-buffered",
      "line-number", "line-regexp", "max-columns=", "max-columns-preview",
      "max-count=", "max-depth=", "max-filesize=", "maxdepth=", "mmap",
      "multiline", "multiline-dotall", "no-config", "no-filename",
      "no-heading", "no-ignore", "no-ignore-dot", "no-ignore-exclude",
      "no-ignore-files", "no-ignore-global", "no-ignore-messages",
      "no-ignore-parent", "no-ignore-vcs", "no-line-number", "no-messages",
      "no-mmap", "no-pcre2-unicode", "no-require-git", "no-unicode",
      "null", "null-data", "one-file-system", "only-matching", "passthru",
      "passthrough", "path-separator=", "pcre2", "pcre2-version", "pre=",
      "pre-glob=", "pretty", "quiet", "regex-size-limit=", "regexp=",
      "replace=", "search-zip", "smart-case", "sort=", "sortr=", "stats",
      "stop-on-nonmatch", "text", "threads=", "trim", "type=", "type-add=",
      "type-clear=", "type-list", "type-not=", "unrestricted", "version",
      "vimgrep", "with-filename", "word-regexp", "no-search-zip",
      "no-follow", "no-hidden", "no-binary", "no-block-buffered",
      "no-byte-offset", "no-column", "no-context-separator", "no-crlf",
      "no-encoding", "no-fixed-strings", "no-glob-case-insensitive",
      "no-include-zero", "no-invert-match", "no-json", "no-line-buffered",
      "no-max-columns-preview", "no-multiline", "no-multiline-dotall",
      "no-one-file-system", "no-pcre2", "no-pre", "no-sort-files",
      "no-stats", "no-text", "no-trim", "no-auto-hybrid-regex",
      "no-ignore-file-case-insensitive", "sort-files", "smart-case",
    ],
  },
  refuse: {
    pre: "runs a preprocessor program for every file",
    "search-zip": "runs decompression programs",
    z: "runs decompression programs",
    "hostname-bin": "runs a program",
  },
};
