/**
 * {@linkcode runAgent}: a small agent loop over the Messages API for those who
 * do not use the SDK's tool runner: each turn's tool calls (bash, the text
 * editor, the process tools) are answered in order through one session.
 *
 * @module
 */

import { cutText, describeValue, messageOf } from "../egress/egress.ts";
import { errorToolResult, type ToolResultBlock } from "../egress/format.ts";
import type { BashTool } from "../tools/bash.ts";
import {
  BASH_TOOL,
  PROCESS_TOOL_NAMES,
  PROCESS_TOOLS,
} from "../tools/definitions.ts";
import type { EditorTool } from "../tools/editor.ts";

/** What {@linkcode runAgent} reports as it goes. */
export type AgentEvent =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; block: ToolResultBlock }
  | { type: "stop"; reason: string };

/** One message of a conversation, as the Messages API takes it. */
export interface ConversationMessage {
  /** Who speaks. */
  role: "user" | "assistant";
  /** A string or content blocks. */
  content: string | readonly unknown[];
}

/** A content block of an assistant message, as far as the loop reads it. */
export interface AssistantBlock {
  /** Block type: "text", "tool_use", or others the loop passes back untouched. */
  type: string;
  /** The text of a text block. */
  text?: string;
  /** The id of a tool_use block. */
  id?: string;
  /** The tool name of a tool_use block. */
  name?: string;
  /** The input of a tool_use block. */
  input?: unknown;
}

/** The part of an `Anthropic` client that {@linkcode runAgent} uses. */
export interface MessagesClient {
  /** The Messages API. */
  messages: {
    /** Creates one message (non-streaming). */
    // The SDK's overloads admit no narrower parameter type than this.
    // deno-lint-ignore no-explicit-any
    create(body: any): PromiseLike<
      { content: AssistantBlock[]; stop_reason: string | null }
    >;
  };
}

/** Options for {@linkcode runAgent}. */
export interface RunAgentOptions {
  /** An `Anthropic` client (its `baseURL` may point anywhere that speaks the API). */
  client: MessagesClient;
  /** The model to call. */
  model: string;
  /** The user's task. */
  prompt: string;
  /** System prompt. */
  system?: string;
  /** The tool that runs the commands. */
  tool: BashTool;
  /**
   * The text editor tool (`str_replace_based_edit_tool`), offered beside bash
   * and carried out through the same session (default: not offered).
   */
  editor?: EditorTool;
  /**
   * Offer {@linkcode PROCESS_TOOLS} beside bash, answered by `tool`
   * (default false: only bash, and the editor when given).
   */
  processTools?: boolean;
  /** Most model calls, retries included (default 20). */
  maxTurns?: number;
  /** `max_tokens` of each call (default 4096). */
  maxTokens?: number;
  /**
   * The highest `max_tokens` a call is retried with when a response with a
   * tool call was cut off by `max_tokens` (each retry doubles it). Default:
   * four times `maxTokens`, at most 32000; `maxTokens` itself turns retries off.
   */
  maxTokensCeiling?: number;
  /** Called with text, tool calls, results and the stop. */
  onEvent?: (event: AgentEvent) => void;
}

/** What {@linkcode runAgent} returns. */
export interface AgentRun {
  /** Why the loop stopped: the model's stop reason, `max_turns`, or `error` (in an {@linkcode AgentError}). */
  stopReason: string;
  /** Model calls made. */
  turns: number;
  /** The conversation: every complete turn, answered tool calls included. */
  messages: ConversationMessage[];
  /**
   * The content of a response that `max_tokens` cut off inside a tool call,
   * when no retry was left: it is not in `messages`, and none of its tool
   * calls ran.
   */
  incomplete?: AssistantBlock[];
}

/**
 * Thrown by {@linkcode runAgent} when a call of the Messages API fails (or
 * answers something that is not a message): the conversation so far is in
 * {@linkcode AgentError.run}, the API's error in `cause`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AgentError } from "./agent.ts";
 *
 * const error = new AgentError("The Messages API call failed", {
 *   run: { stopReason: "error", turns: 1, messages: [{ role: "user", content: "hi" }] },
 * });
 * assert.equal(error.run.messages.length, 1);
 * ```
 */
export class AgentError extends Error {
  /** The run up to the failure. */
  readonly run: AgentRun;

