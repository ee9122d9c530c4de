/**
 * bashbox: run the shell commands an AI model asks for, the way Anthropic's
 * `bash_20250124` tool expects, without hangs, lost output or leaked
 * processes.
 *
 * - {@linkcode exec}: one command in its own process group, with a deadline
 *   that kills everything it started and capped head/tail capture.
 * - {@linkcode BashSession}: one persistent bash whose state carries across
 *   calls, framed by an unguessable sentinel that carries the exit code.
 * - {@linkcode SessionPool}: a session per conversation, leased, bounded.
 * - {@linkcode formatResult}, {@linkcode Policy}, {@linkcode BashTool}: what
 *   the model sees, what it may run, and the tool for `@anthropic-ai/sdk`.
 *
 * The parts have their own entry points too (`@bashbox/core/exec`,
 * `/session`, `/pool`, `/format`, `/policy`, `/parse`, `/redact`, `/audit`,
 * `/sandbox`, `/anthropic`, `/cli`). Importing them loads no npm package;
 * the SDK is loaded only by what needs it. The MCP server is its own entry
 * point, `@bashbox/core/mcp`, never loaded by this one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BashSession, exec } from "./mod.ts";
 *
 * const once = await exec("uname -s");
 * assert.equal(once.exitCode, 0);
 *
 * await using session = new BashSession();
 * await session.run("cd /tmp");
 * assert.equal((await session.run("pwd")).output.text, "/tmp\n");
 * ```
 *
 * @module
 */

export type { Capture } from "./core/_capture.ts";
export { SpawnError } from "./runtime/_runtime.ts";
export { onHostSignal } from "./runtime/host.ts";
export {
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_TIMEOUT_MS,
  exec,
  type ExecOptions,
  type ExecResult,
  OutputCallbackError,
} from "./core/exec.ts";
export {
  type BackgroundProcess,
  type ProcessOutput,
  type ProcessStatus,
  type ReadOptions,
  type SpawnProcessOptions,
  type StopOptions,
} from "./core/processes.ts";
export {
  BashSession,
  type BashSessionOptions,
  type RestoredState,
  type RunOptions,
  type SessionResult,
  type StateJournal,
  type Transport,
} from "./core/session.ts";
export {
  AgentError,
  type AgentEvent,
  type AgentRun,
  type AssistantBlock,
  BASH_TOOL,
  BashTool,
  type BashToolOptions,
  type ClientToolDefinition,
  type CommandPolicy,
  type ConversationMessage,
  type HandleOptions,
  type MessagesClient,
  type PolicyDecision,
  PROCESS_TOOLS,
  runAgent,
  type RunAgentOptions,
  type RunnableBash,
  runnableBashTool,
  type RunnableClientTool,
  runnableProcessTools,
  type ToolUseLike,
} from "./anthropic/mod.ts";
export {
  type AuditEnd,
  type AuditRecord,
  type AuditSink,
  type AuditStart,
  type JsonlAudit,
  jsonlAudit,
  memoryAudit,
} from "./egress/audit.ts";
export {
  type CaptureLike,
  DEFAULT_MAX_CHARS,
  describeRestored,
  describeStatus,
  errorToolResult,
  type FormatOptions,
  formatResult,
  type FormattableResult,
  looksBinary,
  needsSpill,
  type RestoredLike,
  sanitize,
  type ToolResultBlock,
} from "./egress/format.ts";
export {
  BENIGN_EXIT_CODES,
  isErrorResult,
  lastProgram,
  type ToolResultOptions,
  toToolResult,
} from "./tools/result.ts";
export {
  type Assignment,
  type Command,
  literal,
  parse,
  ParseError,
  type ParseLimits,
  type Redirect,
  type Script,
  type Statement,
  type Word,
  type WordPart,
} from "./shell/parse.ts";
export {
  awkProgramProblem,
  type CheckOptions,
  type Decision,
  type Limits,
  limitsScript,
  Policy,
  type PolicyOptions,
  type PolicyResult,
  sedScriptProblem,
} from "./policy/mod.ts";
export {
  type RedactOptions,
  redactor,
  redactSecrets,
} from "./egress/redact.ts";
export {
  bwrapArgv,
  bwrapChildPid,
  type BwrapSandbox,
  type Sandbox,
  sandboxLauncher,
  seccompFilter,
  unixSocketsBlocked,
} from "./core/sandbox.ts";
export { checkContainment } from "./policy/contain.ts";
export {
  type ContainableOptions,
  type Containment,
  containmentSandbox,
  type ContainmentStatus,
  type ContainMode,
  containSession,
  describeContainment,
  sandboxUnavailable,
  sessionContainment,
} from "./core/containment.ts";
export {
  type SessionLease,
  SessionPool,
  type SessionPoolOptions,
} from "./core/pool.ts";
export {
  answerToolUses,
  type EditorPolicy,
  EditorTool,
  type EditorToolDefinition,
  type EditorToolOptions,
  type RunnableEditor,
  runnableEditorTool,
  TEXT_EDITOR_TOOL,
  type ToolUseHandler,
} from "./tools/editor.ts";
