/**
 * The bashbox command line: `run`, `repl`, `agent`, `demo` and `mcp`.
 *
 * ```sh
 * deno run --allow-run=bash --allow-read --allow-write --allow-env --allow-net cli.ts demo
 * ```
 *
 * The `@anthropic-ai/sdk` package is loaded only by `agent` and `demo`, the
 * MCP server package only by `mcp`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { main } from "./main.ts";
 *
 * let out = "";
 * const code = await main(["run", "echo", "hi"], { out: (t) => out += t, err: () => {} });
 * assert.equal(code, 0);
 * assert.equal(out, "Exit code 0\nhi\n");
 * ```
 *
 * @module
 */

import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { loadPolicy, UsageError } from "./_policy.ts";
import {
  type ContainMode,
  containSession,
  describeContainment,
} from "../core/containment.ts";
import type { ScriptedTurn } from "../anthropic/fake_api.ts";
import {
  type AgentEvent,
  BashTool,
  type MessagesClient,
  runAgent,
} from "../anthropic/mod.ts";
import { type AuditSink, jsonlAudit } from "../egress/audit.ts";
import { EditorTool } from "../tools/editor.ts";
import {
  describeRestored,
  describeStatus,
  type ToolResultBlock,
} from "../egress/format.ts";
import { Policy } from "../policy/mod.ts";
import { redactor } from "../egress/redact.ts";
import { Egress, messageOf } from "../egress/egress.ts";
import { ToolPipeline } from "../tools/pipeline.ts";
import { type Hosted, hostOnTerminal } from "./_host_terminal.ts";
import { ScreenGuard } from "./_screen_guard.ts";
import {
  type TerminalProgram,
  terminalProgram,
  terminalRefusal,
} from "./_terminal_programs.ts";
import {
  exitHost,
  hostArgs,
  hostEnvObject,
  importNpm,
  stdinStream,
  stdinTerminal,
  stdoutIsTerminal,
  writeHost,
} from "../runtime/host.ts";
import {
  BashSession,
  type BashSessionOptions,
  type RunOptions,
  type SessionResult,
} from "../core/session.ts";

export type { ToolResultBlock } from "../egress/format.ts";
export type { AgentEvent, ScriptedTurn };

/**
 * The version `--version` prints (the package's).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VERSION } from "./main.ts";
 *
 * assert.match(VERSION, /^\d+\.\d+\.\d+/);
 * ```
 */
export const VERSION = "0.1.0";

/**
 * Default model of `agent` and of `demo --api`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MODEL } from "./main.ts";
 *
 * assert.equal(typeof DEFAULT_MODEL, "string");
 * ```
 */
export const DEFAULT_MODEL = "claude-sonnet-4-5";

/** A terminal on standard input: raw key bytes for line editing and Ctrl-C. */
export interface CliTerminal {
  /** Raw mode on or off (in raw mode Ctrl-C arrives as the byte 3). */
  setRaw(on: boolean): void;
  /** The next bytes typed, or null at the end of input. */
  read(): Promise<Uint8Array | null>;
  /**
   * The terminal's size, for a full-screen program `repl` hosts (80 × 24
   * when absent or null).
   */
  size?(): { cols: number; rows: number } | null;
  /** Calls `listener` at each resize; returns the function that stops it. */
  onResize?(listener: () => void): () => void;
}

/** Where the CLI writes and what it reads. */
export interface CliIo {
  /** Writes to standard output. */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
  /** Lines of standard input when it is not a terminal (for `repl`). */
  lines?: AsyncIterable<string>;
  /** Standard input when it is a terminal: `repl` edits lines, `agent` asks. */
  terminal?: CliTerminal;
  /**
   * The environment: `ANTHROPIC_API_KEY`, `USER` and the values that
   * redaction hides.
   *
   * @default {{}}
   */
  env?: Record<string, string | undefined>;
  /**
   * How the user invoked the program, for messages.
   *
   * @default {"bashbox"}
   */
  name?: string;
  /**
   * Colour the output (a terminal, `NO_COLOR` unset).
   *
   * @default {false}
   */
  color?: boolean;
}

function help(name: string): string {
  return `${name} ${VERSION}: run the shell commands a model asks for (Anthropic bash_20250124 tool)

Usage:
  ${name} run [options] [--] <command...>
      run one command in a fresh session and print the tool_result the model
      would get; several words are joined with spaces, as ssh does
      (run ls -la, run -- ls -la, run 'a | b')
  ${name} repl [options]
      one persistent bash showing what the model would see; on a terminal:
      line editing and history, Ctrl-C stops the running command,
      Ctrl-D or "exit" at the prompt leaves; a full-screen or interactive
      program (vim, less, top, tmux, ssh host, python3, ...) runs on your
      terminal until it exits (piped input: such a line is refused)
  ${name} agent [options] <task...>
      run a model on the task (needs ANTHROPIC_API_KEY) with the bash and
      text editor tools, both through one shell; policy readonly unless
      --allow-all or --policy; commands the policy asks about are put to
      you on a terminal (y/n/always) and refused otherwise
  ${name} demo [--api]
      end-to-end demo, offline: a loopback fake of the Messages API drives
      the real SDK client, real bash and the editor (an edit, then a test
      run); --api uses the real API instead
  ${name} mcp [--http] [options]
      bashbox's bash as an MCP server, over stdio or Streamable HTTP;
      "${name} mcp --help" lists its options

Options:
  --timeout <ms>      deadline per command (default 120000)
  --cwd <dir>         working directory of the session
  --policy <p>        readonly, allow-all, or a JSON file {allow, ask, deny,
                      default, contain}
  --contain <mode>    auto (default): with a policy that promises (readonly,
                      or "contain" in a file) the shell runs in bubblewrap so
                      the kernel keeps the promise, or says at start that it
                      could not; required: fail without; off: never
  --audit <file>      append an audit trail (JSON Lines) to file
  --spill-dir <dir>   where output cut for the model is kept in full
                      (default $TMPDIR/bashbox-spill-$USER; files stay after exit)
  --json              run: print the tool_result block as JSON
  --model <name>      agent, demo --api: the model (default ${DEFAULT_MODEL})
  --max-turns <n>     agent: most model calls (default 20)
  --allow-all         agent: no policy (default: readonly)
  --api               demo: use the real API (needs ANTHROPIC_API_KEY)
  --version           print the version
  -h, --help          this text

Exit codes: 0 success; 1 the command or the run failed; 2 bad usage.
`;
}