  /** Creates the error with the run so far. */
  constructor(message: string, options: { run: AgentRun; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = "AgentError";
    this.run = options.run;
  }
}

/**
 * A small agent loop for those who do not use the SDK's tool runner: create a
 * message, answer its bash tool calls, send the results, until the model ends
 * its turn, refuses, or `maxTurns` is reached. `pause_turn` is continued. A
 * response cut off by `max_tokens` runs none of its tool calls (the last one
 * may be incomplete): the call is retried with a doubled `max_tokens` up to
 * `maxTokensCeiling`, then the loop stops with `stopReason: "max_tokens"` and
 * the cut response in `incomplete`. A failed API call throws an
 * {@linkcode AgentError} that carries the conversation so far.
 *
 * @example
 * ```ts ignore
 * import Anthropic from "@anthropic-ai/sdk";
 * import { BashTool, runAgent } from "@bashbox/core";
 *
 * await using tool = new BashTool();
 * const run = await runAgent({
 *   client: new Anthropic(),
 *   model: "claude-sonnet-4-5",
 *   prompt: "Which kernel does this machine run?",
 *   tool,
 *   onEvent: (e) => console.log(e),
 * });
 * console.log(run.stopReason);
 * ```
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const { client, model, prompt, system, tool, editor, onEvent } = options;
  const processTools = options.processTools === true;
  const maxTurns = options.maxTurns ?? 20;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    throw new RangeError(
      `Expected maxTurns to be a positive whole number, got ${maxTurns}`,
    );
  }
  let maxTokens = options.maxTokens ?? 4096;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new RangeError(
      `Expected maxTokens to be a positive whole number, got ${maxTokens}`,
    );
  }
  const ceiling = options.maxTokensCeiling ??
    Math.max(maxTokens, Math.min(maxTokens * 4, 32_000));
  if (!Number.isInteger(ceiling) || ceiling < maxTokens) {
    throw new RangeError(
      `Expected maxTokensCeiling to be a whole number of at least maxTokens (${maxTokens}), got ${ceiling}`,
    );
  }
  if (typeof prompt !== "string" || prompt.trim() === "") {
    throw new TypeError("Expected a non-empty prompt");
  }
  const messages: ConversationMessage[] = [{ role: "user", content: prompt }];
  for (let turn = 1; turn <= maxTurns; turn++) {
    let response: { content: AssistantBlock[]; stop_reason: string | null };
    try {
      response = await client.messages.create({
        model,
        max_tokens: maxTokens,
        ...(system ? { system } : {}),
        tools: [
          BASH_TOOL,
          ...(processTools ? PROCESS_TOOLS : []),
          ...(editor ? [editor.definition] : []),
        ],
        messages,
      });
      if (!Array.isArray(response?.content)) {
        throw new TypeError(
          `Expected a message with a content array, got ${
            cutText(describeValue(response), 200)
          }`,
        );
      }
    } catch (error) {
      throw new AgentError(
        `The Messages API call of turn ${turn} failed: ${messageOf(error)}`,
        { cause: error, run: { stopReason: "error", turns: turn, messages } },
      );
    }
    const stop = response.stop_reason ?? "end_turn";
    const calls = response.content.filter((b) => b.type === "tool_use");
    if (stop === "max_tokens" && calls.length > 0) {
      // The last tool call may be cut short: run none of them.
      if (maxTokens < ceiling) {
        maxTokens = Math.min(ceiling, maxTokens * 2);
        continue;
      }
      onEvent?.({ type: "stop", reason: stop });
      return {
        stopReason: stop,
        turns: turn,
        messages,
        incomplete: response.content,
      };
    }
    messages.push({ role: "assistant", content: response.content });
    for (const block of response.content) {
      if (block.type === "text") {
        onEvent?.({ type: "text", text: String(block.text ?? "") });
      }
    }
    if (stop === "pause_turn") continue;
    if (calls.length === 0 || stop === "refusal") {
      onEvent?.({ type: "stop", reason: stop });
      return { stopReason: stop, turns: turn, messages };
    }
    const results: ToolResultBlock[] = [];
    for (const call of calls) {
      const id = String(call.id ?? "");
      onEvent?.({
        type: "tool_use",
        id,
        name: String(call.name ?? ""),
        input: call.input,
      });
      const block = call.name === BASH_TOOL.name ||
          processTools && PROCESS_TOOL_NAMES.has(String(call.name))
        ? await tool.handle({ id, name: call.name, input: call.input })
        : editor && call.name === editor.definition.name
        ? await editor.handle({ id, name: call.name, input: call.input })
        : errorToolResult(
          id,
          `Unknown tool "${call.name}": only "bash"${
            processTools ? ", the process tools" : ""
          }${
            editor ? ` and "${editor.definition.name}" are` : " is"
          } available`,
        );
      onEvent?.({ type: "tool_result", block });
      results.push(block);
    }
    messages.push({ role: "user", content: results });
  }
  onEvent?.({ type: "stop", reason: "max_turns" });
  return { stopReason: "max_turns", turns: maxTurns, messages };
}
