/**
 * awk (gawk 5.2 options, a superset of mawk's and POSIX's): the program is
 * read by `../awk.ts`. Options that write files (`-d`, `-o`, `-p`), load
 * code (`-f`, `-i`, `-l`, `-E`), start the debugger (`-D`) or pass a long
 * option through `-W` are not allowed.
 *
 * @module
 */

import { awkProgramProblem } from "../awk.ts";
import { ask, deny, type Program } from "../program.ts";

const LOADS = "loads a program bashbox cannot see";

/** The option table and checker of awk and its variants. */
export const awk: Program = {
  names: ["awk", "gawk", "mawk", "nawk", "original-awk"],
  options: {
    short: "bcCd::D::e:E:f:F:ghi:kl:L::MnNo::O:p::PrsStv:VW:",
    noPermute: true,
    long: [
      "assign=",
      "bignum",
      "characters-as-bytes",
      "copyright",
      "csv",
      "debug=?",
      "dump-variables=?",
      "exec=",
      "field-separator=",
      "file=",
      "gen-pot",
      "help",
      "include=",
      "lint=?",
      "lint-old",
      "load=",
      "no-optimize",
      "non-decimal-data",
      "optimize",
      "posix",
      "pretty-print=?",
      "profile=?",
      "re-interval",
      "sandbox",
      "source=",
      "traditional",
      "use-lc-numeric",
      "version",
    ],
  },
  refuse: {
    d: "writes the variables to a file",
    "dump-variables": "writes the variables to a file",
    o: "writes the pretty-printed program to a file",
    "pretty-print": "writes the pretty-printed program to a file",
    p: "writes a profile to a file",
    profile: "writes a profile to a file",
    l: "loads a shared library",
    load: "loads a shared library",
  },
  check(parsed, name) {
    const programs: (string | null)[] = [];
    let fromFile = false;
    for (const o of parsed.options) {
      if (/^(f|file|E|exec|i|include)$/.test(o.name)) fromFile = true;
      if (o.name === "D" || o.name === "debug") {
        return ask(`${name} ${o.text} starts the debugger`);
      }
      if (o.name === "W" && o.value?.value !== "version") {
        return ask(`${name} ${o.text} passes an option bashbox does not read`);
      }
      if (o.name === "e" || o.name === "source") {
        programs.push(o.value?.value ?? null);
      }
    }
    if (fromFile) return ask(`${name} ${LOADS}`);
    const inet = parsed.operands.find((a) =>
      a.prefix.startsWith("/inet") || /(^|=)\/inet/.test(a.value ?? "")
    );
    if (inet) {
      return deny(
        `${name} ${inet.text}: gawk opens /inet files as network connections`,
      );
    }
    if (programs.length === 0) {
      const first = parsed.operands[0];
      if (first === undefined) return null;
      programs.push(first.value);
    }
    for (const p of programs) {
      if (p === null) {
        return ask(`${name} has a program known only at run time`);
      }
      const problem = awkProgramProblem(p);
      if (problem) {
        return problem.decision === "deny"
          ? deny(problem.reason)
          : ask(problem.reason);
      }
    }
    return null;
  },
};
