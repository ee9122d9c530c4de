/**
 * The words bash makes from a parsed word before running a command: brace
 * expansion (with quoted pieces and `$` inside), tilde, globs, and what is
 * known of a word whose value comes from an expansion (may it begin with
 * `-`, may it become several words).
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

import type { Word } from "../parse.ts";
import type { Arg } from "./options.ts";

/** One character of a word, or an expansion whose value is unknown. */
type Piece =
  | { ch: string; active: boolean }
  | { opaque: true; quoted: boolean; many: boolean };

const MAX_WORDS = 4096;

function pieces(word: Word): Piece[] {
  const out: Piece[] = [];
  for (const part of word.parts) {
    if (part.type === "Lit") {
      for (const ch of part.value) out.push({ ch, active: !part.quoted });
      continue;
    }
    if (part.type === "ProcSubst") {
      // Becomes /dev/fd/N: one word, not an option.
      for (const ch of "/dev/fd/63") out.push({ ch, active: false });
      continue;
    }
    const quoted = part.quoted;
    const many = !quoted ||
      (part.type === "Param" &&
        (part.name === "@" || part.name === "*" ||
          /\[[@*]\]/.test(part.op) || part.op.startsWith("!")));
    out.push({ opaque: true, quoted, many });
  }
  return out;
}

function isCh(p: Piece | undefined, ch: string): boolean {
  return p !== undefined && "ch" in p && p.active && p.ch === ch;
}

/** Finds the first brace expression: [open, close, comma positions] or null. */
function findBrace(
  ps: Piece[],
): { open: number; close: number; commas: number[] } | null {
  for (let i = 0; i < ps.length; i++) {
    if (!isCh(ps[i], "{")) continue;
    let depth = 0;
    const commas: number[] = [];
    for (let j = i + 1; j < ps.length; j++) {
      if (isCh(ps[j], "{")) depth++;
      else if (isCh(ps[j], "}")) {
        if (depth === 0) {
          if (commas.length > 0) return { open: i, close: j, commas };
          const inner = ps.slice(i + 1, j);
          if (inner.every((p) => "ch" in p)) {
            const text = inner.map((p) => (p as { ch: string }).ch).join("");
            if (
              /^(-?\d+\.\.-?\d+(\.\.-?\d+)?|[A-Za-z]\.\.[A-Za-z](\.\.-?\d+)?)$/
                .test(text)
            ) return { open: i, close: j, commas: [] };
          }
          break;
        }
        depth--;
      } else if (depth === 0 && isCh(ps[j], ",")) commas.push(j);
    }
  }
  return null;
}

function sequence(text: string): string[] {
  const parts = text.split("..");
  const step = Math.abs(Number(parts[2] ?? "1")) || 1;
  if (/^-?\d+$/.test(parts[0])) {
    const a = Number(parts[0]);
    const b = Number(parts[1]);
    const width = /^-?0\d/.test(parts[0]) || /^-?0\d/.test(parts[1])
      ? Math.max(parts[0].length, parts[1].length)
      : 0;
    const out: string[] = [];
    for (let n = a; a <= b ? n <= b : n >= b; n += a <= b ? step : -step) {
      const s = String(Math.abs(n)).padStart(
        width - (n < 0 ? 1 : 0),
        "0",
      );
      out.push(n < 0 ? "-" + s : s);
      if (out.length > MAX_WORDS) break;
    }
    return out;
  }
  const a = parts[0].charCodeAt(0);
  const b = parts[1].charCodeAt(0);
  const out: string[] = [];
  for (let n = a; a <= b ? n <= b : n >= b; n += a <= b ? step : -step) {
    out.push(String.fromCharCode(n));
  }
  return out;
}

function expand(ps: Piece[], budget: { n: number }): Piece[][] {
  const b = findBrace(ps);
  if (b === null) return [ps];
  const head = ps.slice(0, b.open);
  const tail = ps.slice(b.close + 1);
  const alternatives: Piece[][] = [];
  if (b.commas.length === 0) {
    const text = ps.slice(b.open + 1, b.close).map((p) =>
      (p as { ch: string }).ch
    ).join("");
    for (const s of sequence(text)) {
      alternatives.push([...s].map((ch) => ({ ch, active: false })));
    }
  } else {
    let from = b.open + 1;
    for (const c of [...b.commas, b.close]) {
      alternatives.push(ps.slice(from, c));
      from = c + 1;
    }
  }
  const out: Piece[][] = [];
  for (const alt of alternatives) {
    for (const w of expand([...head, ...alt, ...tail], budget)) {
      if (++budget.n > MAX_WORDS) return out;
      out.push(w);
    }
  }
  return out;
}

function toArg(ps: Piece[], text: string): Arg {
  let value = "";
  let prefix = "";
  let known = true;
  let many = false;
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i];
    if ("opaque" in p) {
      known = false;
      many ||= p.many;
      continue;
    }
    const glob = p.active &&
      (p.ch === "*" || p.ch === "?" ||
        (p.ch === "[" && ps.slice(i + 2).some((q) => isCh(q, "]"))));
    const tilde = p.active && p.ch === "~" && i === 0;
    if (glob || tilde) {
      if (glob) many = true;
      known = false;
      continue;
    }
    if (known) prefix += p.ch;
    value += p.ch;
  }
  if (ps.length === 0) {
    return { value: "", text, dash: false, many: false, prefix: "" };
  }
  if (known) return { value, text, dash: value.startsWith("-"), many, prefix };
  // Unknown: may it begin with "-"? Only when nothing literal comes first
  // (a leading ~ becomes a path).
  const head = ps[0];
  const tilde = "ch" in head && head.active && head.ch === "~";
  return {
    value: null,
    text,
    dash: prefix === "" ? !tilde : prefix.startsWith("-"),
    many,
    prefix,
  };
}

/**
 * The arguments bash makes of a word: several after brace expansion, each
 * literal or described (unknown value, may begin with `-`, may split).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parse } from "../parse.ts";
 * import { wordArgs } from "./words.ts";
 *
 * const cmd = parse("find . {-exec,'pwn'}").body[0].command;
 * if (cmd.type !== "Simple") throw new Error("expected a simple command");
 * assert.deepEqual(wordArgs(cmd.words[2]).map((a) => a.value), ["-exec", "pwn"]);
 * ```
 */
export function wordArgs(word: Word): Arg[] {
  const ps = pieces(word);
  const budget = { n: 0 };
  const words = expand(ps, budget);
  const out: Arg[] = [];
  for (const w of words) {
    // An unquoted empty expansion disappears; keep it as an unknown word.
    out.push(toArg(w, word.text));
  }
  if (budget.n > MAX_WORDS) {
    out.push({
      value: null,
      text: word.text,
      dash: true,
      many: true,
      prefix: "",
    });
  }
  return out;
}

/** The arguments of a list of words, in order. */
export function wordsArgs(words: readonly Word[]): Arg[] {
  return words.flatMap(wordArgs);
}
