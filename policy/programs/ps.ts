/**
 * procps `ps`: UNIX (`-ef`), BSD (`aux`) and GNU (`--sort`) option styles;
 * no option of ps writes a file or runs a program, so every word is read as
 * a selection or format.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** `ps` (and `pgrep`, `pidof`, which only select and print). */
export const ps: Program = {
  names: ["ps", "pgrep", "pidof"],
  judge: () => null,
};
