/**
 * The `printf` builtin: `-v NAME` assigns, and NAME is evaluated (an array
 * subscript runs substitutions), so only a plain name that changes nothing
 * dangerous is allowed.
 *
 * @module
 */

import { dangerousName } from "../env.ts";
import type { Arg } from "../options.ts";
import { ask, deny, type Problem, type Program } from "../program.ts";

function judgePrintf(args: readonly Arg[]): Problem | null {
  const first = args[0];
  if (first === undefined) return null;
  if (first.value === null) {
    return first.dash || first.many
      ? ask("printf has a first word known only at run time (it could be -v)")
      : null;
  }
  let name: Arg | undefined;
  if (first.value === "-v") name = args[1];
  else if (first.value.startsWith("-v")) {
    name = { ...first, value: first.value.slice(2) };
  } else return null;
  const v = name?.value ?? null;
  if (v === null || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) {
    return deny(
      "printf -v with a name that is not plain evaluates a subscript",
    );
  }
  if (dangerousName(v)) return deny(`printf -v ${v} changes how commands run`);
  return null;
}

/** The reader of `printf`'s words. */
export const printf: Program = {
  names: ["printf"],
  judge: judgePrintf,
};
