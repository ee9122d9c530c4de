/**
 * A grammar of GNU sed scripts (sed 4.9): addresses, blocks, every command
 * and the `s` flags. A script is read-only when it parses completely and
 * runs no command (`e`, `s///e`) and writes no file (`w`, `W`, `s///w`,
 * except to /dev/stdout and /dev/stderr). Anything that does not parse is
 * not understood.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

const STDIO = new Set(["/dev/stdout", "/dev/stderr"]);

/** What the grammar found wrong with a script: `deny` for a write/exec, `ask` for a parse failure. */
export interface SedProblem {
  /** `deny` when the script writes or runs; `ask` when it does not parse. */
  decision: "ask" | "deny";
  /** Why. */
  reason: string;
}

class Reader {
  i = 0;
  readonly s: string;
  constructor(s: string) {
    this.s = s;
  }
  cur(): string | undefined {
    return this.s[this.i];
  }
  blanks(): void {
    while (this.cur() === " " || this.cur() === "\t") this.i++;
  }
}

class Stop extends Error {
  readonly problem: SedProblem;
  constructor(problem: SedProblem) {
    super(problem.reason);
    this.problem = problem;
  }
}

function fail(reason: string): never {
  throw new Stop({ decision: "ask", reason: `the sed script ${reason}` });
}

function refuse(reason: string): never {
  throw new Stop({ decision: "deny", reason });
}

/** Reads a regex up to the unescaped delimiter (bracket expressions may hold it). */
function regex(r: Reader, delim: string): void {
  while (true) {
    const c = r.cur();
    if (c === undefined) fail("has an unterminated regular expression");
    if (c === "\\") {
      if (r.s[r.i + 1] === undefined) fail("ends in a backslash");
      r.i += 2;
      continue;
    }
    if (c === "\n" && delim !== "\n") {
      fail("has a newline inside a regular expression");
    }
    if (c === delim) {
      r.i++;
      return;
    }
    if (c === "[") {
      bracket(r);
      continue;
    }
    r.i++;
  }
}

function bracket(r: Reader): void {
  const start = r.i;
  r.i++;
  if (r.cur() === "^") r.i++;
  if (r.cur() === "]") r.i++;
  while (true) {
    const c = r.cur();
    if (c === undefined || c === "\n") {
      // Not a bracket expression after all: sed would read it literally; be strict.
      r.i = start;
      fail("has an unterminated bracket expression");
    }
    if (c === "[" && /[:.=]/.test(r.s[r.i + 1] ?? "")) {
      const close = r.s.indexOf(r.s[r.i + 1] + "]", r.i + 2);
      if (close < 0) fail("has an unterminated character class");
      r.i = close + 2;
      continue;
    }
    r.i++;
    if (c === "]") return;
  }
}

/** Reads a replacement up to the unescaped delimiter. */
function replacement(r: Reader, delim: string): void {
  while (true) {
    const c = r.cur();
    if (c === undefined) fail("has an unterminated replacement");
    if (c === "\\") {
      if (r.s[r.i + 1] === undefined) fail("ends in a backslash");
      r.i += 2;
      continue;
    }
    if (c === "\n" && delim !== "\n") {
      fail("has a newline inside a replacement");
    }
    r.i++;
    if (c === delim) return;
  }
}

function address(r: Reader): boolean {
  const c = r.cur();
  if (c === undefined) return false;
  if (/[0-9]/.test(c)) {
    while (/[0-9]/.test(r.cur() ?? "")) r.i++;
    if (r.cur() === "~") {
      r.i++;
      while (/[0-9]/.test(r.cur() ?? "")) r.i++;
    }
    return true;
  }
  if (c === "$") {
    r.i++;
    return true;
  }
  if (c === "/" || c === "\\") {
    let delim = "/";
    if (c === "\\") {
      delim = r.s[r.i + 1];
      if (delim === undefined || delim === "\n" || delim === "\\") {
        fail("has a bad address delimiter");
      }
      r.i++;
    }
    r.i++;
    regex(r, delim);
    while (r.cur() === "I" || r.cur() === "M") r.i++;
    return true;
  }
  return false;
}

function toEndOfLine(r: Reader): string {
  const end = r.s.indexOf("\n", r.i);
  const stop = end < 0 ? r.s.length : end;
  const text = r.s.slice(r.i, stop);
  r.i = stop;
  return text;
}

/**
 * A label (of `:`, `b`, `t`, `T`) or `v`'s version: GNU sed 4.9 ends it at
 * a blank as well as at `;` or a newline, and reads what follows the blank
 * as the next command (`:x e cmd` runs cmd). It is ended here at `}` and
 * `#` too, so that anything after it is read as commands.
 */
