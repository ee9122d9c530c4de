/**
 * Allow / ask / deny rules: a command name or a word prefix (`git status`,
 * `npm run test:*`), matched against a command's words after bash would
 * make them (braces expanded) and after wrappers are taken off. The first
 * word matches by basename (`/bin/rm` matches `rm`).
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

import type { Arg } from "./options.ts";

/** A parsed rule: words, with `prefix` when the last word ends in `*`. */
export interface Rule {
  /** The rule as written. */
  text: string;
  /** Its words. */
  words: string[];
  /** The last word is a string prefix (from a trailing `*`). */
  prefix: boolean;
}

/**
 * Parses a rule, or throws a TypeError naming what was wrong.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseRule } from "./rules.ts";
 *
 * assert.deepEqual(parseRule("npm run test:*").words, ["npm", "run", "test"]);
 * ```
 */
export function parseRule(text: string): Rule {
  if (typeof text !== "string" || text.trim() === "") {
    throw new TypeError(
      `Expected a rule to be a non-empty string, got ${JSON.stringify(text)}`,
    );
  }
  let words = text.trim().split(/[ \t]+/);
  let prefix = false;
  const last = words[words.length - 1];
  if (last === "*" || last === ":*") {
    words = words.slice(0, -1);
  } else if (last.endsWith(":*")) {
    // Claude Code's form: a string prefix of the last word.
    words[words.length - 1] = last.slice(0, -2);
    prefix = true;
  } else if (last.endsWith("*")) {
    words[words.length - 1] = last.slice(0, -1);
    prefix = true;
  }
  if (words.length === 0) {
    throw new TypeError(
      `Expected a rule to name a command, got ${JSON.stringify(text)}`,
    );
  }
  return { text, words, prefix };
}

/** The last path component of a command name. */
export function basename(name: string): string {
  return name.slice(name.lastIndexOf("/") + 1);
}

/**
 * Whether `argv` starts with the rule's words. A word of unknown value
 * matches when `loose` (deny and ask rules: fail closed) and not otherwise.
 * The first word is compared by basename unless the rule names a path.
 */
export function matches(
  rule: Rule,
  argv: readonly Arg[],
  loose: boolean,
): boolean {
  if (argv.length < rule.words.length) return false;
  for (let i = 0; i < rule.words.length; i++) {
    let a = argv[i].value;
    const w = rule.words[i];
    if (a === null) {
      if (!loose) return false;
      continue;
    }
    if (i === 0 && !w.includes("/") && loose) a = basename(a);
    const last = i === rule.words.length - 1;
    if (last && rule.prefix ? !a.startsWith(w) : a !== w) return false;
  }
  return true;
}
