/**
 * What the `BetaRunnableTool` wrappers share (`runnableBashTool`,
 * `runnableProcessTools`, `runnableEditorTool`): a call runs through the
 * tool's `handle`, its `tool_result` becomes the text the SDK's tool runner
 * sends back, and an error result is thrown.
 *
 * @module
 */

import type { ToolResultBlock } from "../egress/format.ts";

/** The SDK's public entry point, loaded only when a tool result must be thrown as its `ToolError`. */
const SDK_SPECIFIER = "@anthropic-ai/sdk";

type ToolErrorClass = new (content: string) => Error;
let toolErrorClass: Promise<ToolErrorClass | null> | undefined;

/**
 * The SDK's `ToolError` class, through its public entry point
 * (`Anthropic.Beta.Messages.ToolError`), or null when the SDK cannot be
 * loaded; loaded once, on the first error result.
 */
function loadToolError(): Promise<ToolErrorClass | null> {
  toolErrorClass ??= import(SDK_SPECIFIER).then(
    (sdk: Record<string, unknown>) => {
      const main = sdk.default as
        | { Beta?: { Messages?: { ToolError?: unknown } } }
        | undefined;
      const found = main?.Beta?.Messages?.ToolError ?? sdk.ToolError;
      return typeof found === "function" ? found as ToolErrorClass : null;
    },
    () => null,
  );
  return toolErrorClass;
}

/**
 * The SDK's `ToolError` carrying `content` (the runner sends it back as it
 * is, with `is_error: true`); without the SDK, a plain `Error`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolError } from "./_runnable.ts";
 *
 * assert.equal((await toolError("Exit code 1")).message, "Exit code 1");
 * ```
 */
export async function toolError(content: string): Promise<Error> {
  const ToolError = await loadToolError();
  return ToolError ? new ToolError(content) : new Error(content);
}

/** The `context` the SDK's tool runner passes to `run`. */
export interface RunContext {
  /** The `tool_use` block being answered. */
  toolUse?: { id: string };
}

/**
 * Ids for calls the runner gives none: `prefix` and a count from 1, shared by
 * every tool given the same function.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { localIds } from "./_runnable.ts";
 *
 * const next = localIds("toolu_local_p");
 * assert.deepEqual([next(), next()], ["toolu_local_p1", "toolu_local_p2"]);
 * ```
 */
export function localIds(prefix: string): () => string {
  let calls = 0;
  return () => `${prefix}${++calls}`;
}

/** How {@linkcode runnableMembers} names and throws. */
export interface RunnableMembersOptions {
  /** The tool name of the calls `handle` gets. */
  name: string;
  /** The id of a call the runner gives none (default {@linkcode localIds} `toolu_local_`). */
  nextId?: () => string;
  /** The error thrown for an error result's text (default {@linkcode toolError}). */
  error?: (content: string) => Error | Promise<Error>;
}

/** The members a `BetaRunnableTool` adds to a tool definition. */
export interface RunnableMembers {
  /** Returns the input unchanged: `handle` checks it. */
  parse: (content: unknown) => unknown;
  /** Runs one call; an error result is thrown. */
  run: (input: unknown, context?: RunContext) => Promise<string>;
}

/**
 * `parse` and `run` of a `BetaRunnableTool` whose calls `handle` answers:
 * `run` returns the result's text, or throws `options.error` of it when the
 * result is an error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runnableMembers } from "./_runnable.ts";
 *
 * const { run } = runnableMembers(
 *   (call) => Promise.resolve({ type: "tool_result", tool_use_id: call.id, content: call.id }),
 *   { name: "echo" },
 * );
 * assert.equal(await run({}), "toolu_local_1");
 * assert.equal(await run({}, { toolUse: { id: "toolu_9" } }), "toolu_9");
 * ```
 */
export function runnableMembers(
  handle: (
    call: { id: string; name: string; input: unknown },
  ) => Promise<ToolResultBlock>,
  options: RunnableMembersOptions,
): RunnableMembers {
  const { name, nextId = localIds("toolu_local_"), error = toolError } =
    options;
  return {
    parse: (content: unknown) => content,
    run: async (input: unknown, context?: RunContext) => {
      const id = context?.toolUse?.id ?? nextId();
      const block = await handle({ id, name, input });
      const content = typeof block.content === "string" ? block.content : "";
      if (block.is_error) throw await error(content);
      return content;
    },
  };
}