function label(r: Reader): void {
  r.blanks();
  while (r.cur() !== undefined && !/[\s;}#]/.test(r.cur()!)) r.i++;
}

function writeTarget(r: Reader, what: string): void {
  r.blanks();
  const file = toEndOfLine(r);
  if (file === "") fail(`has ${what} without a file name`);
  if (!STDIO.has(file)) refuse(`sed ${what} writes the file ${file}`);
}

/** Text of `a`, `i`, `c`: one-liner or `\`-newline form, continued by a trailing backslash. */
function text(r: Reader): void {
  r.blanks();
  if (r.cur() === "\\") {
    r.i++;
    r.blanks();
    if (r.cur() === "\n") r.i++;
  }
  while (r.cur() !== undefined) {
    if (r.cur() === "\\") {
      r.i += 2;
      continue;
    }
    if (r.cur() === "\n") {
      r.i++;
      return;
    }
    r.i++;
  }
}

function endOfCommand(r: Reader): void {
  r.blanks();
  const c = r.cur();
  if (c === undefined || c === ";" || c === "\n" || c === "}" || c === "#") {
    return;
  }
  fail(`has unexpected text ${JSON.stringify(c)} after a command`);
}

function sCommand(r: Reader): void {
  const delim = r.cur();
  if (delim === undefined || delim === "\n" || delim === "\\") {
    fail("has an s command without a delimiter");
  }
  r.i++;
  regex(r, delim);
  replacement(r, delim);
  while (true) {
    const f = r.cur();
    if (f === undefined) return;
    if (/[gpiImM0-9]/.test(f)) {
      r.i++;
      continue;
    }
    if (f === "e") refuse("sed s///e runs the pattern space as a command");
    if (f === "w") {
      r.i++;
      writeTarget(r, "s///w");
      return;
    }
    return endOfCommand(r);
  }
}

function yCommand(r: Reader): void {
  const delim = r.cur();
  if (delim === undefined || delim === "\n" || delim === "\\") {
    fail("has a y command without a delimiter");
  }
  r.i++;
  replacement(r, delim);
  replacement(r, delim);
  endOfCommand(r);
}

/**
 * Checks a sed script (all `-e` pieces joined by newlines): null when it
 * parses and neither writes nor runs anything.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sedScriptProblem } from "./sed.ts";
 *
 * assert.equal(sedScriptProblem("/foo/{p;q}"), null);
 * assert.equal(sedScriptProblem("s/a/b/e")?.decision, "deny");
 * assert.equal(sedScriptProblem("s/a/b")?.decision, "ask");
 * ```
 */
export function sedScriptProblem(script: string): SedProblem | null {
  const r = new Reader(script);
  let depth = 0;
  try {
    while (true) {
      while (/[ \t\n;]/.test(r.cur() ?? "x")) r.i++;
      if (r.cur() === undefined) break;
      if (r.cur() === "#") {
        toEndOfLine(r);
        continue;
      }
      if (r.cur() === "}") {
        if (depth === 0) fail("has an unmatched }");
        depth--;
        r.i++;
        endOfCommand(r);
        continue;
      }
      if (address(r)) {
        r.blanks();
        if (r.cur() === ",") {
          r.i++;
          r.blanks();
          if (r.cur() === "+" || r.cur() === "~") {
            r.i++;
            if (!/[0-9]/.test(r.cur() ?? "")) fail("has a bad address step");
            while (/[0-9]/.test(r.cur() ?? "")) r.i++;
          } else if (!address(r)) fail("has a missing second address");
        }
      }
      r.blanks();
      while (r.cur() === "!") {
        r.i++;
        r.blanks();
      }
      const cmd = r.cur();
      if (cmd === undefined) fail("has an address without a command");
      r.i++;
      switch (cmd) {
        case "{":
          depth++;
          break;
        case "s":
          sCommand(r);
          break;
        case "y":
          yCommand(r);
          break;
        case "a":
        case "i":
        case "c":
          text(r);
          break;
        case ":":
          if (r.cur() === undefined || r.cur() === "\n" || r.cur() === ";") {
            fail("has a label without a name");
          }
          label(r);
          break;
        case "b":
        case "t":
        case "T":
          label(r);
          break;
        case "r":
        case "R":
          r.blanks();
          if (toEndOfLine(r) === "") fail(`has ${cmd} without a file name`);
          break;
        case "w":
        case "W":
          writeTarget(r, cmd);
          break;
        case "e":
          refuse("sed e runs a command");
          break;
        case "l":
        case "q":
        case "Q":
        case "L":
          r.blanks();
          while (/[0-9]/.test(r.cur() ?? "")) r.i++;
          endOfCommand(r);
          break;
        case "v":
          label(r);
          break;
        case "=":
        case "d":
        case "D":
        case "g":
        case "G":
        case "h":
        case "H":
        case "n":
        case "N":
        case "p":
        case "P":
        case "x":
        case "z":
        case "F":
          endOfCommand(r);
          break;
        default:
          fail(`has an unknown command ${JSON.stringify(cmd)}`);
      }
    }
    if (depth !== 0) fail("has an unmatched {");
    return null;
  } catch (error) {
    if (error instanceof Stop) return error.problem;
    throw error;
  }
}