const VALUE_OPTIONS = [
  "timeout",
  "cwd",
  "policy",
  "contain",
  "audit",
  "spill-dir",
  "model",
  "max-turns",
] as const;
const FLAG_OPTIONS = ["json", "api", "allow-all", "help", "version"] as const;
type ValueOption = typeof VALUE_OPTIONS[number];
type FlagOption = typeof FLAG_OPTIONS[number];

const COMMON: readonly string[] = [
  "timeout",
  "cwd",
  "policy",
  "contain",
  "audit",
  "spill-dir",
  "help",
  "version",
];
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  run: [...COMMON, "json"],
  repl: COMMON,
  agent: [...COMMON, "model", "max-turns", "allow-all"],
  demo: [...COMMON, "model", "api"],
};

interface Parsed {
  command?: string;
  values: Partial<Record<ValueOption, string>>;
  flags: Partial<Record<FlagOption, boolean>>;
  rest: string[];
}

/**
 * Options go before or after the subcommand; for `run` and `agent` the first
 * word that is not one of their options (or everything after `--`) starts
 * the command or task.
 */
function parseArgs(args: readonly string[], parsed: Parsed): Parsed {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--" && parsed.command !== undefined) {
      parsed.rest.push(...args.slice(i + 1));
      break;
    }
    if (arg === "-h") {
      parsed.flags.help = true;
      continue;
    }
    if (!arg.startsWith("--") || arg === "--") {
      if (parsed.command === undefined && arg !== "--") {
        parsed.command = arg;
        continue;
      }
      if (arg.startsWith("-") && arg !== "-" && arg !== "--") {
        throw new UsageError(
          `Unknown option "${arg}"${
            parsed.command === "run" ? ' (put the command after "--")' : ""
          }`,
        );
      }
      if (parsed.command === "run" || parsed.command === "agent") {
        parsed.rest.push(...args.slice(i));
        break;
      }
      parsed.rest.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if ((FLAG_OPTIONS as readonly string[]).includes(name)) {
      if (eq !== -1) {
        throw new UsageError(`Option "--${name}" takes no value, got "${arg}"`);
      }
      parsed.flags[name as FlagOption] = true;
    } else if ((VALUE_OPTIONS as readonly string[]).includes(name)) {
      let value: string | undefined;
      if (eq !== -1) value = arg.slice(eq + 1);
      else if (i + 1 < args.length) value = args[++i];
      if (value === undefined) {
        throw new UsageError(`Expected a value after "--${name}", got none`);
      }
      parsed.values[name as ValueOption] = value;
    } else {
      throw new UsageError(`Unknown option "--${name}"`);
    }
  }
  if (parsed.command !== undefined && ALLOWED[parsed.command]) {
    const allowed = ALLOWED[parsed.command];
    const given = [
      ...Object.keys(parsed.values),
      ...Object.keys(parsed.flags),
    ];
    for (const option of given) {
      if (!allowed.includes(option)) {
        throw new UsageError(
          `Option "--${option}" does not apply to "${parsed.command}"`,
        );
      }
    }
  }
  return parsed;
}

function positiveInt(
  name: string,
  value: string | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) {
    throw new UsageError(
      `Expected --${name} to be a positive whole number, got "${value}"`,
    );
  }
  return n;
}

function existingDirectory(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new UsageError(
      `Expected --cwd to be an existing directory, got "${dir}" (no such directory)`,
    );
  }
  if (!isDir) {
    throw new UsageError(
      `Expected --cwd to be a directory, got "${dir}" (not a directory)`,
    );
  }
  return dir;
}

/**
 * Runs the CLI with `args` (without the program name) and returns the exit
 * code. Never throws: errors go to `io.err`, named after `io.name` and the
 * subcommand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { main } from "./main.ts";
 *
 * let out = "";
 * let err = "";
 * const io = { out: (t: string) => out += t, err: (t: string) => err += t };
 * assert.equal(await main(["run", "ls", "-d", "/"], io), 0);
 * assert.equal(out, "Exit code 0\n/\n");
 * assert.equal(await main(["run", "--cwd", "/no/such/dir", "true"], io), 2);
 * assert.match(err, /bashbox run: Expected --cwd to be an existing directory/);
 * ```
 */
