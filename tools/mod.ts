/**
 * The tools beside bash: the text editor tool, run through the same shell;
 * and the `tool_result` a command becomes (whether it counts as an error).
 *
 * @module
 */

export * from "./editor.ts";
export {
  BENIGN_EXIT_CODES,
  isErrorResult,
  type ToolResultOptions,
  toToolResult,
} from "./result.ts";
