/**
 * The `tool_result` block a model reads for a command: the formatted text
 * (from the egress's formatter) and whether it counts as an error, judged by
 * the program whose status the command returns (read with the shell
 * parser, so that the formatter needs none). The `@bashbox/core/format`
 * entry point: it also re-exports the formatter.
 *
 * @module
 */

import {
  type FormatOptions,
  formatResult,
  type FormattableResult,
  type ToolResultBlock,
} from "../egress/format.ts";
import { lastProgram } from "../shell/last_program.ts";

export * from "../egress/format.ts";
export { lastProgram };

/**
 * Exit code 1 means "no match" or "differs" for these programs, not failure.
 * Keys are program names; values are the exit codes that are not errors.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BENIGN_EXIT_CODES } from "./result.ts";
 *
 * assert.ok(BENIGN_EXIT_CODES.grep.includes(1));
 * ```
 */
export const BENIGN_EXIT_CODES: Readonly<Record<string, readonly number[]>> = {
  grep: [1],
  egrep: [1],
  fgrep: [1],
  rg: [1],
  diff: [1],
  cmp: [1],
  test: [1],
  "[": [1],
  "[[": [1],
};

/** Options for {@linkcode toToolResult}. */
export interface ToolResultOptions extends FormatOptions {
  /** The command, used to find its last program for {@linkcode BENIGN_EXIT_CODES}. */
  command?: string;
  /** Exit codes that are not errors, by program (default {@linkcode BENIGN_EXIT_CODES}; `{}` turns it off). */
  benignExitCodes?: Readonly<Record<string, readonly number[]>>;
}

/**
 * Whether a result counts as an error for the model: a non-zero exit (except
 * the "no match / differs" codes), a timeout, an abort or a signal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isErrorResult } from "./result.ts";
 *
 * assert.ok(!isErrorResult({ exitCode: 1, timedOut: false }, { command: "grep x f" }));
 * assert.ok(isErrorResult({ exitCode: 1, timedOut: false }, { command: "make" }));
 * ```
 */
export function isErrorResult(
  result: Pick<FormattableResult, "exitCode" | "timedOut" | "aborted">,
  options: Pick<ToolResultOptions, "command" | "benignExitCodes"> = {},
): boolean {
  if (result.timedOut || result.aborted) return true;
  if (result.exitCode === 0) return false;
  if (result.exitCode === null) return true;
  const program = typeof options.command === "string"
    ? lastProgram(options.command)
    : undefined;
  const benign = program
    ? (options.benignExitCodes ?? BENIGN_EXIT_CODES)[program]
    : undefined;
  return !(benign?.includes(result.exitCode) ?? false);
}

/**
 * The `tool_result` block for a command's result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toToolResult } from "./result.ts";
 *
 * const c = { text: "", head: "", tail: "", totalBytes: 0, omittedBytes: 0, truncated: false };
 * const block = toToolResult("toolu_1", { output: c, exitCode: 2, timedOut: false });
 * assert.ok(block.is_error === true && block.content === "Exit code 2\n(no output)");
 * ```
 */
export function toToolResult(
  toolUseId: string,
  result: FormattableResult,
  options: ToolResultOptions = {},
): ToolResultBlock {
  const block: ToolResultBlock = {
    type: "tool_result",
    tool_use_id: toolUseId,
    content: formatResult(result, options),
  };
  if (isErrorResult(result, options)) block.is_error = true;
  return block;
}
