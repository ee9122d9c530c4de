/**
 * The client side of Anthropic's `bash_20250124` tool: {@linkcode BashTool}
 * turns `tool_use` blocks into `tool_result` blocks through a persistent
 * `BashSession`, with an optional policy, redaction, audit trail and spill
 * files; {@linkcode runnableBashTool} plugs it into the official SDK's tool
 * runner; {@linkcode runAgent} is a small loop for everyone else.
 *
 * @module
 */

export type {
  Containment,
  ContainmentStatus,
  ContainMode,
} from "../core/containment.ts";
export {
  AgentError,
  type AgentEvent,
  type AgentRun,
  type AssistantBlock,
  type ConversationMessage,
  type MessagesClient,
  runAgent,
  type RunAgentOptions,
} from "./agent.ts";
export {
  type RunnableBash,
  runnableBashTool,
  type RunnableClientTool,
  runnableProcessTools,
} from "./runnable.ts";
export {
  BashTool,
  type BashToolOptions,
  type HandleOptions,
} from "../tools/bash.ts";
export {
  BASH_TOOL,
  type ClientToolDefinition,
  PROCESS_TOOLS,
} from "../tools/definitions.ts";

// The types this entry point's API names, for readers of `./anthropic` alone.
export type * from "../core/_session_types.ts";
export type {
  EditorPolicy,
  EditorTool,
  EditorToolDefinition,
  EditorToolOptions,
} from "../tools/editor.ts";
export type { ToolResultBlock } from "../egress/format.ts";
export type {
  CommandPolicy,
  PolicyDecision,
  ToolUseLike,
} from "../tools/types.ts";
export type {
  AuditEnd,
  AuditRecord,
  AuditSink,
  AuditStart,
} from "../egress/audit.ts";
