/**
 * Names reserved for bashbox's framing: the variables and functions it
 * defines in the session are named `__bb…`, and the aliases (with functions
 * of the same names) that run each call are named `_+…` (see
 * `core/_protocol.ts`). A command that assigns, unsets, declares, exports,
 * reads into or defines one of them changes what the framing does with the
 * next call, so every policy refuses it, `Policy.allowAll()` included.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

import type { Arg } from "./options.ts";

const RESERVED = /^(__bb|_\+)/;

/**
 * Whether `name` (a variable, function or alias name) is reserved for
 * bashbox's framing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reservedName } from "./reserved.ts";
 *
 * assert.equal(reservedName("__bbJ"), true);
 * assert.equal(reservedName("_+p"), true);
 * assert.equal(reservedName("count"), false);
 * ```
 */
export function reservedName(name: string): boolean {
  return RESERVED.test(name);
}

/** The reason a policy gives when a command touches a reserved name. */
export function reservedReason(what: string): string {
  return `${what}: the name is reserved for bashbox's framing (its variables and functions are named __bb*, its aliases _+*)`;
}

/** Builtins whose operands (before any `=`) are variable, function or alias names. */
const NAMES = new Set([
  "unset",
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "read",
  "mapfile",
  "readarray",
  "getopts",
  "wait",
  "alias",
  "unalias",
  "let",
  "printf",
]);

/**
 * The word of a name-taking builtin (`unset __bbJ`, `read -a __bbX`,
 * `printf -v__bbM`, `alias _+p=…`, `let __bbJ=1`) that touches a reserved
 * name: its text, or null. A word of unknown value is returned as such
 * (`unknown`) when its name part is not known.
 */
export function reservedWord(
  name: string,
  args: readonly Arg[],
): { text: string; unknown: boolean } | null {
  if (!NAMES.has(name)) return null;
  if (name === "printf") {
    // Only `-v NAME` names a variable; the rest is a format and its data.
    const first = args[0];
    if (first?.value === "-v") return check(args[1]);
    if (first?.value?.startsWith("-v")) {
      return check({ ...first, value: first.value.slice(2) });
    }
    return null;
  }
  for (const a of args) {
    const hit = name === "let"
      ? (a.value === null
        ? { text: a.text, unknown: true }
        : /__bb|_\+/.test(a.value)
        ? { text: a.text, unknown: false }
        : null)
      : check(a);
    if (hit) return hit;
  }
  return null;
}

function check(a: Arg | undefined): { text: string; unknown: boolean } | null {
  if (a === undefined) return null;
  // The name part: before `=` (or `+=`), for a word of known value or a
  // word whose literal beginning already holds the `=`.
  const source = a.value ?? (a.prefix.includes("=") ? a.prefix : null);
  if (source === null) return { text: a.text, unknown: true };
  const head = source.split("=")[0];
  // Options (`-a__bbX`, `-p__bbX`) may hold a name glued to them.
  if (/__bb|(^|[^A-Za-z0-9_])_\+/.test(head)) {
    return { text: a.text, unknown: false };
  }
  return null;
}
