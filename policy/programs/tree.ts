/**
 * `tree` 2.x: `-o` writes a file, `-R` writes 00Tree.html files.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `tree`. */
export const tree: Program = {
  names: ["tree"],
  options: {
    short: "adlfxL:RP:I:ihugspDFqNQrtcUvSnCXJAH:T:o:",
    long: [
      "gitignore",
      "gitfile=",
      "ignore-case",
      "matchdirs",
      "metafirst",
      "prune",
      "info",
      "infofile=",
      "noreport",
      "charset=",
      "filelimit=",
      "dirsfirst",
      "filesfirst",
      "timefmt=",
      "du",
      "si",
      "inodes",
      "device",
      "sort=",
      "nolinks",
      "hintro=",
      "houtro=",
      "fromfile",
      "fromtabfile",
      "fflinks",
      "condense",
      "opt-toggle",
      "help",
      "version",
    ],
  },
  refuse: {
    "o": "writes the listing to a file",
    "R": "writes 00Tree.html files",
  },
};
