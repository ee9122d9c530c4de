/**
 * Runnable tools for the official SDK's tool runner
 * (`client.beta.messages.toolRunner`): the bash tool and the process tools,
 * answered by a {@linkcode BashTool}.
 *
 * @module
 */

import { localIds, runnableMembers } from "../tools/_runnable.ts";
import { BashTool } from "../tools/bash.ts";
import {
  type ClientToolDefinition,
  PROCESS_TOOLS,
} from "../tools/definitions.ts";

/**
 * The shape of the SDK's `BetaRunnableTool` for the bash tool (structurally
 * the same, so it can be passed in `tools` of `client.beta.messages.toolRunner`).
 */
export interface RunnableBash {
  /** The tool type. */
  type: "bash_20250124";
  /** The tool name. */
  name: "bash";
  /** Returns the input unchanged: {@linkcode BashTool.handle} checks it. */
  parse: (content: unknown) => unknown;
  /** Runs one call; an error result is thrown as the SDK's `ToolError`. */
  run: (
    input: unknown,
    context?: { toolUse?: { id: string } },
  ) => Promise<string>;
}

/**
 * Wraps a {@linkcode BashTool} as a `BetaRunnableTool`, so the official SDK's
 * `client.beta.messages.toolRunner` drives it. Error results are thrown as the
 * SDK's `ToolError` (loaded from the SDK's public entry point when the first
 * error happens; without the SDK, a plain `Error`), which the runner sends
 * back with `is_error: true`. The runner starts the calls of one message
 * together; {@linkcode BashTool.handle} runs them one by one in that order.
 *
 * @example
 * ```ts ignore
 * import Anthropic from "@anthropic-ai/sdk";
 * import { BashTool, runnableBashTool } from "@bashbox/core";
 *
 * const client = new Anthropic();
 * await using tool = new BashTool();
 * const final = await client.beta.messages.toolRunner({
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 4096,
 *   messages: [{ role: "user", content: "How many files are in /tmp?" }],
 *   tools: [runnableBashTool(tool)],
 * });
 * console.log(final.content);
 * ```
 */
export function runnableBashTool(tool: BashTool): RunnableBash {
  if (!(tool instanceof BashTool)) {
    throw new TypeError("Expected a BashTool");
  }
  return {
    type: "bash_20250124",
    name: "bash",
    ...runnableMembers((call) => tool.handle(call), { name: "bash" }),
  };
}

/**
 * Wraps the {@linkcode PROCESS_TOOLS} of a {@linkcode BashTool} as
 * `BetaRunnableTool`s for the official SDK's `toolRunner`, next to
 * {@linkcode runnableBashTool}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BashTool, runnableProcessTools } from "./mod.ts";
 *
 * await using tool = new BashTool();
 * const [start] = runnableProcessTools(tool);
 * const text = await start.run({ command: "echo hi", wait_ms: 2000, until: "hi" });
 * assert.match(text, /hi/);
 * ```
 */
export function runnableProcessTools(tool: BashTool): RunnableClientTool[] {
  if (!(tool instanceof BashTool)) {
    throw new TypeError("Expected a BashTool");
  }
  const nextId = localIds("toolu_local_p");
  return PROCESS_TOOLS.map((definition) => ({
    ...definition,
    ...runnableMembers((call) => tool.handle(call), {
      name: definition.name,
      nextId,
    }),
  }));
}

/** A client tool in the shape of the SDK's `BetaRunnableTool`. */
export interface RunnableClientTool extends ClientToolDefinition {
  /** Returns the input unchanged: {@linkcode BashTool.handle} checks it. */
  parse: (content: unknown) => unknown;
  /** Runs one call; an error result is thrown as the SDK's `ToolError`. */
  run: (
    input: unknown,
    context?: { toolUse?: { id: string } },
  ) => Promise<string>;
}