export async function main(args: string[], io: CliIo): Promise<number> {
  const name = io.name ?? "bashbox";
  if (args[0] === "mcp") {
    // The MCP package is loaded only for this subcommand.
    const { mcpMain } = await import("./_mcp.ts");
    return await mcpMain(args.slice(1), io);
  }
  const parsed: Parsed = { values: {}, flags: {}, rest: [] };
  try {
    parseArgs(args, parsed);
    const { command, values, flags, rest } = parsed;
    if (flags.help || command === "help") {
      io.out(help(name));
      return 0;
    }
    if (flags.version) {
      io.out(`bashbox ${VERSION}\n`);
      return 0;
    }
    if (command !== undefined && !ALLOWED[command]) {
      throw new UsageError(
        `Unknown command "${command}": expected run, repl, agent, demo or mcp`,
      );
    }
    if (command === undefined) {
      throw new UsageError("Expected a command: run, repl, agent, demo or mcp");
    }
    if ((command === "repl" || command === "demo") && rest.length > 0) {
      throw new UsageError(
        `Expected no arguments after "${command}", got ${
          JSON.stringify(rest.join(" "))
        }`,
      );
    }
    if (values.policy !== undefined && flags["allow-all"]) {
      throw new UsageError("Expected --policy or --allow-all, got both");
    }
    const env = io.env ?? {};
    const common: CommonOptions = {
      timeoutMs: positiveInt("timeout", values.timeout),
      cwd: existingDirectory(values.cwd),
      audit: values.audit,
      policy: values.policy === undefined
        ? undefined
        : loadPolicy(values.policy),
      contain: containMode(values.contain),
      spillDir: values["spill-dir"] ??
        join(tmpdir(), `bashbox-spill-${safeName(env.USER ?? env.LOGNAME)}`),
      env,
    };
    switch (command) {
      case "run": {
        if (rest.length === 0) {
          throw new UsageError('Expected a command after "run", got none');
        }
        return await runOnce(
          rest.join(" "),
          { ...common, json: flags.json ?? false },
          io,
        );
      }
      case "repl":
        return await repl(common, io);
      case "demo": {
        const key = env.ANTHROPIC_API_KEY;
        if (flags.api && !key) {
          throw new UsageError(
            "--api needs ANTHROPIC_API_KEY in the environment",
          );
        }
        return await demo(
          {
            ...common,
            model: values.model,
            apiKey: flags.api ? key : undefined,
          },
          io,
        );
      }
      case "agent": {
        if (rest.length === 0) {
          throw new UsageError('Expected a task after "agent", got none');
        }
        const key = env.ANTHROPIC_API_KEY;
        if (!key) {
          throw new UsageError(
            "agent needs ANTHROPIC_API_KEY in the environment (no request was made)",
          );
        }
        const maxTurns = positiveInt("max-turns", values["max-turns"]);
        const policy = flags["allow-all"]
          ? undefined
          : common.policy ?? Policy.readOnly();
        const keys = io.terminal ? new Keys(io.terminal) : undefined;
        const ask = askOn(io, keys);
        const tool = makeTool({ ...common, policy }, ask);
        sayContainment(io, tool, common.env);
        const editor = makeEditor(tool, { ...common, policy }, ask);
        try {
          const client = await anthropicClient({
            apiKey: key,
            ...(env.ANTHROPIC_BASE_URL
              ? { baseURL: env.ANTHROPIC_BASE_URL }
              : {}),
          });
          const run = await runAgent({
            client,
            model: values.model ?? DEFAULT_MODEL,
            prompt: rest.join(" "),
            tool,
            editor,
            maxTurns,
            onEvent: (e) =>
              io.out(
                describeEvent(e, {
                  color: io.color,
                  redact: redactor(env),
                }),
              ),
          });
          return run.stopReason === "end_turn" ? 0 : 1;
        } finally {
          await editor.close();
          await tool.close();
        }
      }
    }
    return 2;
  } catch (error) {
    const where = parsed.command && ALLOWED[parsed.command]
      ? `${name} ${parsed.command}`
      : name;
    if (error instanceof UsageError) {
      io.err(
        `${where}: ${error.message}\nRun "${name} --help" for usage.\n`,
      );
      return 2;
    }
    io.err(`${where}: ${(error as Error).message}\n`);
    return 1;
  }
}

function safeName(user: string | undefined): string {
  const clean = (user ?? "").replace(/[^A-Za-z0-9._-]/g, "");
  return clean === "" ? "user" : clean;
}

interface CommonOptions {
  timeoutMs?: number;
  cwd?: string;
  audit?: string;
  policy?: Policy;
  contain?: ContainMode;
  spillDir: string;
  env: Record<string, string | undefined>;
}

/**
 * The text editor tool beside a bash tool: it works through the same session,
 * so its edits land where bash runs, under the same policy, audit and redaction.
 */
function makeEditor(
  tool: BashTool,
  options: CommonOptions,
  onAsk?: (command: string, reason: string) => Promise<boolean>,
): EditorTool {
  return new EditorTool({
    session: tool.session,
    sessionId: tool.sessionId,
    timeoutMs: options.timeoutMs,
    policy: options.policy,
    onAsk,
    audit: options.audit ? jsonlAudit(options.audit) : undefined,
    redact: redactor(options.env),
  });
}

function makeTool(
  options: CommonOptions,
  onAsk?: (command: string, reason: string) => Promise<boolean>,
  on: { session?: BashSession; audit?: AuditSink } = {},
): BashTool {
  const session = on.session;
  return new BashTool({
    ...(session ? { session } : {
      sessionOptions: { cwd: options.cwd, timeoutMs: options.timeoutMs },
    }),
    timeoutMs: options.timeoutMs,
    audit: on.audit ?? (options.audit ? jsonlAudit(options.audit) : undefined),
    policy: options.policy,
    contain: options.contain,
    onAsk,
    redact: redactor(options.env),
    spillDir: options.spillDir,
  });
}

/** The `--contain` mode: auto (default), required or off. */
function containMode(value: string | undefined): ContainMode | undefined {
  if (value === undefined) return undefined;
  if (value === "auto" || value === "required") return value;
  if (value === "off") return false;
  throw new UsageError(
    `Expected --contain to be auto, required or off, got "${value}"`,
  );
}

/** Says on stderr whether the shell keeps the policy's promise (nothing without one). */
function sayContainment(
  io: CliIo,
  tool: BashTool,
  env: Record<string, string | undefined>,
): void {
  const status = tool.containment;
  if (status === null) return;
  io.err(
    new Egress(redactor(env)).text(
      `${io.name ?? "bashbox"}: the shell is ${describeContainment(status)}\n`,
      "cli_transcript",
    ),
  );
}

/** Loads the SDK on first use: only `agent` and `demo` need it. */
async function anthropicClient(
  options: { apiKey: string; baseURL?: string; maxRetries?: number },
): Promise<MessagesClient> {
  const sdk = await importNpm<
    { default: new (o: Record<string, unknown>) => MessagesClient }
  >(() => import("@anthropic-ai/sdk"), {
    specifier: "npm:@anthropic-ai/sdk@1.15.0",
    name: "@anthropic-ai/sdk",
    whatFor: "This",
  });
  return new sdk.default(options);
}

