/**
 * The `set` builtin: the options agents use to make scripts strict
 * (`set -euo pipefail`, `set -x`, `set +e`) and `set -- ARGS`. Other options
 * change how later commands are read (`-k` takes assignments from anywhere,
 * `-T` spreads traps, `+B` turns brace expansion off) and are not allowed.
 *
 * @module
 */

import type { Arg } from "../options.ts";
import { ask, type Problem, type Program } from "../program.ts";

const LETTERS = /^[-+][euxvfC]+o?$/;
const NAMES = new Set([
  "errexit",
  "nounset",
  "pipefail",
  "xtrace",
  "verbose",
  "noglob",
  "noclobber",
]);

function judgeSet(args: readonly Arg[]): Problem | null {
  for (let i = 0; i < args.length; i++) {
    const v = args[i].value;
    if (v === null) return ask("set has a word known only at run time");
    if (v === "--" || v === "-") return null;
    if (!/^[-+]/.test(v)) return null;
    if (v === "-o" || v === "+o" || (LETTERS.test(v) && v.endsWith("o"))) {
      const name = args[i + 1]?.value;
      if (name === undefined) continue;
      if (name === null || !NAMES.has(name)) {
        return ask(
          `set -o ${args[i + 1].text} is not an option bashbox allows`,
        );
      }
      i++;
      continue;
    }
    if (!LETTERS.test(v)) return ask(`set ${v} changes how later commands run`);
  }
  return null;
}

/** The reader of `set`. */
export const set: Program = {
  names: ["set"],
  judge: judgeSet,
};
