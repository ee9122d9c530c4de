/**
 * The client side of Anthropic's `bash_20250124` tool: {@linkcode BashTool}
 * turns `tool_use` blocks into `tool_result` blocks through a persistent
 * {@linkcode BashSession}, with an optional policy, redaction, audit trail and
 * spill files; {@linkcode runnableBashTool} plugs it into the official SDK's
 * tool runner; {@linkcode runAgent} is a small loop for everyone else.
 *
 * @module
 */

import { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AuditSink } from "./audit.ts";
import {
  DEFAULT_MAX_CHARS,
  errorToolResult,
  needsSpill,
  type ToolResultBlock,
  toToolResult,
} from "./format.ts";
import {
  BashSession,
  type BashSessionOptions,
  type SessionResult,
} from "./session.ts";

/**
 * The tool definition to send in `tools`: Anthropic's schema-less bash tool.
 *
 * @example
 * ```ts
 * import { BASH_TOOL } from "./mod.ts";
 *
 * console.assert(BASH_TOOL.type === "bash_20250124" && BASH_TOOL.name === "bash");
 * ```
 */
export const BASH_TOOL: {
  readonly type: "bash_20250124";
  readonly name: "bash";
} = {
  type: "bash_20250124",
  name: "bash",
};

/** A policy decision on one command. */
export interface PolicyDecision {
  /** What to do with the command. */
  decision: "allow" | "ask" | "deny";
  /** Why, in words a person (and the model) can read. */
  reason: string;
}

/** Anything that can judge a command (the `Policy` of `policy.ts` fits). */
export interface CommandPolicy {
  /** Judges one command. */
  check(command: string): PolicyDecision;
}

/** A `tool_use` block, or anything with its `id`, `name` and `input`. */
export interface ToolUseLike {
  /** The `tool_use` id the result answers. */
  id: string;
  /** The tool name; must be "bash" when given. */
  name?: string;
  /** The input the model sent. */
  input: unknown;
}

/** Options for {@linkcode BashTool}. */
export interface BashToolOptions {
  /** The session to use (not closed by the tool); default: a new one it owns. */
  session?: BashSession;
  /** Options for the session the tool creates. */
  sessionOptions?: BashSessionOptions;
  /** Judges each command before it runs; `deny` refuses, `ask` goes to `onAsk`. */
  policy?: CommandPolicy;
  /** Answers `ask` decisions (default: refuse). */
  onAsk?: (command: string, reason: string) => boolean | Promise<boolean>;
  /** Applied to everything the model and the audit see (e.g. `redactSecrets`). */
  redact?: (text: string) => string;
  /** Receives a record before each command runs and one when it ends. */
  audit?: AuditSink;
  /** Names the session in audit records (default: a random UUID). */
  sessionId?: string;
  /** Deadline per command (default: the session's, 120000 ms). */
  timeoutMs?: number;
  /** Characters of output the model sees per command (default 30000). */
  maxOutputChars?: number;
  /** Where full output is kept when it was cut; false turns it off (default: a private temp dir, removed at close). */
  spillDir?: string | false;
  /** Largest spill file in bytes (default 64 MiB). */
  spillMaxBytes?: number;
  /** Exit codes that are not errors, by program (see `BENIGN_EXIT_CODES`). */
  benignExitCodes?: Readonly<Record<string, readonly number[]>>;
}

const DEFAULT_SPILL_MAX_BYTES = 64 * 1024 * 1024;

function describeInput(input: unknown): string {
  try {
    const json = JSON.stringify(input);
    if (json === undefined) return String(input);
    return json.length > 200 ? json.slice(0, 200) + "…" : json;
  } catch {
    return typeof input;
  }
}

/** Collects a command's output into a spill file once it outgrows the model's budget. */
class Spill {
  readonly #threshold: number;
  readonly #max: number;
  readonly #path: () => string;
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #fd: number | null = null;
  #written = 0;
  path: string | null = null;
  capped = false;

