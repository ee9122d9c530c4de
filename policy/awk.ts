/**
 * A reading of awk programs (POSIX awk, gawk 5, mawk 1.3) by their tokens:
 * strings, regex literals, comments and line continuations are recognised as
 * awk does, so no construct can hide in them or be faked by them. Refused:
 * `system()`, every pipe (`|`, `|&`), output redirection in `print`/`printf`
 * (except to /dev/stdout and /dev/stderr), `getline <` from anything but a
 * string naming an ordinary file, gawk's `@` directives and indirect calls.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

/** What is wrong with a program: `deny` for a write/exec, `ask` for what is not understood. */
export interface AwkProblem {
  /** `deny` when the program writes or runs; `ask` when it is not understood. */
  decision: "ask" | "deny";
  /** Why. */
  reason: string;
}

interface Token {
  kind: "name" | "number" | "string" | "regex" | "op" | "newline";
  text: string;
}

const OPS = [
  "|&",
  "||",
  "&&",
  ">>",
  "<=",
  ">=",
  "==",
  "!=",
  "++",
  "--",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "^=",
  "**=",
  "**",
  "!~",
];

/** Splits a program into tokens, or returns why it cannot. */
function tokens(src: string): Token[] | string {
  const out: Token[] = [];
  let i = 0;
  const operandEnd = (): boolean => {
    const t = out[out.length - 1];
    if (!t) return false;
    if (t.kind === "name" || t.kind === "number" || t.kind === "string") {
      return !/^(print|printf|return|in|getline|case)$/.test(t.text) ||
        t.kind !== "name";
    }
    if (t.kind === "regex") return true;
    return t.text === ")" || t.text === "]" || t.text === "$" ||
      t.text === "++" || t.text === "--";
  };
  while (i < src.length) {
    const c = src[i];
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    if (c === "\\" && src[i + 1] === "\n") {
      i += 2;
      continue;
    }
    if (c === "\\" && src[i + 1] === "\r" && src[i + 2] === "\n") {
      i += 3;
      continue;
    }
    if (c === "#") {
      while (i < src.length && src[i] !== "\n") i++;
      continue;
    }
    if (c === "\n") {
      out.push({ kind: "newline", text: "\n" });
      i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let value = "";
      while (true) {
        const d = src[j];
        if (d === undefined || d === "\n") return "an unterminated string";
        if (d === "\\") {
          value += src.slice(j, j + 2);
          j += 2;
          continue;
        }
        if (d === '"') break;
        value += d;
        j++;
      }
      out.push({ kind: "string", text: value });
      i = j + 1;
      continue;
    }
    if (c === "/" && !operandEnd()) {
      let j = i + 1;
      let inBracket = false;
      while (true) {
        const d = src[j];
        if (d === undefined || d === "\n") {
          return "an unterminated regular expression";
        }
        if (d === "\\") {
          j += 2;
          continue;
        }
        if (d === "[" && !inBracket) {
          inBracket = true;
          if (src[j + 1] === "^") j++;
          if (src[j + 1] === "]") j++;
        } else if (d === "]" && inBracket) inBracket = false;
        else if (d === "/" && !inBracket) break;
        j++;
      }
      out.push({ kind: "regex", text: src.slice(i + 1, j) });
      i = j + 1;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < src.length && /[A-Za-z0-9_]/.test(src[j])) j++;
      out.push({ kind: "name", text: src.slice(i, j) });
      i = j;
      continue;
    }
    if (/[0-9.]/.test(c)) {
      const m = /^(0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]*([eE][+-]?[0-9]+)?)/.exec(
        src.slice(i),
      );
      const text = m && m[0] !== "" && m[0] !== "." ? m[0] : c;
      out.push({ kind: text === "." ? "op" : "number", text });
      i += text.length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (op) {
      out.push({ kind: "op", text: op });
      i += op.length;
      continue;
    }
    if ("{}()[];,<>|!~?:=+-*/%^$@".includes(c)) {
      out.push({ kind: "op", text: c });
      i++;
      continue;
    }
    return `the character ${JSON.stringify(c)}`;
  }
  return out;
}

const STDIO = new Set(["/dev/stdout", "/dev/stderr"]);

/**
 * Whether a token ends the file name before it (a following string, name or
 * `$` would be concatenated onto it: `"/dev/stdout" "x"`, `"/in" "et/..."`).
 */
function ends(t: Token | undefined): boolean {
  if (t === undefined || t.kind === "newline") return true;
  return t.kind === "op" &&
    [";", "}", ")", ">", "<", "==", "!=", ">=", "<=", "||", "&&", "?", ":", ","]
      .includes(t.text);
}

/**
 * Checks an awk program: null when it neither runs, writes nor connects.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { awkProgramProblem } from "./awk.ts";
 *
 * assert.equal(awkProgramProblem("/GET|POST/ { n++ } END { print n }"), null);
 * assert.equal(awkProgramProblem('BEGIN { "id" | getline x }')?.decision, "deny");
 * ```
 */
export function awkProgramProblem(program: string): AwkProblem | null {
  const toks = tokens(program);
  if (typeof toks === "string") {
    return {
      decision: "ask",
      reason: `the awk program has ${toks} bashbox does not read`,
    };
  }
  const deny = (reason: string): AwkProblem => ({ decision: "deny", reason });
  const ask = (reason: string): AwkProblem => ({ decision: "ask", reason });
  let depth = 0;
  /** Paren depth at which the current print statement started, or -1. */
  let printAt = -1;
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    if (t.kind === "op") {
      if (t.text === "(" || t.text === "[") depth++;
      if (t.text === ")" || t.text === "]") depth--;
      if (t.text === "|" || t.text === "|&") {
        return deny(`awk ${t.text} runs a command`);
      }
      if (t.text === "@") {
        return ask("awk @ (gawk directives and indirect calls) is not read");
      }
      if (t.text === ";" || t.text === "{" || t.text === "}") printAt = -1;
      if ((t.text === ">" || t.text === ">>") && printAt === depth) {
        const target = toks[k + 1];
        if (
          target?.kind === "string" && STDIO.has(target.text) &&
          ends(toks[k + 2])
        ) continue;
        return deny(`awk print ${t.text} writes a file`);
      }
      if (t.text === "<" && isGetlineSource(toks, k)) {
        const src = toks[k + 1];
        if (src?.kind !== "string" || !ends(toks[k + 2])) {
          return ask("awk getline < reads from a file named at run time");
        }
        if (/^\/inet/.test(src.text)) {
          return deny("awk getline < /inet opens a network connection");
        }
      }
      continue;
    }
    if (t.kind === "newline") {
      if (depth === 0) printAt = -1;
      continue;
    }
    if (t.kind !== "name") continue;
    if (t.text === "system") return deny("awk system() runs a command");
    if (t.text === "print" || t.text === "printf") printAt = depth;
  }
  return null;
}

/** Whether the `<` at k follows `getline` or `getline lvalue`. */
function isGetlineSource(toks: Token[], k: number): boolean {
  let j = k - 1;
  if (toks[j]?.kind === "name" && toks[j].text === "getline") return true;
  // getline NAME <, getline NAME[...] <, getline $x <
  if (toks[j]?.text === "]") {
    let d = 0;
    for (; j >= 0; j--) {
      if (toks[j].text === "]") d++;
      if (toks[j].text === "[") d--;
      if (d === 0) break;
    }
    j--;
  }
  if (toks[j]?.kind === "name" || toks[j]?.kind === "number") j--;
  if (toks[j]?.text === "$") j--;
  return toks[j]?.kind === "name" && toks[j].text === "getline";
}
