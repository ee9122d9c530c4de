/**
 * The `read`, `mapfile` and `readarray` builtins: they assign to the names
 * they are given, and a name with a subscript is evaluated (running
 * substitutions), so only plain names that change nothing dangerous are
 * allowed; `mapfile -C` runs code.
 *
 * @module
 */

import { dangerousName } from "../env.ts";
import type { Parsed } from "../options.ts";
import { ask, deny, type Problem, type Program } from "../program.ts";

function names(parsed: Parsed, name: string, arrayOpt: string): Problem | null {
  for (const o of parsed.options) {
    if (o.name === "u" && !/^[0-2]$/.test(o.value?.value ?? "")) {
      return ask(
        `${name} -u ${o.value?.text}: reads a descriptor the command did not open (the session's own pipe, perhaps)`,
      );
    }
  }
  const targets = [
    ...parsed.operands,
    ...parsed.options.filter((o) => o.name === arrayOpt).map((o) => o.value!),
  ];
  for (const t of targets) {
    if (t.value === null) {
      return ask(`${name} assigns to a name known only at run time`);
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value)) {
      return deny(`${name} ${t.value}: a name that is not plain is evaluated`);
    }
    if (dangerousName(t.value)) {
      return deny(`${name} ${t.value} changes how commands run`);
    }
  }
  return null;
}

/** `read`. */
export const read: Program = {
  names: ["read"],
  options: { short: "ersa:d:i:n:N:p:t:u:", noPermute: true },
  check: (parsed, name) => names(parsed, name, "a"),
};

/** `mapfile` / `readarray`. */
export const mapfile: Program = {
  names: ["mapfile", "readarray"],
  options: { short: "d:n:O:s:tu:C:c:", noPermute: true },
  refuse: { C: "runs a callback" },
  check: (parsed, name) => names(parsed, name, "\0"),
};