  constructor(threshold: number, max: number, path: () => string) {
    this.#threshold = threshold;
    this.#max = max;
    this.#path = path;
  }

  add(chunk: Uint8Array): void {
    if (this.#fd === null) {
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
      if (this.#buffered > this.#threshold) this.#open();
      return;
    }
    this.#write(chunk);
  }

  #open(): void {
    this.path = this.#path();
    this.#fd = openSync(this.path, "w", 0o600);
    const chunks = this.#chunks;
    this.#chunks = [];
    for (const c of chunks) this.#write(c);
  }

  #write(chunk: Uint8Array): void {
    if (this.capped) return;
    const room = this.#max - this.#written;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    let offset = 0;
    while (offset < part.length) {
      offset += writeSync(this.#fd!, part, offset, part.length - offset);
    }
    this.#written += part.length;
    if (part.length < chunk.length) this.capped = true;
  }

  /** Ends the spill; keeps the file only when `keep`. Returns its path. */
  finish(keep: boolean): string | undefined {
    if (keep && this.#fd === null && this.#buffered > 0) this.#open();
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
    this.#chunks = [];
    if (!keep && this.path) {
      rmSync(this.path, { force: true });
      this.path = null;
    }
    return this.path ?? undefined;
  }
}

/**
 * Runs the `bash` tool calls of a model in one persistent session and answers
 * each with a `tool_result` block in the Messages API's wire shape.
 *
 * Input: `{ command: string }` runs the command; `{ restart: true }` kills the
 * shell and everything it started and starts a fresh one. Anything else, an
 * empty command, a policy refusal or a session failure is answered with
 * `is_error: true` and a clear message; so is a non-zero exit, a timeout or a
 * signal (except "no match" codes such as `grep`'s 1).
 *
 * @example
 * ```ts
 * import { BashTool } from "./mod.ts";
 *
 * await using tool = new BashTool();
 * const block = await tool.handle({ id: "toolu_1", name: "bash", input: { command: "echo hi" } });
 * console.assert(block.content === "Exit code 0\nhi\n" && !block.is_error);
 * ```
 */
export class BashTool {
  readonly #session: BashSession;
  readonly #ownsSession: boolean;
  readonly #options: BashToolOptions;
  readonly #maxChars: number;
  readonly #sessionId: string;
  #spillDir: string | null = null;
  #spillCount = 0;
  #cwd: string | undefined;

  /** Creates the tool; the shell starts with the first command. */
  constructor(options: BashToolOptions = {}) {
    this.#options = { ...options };
    this.#session = options.session ??
      new BashSession(options.sessionOptions);
    this.#ownsSession = options.session === undefined;
    this.#maxChars = options.maxOutputChars ?? DEFAULT_MAX_CHARS;
    if (!Number.isInteger(this.#maxChars) || this.#maxChars < 100) {
      throw new RangeError(
        `Expected maxOutputChars to be a whole number of at least 100, got ${this.#maxChars}`,
      );
    }
    this.#sessionId = options.sessionId ?? crypto.randomUUID();
  }

  /** The session commands run in. */
  get session(): BashSession {
    return this.#session;
  }

  /** The id audit records carry. */
  get sessionId(): string {
    return this.#sessionId;
  }

  /**
   * Answers one `tool_use` block. Never throws for what the model sent; throws
   * a `TypeError` only when `toolUse` has no string `id` to answer to.
   *
   * @example
   * ```ts
   * import { BashTool } from "./mod.ts";
   *
   * await using tool = new BashTool();
   * const bad = await tool.handle({ id: "toolu_2", name: "bash", input: { cmd: "ls" } });
   * console.assert(bad.is_error === true);
   * ```
   */
  async handle(toolUse: ToolUseLike): Promise<ToolResultBlock> {
    if (
      toolUse === null || typeof toolUse !== "object" ||
      typeof toolUse.id !== "string" || toolUse.id === ""
    ) {
      throw new TypeError(
        `Expected a tool_use block with a string id, got ${
          describeInput(toolUse)
        }`,
      );
    }
    const id = toolUse.id;
    if (toolUse.name !== undefined && toolUse.name !== BASH_TOOL.name) {
      return errorToolResult(
        id,
        `Expected a call of the "bash" tool, got "${String(toolUse.name)}"`,
      );
    }
    const input = toolUse.input;
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
      return errorToolResult(
        id,
        `Expected input {"command": string} or {"restart": true}, got ${
          describeInput(input)
        }`,
      );
    }
    const { command, restart } = input as Record<string, unknown>;
    if (restart === true && command === undefined) {
      return await this.#restart(id);
    }
    if (typeof command !== "string") {
      return errorToolResult(
        id,
        `Expected input {"command": string} or {"restart": true}, got ${
          describeInput(input)
        }`,
      );
    }
    if (command.trim() === "") {
      return errorToolResult(
        id,
        "Expected a non-empty command, got an empty string",
      );
    }
    if (command.includes("\0")) {
      return errorToolResult(id, "Expected a command without NUL bytes");
    }
    return await this.#run(id, command);
  }

