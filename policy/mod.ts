/**
 * Command policy: allow / ask / deny rules checked against every simple
 * command a bash string would run (in lists, pipelines, subshells, control
 * flow, every substitution, `bash -c` and `eval` strings, wrapped commands),
 * found by the pure parser of `parse.ts`, with a read-only preset that
 * allows a command only when every word of it is understood; and
 * `limitsScript` for resource limits.
 *
 * The policy is a tripwire that keeps an agent honest, not a sandbox: for a
 * boundary, run the session in isolation.
 *
 * The parts live in `policy/`: the engine, the getopt_long-compatible option
 * parser, one table per program, the sed and awk grammars, the limits.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

import { awkProgramProblem as awkProblem } from "./awk.ts";
import { sedScriptProblem as sedProblem } from "./sed.ts";
export type { Containment } from "../core/containment.ts";

export {
  type CheckOptions,
  type Decision,
  Policy,
  type PolicyOptions,
  type PolicyResult,
} from "./engine.ts";
export { type Limits, limitsScript } from "../shell/limits.ts";

/**
 * Reads a sed script with the grammar of GNU sed: null when it parses and
 * neither writes nor runs anything, else why not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sedScriptProblem } from "./mod.ts";
 *
 * assert.equal(sedScriptProblem("s/a/b/g"), null);
 * assert.notEqual(sedScriptProblem("s/a/b/e"), null);
 * ```
 */
export function sedScriptProblem(script: string): string | null {
  return sedProblem(script)?.reason ?? null;
}

/**
 * Reads an awk program by its tokens: null when it neither runs, writes nor
 * connects, else why not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { awkProgramProblem } from "./mod.ts";
 *
 * assert.equal(awkProgramProblem("NR > 1 { print $2 }"), null);
 * assert.notEqual(awkProgramProblem('BEGIN { system("id") }'), null);
 * ```
 */
export function awkProgramProblem(program: string): string | null {
  return awkProblem(program)?.reason ?? null;
}
