/**
 * The one tool pipeline every tool call goes through, whoever calls it (the
 * SDK's tool runner, `runAgent`, `answerToolUses`, MCP, the CLI):
 * validate (the handler) → policy → audit start → execute → egress
 * (sanitise, redact last on the exact text that leaves) → audit end. The
 * bash, editor and process tools are handlers plugged into it: none of them
 * judges, audits or redacts its result on its own.
 *
 * @module
 */

import type { AuditRecord, AuditSink } from "../egress/audit.ts";
import { cutText, Egress, messageOf } from "../egress/egress.ts";
import type { ToolResultBlock } from "../egress/format.ts";
import type { CommandPolicy } from "./types.ts";
import { describeValue } from "../egress/egress.ts";

/** Characters of a result an `end` audit record previews. */
const PREVIEW_CHARS = 300;

/** Options of {@linkcode ToolPipeline}. */
export interface ToolPipelineOptions {
  /** Judges each command before it runs; `deny` refuses, `ask` goes to `onAsk`. */
  policy?: CommandPolicy;
  /** Answers `ask` decisions (default: refuse). */
  onAsk?: (command: string, reason: string) => boolean | Promise<boolean>;
  /** Receives a record before each call and one when it ends. */
  audit?: AuditSink;
  /** The way out: redaction and the terminal model. */
  egress: Egress;
  /** Names the session in audit records. */
  sessionId: string;
}

/** What a handler's execution produced. */
export interface Executed {
  /** The text for the model, before egress. */
  content: string;
  /** The result is an error. */
  isError?: boolean;
  /** The command's ending, for the audit (none: null, false, false). */
  ending?: { exitCode: number | null; timedOut: boolean; restarted: boolean };
  /** Bytes the command printed, for the audit (default 0). */
  outputBytes?: number;
  /** Fields the `end` record adds (already redacted by the handler where they hold text). */
  fields?: Record<string, unknown>;
}

/** One call, as a handler describes it to the pipeline. */
export interface ToolCall {
  /** The `tool_use` id. */
  id: string;
  /** The command as the audit names it. */
  command: string;
  /** The command the policy judges; undefined: not judged (decision `none`). */
  judged?: string;
  /** The command runs in a session that keeps the policy's promise. */
  contained?: boolean;
  /** A decision made before the policy is asked (e.g. a read-only preset). */
  preset?: { decision: "deny"; reason: string };
  /** Fields both audit records add (already redacted where they hold text). */
  fields?: Record<string, unknown>;
  /** The result text of a refusal, given the reason shown. */
  refusal(reason: string): string;
  /** Runs the call once it is allowed; a throw becomes an error result through {@linkcode ToolCall.failure}. */
  execute(): Promise<Executed>;
  /** The result text of an execution that threw. */
  failure(error: unknown): string;
  /** Texts the messages of this call may quote (the model's input). */
  sources?: readonly string[];
}

/** A policy's answer, `ask` already put to the approval callback. */
export interface Judgement {
  /** `allow`, `deny`, `ask:approved`, `ask:refused`, `ask:failed`, or `none` without a policy. */
  decision: string;
  /** Why, unredacted; undefined without a policy. */
  reason?: string;
}

/** True when a judgement lets the command run. */
function allowed(decision: string): boolean {
  return decision === "allow" || decision === "none" ||
    decision === "ask:approved";
}

/**
 * Runs tool calls through policy, audit and egress.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolPipeline } from "./pipeline.ts";
 * import { Egress } from "../egress/egress.ts";
 * import { redactor } from "../egress/redact.ts";
 *
 * const pipeline = new ToolPipeline({ egress: new Egress(redactor()), sessionId: "s" });
 * const block = await pipeline.call({
 *   id: "t1",
 *   command: "echo",
 *   refusal: (reason) => `refused: ${reason}`,
 *   execute: () => Promise.resolve({ content: "AKIAABCDEFGHIJKLMNOP\n" }),
 *   failure: (error) => `failed: ${error}`,
 * });
 * assert.equal(block.content, "[REDACTED:aws-access-key]\n");
 * ```
 */
export class ToolPipeline {
  readonly #options: ToolPipelineOptions;

  /** A pipeline with the given policy, approval callback, audit sink and egress. */
  constructor(options: ToolPipelineOptions) {
    if (!(options?.egress instanceof Egress)) {
      throw new TypeError("Expected options.egress to be an Egress");
    }
    this.#options = options;
  }

  /** The egress results leave through. */
  get egress(): Egress {
    return this.#options.egress;
  }

  /** The policy's decision on `command`, with `ask` answered by `onAsk`. */
  async judge(command: string, contained = false): Promise<Judgement> {
    const policy = this.#options.policy;
    if (!policy) return { decision: "none" };
    let decision: string;
    let reason: string;
    try {
      const verdict = contained
        ? policy.check(command, { contained })
        : policy.check(command);
      if (
        verdict === null || typeof verdict !== "object" ||
        !["allow", "ask", "deny"].includes(verdict.decision)
      ) {
        throw new TypeError(
          `Expected a decision of "allow", "ask" or "deny", got ${
            cutText(String(JSON.stringify(verdict)), 200)
          }`,
        );
      }
      decision = verdict.decision;
      reason = String(verdict.reason ?? "");
    } catch (error) {
      return {
        decision: "deny",
        reason: `the policy failed: ${messageOf(error)}`,
      };
    }
    if (decision !== "ask") return { decision, reason };
    try {
      const yes = this.#options.onAsk
        ? await this.#options.onAsk(command, reason)
        : false;
      return {
        decision: yes === true ? "ask:approved" : "ask:refused",
        reason,
      };
    } catch (error) {
      // (An approver that has no one to ask says so in its own words: an
      // error named ApprovalUnavailableError.)
      const unavailable = (error as Error | undefined)?.name ===
        "ApprovalUnavailableError";
      return {
        decision: "ask:failed",
        reason: unavailable
          ? `${reason}; ${messageOf(error)}`
          : `${reason}; the approval callback failed: ${messageOf(error)}`,
      };
    }
  }