  /**
   * Answers every `bash` tool call of one assistant message, in order, in the
   * same session; the blocks form the content of the next `user` message.
   * Tool calls of other tools are left to the caller.
   *
   * @example
   * ```ts
   * import { BashTool } from "./mod.ts";
   *
   * await using tool = new BashTool();
   * const results = await tool.handleAll({
   *   content: [
   *     { type: "tool_use", id: "a", name: "bash", input: { command: "cd /tmp" } },
   *     { type: "tool_use", id: "b", name: "bash", input: { command: "pwd" } },
   *   ],
   * });
   * console.assert(results[1].content === "Exit code 0\n/tmp\n");
   * ```
   */
  async handleAll(
    message: { content: readonly unknown[] },
  ): Promise<ToolResultBlock[]> {
    if (
      message === null || typeof message !== "object" ||
      !Array.isArray(message.content)
    ) {
      throw new TypeError(
        `Expected an assistant message with a content array, got ${
          describeInput(message)
        }`,
      );
    }
    const results: ToolResultBlock[] = [];
    for (const block of message.content) {
      const b = block as { type?: unknown; name?: unknown };
      if (b?.type === "tool_use" && b.name === BASH_TOOL.name) {
        results.push(await this.handle(block as ToolUseLike));
      }
    }
    return results;
  }

  /** Kills the shell and everything it started, then starts a fresh one. */
  async restart(): Promise<void> {
    await this.#session.restart();
    this.#cwd = undefined;
  }

