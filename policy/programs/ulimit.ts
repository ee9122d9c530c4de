/**
 * The `ulimit` builtin in its reporting forms (`ulimit -n`, `ulimit -a`,
 * `ulimit -Sn`): options only. A value operand (`ulimit -n 100`) changes
 * the session's limits and is refused by the engine.
 *
 * @module
 */

import type { Arg } from "../options.ts";
import { ask, type Problem, type Program } from "../program.ts";

function judgeUlimit(args: readonly Arg[]): Problem | null {
  for (const a of args) {
    if (a.value === null || !/^-[SHabcdefiklmnpqrstuvxPTR]+$/.test(a.value)) {
      return ask(`ulimit ${a.text} is not a reporting option bashbox knows`);
    }
  }
  return null;
}

/** The reader of `ulimit`. */
export const ulimit: Program = {
  names: ["ulimit"],
  judge: judgeUlimit,
};
