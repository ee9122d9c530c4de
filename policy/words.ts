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

import { literal, type Statement, type Word } from "../shell/parse.ts";
import type { Arg } from "./options.ts";

/** One character of a word, or an expansion whose value is unknown. */
type Piece =
  | { ch: string; active: boolean; quoted?: boolean }
  | {
    opaque: true;
    quoted: boolean;
    many: boolean;
    /** Its words never begin with `-` (see cleanOutput). */
    clean?: boolean;
    /** It is never empty and begins with `/`: the word it starts begins so too. */
    slash?: boolean;
  };

/**
 * What a command substitution's output is, when it is known never to make a
 * word that begins with `-`: `words` when it holds no blank (`git
 * merge-base ...` prints commit names or nothing; `git rev-parse` with
 * revisions and a few reporting options prints commit or ref names, and git
 * refuses ref names that begin with `-`), `path` when it is one absolute
 * path, which may hold blanks (`pwd`), so only quoted. Its own command is
 * judged where it stands.
 */
function cleanOutput(body: readonly Statement[]): "words" | "path" | null {
  if (body.length !== 1 || body[0].background) return null;
  const c = body[0].command;
  if (c.type !== "Simple" || c.assigns.length > 0) return null;
  if (!c.redirects.every((r) => r.fd === "2" && r.op === ">")) return null;
  const words = c.words.map(literal);
  if (words.some((w) => w === null)) return null;
  const [name, sub, ...rest] = words as string[];
  if (name === "pwd") {
    return sub === undefined || /^-[LP]$/.test(sub) ? "path" : null;
  }
  if (name !== "git") return null;
  if (sub === "merge-base") return "words";
  if (sub !== "rev-parse") return null;
  if (rest.length === 1 && rest[0] === "--show-toplevel") return "path";
  return rest.every((w) =>
      /^[^\s-]\S*$/.test(w) ||
      /^(--short(=\d+)?|--verify|-q|--quiet|--abbrev-ref|--symbolic-full-name)$/
        .test(w)
    )
    ? "words"
    : null;
}

const MAX_WORDS = 4096;
/** Pieces looked at while expanding one word. */
const MAX_WORK = 300_000;

