/**
 * The provider-neutral shapes every tool shares: a policy's decision, the
 * policy itself, a tool call as it arrives.
 *
 * @module
 */

import type { Containment } from "../core/containment.ts";

/** A policy decision on one command. */
export interface PolicyDecision {
  /** What to do with the command. */
  decision: "allow" | "ask" | "deny";
  /** Why, in words a person (and the model) can read. */
  reason: string;
}

/** Anything that can judge a command (the `Policy` of `policy.ts` fits). */
export interface CommandPolicy {
  /**
   * Judges one command; `contained` says the session keeps the policy's
   * promise (see `promise`), so what cannot be proven may run.
   */
  check(command: string, options?: { contained?: boolean }): PolicyDecision;
  /**
   * What the policy promises about effects: paths commands may write and
   * whether they may reach the network. A tool with such a policy contains
   * the session it creates. Absent or null: no promise.
   */
  readonly promise?: Containment | null;
}

/** A policy as the editor uses it: `check()`, and `readOnlyPreset` when known. */
export interface EditorPolicy extends CommandPolicy {
  /** True for `Policy.readOnly()`: every write is refused. */
  readonly readOnlyPreset?: boolean;
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