/** Answers `ask` decisions on a terminal (y/n/always); none without one. */
function askOn(
  io: CliIo,
  keys: Keys | undefined,
): ((command: string, reason: string) => Promise<boolean>) | undefined {
  if (!keys) return undefined;
  const always = new Set<string>();
  return async (command, reason) => {
    if (always.has(command)) return true;
    for (;;) {
      io.err(
        `\n${
          paint(io.color, "1", "Allow this command?")
        } ${command}\n(${reason})\n`,
      );
      const answer = await keys.raw(() =>
        readLine(keys, "[y/n/always] ", rawWriter(io.err), [])
      );
      const a = (answer ?? "n").trim().toLowerCase();
      if (a === "y" || a === "yes") return true;
      if (a === "n" || a === "no" || answer === null) return false;
      if (a === "a" || a === "always") {
        always.add(command);
        return true;
      }
    }
  };
}

async function runOnce(
  command: string,
  options: CommonOptions & { json: boolean },
  io: CliIo,
): Promise<number> {
  // try/finally rather than `await using`: transpiled for Node 20 it must parse.
  const tool = makeTool(options);
  try {
    sayContainment(io, tool, options.env);
    const block = await tool.handle({
      id: "toolu_cli",
      name: "bash",
      input: { command },
    });
    io.out(
      options.json ? JSON.stringify(block, null, 2) + "\n" : `${block.content}`,
    );
    if (!options.json && !String(block.content).endsWith("\n")) io.out("\n");
    return block.is_error ? 1 : 0;
  } finally {
    await tool.close();
  }
}

/**
 * A session whose commands the REPL can stream and interrupt: the tool runs
 * commands through it, so the policy, audit, redaction and spill files apply.
 */
class ReplSession extends BashSession {
  controller: AbortController | null = null;
  onOutput: ((chunk: Uint8Array) => void) | null = null;
  last: SessionResult | null = null;

  constructor(options: BashSessionOptions) {
    super(options);
  }

  override async run(
    command: string,
    options: RunOptions = {},
  ): Promise<SessionResult> {
    const stream = this.onOutput;
    const inner = options.onOutput;
    const result = await super.run(command, {
      ...options,
      signal: this.controller?.signal ?? options.signal,
      onOutput: stream
        ? (chunk, which) => {
          inner?.(chunk, which);
          stream(chunk);
        }
        : inner,
    });
    this.last = result;
    return result;
  }
}

const LEAVE = /^\s*exit\s*(\d+)?\s*$/;

async function repl(options: CommonOptions, io: CliIo): Promise<number> {
  if (!io.lines && !io.terminal) {
    throw new Error("repl needs standard input");
  }
  // try/finally rather than `await using`: transpiled for Node 20 it must
  // parse. The tool goes first, then the session, as `await using` would.
  const session = new ReplSession(
    containSession(options.policy?.promise ?? null, {
      cwd: options.cwd,
      timeoutMs: options.timeoutMs,
    }, options.contain).options,
  );
  // One audit sink for the shell's commands and the lines hosted on the
  // terminal.
  const audit = options.audit ? jsonlAudit(options.audit) : undefined;
  try {
    const keys = io.terminal ? new Keys(io.terminal) : undefined;
    const onAsk = askOn(io, keys);
    const tool = makeTool(options, onAsk, { session, audit });
    sayContainment(io, tool, options.env);
    // Lines that need the terminal go through the same policy, approval,
    // audit and egress as the tool's commands, but not to the shell.
    const pipeline = new ToolPipeline({
      policy: options.policy,
      onAsk,
      audit,
      egress: new Egress(redactor(options.env)),
      sessionId: tool.sessionId,
    });
    try {
      return await replLoop(io, { options, session, tool, keys, pipeline });
    } finally {
      await tool.close();
    }
  } finally {
    await session.close();
    audit?.close();
  }
}

/**
 * A line that needs the terminal (see `_terminal_programs.ts`), judged by the
 * policy first: with `host`, run by it on the person's terminal; without,
 * refused with why and what to do. The block is what the model would get (a
 * refusal, or the status); `hosted` is null when it did not run.
 */
async function terminalLine(
  line: string,
  found: TerminalProgram,
  on: {
    id: string;
    pipeline: ToolPipeline;
    tool: BashTool;
    name: string;
    host?: () => Promise<Hosted>;
  },
): Promise<
  { block: ToolResultBlock; hosted: Hosted | null; ran: boolean }
> {
  let hosted: Hosted | null = null;
  let ran = false;
  const containment = on.tool.containment;
  const block = await on.pipeline.call({
    id: on.id,
    command: line,
    judged: line,
    contained: containment?.contained === true,
    fields: containment === null ? {} : { contained: containment.contained },
    refusal: (reason) => `Error: The command was refused by policy: ${reason}`,
    failure: (error) =>
      `Error: ${found.program} could not be started on the terminal: ${
        messageOf(error)
      }${
        containment?.contained
          ? ` (--contain off runs the shell, and such programs, on this host)`
          : ""
      }`,
    execute: async () => {
      ran = true;
      if (!on.host) {
        return {
          content: `Error: ${terminalRefusal(found, on.name)}`,
          isError: true,
        };
      }
      if (containment?.contained) {
        // (The policy judged the line as contained: on this host's terminal
        // it would run outside the sandbox.)
        throw new Error(
          "a contained shell's programs cannot have this host's terminal: they would run outside the sandbox",
        );
      }
      hosted = await on.host();
      const status = describeStatus({
        exitCode: hosted.exitCode,
        signal: hosted.signal,
        timedOut: false,
        aborted: false,
      });
      return {
        content:
          `${status}\n(${found.program} ran on the person's terminal: its screen is not kept)\n`,
        isError: hosted.exitCode !== 0,
        ending: {
          exitCode: hosted.exitCode,
          timedOut: false,
          restarted: false,
        },
      };
    },
  });
  return { block, hosted, ran };
}

