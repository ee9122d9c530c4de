/**
 * jq 1.6/1.7: it reads its own options (`--arg NAME VALUE` takes two words).
 * No jq filter or option runs a program or writes a file (`-f`, `-L`,
 * `--slurpfile`, `--rawfile` only read), so a word known only at run time is
 * harmless; an option not in the table is still not understood.
 *
 * @module
 */

import type { Arg } from "../options.ts";
import { ask, type Problem, type Program } from "../program.ts";

const FLAGS = new Set([
  "-c",
  "--compact-output",
  "-n",
  "--null-input",
  "-e",
  "--exit-status",
  "-s",
  "--slurp",
  "-r",
  "--raw-output",
  "--raw-output0",
  "-j",
  "--join-output",
  "-a",
  "--ascii-output",
  "-S",
  "--sort-keys",
  "-C",
  "--color-output",
  "-M",
  "--monochrome-output",
  "--tab",
  "--unbuffered",
  "--stream",
  "--stream-errors",
  "--seq",
  "-R",
  "--raw-input",
  "-h",
  "--help",
  "-V",
  "--version",
  "--build-configuration",
  "--args",
  "--jsonargs",
  "-b",
  "--binary",
]);
const ONE = new Set(["--indent", "-f", "--from-file", "-L"]);
const TWO = new Set(["--arg", "--argjson", "--slurpfile", "--rawfile"]);

function judgeJq(args: readonly Arg[]): Problem | null {
  let positional = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const v = a.value;
    if (positional) continue;
    // A word known only at run time: no jq option writes or runs anything.
    if (v === null) continue;
    if (v === "--args" || v === "--jsonargs") positional = true;
    if (!v.startsWith("-") || v === "-") continue;
    if (FLAGS.has(v)) continue;
    if (ONE.has(v)) {
      i++;
      continue;
    }
    if (TWO.has(v)) {
      i += 2;
      continue;
    }
    if (/^-L./.test(v)) continue;
    if (/^-[cnesrjaSCMRh]+$/.test(v)) continue;
    return ask(`jq ${v} is not in bashbox's table`);
  }
  return null;
}

/** The reader of `jq`'s options. */
export const jq: Program = {
  names: ["jq"],
  judge: judgeJq,
};
