/**
 * xxd (vim 9): it reads its own options, matching a letter prefix (`-r`,
 * `-revert` and `-rfoo` are all revert). A second operand is an output file
 * it writes; `-r` turns a dump back into bytes (into that file).
 *
 * @module
 */

import type { Arg } from "../options.ts";
import { ask, deny, type Problem, type Program } from "../program.ts";

/** Letters that take a value (joined or the next word), by xxd's parser. */
const VALUE = new Set(["c", "g", "l", "n", "o", "s", "R"]);
/** Letters without a value. */
const FLAG = new Set(["a", "b", "C", "d", "E", "e", "h", "i", "p", "u", "v"]);
/** Long spellings xxd accepts for value options (so `-len` is not `-l en`). */
const LONG =
  /^-(cols|groupsize|len|name|offset|seek|capitalize|autoskip|bits|include|postscript|plain|ps|version|help|EBCDIC|uppercase)$/;

function judgeXxd(args: readonly Arg[]): Problem | null {
  const operands: Arg[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    const v = a.value;
    if (v === null) {
      if (a.dash || a.many) {
        return ask(
          "xxd has a word known only at run time that could be an option",
        );
      }
      operands.push(a);
      continue;
    }
    if (v === "--") {
      i++;
      break;
    }
    if (!v.startsWith("-") || v === "-" || operands.length > 0) {
      operands.push(a);
      continue;
    }
    const c = v[1];
    if (c === "r") return deny(`xxd ${v} reverts a dump into a file`);
    if (LONG.test(v)) {
      if (/^-(cols|groupsize|len|name|offset|seek)$/.test(v)) i++;
      continue;
    }
    if (VALUE.has(c)) {
      if (v.length === 2) i++;
      continue;
    }
    if (FLAG.has(c) && v.length === 2) continue;
    return ask(`xxd ${v} is not in bashbox's table`);
  }
  operands.push(...args.slice(i));
  if (operands.length > 1 && operands[1].value !== "-") {
    return deny(`xxd writes its second operand ${operands[1].text}`);
  }
  return null;
}

/** The reader of `xxd`'s options. */
export const xxd: Program = {
  names: ["xxd"],
  judge: judgeXxd,
};