/** The REPL's loop, over a session and the tool that runs its commands. */
async function replLoop(
  io: CliIo,
  { options, session, tool, keys, pipeline }: {
    options: CommonOptions;
    session: ReplSession;
    tool: BashTool;
    keys: Keys | undefined;
    pipeline: ToolPipeline;
  },
): Promise<number> {
  let id = 0;
  const handle = (command: string) =>
    tool.handle({ id: `toolu_repl_${++id}`, name: "bash", input: { command } });
  const name = io.name ?? "bashbox";

  if (!io.terminal) {
    io.err(
      'bashbox repl: each line runs in one persistent bash; below it, what the model would see. End of input or "exit" leaves.\n',
    );
    for await (const line of io.lines!) {
      if (line.trim() === "") continue;
      const leave = LEAVE.exec(line);
      if (leave) return Number(leave[1] ?? 0);
      const found = terminalProgram(line);
      const block = found
        ? (await terminalLine(line, found, {
          id: `toolu_repl_${++id}`,
          pipeline,
          tool,
          name,
        })).block
        : await handle(line);
      io.out(String(block.content).replace(/\n?$/, "\n"));
    }
    return 0;
  }

  const input = keys!;
  const out = rawWriter(io.out);
  const history: string[] = [];
  const home = options.env.HOME;
  await session.start();
  io.err(
    'bashbox repl: one persistent bash; after each command, its status as the model would see it.\nCtrl-C stops the running command; Ctrl-D or "exit" leaves.\n',
  );
  let status = "0";
  return await input.raw(async () => {
    for (;;) {
      const cwd = session.cwd ?? "";
      const shown = home && (cwd === home || cwd.startsWith(home + "/"))
        ? "~" + cwd.slice(home.length)
        : cwd;
      const prompt = `${paint(io.color, "34", shown)} ${
        paint(io.color, status === "0" ? "32" : "31", `[${status}]`)
      } $ `;
      const line = await readLine(input, prompt, out, history);
      if (line === null) {
        out("\n");
        return 0;
      }
      if (line.trim() === "") continue;
      if (history.at(-1) !== line) history.push(line);
      const leave = LEAVE.exec(line);
      if (leave) return Number(leave[1] ?? 0);

      const found = terminalProgram(line);
      if (found) {
        // The program gets the terminal: keys, screen and size are its own
        // until it exits; the shell is not touched.
        const terminal = io.terminal!;
        const { block, hosted, ran } = await terminalLine(line, found, {
          id: `toolu_repl_${++id}`,
          pipeline,
          tool,
          name,
          host: () =>
            hostOnTerminal(session, line, {
              terminal: {
                take: (stop) => input.take(stop),
                putBack: (bytes) => input.putBack(bytes),
                write: io.out,
                size: () => terminal.size?.() ?? null,
                onResize: (listener) =>
                  terminal.onResize?.(listener) ?? (() => {}),
              },
              env: options.env,
            }),
        });
        if (hosted === null) {
          out(paint(io.color, "31", String(block.content)) + "\n");
          status = ran ? "error" : "refused";
          continue;
        }
        const h: Hosted = hosted;
        if (!h.atLineStart) io.out("\r\n");
        out(
          paint(
            io.color,
            block.is_error ? "31" : "2",
            describeStatus({ ...h, timedOut: false, aborted: false }),
          ) + "\n",
        );
        status = h.exitCode === null ? (h.signal ?? "killed") : `${h.exitCode}`;
        continue;
      }

      const controller = new AbortController();
      const decoder = new TextDecoder();
      // Output streams as it comes, in colour, but nothing in it takes the
      // screen (see ScreenGuard).
      const guard = new ScreenGuard();
      let streamed = false;
      let endsWithNewline = true;
      session.controller = controller;
      session.onOutput = (chunk) => {
        const text = guard.push(decoder.decode(chunk, { stream: true }));
        if (text === "") return;
        streamed = true;
        endsWithNewline = text.endsWith("\n");
        out(text);
      };
      session.last = null;
      const pending = handle(line);
      let finished = false;
      pending.finally(() => finished = true).catch(() => {});
      // Watch the keyboard while the command runs: Ctrl-C interrupts it;
      // anything else typed waits for the next prompt.
      let seen = input.received;
      while (!finished) {
        const more = await Promise.race([
          input.waitReceived(seen).then(() => true),
          pending.then(() => false, () => false),
        ]);
        if (!more) break;
        if (input.takeInterrupt() && !finished) {
          out("^C");
          controller.abort();
        }
        seen = input.received;
        if (input.ended) break;
      }
      const block = await pending;
      session.controller = null;
      session.onOutput = null;
      // The rest of the output, and the colours it left on reset.
      const rest = guard.push(decoder.decode());
      if (rest !== "") {
        streamed = true;
        endsWithNewline = rest.endsWith("\n");
        out(rest);
      }
      out(guard.flush());
      if (streamed && !endsWithNewline) out("\n");
      const r = session.last as SessionResult | null;
      if (r === null) {
        // Refused before it ran: the model's whole answer.
        out(paint(io.color, "31", String(block.content)) + "\n");
        status = "refused";
        continue;
      }
      const head = describeStatus(r, options.timeoutMs);
      const notes = [head];
      if (r.restored) {
        notes.push(describeRestored(r.restored));
      } else if (r.restarted) {
        notes.push(
          "The shell was restarted: its state (working directory, variables, functions, background jobs) was lost.",
        );
      }
      const spill = / (?:is|are) in (\S+): read (?:it|them)/.exec(
        String(block.content),
      );
      if (spill) notes.push(`Full output kept in ${spill[1]}`);
      out(
        paint(io.color, block.is_error ? "31" : "2", notes.join("\n")) + "\n",
      );
      status = r.exitCode === null ? (r.signal ?? "killed") : `${r.exitCode}`;
    }
  });
}

/** Bytes typed on a terminal, with one read in flight at a time. */
class Keys {
  readonly #terminal: CliTerminal;
  #bytes: number[] = [];
  #received = 0;
  #reading: Promise<void> | null = null;
  #ended = false;
  #raw = 0;

  constructor(terminal: CliTerminal) {
    this.#terminal = terminal;
  }

