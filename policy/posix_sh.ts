/**
 * `sh -c STRING` where `sh` is dash (Debian, Ubuntu) or another POSIX shell:
 * the policy parses every string with bash's grammar, so a string that bash
 * and dash read differently would run what the policy never saw. The
 * classic: `$'...'` is one ANSI-C quoted word to bash and a `$` followed by
 * a single-quoted string to dash, so `echo $'\'; touch x #'` is one `echo`
 * to bash and `echo $\; touch x` to dash; a here-document delimiter
 * `$'E'` ends the body at `E` for bash and at `$E` for dash.
 *
 * A string is judged as POSIX sh: it is refused when it holds any piece of
 * bash-only syntax, anywhere (quoted or not, since where a quote ends is
 * what the two shells disagree on). Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

/** Bash-only syntax dash reads otherwise, with what it is. */
const BASH_ONLY: [RegExp, string][] = [
  [/\$'/, "$'...' (ANSI-C quoting)"],
  [/\$"/, '$"..." (locale quoting)'],
  [/<<</, "<<< (here-string)"],
  [/[<>]\(/, "<(...) or >(...) (process substitution)"],
  [/\(\(/, "((...)) (arithmetic command)"],
  [/\$\[/, "$[...] (arithmetic)"],
  [/\[\[/, "[[ ... ]]"],
  [/&>|\|&|>&[^0-9\s-]/, "&>, |& or >&FILE"],
  [/;;?&/, ";& or ;;&"],
  [/=\(/, "an array assignment"],
  [
    /(^|[\s;&|({])(function|select|coproc|source)([\s;&|)]|$)/,
    "a bash keyword or builtin",
  ],
  [
    /\$\{[!#]?[\w@*?$!#-]*(?:\[|[/^,@]|:[^=?+-])/,
    "${...} with a bash-only operator (subscript, substring, replacement, case, @)",
  ],
  [/\$\{!/, "${!...} (indirection)"],
];

/**
 * Why dash would read `source` differently from bash, or null when it holds
 * no bash-only syntax.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { posixShProblem } from "./posix_sh.ts";
 *
 * assert.equal(posixShProblem("ls -la | head"), null);
 * assert.notEqual(posixShProblem("echo $'\\'; touch x #'"), null);
 * ```
 */
export function posixShProblem(source: string): string | null {
  for (const [pattern, what] of BASH_ONLY) {
    if (pattern.test(source)) {
      return `the string holds ${what}, which bash and dash read differently`;
    }
  }
  return null;
}