  /**
   * Closes the session (when the tool created it) and removes the default
   * spill directory.
   */
  async close(): Promise<void> {
    if (this.#ownsSession) await this.#session.close();
    if (this.#spillDir !== null && this.#options.spillDir === undefined) {
      rmSync(this.#spillDir, { recursive: true, force: true });
    }
    this.#spillDir = null;
  }

  /** Same as {@linkcode close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #redact(text: string): string {
    return this.#options.redact ? this.#options.redact(text) : text;
  }

  async #restart(id: string): Promise<ToolResultBlock> {
    const started = performance.now();
    await this.#auditStart(id, "(restart)", "none");
    let block: ToolResultBlock;
    try {
      await this.restart();
      block = {
        type: "tool_result",
        tool_use_id: id,
        content:
          "The bash session was restarted: every process it started was killed, and the new shell has a fresh state.",
      };
    } catch (error) {
      block = errorToolResult(
        id,
        `Could not restart the shell: ${(error as Error).message}`,
      );
    }
    await this.#auditEnd(id, "(restart)", "none", null, block, started, 0);
    return block;
  }

  async #run(id: string, command: string): Promise<ToolResultBlock> {
    const started = performance.now();
    let decision = "none";
    let reason: string | undefined;
    const policy = this.#options.policy;
    if (policy) {
      let verdict: PolicyDecision;
      try {
        verdict = policy.check(command);
      } catch (error) {
        verdict = {
          decision: "deny",
          reason: `the policy failed: ${(error as Error).message}`,
        };
      }
      decision = verdict.decision;
      reason = verdict.reason;
      if (decision === "ask") {
        const yes = this.#options.onAsk
          ? await this.#options.onAsk(command, verdict.reason)
          : false;
        decision = yes ? "ask:approved" : "ask:refused";
      }
    }
    await this.#auditStart(id, command, decision, reason);
    if (decision === "deny" || decision === "ask:refused") {
      const block = errorToolResult(
        id,
        `The command was refused by policy: ${reason ?? "not allowed"}`,
      );
      await this.#auditEnd(id, command, decision, null, block, started, 0);
      return block;
    }

    const spillEnabled = this.#options.spillDir !== false;
    const spill = spillEnabled
      ? new Spill(
        this.#maxChars,
        this.#options.spillMaxBytes ?? DEFAULT_SPILL_MAX_BYTES,
        () => this.#spillPath(),
      )
      : null;
    let result: SessionResult;
    let previousCwd: string | undefined;
    try {
      if (this.#cwd === undefined) {
        await this.#session.start();
        this.#cwd = this.#session.cwd;
      }
      previousCwd = this.#cwd;
      result = await this.#session.run(command, {
        timeoutMs: this.#options.timeoutMs,
        onOutput: spill ? (chunk) => spill.add(chunk) : undefined,
      });
    } catch (error) {
      spill?.finish(false);
      const block = errorToolResult(
        id,
        this.#redact(`The shell failed: ${(error as Error).message}`),
      );
      await this.#auditEnd(id, command, decision, null, block, started, 0);
      return block;
    }
    const spillPath = spill?.finish(needsSpill(result, this.#maxChars));
    this.#cwd = result.cwd;
    const block = toToolResult(id, result, {
      command,
      maxChars: this.#maxChars,
      timeoutMs: this.#options.timeoutMs ?? undefined,
      previousCwd,
      spillPath,
      spillCappedAt: spill?.capped
        ? this.#options.spillMaxBytes ?? DEFAULT_SPILL_MAX_BYTES
        : undefined,
      benignExitCodes: this.#options.benignExitCodes,
    });
    block.content = this.#redact(block.content);
    const bytes = result.output.totalBytes + (result.stderr?.totalBytes ?? 0);
    await this.#auditEnd(id, command, decision, result, block, started, bytes);
    return block;
  }

  #spillPath(): string {
    if (this.#spillDir === null) {
      const configured = this.#options.spillDir;
      if (typeof configured === "string") {
        mkdirSync(configured, { recursive: true, mode: 0o700 });
        this.#spillDir = configured;
      } else {
        this.#spillDir = mkdtempSync(join(tmpdir(), "bashbox-spill-"));
      }
    }
    this.#spillCount++;
    return join(
      this.#spillDir,
      `${this.#sessionId.slice(0, 8)}-output-${this.#spillCount}.txt`,
    );
  }

  /** What both audit records of a call carry. */
  #auditFields(id: string, command: string, decision: string): {
    time: string;
    sessionId: string;
    toolUseId: string;
    command: string;
    decision: string;
  } {
    return {
      time: new Date().toISOString(),
      sessionId: this.#sessionId,
      toolUseId: id,
      command: this.#redact(command),
      decision,
    };
  }

  async #auditStart(
    id: string,
    command: string,
    decision: string,
    reason?: string,
  ): Promise<void> {
    const audit = this.#options.audit;
    if (!audit) return;
    await audit.write({
      event: "start",
      ...this.#auditFields(id, command, decision),
      ...(reason !== undefined ? { reason } : {}),
    });
  }