  /** Bytes received so far. */
  get received(): number {
    return this.#received;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Runs `fn` with the terminal in raw mode (nested calls keep it raw). */
  async raw<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#raw++ === 0) this.#terminal.setRaw(true);
    try {
      return await fn();
    } finally {
      if (--this.#raw === 0) this.#terminal.setRaw(false);
    }
  }

  #read(): Promise<void> {
    this.#reading ??= this.#terminal.read().then((chunk) => {
      this.#reading = null;
      if (chunk === null) this.#ended = true;
      else {
        this.#bytes.push(...chunk);
        this.#received += chunk.length;
      }
    }, () => {
      this.#reading = null;
      this.#ended = true;
    });
    return this.#reading;
  }

  /** Resolves once more than `n` bytes were received in all, or input ended. */
  async waitReceived(n: number): Promise<void> {
    while (this.#received <= n && !this.#ended) await this.#read();
  }

  /** The next byte, or null at the end of input. */
  async next(): Promise<number | null> {
    while (this.#bytes.length === 0 && !this.#ended) await this.#read();
    return this.#bytes.length > 0 ? this.#bytes.shift()! : null;
  }

  /**
   * Every byte waiting, or the next ones typed; null at the end of input;
   * "stopped" once `stop` settles first (then nothing is taken: a read in
   * flight still lands in the buffer, for the next reader).
   */
  async take(stop: Promise<unknown>): Promise<Uint8Array | null | "stopped"> {
    let stopped = false;
    const settled = stop.then(() => stopped = true, () => stopped = true);
    while (this.#bytes.length === 0 && !this.#ended) {
      await Promise.race([this.#read(), settled]);
      if (stopped) return "stopped";
    }
    if (this.#bytes.length === 0) return null;
    const bytes = Uint8Array.from(this.#bytes);
    this.#bytes = [];
    return bytes;
  }

  /** Puts bytes taken back at the front of the buffer. */
  putBack(bytes: Uint8Array): void {
    this.#bytes.unshift(...bytes);
  }

  /** Takes a Ctrl-C (and what was typed before it) off the buffer. */
  takeInterrupt(): boolean {
    const at = this.#bytes.lastIndexOf(3);
    if (at === -1) return false;
    this.#bytes.splice(0, at + 1);
    return true;
  }
}

/** A writer for raw mode, where a line feed does not return the carriage. */
function rawWriter(write: (text: string) => void): (text: string) => void {
  return (text) => write(text.replace(/\r?\n/g, "\r\n"));
}

function paint(color: boolean | undefined, code: string, text: string): string {
  return color ? `\x1b[${code}m${text}\x1b[0m` : text;
}

/**
 * Reads one line in raw mode with editing (arrows, Home/End, Ctrl-A/E/U/K/W,
 * Backspace, Delete) and history (Up/Down). Ctrl-C drops the line and asks
 * again; Ctrl-D on an empty line, or the end of input, returns null.
 */
async function readLine(
  keys: Keys,
  prompt: string,
  write: (text: string) => void,
  history: readonly string[],
): Promise<string | null> {
  let chars: string[] = [];
  let cursor = 0;
  let index = history.length;
  let draft: string[] = [];
  const render = () => {
    const tail = chars.length - cursor;
    write(
      `\r${prompt}${chars.join("")}\x1b[K${tail > 0 ? `\x1b[${tail}D` : ""}`,
    );
  };
  const set = (text: string) => {
    chars = [...text];
    cursor = chars.length;
  };
  render();
  const decoder = new TextDecoder();
  for (;;) {
    const b = await keys.next();
    if (b === null) return chars.length ? chars.join("") : null;
    if (b === 13 || b === 10) {
      write("\r\n");
      return chars.join("");
    }
    if (b === 3) {
      write("^C\r\n");
      chars = [];
      cursor = 0;
      index = history.length;
    } else if (b === 4) {
      if (chars.length === 0) return null;
      chars.splice(cursor, 1);
    } else if (b === 127 || b === 8) {
      if (cursor > 0) chars.splice(--cursor, 1);
    } else if (b === 1) cursor = 0;
    else if (b === 5) cursor = chars.length;
    else if (b === 21) {
      chars.splice(0, cursor);
      cursor = 0;
    } else if (b === 11) chars.splice(cursor);
    else if (b === 23) {
      let start = cursor;
      while (start > 0 && chars[start - 1] === " ") start--;
      while (start > 0 && chars[start - 1] !== " ") start--;
      chars.splice(start, cursor - start);
      cursor = start;
    } else if (b === 12) write("\x1b[H\x1b[2J");
    else if (b === 27) {
      const first = await keys.next();
      if (first !== 91 && first !== 79) continue; // ESC [ or ESC O
      let seq = "";
      for (;;) {
        const c = await keys.next();
        if (c === null) break;
        seq += String.fromCharCode(c);
        if (c >= 0x40 && c <= 0x7e) break;
      }
      if (seq === "A" || seq === "B") {
        if (index === history.length) draft = chars;
        index = seq === "A"
          ? Math.max(0, index - 1)
          : Math.min(history.length, index + 1);
        set(index === history.length ? draft.join("") : history[index]);
      } else if (seq === "C") cursor = Math.min(chars.length, cursor + 1);
      else if (seq === "D") cursor = Math.max(0, cursor - 1);
      else if (seq === "H" || seq === "1~" || seq === "7~") cursor = 0;
      else if (seq === "F" || seq === "4~" || seq === "8~") {
        cursor = chars.length;
      } else if (seq === "3~") chars.splice(cursor, 1);
    } else if (b >= 32) {
      // A character, possibly several bytes of UTF-8.
      const bytes = [b];
      const more = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : b >= 0xc0 ? 1 : 0;
      for (let i = 0; i < more; i++) {
        const c = await keys.next();
        if (c === null) break;
        bytes.push(c);
      }
      const text = decoder.decode(new Uint8Array(bytes));
      chars.splice(cursor, 0, text);
      cursor++;
    }
    render();
  }
}

/** The size of the terminal on stdout, or null where it is none. */
function terminalSize(): { cols: number; rows: number } | null {
  const cols = process.stdout.columns;
  const rows = process.stdout.rows;
  return Number.isInteger(cols) && cols > 0 && Number.isInteger(rows) &&
      rows > 0
    ? { cols, rows }
    : null;
}

/**
 * The transcript line(s) for one agent event.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeEvent } from "./main.ts";
 *
 * assert.equal(describeEvent({ type: "stop", reason: "end_turn" }), "\n[stopped: end_turn]\n");
 * assert.equal(
 *   describeEvent({ type: "tool_use", id: "t1", name: "bash", input: { command: "ls" } }, { color: true }),
 *   "\n\x1b[1m$ ls\x1b[0m\n",
 * );
 * assert.equal(
 *   describeEvent({
 *     type: "tool_use",
 *     id: "t2",
 *     name: "str_replace_based_edit_tool",
 *     input: { command: "view", path: "/tmp/a.txt" },
 *   }),
 *   "\n✎ view /tmp/a.txt\n",
 * );
 * ```
 */
export function describeEvent(
  event: AgentEvent,
  options: { color?: boolean; redact?: (text: string) => string } = {},
): string {
  const color = options.color;
  // The transcript is an egress channel: what the model wrote or a tool
  // returned reaches the operator's terminal with no escape sequence or
  // control byte of its own (no clipboard write, no title) and redacted.
  const egress = new Egress(options.redact);
  const clean = (text: string) => egress.text(text, "cli_transcript");
  switch (event.type) {
    case "text":
      return `${paint(color, "36", "assistant:")} ${clean(event.text)}\n`;
    case "tool_use": {
      const input = event.input as {
        command?: unknown;
        restart?: unknown;
        path?: unknown;
      };
      if (event.name && event.name.startsWith("process_")) {
        const shown = typeof input?.command === "string"
          ? input.command
          : JSON.stringify(input);
        return `\n${
          paint(
            color,
            "1",
            `$ (${event.name}) ${clean(shown).replaceAll("\n", "\n  ")}`,
          )
        }\n`;
      }
      if (event.name && event.name !== "bash") {
        // The editor: its command and path, not the file's content.
        const what = typeof input?.command === "string" &&
            typeof input?.path === "string"
          ? `${input.command} ${input.path}`
          : JSON.stringify(input);
        return `\n${paint(color, "1", `✎ ${clean(what)}`)}\n`;
      }
      if (input?.restart === true) {
        return `\n${paint(color, "1", "$ (restart the shell)")}\n`;
      }
      const shown = typeof input?.command === "string"
        ? input.command
        : JSON.stringify(input);
      const text = clean(shown);
      return `\n${paint(color, "1", `$ ${text.replaceAll("\n", "\n  ")}`)}\n`;
    }
    case "tool_result": {
      const content = clean(String(event.block.content ?? ""));
      const mark = event.block.is_error
        ? paint(color, "31", "✗")
        : paint(color, "32", "✓");
      return content.replace(/\n$/, "").split("\n").map((l) => `  ${mark} ${l}`)
        .join("\n") +
        "\n";
    }
    case "stop":
      return `\n[stopped: ${clean(event.reason)}]\n`;
  }
}

/**
 * The scripted conversation of the offline demo, working in `dir` (an
 * absolute path: the text editor tool takes absolute paths only). It writes a
 * script with bash, writes its test with the editor, runs the test (it fails),
 * fixes the script with `str_replace` and runs the test again (it passes),
 * then shows a failure, a timeout and a restart.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { demoTurns } from "./main.ts";
 *
 * const turns = demoTurns("/tmp/demo");
 * assert.equal(turns.at(-1)?.stop_reason, "end_turn");
 * const edits = turns.flatMap((t) => t.content)
 *   .filter((b) => b.type === "tool_use" && b.name === "str_replace_based_edit_tool");
 * assert.equal(edits.length, 2);
 * ```
 */
export function demoTurns(dir: string): ScriptedTurn[] {
  if (typeof dir !== "string" || !dir.startsWith("/")) {
    throw new TypeError(
      `Expected an absolute directory for the demo, got ${JSON.stringify(dir)}`,
    );
  }
  const editor = "str_replace_based_edit_tool";
  const greet = `${dir}/greet.sh`;
  const testFile = `${dir}/test_greet.sh`;
  return [
    turn(
      "I'll write a small script with a heredoc and run it.",
      toolUse(1, "bash", {
        command: "cat > greet.sh <<'EOF'\n#!/usr/bin/env bash\n" +
          'echo "Hello from $(basename "$PWD"), $1!"\nEOF\nchmod +x greet.sh && ./greet.sh world',
      }),
    ),
    turn(
      'Now a test that wants "Hi" instead of "Hello", written with the editor tool, and run.',
      toolUse(2, editor, {
        command: "create",
        path: testFile,
        file_text: "#!/usr/bin/env bash\n" +
          '# Passes when greet.sh greets by name with "Hi".\n' +
          'out=$(./greet.sh tester)\ncase $out in\n  "Hi from "*", tester!") echo "PASS: $out" ;;\n' +
          '  *) echo "FAIL: $out"; exit 1 ;;\nesac\n',
      }),
      toolUse(3, "bash", {
        command: "chmod +x test_greet.sh && ./test_greet.sh",
      }),
    ),
    turn(
      "The test fails, as expected. I'll fix greet.sh and run it again.",
      toolUse(4, editor, {
        command: "str_replace",
        path: greet,
        old_str: 'echo "Hello from',
        new_str: 'echo "Hi from',
      }),
      toolUse(5, "bash", { command: "./test_greet.sh" }),
    ),
    turn(
      "It passes. Two more calls in one turn: list the files, and read a missing one.",
      toolUse(6, "bash", { command: "ls -l | tail -n +2 | wc -l && ls" }),
      toolUse(7, "bash", { command: "cat missing.txt" }),
    ),
    turn(
      "That file does not exist, as expected. Now a command that runs too long.",
      toolUse(8, "bash", { command: "export STATE=kept; sleep 30" }),
    ),
    turn(
      "The deadline stopped it and the shell kept its state. Now a restart.",
      toolUse(9, "bash", { command: 'echo "STATE=$STATE"' }),
      toolUse(10, "bash", { restart: true }),
      toolUse(11, "bash", { command: 'echo "STATE=${STATE:-gone}"; ls' }),
    ),
    turn(
      "Now a dev server in the background: start it, wait until it serves.",
      toolUse(12, "process_start", {
        command:
          "python3 -u -m http.server 0 --bind 127.0.0.1 2>&1 | tee server.log",
        until: "Serving HTTP",
        wait_ms: 10000,
      }),
    ),
    turn(
      "It serves. Probe it from the shell, then stop it.",
      toolUse(13, "bash", {
        command:
          "port=$(grep -o 'port [0-9]*' server.log | head -1 | cut -d' ' -f2)\n" +
          "curl -s http://127.0.0.1:$port/greet.sh | tail -n 1",
      }),
      toolUse(14, "process_stop", { id: "p1" }),
    ),
    turn(
      "Last, what bashbox guards: a secret in the output, and a command the policy denies.",
      toolUse(15, "bash", {
        command: "printf 'deploy key: %s\\n' AKIA$(printf 'IOSFODNN7EXAMPLE')",
      }),
      toolUse(16, "bash", { command: "git push --force origin main" }),
    ),
    {
      content: [{
        type: "text",
        text:
          "Done: the script ran, the editor fixed it until its test passed, the failure and the timeout were reported, the restart gave a fresh shell, the server was started, probed and stopped, the secret was redacted and the push was refused.",
      }],
      stop_reason: "end_turn",
    },
  ];
}

type DemoBlock = ScriptedTurn["content"][number];

/** The demo's `tool_use` block number `n`. */
function toolUse(n: number, name: string, input: unknown): DemoBlock {
  return { type: "tool_use", id: `toolu_demo_${n}`, name, input };
}

/** A demo turn: the assistant's `text`, then its tool calls. */
function turn(text: string, ...calls: DemoBlock[]): ScriptedTurn {
  return {
    content: [{ type: "text", text }, ...calls],
    stop_reason: "tool_use",
  };
}

async function demo(
  options: CommonOptions & { model?: string; apiKey?: string },
  io: CliIo,
): Promise<number> {
  const dir = resolve(
    options.cwd ?? mkdtempSync(join(tmpdir(), "bashbox-demo-")),
  );
  const offline = !options.apiKey;
  const api = offline
    ? await (await import("../anthropic/fake_api.ts")).startFakeApi(
      demoTurns(dir),
    )
    : null;
  const tool = new BashTool({
    sessionOptions: { cwd: dir },
    timeoutMs: options.timeoutMs ?? (offline ? 1000 : 30_000),
    audit: options.audit ? jsonlAudit(options.audit) : undefined,
    // Without --policy: everything but a push (the demo shows a refusal).
    policy: options.policy ?? Policy.allowAll({ deny: ["git push"] }),
    redact: redactor(options.env),
    spillDir: options.spillDir,
  });
  const editor = makeEditor(tool, options);
  try {
    io.out(
      offline
        ? `bashbox demo (offline): a loopback fake of the Messages API at ${
          api!.url
        } replays a scripted assistant;\nthe real @anthropic-ai/sdk client and real bash run in ${dir}\n\n`
        : `bashbox demo: the real Messages API with model ${
          options.model ?? DEFAULT_MODEL
        }; bash runs in ${dir}\n\n`,
    );
    const client = await anthropicClient({
      apiKey: options.apiKey ?? "offline-demo",
      ...(api ? { baseURL: api.url, maxRetries: 0 } : {}),
    });
    const run = await runAgent({
      client,
      model: options.model ?? DEFAULT_MODEL,
      prompt: offline
        ? "Show what the bash tool can do."
        : "In the current directory, write a script greet.sh with a heredoc and run it; with the text editor tool write a test for it that expects it to say Hi instead of Hello, run the test, fix greet.sh with str_replace and run the test again; read a missing file; run `sleep 30` (it will time out); restart the shell and show that its state is gone; start `python3 -u -m http.server 0 --bind 127.0.0.1` with process_start, fetch a page from it with curl, and stop it. Be brief.",
      tool,
      editor,
      processTools: true,
      maxTurns: 12,
      onEvent: (e) =>
        io.out(
          describeEvent(e, {
            color: io.color,
            redact: redactor(options.env),
          }),
        ),
    });
    return run.stopReason === "end_turn" ? 0 : 1;
  } finally {
    await editor.close();
    await tool.close();
    await api?.close();
    if (options.cwd === undefined) {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** Lines of a byte stream (standard input when it is not a terminal). */
async function* stdinLines(
  stream: AsyncIterable<Uint8Array>,
): AsyncIterable<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = buffered.indexOf("\n")) !== -1) {
      yield buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
    }
  }
  buffered += decoder.decode();
  if (buffered) yield buffered;
}

/**
 * Runs {@linkcode main} on the host's arguments, environment and standard
 * streams, and ends the host with its exit code: what the `bashbox` command
 * and `deno run cli/main.ts` do.
 *
 * @example
 * ```ts ignore
 * import { runFromHost } from "./main.ts";
 *
 * await runFromHost(); // never returns: the host exits with main's code
 * ```
 */
export async function runFromHost(): Promise<void> {
  // The same environment on every runtime: redaction hides the values of
  // secret-looking variables, so it needs all of them.
  const env = hostEnvObject();
  const keys = stdinTerminal();
  const terminal: CliTerminal | undefined = keys && {
    ...keys,
    size: terminalSize,
    onResize: (listener) => {
      try {
        process.on("SIGWINCH", listener);
      } catch {
        return () => {}; // no such signal here (Windows): the size stays
      }
      return () => void process.off("SIGWINCH", listener);
    },
  };
  const code = await main(hostArgs(), {
    out: (text) => writeHost(1, text),
    err: (text) => writeHost(2, text),
    terminal,
    // Read lazily: `mcp` and `run` never touch standard input through this.
    lines: terminal ? undefined : stdinLines({
      [Symbol.asyncIterator]: () => stdinStream()[Symbol.asyncIterator](),
    }),
    env,
    name: env.BASHBOX_PROG || "bashbox",
    color: stdoutIsTerminal() && !env.NO_COLOR,
  });
  exitHost(code);
}

if (import.meta.main) await runFromHost();
