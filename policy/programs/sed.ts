/**
 * GNU sed 4.9: options from its manual; the script is read by the grammar of
 * `../sed.ts`. `-i` edits files, `-f` reads a script the policy cannot see.
 *
 * @module
 */

import type { Arg } from "../options.ts";
import { ask, deny, type Program } from "../program.ts";
import { sedScriptProblem } from "../sed.ts";

/** The option table and checker of `sed`. */
export const sed: Program = {
  names: ["sed"],
  options: {
    short: "bEe:f:i::l:nrsuz",
    long: [
      "binary",
      "debug",
      "expression=",
      "file=",
      "follow-symlinks",
      "in-place=?",
      "line-length=",
      "null-data",
      "zero-terminated",
      "posix",
      "quiet",
      "silent",
      "regexp-extended",
      "sandbox",
      "separate",
      "unbuffered",
      "help",
      "version",
    ],
  },
  refuse: {
    i: "edits files in place",
    "in-place": "edits files in place",
  },
  check(parsed, name) {
    const pieces: Arg[] = [];
    for (const o of parsed.options) {
      if (o.name === "f" || o.name === "file") {
        return ask(`${name} ${o.text} reads a script bashbox cannot see`);
      }
      if ((o.name === "e" || o.name === "expression") && o.value) {
        pieces.push(o.value);
      }
    }
    if (pieces.length === 0) {
      const first = parsed.operands[0];
      if (first === undefined) return null;
      pieces.push(first);
    }
    if (pieces.some((p) => p.value === null)) {
      return ask(`${name} has a script known only at run time`);
    }
    const problem = sedScriptProblem(pieces.map((p) => p.value).join("\n"));
    if (problem === null) return null;
    return problem.decision === "deny"
      ? deny(problem.reason)
      : ask(problem.reason);
  },
};
