/**
 * procps `free`: `-s` repeats forever without `-c`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `free`. */
export const free: Program = {
  names: ["free"],
  options: {
    short: "bkmghlLtvs:c:wV",
    long: [
      "bytes",
      "kilo",
      "mega",
      "giga",
      "tera",
      "peta",
      "kibi",
      "mebi",
      "gibi",
      "tebi",
      "pebi",
      "human",
      "si",
      "lohi",
      "line",
      "total",
      "committed",
      "seconds=",
      "count=",
      "wide",
      "help",
      "version",
    ],
  },
  hangs: {
    "s": "repeats until killed",
    "seconds": "repeats until killed",
  },
};