  /** Runs one call through the whole pipeline; never throws. */
  async call(call: ToolCall): Promise<ToolResultBlock> {
    const egress = this.#options.egress;
    const sources = [call.command, ...(call.sources ?? [])];
    const started = performance.now();
    const judgement: Judgement = call.preset ??
      (call.judged === undefined
        ? { decision: "none" }
        : await this.judge(call.judged, call.contained === true));
    const reason = judgement.reason === undefined
      ? undefined
      : egress.quoted(judgement.reason, sources, "audit");
    const startError = await this.#write({
      event: "start",
      ...this.#common(call, judgement.decision),
      ...(reason !== undefined ? { reason } : {}),
      ...call.fields,
    } as AuditRecord);
    if (startError !== null) {
      return this.#block(
        call.id,
        egress.quoted(
          `Error: The command was not run: the audit sink failed: ${startError}`,
          sources,
          "tool_result",
        ),
        true,
      );
    }
    let executed: Executed;
    if (!allowed(judgement.decision)) {
      executed = {
        content: call.refusal(reason || "not allowed"),
        isError: true,
      };
    } else {
      try {
        executed = await call.execute();
      } catch (error) {
        executed = {
          content: egress.quoted(call.failure(error), sources, "error_echo"),
          isError: true,
        };
      }
    }
    const block = this.#block(
      call.id,
      egress.text(executed.content, "tool_result"),
      executed.isError === true,
    );
    const endError = await this.#write({
      event: "end",
      ...this.#common(call, judgement.decision),
      exitCode: executed.ending?.exitCode ?? null,
      timedOut: executed.ending?.timedOut ?? false,
      restarted: executed.ending?.restarted ?? false,
      durationMs: Math.round(performance.now() - started),
      outputBytes: executed.outputBytes ?? 0,
      // Cut after redaction: the preview shows no part of a secret.
      preview: cutText(block.content, PREVIEW_CHARS),
      isError: block.is_error === true,
      ...call.fields,
      ...executed.fields,
    } as AuditRecord);
    if (endError === null) return block;
    return {
      ...block,
      content:
        `${block.content}\n[The audit record of this call could not be written: ${
          egress.quoted(endError, sources, "tool_result")
        }]`,
      is_error: true,
    };
  }

  #block(id: string, content: string, isError: boolean): ToolResultBlock {
    const block: ToolResultBlock = {
      type: "tool_result",
      tool_use_id: id,
      content,
    };
    if (isError) block.is_error = true;
    return block;
  }

  #common(call: ToolCall, decision: string): {
    time: string;
    sessionId: string;
    toolUseId: string;
    command: string;
    decision: string;
  } {
    return {
      time: new Date().toISOString(),
      sessionId: this.#options.sessionId,
      toolUseId: call.id,
      command: this.#options.egress.text(call.command, "audit"),
      decision,
    };
  }

  /** Writes an audit record; returns the error message when the sink failed. */
  async #write(record: AuditRecord): Promise<string | null> {
    const audit = this.#options.audit;
    if (!audit) return null;
    try {
      await audit.write(record);
      return null;
    } catch (error) {
      return messageOf(error);
    }
  }
}

/** A `tool_use` block of an assistant message, as {@linkcode toolUsesOf} finds it. */
export interface ToolUseBlock {
  /** The `tool_use` id (as text). */
  id: string;
  /** The tool's name (as text). */
  name: string;
  /** The input the model sent. */
  input: unknown;
}

/**
 * The `tool_use` blocks of an assistant message, in order. Throws a
 * `TypeError` for anything but an object with a `content` array.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolUsesOf } from "./pipeline.ts";
 *
 * const uses = toolUsesOf({ content: [{ type: "text", text: "hi" }, { type: "tool_use", id: "a", name: "bash", input: {} }] });
 * assert.deepEqual(uses, [{ id: "a", name: "bash", input: {} }]);
 * ```
 */
export function toolUsesOf(
  message: { content: readonly unknown[] },
): ToolUseBlock[] {
  if (
    message === null || typeof message !== "object" ||
    !Array.isArray(message.content)
  ) {
    throw new TypeError(
      `Expected an assistant message with a content array, got ${
        cutText(describeValue(message), 200)
      }`,
    );
  }
  const uses: ToolUseBlock[] = [];
  for (const block of message.content) {
    const b = block as {
      type?: unknown;
      id?: unknown;
      name?: unknown;
      input?: unknown;
    };
    if (b?.type !== "tool_use") continue;
    uses.push({ id: String(b.id), name: String(b.name), input: b.input });
  }
  return uses;
}