  async #auditEnd(
    id: string,
    command: string,
    decision: string,
    result: SessionResult | null,
    block: ToolResultBlock,
    started: number,
    outputBytes: number,
  ): Promise<void> {
    const audit = this.#options.audit;
    if (!audit) return;
    const content = typeof block.content === "string" ? block.content : "";
    await audit.write({
      event: "end",
      ...this.#auditFields(id, command, decision),
      exitCode: result?.exitCode ?? null,
      timedOut: result?.timedOut ?? false,
      restarted: result?.restarted ?? false,
      durationMs: Math.round(performance.now() - started),
      outputBytes,
      preview: this.#redact(content.slice(0, 300)),
      isError: block.is_error === true,
    });
  }
}

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
 * SDK's `ToolError`, which the runner sends back with `is_error: true`.
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
  let calls = 0;
  return {
    type: "bash_20250124",
    name: "bash",
    parse: (content: unknown) => content,
    run: async (input, context) => {
      const id = context?.toolUse?.id ?? `toolu_local_${++calls}`;
      const block = await tool.handle({ id, name: "bash", input });
      const content = typeof block.content === "string" ? block.content : "";
      if (block.is_error) throw new ToolError(content);
      return content;
    },
  };
}

/** What {@linkcode runAgent} reports as it goes. */
export type AgentEvent =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; input: unknown }
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
  /** Most model calls (default 20). */
  maxTurns?: number;
  /** `max_tokens` of each call (default 4096). */
  maxTokens?: number;
  /** Called with text, tool calls, results and the stop. */
  onEvent?: (event: AgentEvent) => void;
}

/** What {@linkcode runAgent} returns. */
export interface AgentRun {
  /** Why the loop stopped: the model's stop reason, or `max_turns`. */
  stopReason: string;
  /** Model calls made. */
  turns: number;
  /** The whole conversation. */
  messages: ConversationMessage[];
}

/**
 * A small agent loop for those who do not use the SDK's tool runner: create a
 * message, answer its bash tool calls, send the results, until the model ends
 * its turn, refuses, or `maxTurns` is reached. `pause_turn` is continued;
 * `max_tokens` with complete tool calls answers them and goes on, without them
 * it stops.
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
  const { client, model, prompt, system, tool, onEvent } = options;
  const maxTurns = options.maxTurns ?? 20;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    throw new RangeError(
      `Expected maxTurns to be a positive whole number, got ${maxTurns}`,
    );
  }
  if (typeof prompt !== "string" || prompt.trim() === "") {
    throw new TypeError("Expected a non-empty prompt");
  }
  const messages: ConversationMessage[] = [{ role: "user", content: prompt }];
  for (let turn = 1; turn <= maxTurns; turn++) {
    const response = await client.messages.create({
      model,
      max_tokens: options.maxTokens ?? 4096,
      ...(system ? { system } : {}),
      tools: [BASH_TOOL],
      messages,
    });
    messages.push({ role: "assistant", content: response.content });
    for (const block of response.content) {
      if (block.type === "text") {
        onEvent?.({ type: "text", text: String(block.text ?? "") });
      }
    }
    const stop = response.stop_reason ?? "end_turn";
    if (stop === "pause_turn") continue;
    const calls = response.content.filter((b) => b.type === "tool_use");
    if (calls.length === 0 || stop === "refusal") {
      onEvent?.({ type: "stop", reason: stop });
      return { stopReason: stop, turns: turn, messages };
    }
    const results: ToolResultBlock[] = [];
    for (const call of calls) {
      const id = String(call.id ?? "");
      onEvent?.({ type: "tool_use", id, input: call.input });
      const block = call.name === BASH_TOOL.name
        ? await tool.handle({ id, name: call.name, input: call.input })
        : errorToolResult(
          id,
          `Unknown tool "${call.name}": only "bash" is available`,
        );
      onEvent?.({ type: "tool_result", block });
      results.push(block);
    }
    messages.push({ role: "user", content: results });
  }
  onEvent?.({ type: "stop", reason: "max_turns" });
  return { stopReason: "max_turns", turns: maxTurns, messages };
}