function pieces(word: Word): Piece[] {
  const out: Piece[] = [];
  for (const part of word.parts) {
    if (part.type === "Lit") {
      // A quoted empty string still makes a word: keep a mark of it.
      if (part.quoted && part.value === "") {
        out.push({ ch: "", active: false, quoted: true });
      }
      for (const ch of part.value) {
        out.push({ ch, active: !part.quoted, quoted: part.quoted });
      }
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
    const output = part.type === "CmdSubst" ? cleanOutput(part.body) : null;
    const clean = output === "words" || (output === "path" && quoted);
    out.push({
      opaque: true,
      quoted,
      many,
      clean,
      slash: clean && !many && output === "path",
    });
  }
  return out;
}

function isCh(p: Piece | undefined, ch: string): boolean {
  return p !== undefined && "ch" in p && p.active && p.ch === ch;
}

/**
 * Finds the leftmost brace expression (one pass, braces matched with a
 * stack): its open and close positions and its top-level commas, or null.
 */
function findBrace(
  ps: Piece[],
): { open: number; close: number; commas: number[] } | null {
  const stack: { open: number; commas: number[] }[] = [];
  let best: { open: number; close: number; commas: number[] } | null = null;
  for (let j = 0; j < ps.length; j++) {
    if (isCh(ps[j], "{")) stack.push({ open: j, commas: [] });
    else if (isCh(ps[j], ",") && stack.length > 0) {
      stack[stack.length - 1].commas.push(j);
    } else if (isCh(ps[j], "}") && stack.length > 0) {
      const top = stack.pop()!;
      if (best !== null && best.open < top.open) continue;
      if (top.commas.length > 0 || isSequence(ps, top.open, j)) {
        best = { open: top.open, close: j, commas: top.commas };
      }
    }
  }
  return best;
}

function isSequence(ps: Piece[], open: number, close: number): boolean {
  if (close - open > 40) return false;
  const inner = ps.slice(open + 1, close);
  if (!inner.every((p) => "ch" in p)) return false;
  const text = inner.map((p) => (p as { ch: string }).ch).join("");
  return /^(-?\d+\.\.-?\d+(\.\.-?\d+)?|[A-Za-z]\.\.[A-Za-z](\.\.-?\d+)?)$/
    .test(text);
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

/** Brace expansion, depth first in bash's order; null when it would be too large to judge. */
function expand(ps: Piece[]): Piece[][] | null {
  const done: Piece[][] = [];
  const stack: Piece[][] = [ps];
  let work = 0;
  while (stack.length > 0) {
    const cur = stack.pop()!;
    work += cur.length;
    if (work > MAX_WORK) return null;
    const b = findBrace(cur);
    if (b === null) {
      done.push(cur);
      if (done.length > MAX_WORDS) return null;
      continue;
    }
    const head = cur.slice(0, b.open);
    const tail = cur.slice(b.close + 1);
    const alternatives: Piece[][] = [];
    if (b.commas.length === 0) {
      const text = cur.slice(b.open + 1, b.close).map((p) =>
        (p as { ch: string }).ch
      ).join("");
      const items = sequence(text);
      if (items.length > MAX_WORDS) return null;
      for (const item of items) {
        alternatives.push([...item].map((ch) => ({ ch, active: false })));
      }
    } else {
      let from = b.open + 1;
      for (const c of [...b.commas, b.close]) {
        alternatives.push(cur.slice(from, c));
        from = c + 1;
      }
    }
    if (stack.length + alternatives.length > MAX_WORDS) return null;
    for (let k = alternatives.length - 1; k >= 0; k--) {
      stack.push([...head, ...alternatives[k], ...tail]);
    }
  }
  return done;
}

/**
 * A word's leading tilde prefix (the unquoted characters after `~` up to
 * the first `/`) when it names a value the session carries: `~+` is $PWD,
 * `~-` is $OLDPWD, `~N`, `~+N` and `~-N` are entries of the directory
 * stack. A plain assignment (`OLDPWD=--output=x`) or `cd`/`pushd` sets
 * them, so their value is as unknown as a variable's and may begin with
 * `-`. (`~` and `~user` are home directories: paths.)
 */
function sessionTilde(ps: Piece[]): boolean {
  if (!isCh(ps[0], "~")) return false;
  let prefix = "";
  for (let i = 1; i < ps.length; i++) {
    const p = ps[i];
    if ("opaque" in p) return false;
    if (p.ch === "/" && p.active) break;
    if (!p.active) return false;
    prefix += p.ch;
  }
  return /^([+-]\d*|\d+)$/.test(prefix);
}

/**
 * Whether the word the pieces make may begin with `-`: its first character
 * comes from the first piece that is not a clean output (which makes no
 * word that begins with `-`, or nothing), a `/`-led path, or a literal.
 */
function mayBeginWithDash(ps: Piece[]): boolean {
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i];
    if ("opaque" in p) {
      if (p.slash) return false;
      if (p.clean) continue;
      return true;
    }
    if (p.ch === "") continue;
    const glob = p.active &&
      (p.ch === "*" || p.ch === "?" ||
        (p.ch === "[" && ps.slice(i + 2).some((q) => isCh(q, "]"))));
    return glob || p.ch === "-";
  }
  return false;
}

function toArg(ps: Piece[], text: string): Arg {
  if (sessionTilde(ps)) {
    return { value: null, text, dash: true, many: false, prefix: "" };
  }
  let value = "";
  let prefix = "";
  let known = true;
  let many = false;
  // Word splitting of a value that may hold anything makes new words that
  // may begin with "-"; globs and clean outputs do not.
  let split = false;
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i];
    if ("opaque" in p) {
      known = false;
      many ||= p.many;
      split ||= p.many && !p.clean;
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
  const dash = !tilde && mayBeginWithDash(ps);
  return {
    value: null,
    text,
    dash,
    many,
    prefix,
    ...(many && !split && !dash ? { tame: true } : {}),
  };
}

/**
 * The arguments bash makes of a word: several after brace expansion, each
 * literal or described (unknown value, may begin with `-`, may split).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parse } from "../shell/parse.ts";
 * import { wordArgs } from "./words.ts";
 *
 * const cmd = parse("find . {-exec,'pwn'}").body[0].command;
 * if (cmd.type !== "Simple") throw new Error("expected a simple command");
 * assert.deepEqual(wordArgs(cmd.words[2]).map((a) => a.value), ["-exec", "pwn"]);
 * ```
 */
export function wordArgs(word: Word): Arg[] {
  const ps = pieces(word);
  const words = expand(ps);
  if (words === null) {
    // Too many words to judge: one word of unknown value that may be anything.
    return [{
      value: null,
      text: word.text,
      dash: true,
      many: true,
      prefix: "",
    }];
  }
  // An unquoted word that expands to nothing is removed, as bash does.
  return words
    .filter((w) => w.some((p) => "opaque" in p || p.quoted || p.ch !== ""))
    .map((w) => toArg(w, word.text));
}

/** The arguments of a list of words, in order. */
export function wordsArgs(words: readonly Word[]): Arg[] {
  return words.flatMap(wordArgs);
}
