/**
 * The tool definitions bashbox answers: Anthropic's schema-less bash tool and
 * the process tools (client tools with a JSON schema each). Data only, shared
 * by the tool handlers, the Anthropic adapter and the MCP server.
 *
 * @module
 */

/**
 * The tool definition to send in `tools`: Anthropic's schema-less bash tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BASH_TOOL } from "../mod.ts";
 *
 * assert.ok(BASH_TOOL.type === "bash_20250124" && BASH_TOOL.name === "bash");
 * ```
 */
export const BASH_TOOL: {
  readonly type: "bash_20250124";
  readonly name: "bash";
} = {
  type: "bash_20250124",
  name: "bash",
};

/** A client tool definition: name, description and JSON schema of its input. */
export interface ClientToolDefinition {
  /** The tool name the model calls. */
  readonly name: string;
  /** What the tool does and its limits, written for the model. */
  readonly description: string;
  /** JSON schema of the (flat) input object. */
  readonly input_schema: {
    readonly type: "object";
    readonly properties: Readonly<Record<string, unknown>>;
    readonly required?: readonly string[];
  };
}

/**
 * Client tools for background and terminal processes, to send in `tools`
 * next to {@linkcode BASH_TOOL}; {@linkcode BashTool.handle} answers them.
 * Inputs are flat objects; every limit is in the descriptions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PROCESS_TOOLS } from "./definitions.ts";
 *
 * assert.deepEqual(PROCESS_TOOLS.map((t) => t.name), [
 *   "process_start", "process_read", "process_write", "process_stop", "process_list",
 * ]);
 * ```
 */
export const PROCESS_TOOLS: readonly ClientToolDefinition[] = [
  {
    name: "process_start",
    description:
      "Start a long-running command in the background (a dev server, a watcher, a REPL) from the bash session's current directory, variables and functions, and return its first output. Use this instead of `bash` with `&` for anything you want to read, type into or stop later (a job started with `&` in bash has no job control: it ignores SIGINT, so `kill -INT` leaves it running; stop it with `kill`, which sends SIGTERM). Set tty to true for programs that need a terminal (python3 or node REPLs, top, vim, password prompts); their output comes without escape codes and process_read can return the screen. Waits up to wait_ms (default 1000, at most 30000) or until the output matches the regular expression `until`. Output shown is at most the last 30000 characters of what is new; the full log is kept in a file whose path the result names. The process keeps running until it ends, process_stop, or the bash session restarts. Programs without a terminal often buffer their output: use `python3 -u`, `stdbuf -oL` or tty.",
    input_schema: {
      type: "object",
      properties: {
        command: {
          type: "string",
          description: "The bash command to run in the background.",
        },
        tty: {
          type: "boolean",
          description:
            "Give the process a pseudo-terminal (80x24). Default false.",
        },
        wait_ms: {
          type: "integer",
          description:
            "Milliseconds to wait for first output (0 to 30000, default 1000).",
        },
        until: {
          type: "string",
          description:
            'Return as soon as the output matches this JavaScript regular expression (e.g. "Listening on").',
        },
      },
      required: ["command"],
    },
  },
  {
    name: "process_read",
    description:
      "Read the new output of a background process since the last read. Waits up to wait_ms (default 1000, at most 30000) for output, or until the new output matches the regular expression `until`, or until the process ends. Shows at most the last 30000 characters of the new output (the rest is in the log file the result names). With screen true, returns a terminal process's current screen as plain text instead.",
    input_schema: {
      type: "object",
      properties: {
        id: {
          type: "string",
          description: "The process id (p1, p2, ...) from process_start.",
        },
        wait_ms: {
          type: "integer",
          description:
            "Milliseconds to wait for output (0 to 30000, default 1000).",
        },
        until: {
          type: "string",
          description:
            "Return as soon as the new output matches this JavaScript regular expression.",
        },
        screen: {
          type: "boolean",
          description:
            "Return the terminal's current screen (tty processes only). Default false.",
        },
      },
      required: ["id"],
    },
  },
  {
    name: "process_write",
    description:
      'Send text to a background process\'s input, then return its new output (waits up to wait_ms, default 500, at most 30000, or until `until` matches). In a terminal (tty) process Enter is "\\r", Ctrl-C is "\\u0003", Ctrl-D is "\\u0004", Escape is "\\u001b"; without a terminal end lines with "\\n". At most 65536 characters per call.',
    input_schema: {
      type: "object",
      properties: {
        id: { type: "string", description: "The process id." },
        text: { type: "string", description: "The characters to send." },
        wait_ms: {
          type: "integer",
          description:
            "Milliseconds to wait for output after sending (0 to 30000, default 500).",
        },
        until: {
          type: "string",
          description:
            "Return as soon as the new output matches this JavaScript regular expression.",
        },
      },
      required: ["id", "text"],
    },
  },
  {
    name: "process_stop",
    description:
      "Stop a background process and everything it started: SIGINT, then SIGTERM after 0.5 s, then SIGKILL after 1 s. Returns how it ended and its last output (at most 30000 characters).",
    input_schema: {
      type: "object",
      properties: {
        id: { type: "string", description: "The process id." },
      },
      required: ["id"],
    },
  },
  {
    name: "process_list",
    description:
      "List the background processes of the bash session: id, command, whether it runs or how it ended, for how long, and how much output is unread.",
    input_schema: { type: "object", properties: {} },
  },
];

/** The names of {@linkcode PROCESS_TOOLS}. */
export const PROCESS_TOOL_NAMES: ReadonlySet<string> = new Set(
  PROCESS_TOOLS.map((t) => t.name),
);
