/**
 * GNU findutils 4.9 `find`: leading options, starting points, and the
 * expression read by its grammar (operators, tests with their argument
 * counts, actions). `-exec`, `-execdir`, `-ok`, `-okdir`, `-delete`,
 * `-fprint`, `-fprint0`, `-fprintf` and `-fls` run commands or write files;
 * any other word not in the grammar is not understood.
 *
 * @module
 */

import type { Arg } from "../options.ts";
import { ask, deny, type Problem, type Program } from "../program.ts";

/** Primaries without an argument. */
const NO_ARG = new Set([
  "-daystart",
  "-depth",
  "-d",
  "-follow",
  "-ignore_readdir_race",
  "-mount",
  "-noignore_readdir_race",
  "-noleaf",
  "-nowarn",
  "-warn",
  "-xdev",
  "-empty",
  "-executable",
  "-false",
  "-nogroup",
  "-nouser",
  "-readable",
  "-true",
  "-writable",
  "-print",
  "-print0",
  "-ls",
  "-prune",
  "-quit",
  "-help",
  "--help",
  "-version",
  "--version",
]);

/** Primaries with one argument. */
const ONE_ARG = new Set([
  "-maxdepth",
  "-mindepth",
  "-files0-from",
  "-amin",
  "-anewer",
  "-atime",
  "-cmin",
  "-cnewer",
  "-context",
  "-ctime",
  "-fstype",
  "-gid",
  "-group",
  "-ilname",
  "-iname",
  "-inum",
  "-ipath",
  "-iregex",
  "-iwholename",
  "-links",
  "-lname",
  "-mmin",
  "-mtime",
  "-name",
  "-newer",
  "-path",
  "-perm",
  "-regex",
  "-regextype",
  "-samefile",
  "-size",
  "-type",
  "-uid",
  "-used",
  "-user",
  "-wholename",
  "-xtype",
  "-printf",
]);

const ACTIONS: Record<string, string> = {
  "-exec": "runs a command",
  "-execdir": "runs a command",
  "-ok": "runs a command",
  "-okdir": "runs a command",
  "-delete": "deletes files",
  "-fprint": "writes a file",
  "-fprint0": "writes a file",
  "-fprintf": "writes a file",
  "-fls": "writes a file",
};

const OPERATORS = new Set([
  "(",
  ")",
  "!",
  "-not",
  "-a",
  "-and",
  "-o",
  "-or",
  ",",
]);

function judgeFind(args: readonly Arg[]): Problem | null {
  let i = 0;
  // Leading options: -H -L -P -D debugopts -Olevel.
  for (; i < args.length; i++) {
    const v = args[i].value;
    if (v === null) break;
    if (v === "-H" || v === "-L" || v === "-P" || /^-O\d$/.test(v)) continue;
    if (v === "-D") {
      i++;
      continue;
    }
    if (v === "--") {
      i++;
      break;
    }
    break;
  }
  // Starting points: up to the first word that begins an expression.
  for (; i < args.length; i++) {
    const a = args[i];
    if (a.value === null) {
      if (a.dash || a.many || a.prefix.startsWith("(")) {
        return ask(
          "find has a word whose value is known only at run time and could be part of the expression",
        );
      }
      continue;
    }
    if (a.value.startsWith("-") || a.value === "(" || a.value === "!") break;
  }
  // The expression.
  for (; i < args.length; i++) {
    const a = args[i];
    const v = a.value;
    if (v === null) {
      return ask(
        `find has an expression word known only at run time (${a.text})`,
      );
    }
    if (v in ACTIONS) return deny(`find ${v} ${ACTIONS[v]}`);
    if (OPERATORS.has(v) || NO_ARG.has(v)) continue;
    if (ONE_ARG.has(v) || /^-newer[aBcmt][aBcmt]$/.test(v)) {
      if (i + 1 >= args.length) return ask(`find ${v} is missing its argument`);
      i++;
      continue;
    }
    return ask(`find: ${JSON.stringify(v)} is not in bashbox's find grammar`);
  }
  return null;
}

/** The grammar of `find`. */
export const find: Program = {
  names: ["find"],
  judge: judgeFind,
};
