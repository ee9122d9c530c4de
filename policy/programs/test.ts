/**
 * The `test` and `[` builtins, read as POSIX defines them by the number of
 * arguments. `-v` and `-R` evaluate array subscripts (which run
 * substitutions) and are refused; a word of unknown value is allowed only
 * where it is surely an operand, never where it could become an operator.
 * (`[` compares integers without arithmetic, unlike `[[`.)
 *
 * @module
 */

import type { Arg } from "../options.ts";
import { ask, deny, type Problem, type Program } from "../program.ts";

const BINARY = new Set([
  "=",
  "==",
  "!=",
  "<",
  ">",
  "-eq",
  "-ne",
  "-lt",
  "-le",
  "-gt",
  "-ge",
  "-nt",
  "-ot",
  "-ef",
  "=~",
]);
const UNARY = new Set([
  "-a",
  "-b",
  "-c",
  "-d",
  "-e",
  "-f",
  "-g",
  "-h",
  "-k",
  "-L",
  "-n",
  "-N",
  "-O",
  "-G",
  "-p",
  "-r",
  "-s",
  "-S",
  "-t",
  "-u",
  "-w",
  "-x",
  "-z",
  "-o",
]);

const lit = (a: Arg | undefined, s: string): boolean => a?.value === s;

function unsure(): Problem {
  return ask(
    "test has a word known only at run time where an operator could stand",
  );
}

/** Checks a group of at most four words (POSIX's table). */
function group(g: readonly Arg[]): Problem | null {
  switch (g.length) {
    case 0:
    case 1:
      return null;
    case 2:
      if (g[0].value === null) return unsure();
      if (g[0].value === "!" || UNARY.has(g[0].value)) return null;
      return ask(`test: ${g[0].value} is not a unary operator bashbox knows`);
    case 3:
      if (g[1].value !== null && BINARY.has(g[1].value)) return null;
      if (g[1].value !== null && (g[1].value === "-a" || g[1].value === "-o")) {
        return g[0].value === null && g[2].value === null ? null : null;
      }
      if (lit(g[0], "!")) return group(g.slice(1));
      if (lit(g[0], "(") && lit(g[2], ")")) return null;
      return unsure();
    case 4:
      if (lit(g[0], "!")) return group(g.slice(1));
      if (lit(g[0], "(") && lit(g[3], ")")) return group(g.slice(1, 3));
      return unsure();
  }
  return unsure();
}

function judgeTest(args: readonly Arg[], name: string): Problem | null {
  let words = [...args];
  if (name === "[") {
    if (!lit(words[words.length - 1], "]")) {
      return ask("[ without a closing ] as its last word");
    }
    words = words.slice(0, -1);
  }
  for (const w of words) {
    if (w.value === "-v" || w.value === "-R") {
      return deny(`${name} ${w.value} evaluates array subscripts`);
    }
    if (w.value === null && w.many) {
      return ask(`${name} has a word that may split into several words`);
    }
  }
  if (words.length <= 4) return group(words);
  // Longer: groups between -a/-o (and parentheses) at the top.
  let current: Arg[] = [];
  for (const w of [...words, { value: "-a" } as Arg]) {
    if (w.value === "-a" || w.value === "-o") {
      const inner = current.filter((x) => !lit(x, "(") && !lit(x, ")"));
      while (lit(inner[0], "!")) inner.shift();
      const problem = inner.length > 3 ? unsure() : group(inner);
      if (problem) return problem;
      current = [];
      continue;
    }
    current.push(w);
  }
  return null;
}

/** The reader of `test` and `[`. */
export const test: Program = {
  names: ["test", "["],
  judge: judgeTest,
};
