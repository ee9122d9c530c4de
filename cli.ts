/**
 * The bashbox command line: `agent`, `run`, `repl` and `demo`.
 *
 * ```sh
 * deno run --allow-run=bash --allow-read --allow-write --allow-env --allow-net cli.ts demo
 * ```
 *
 * @module
 */

import Anthropic from "@anthropic-ai/sdk";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type ScriptedTurn, startFakeApi } from "./_fake_api.ts";
import { type AgentEvent, BashTool, runAgent } from "./anthropic.ts";
import { jsonlAudit } from "./audit.ts";
import { formatResult } from "./format.ts";
import { Policy, type PolicyOptions } from "./policy.ts";
import { redactor } from "./redact.ts";
import { BashSession } from "./session.ts";

/** Where the CLI writes and what it reads. */
export interface CliIo {
  /** Writes to standard output. */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
  /** Lines of standard input (for `repl`). */
  lines?: AsyncIterable<string>;
  /** Environment variables (for `ANTHROPIC_API_KEY`). */
  env?: Record<string, string | undefined>;
}

/**
 * Default model of `agent` and of `demo` with an API key.
 *
 * @example
 * ```ts
 * import { DEFAULT_MODEL } from "./cli.ts";
 *
 * console.assert(typeof DEFAULT_MODEL === "string");
 * ```
 */
export const DEFAULT_MODEL = "claude-sonnet-4-5";

const HELP =
  `bashbox: run the shell commands a model asks for (Anthropic bash_20250124 tool)

Usage:
  bashbox demo [--api]              offline end-to-end demo (a loopback fake of the
                                    Messages API drives the real SDK client and real
                                    bash); --api (or ANTHROPIC_API_KEY set) uses the
                                    real API instead
  bashbox run [options] <command>   run one command in a fresh session and print the
                                    tool_result the model would get (--json: the block)
  bashbox repl [options]            an interactive session showing what the model sees
  bashbox agent [options] <task>    run an agent on the task (needs ANTHROPIC_API_KEY)

Options:
  --timeout <ms>     deadline per command (default 120000)
  --cwd <dir>        working directory of the session
  --model <name>     model for agent/demo --api (default ${DEFAULT_MODEL})
  --max-turns <n>    most model calls for agent (default 20)
  --audit <file>     append an audit trail (JSON Lines) to file
  --policy <p>       readonly, allow-all, or a JSON file {allow, ask, deny, default}
  --json             run: print the tool_result block as JSON
  -h, --help         this text

Exit codes: 0 success; 1 the command or the run failed; 2 bad usage.
`;

class UsageError extends Error {}

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

/**
 * Runs the CLI with `args` (without the program name) and returns the exit
 * code.
 *
 * @example
 * ```ts
 * import { main } from "./cli.ts";
 *
 * let out = "";
 * const code = await main(["run", "echo hi"], { out: (t) => out += t, err: () => {} });
 * console.assert(code === 0 && out === "Exit code 0\nhi\n");
 * ```
 */
export async function main(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        timeout: { type: "string" },
        cwd: { type: "string" },
        model: { type: "string" },
        "max-turns": { type: "string" },
        audit: { type: "string" },
        policy: { type: "string" },
        json: { type: "boolean" },
        api: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    io.err(
      `bashbox: ${(error as Error).message}\nRun "bashbox --help" for usage.\n`,
    );
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === "help") {
    io.out(HELP);
    return 0;
  }
  try {
    const timeoutMs = positiveInt("timeout", values.timeout);
    const maxTurns = positiveInt("max-turns", values["max-turns"]);
    const common = {
      timeoutMs,
      cwd: values.cwd,
      audit: values.audit,
      policy: values.policy === undefined
        ? undefined
        : loadPolicy(values.policy),
      env: io.env,
    };
    switch (command) {
      case "run":
        if (rest.length !== 1) {
          throw new UsageError(
            `Expected one command after "run", got ${rest.length}`,
          );
        }
        return await runOnce(
          rest[0],
          { ...common, json: values.json ?? false },
          io,
        );
      case "repl":
        return await repl(common, io);
      case "demo": {
        const key = io.env?.ANTHROPIC_API_KEY;
        if (values.api && !key) {
          throw new UsageError(
            "--api needs ANTHROPIC_API_KEY in the environment",
          );
        }
        return await demo({ ...common, model: values.model, apiKey: key }, io);
      }
      case "agent": {
        if (rest.length !== 1) {
          throw new UsageError(
            `Expected one task after "agent", got ${rest.length}`,
          );
        }
        const key = io.env?.ANTHROPIC_API_KEY;
        if (!key) {
          throw new UsageError(
            "agent needs ANTHROPIC_API_KEY in the environment",
          );
        }
        const tool = makeTool(common);
        try {
          const run = await runAgent({
            client: new Anthropic({ apiKey: key }),
            model: values.model ?? DEFAULT_MODEL,
            prompt: rest[0],
            tool,
            maxTurns,
            onEvent: (e) => io.out(describeEvent(e)),
          });
          return run.stopReason === "end_turn" ? 0 : 1;
        } finally {
          await tool.close();
        }
      }
      case undefined:
        throw new UsageError("Expected a command: demo, run, repl or agent");
      default:
        throw new UsageError(
          `Unknown command "${command}": expected demo, run, repl or agent`,
        );
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`bashbox: ${error.message}\nRun "bashbox --help" for usage.\n`);
      return 2;
    }
    io.err(`bashbox: ${(error as Error).message}\n`);
    return 1;
  }
}

interface CommonOptions {
  timeoutMs?: number;
  cwd?: string;
  audit?: string;
  policy?: Policy;
  env?: Record<string, string | undefined>;
}

/** `readonly`, `allow-all`, or a JSON file of `{ allow, ask, deny, default }`. */
function loadPolicy(spec: string): Policy {
  if (spec === "readonly" || spec === "read-only") return Policy.readOnly();
  if (spec === "allow-all") return Policy.allowAll();
  let text: string;
  try {
    text = readFileSync(spec, "utf8");
  } catch (error) {
    throw new UsageError(
      `Expected --policy to be readonly, allow-all or a JSON file, got "${spec}" (${
        (error as Error).message
      })`,
    );
  }
  let options: PolicyOptions;
  try {
    options = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `The policy file ${spec} is not JSON: ${(error as Error).message}`,
    );
  }
  try {
    return new Policy(options);
  } catch (error) {
    throw new UsageError(
      `The policy file ${spec} is not valid: ${(error as Error).message}`,
    );
  }
}

function makeTool(options: CommonOptions): BashTool {
  return new BashTool({
    sessionOptions: { cwd: options.cwd, timeoutMs: options.timeoutMs },
    timeoutMs: options.timeoutMs,
    audit: options.audit ? jsonlAudit(options.audit) : undefined,
    policy: options.policy,
    redact: redactor(options.env ?? {}),
  });
}

async function runOnce(
  command: string,
  options: CommonOptions & { json: boolean },
  io: CliIo,
): Promise<number> {
  await using tool = makeTool(options);
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
}

async function repl(options: CommonOptions, io: CliIo): Promise<number> {
  if (!io.lines) throw new Error("repl needs standard input");
  await using session = new BashSession({
    cwd: options.cwd,
    timeoutMs: options.timeoutMs,
  });
  io.err(
    "bashbox repl: each line runs in one persistent bash; the model would see the text below it. Ctrl-D ends.\n",
  );
  let previousCwd: string | undefined;
  for await (const line of io.lines) {
    if (line.trim() === "") continue;
    const r = await session.run(line);
    io.out(
      formatResult(r, { timeoutMs: options.timeoutMs, previousCwd }) + "\n",
    );
    previousCwd = r.cwd;
  }
  return 0;
}

/**
 * The transcript line(s) for one agent event.
 *
 * @example
 * ```ts
 * import { describeEvent } from "./cli.ts";
 *
 * console.assert(describeEvent({ type: "stop", reason: "end_turn" }) === "\n[stopped: end_turn]\n");
 * ```
 */
export function describeEvent(event: AgentEvent): string {
  switch (event.type) {
    case "text":
      return `assistant: ${event.text}\n`;
    case "tool_use": {
      const input = event.input as { command?: unknown; restart?: unknown };
      if (input?.restart === true) return "\n$ (restart the shell)\n";
      const text = typeof input?.command === "string"
        ? input.command
        : JSON.stringify(input);
      return `\n$ ${text.replaceAll("\n", "\n  ")}\n`;
    }
    case "tool_result": {
      const content = String(event.block.content ?? "");
      const mark = event.block.is_error ? "✗" : "✓";
      return content.replace(/\n$/, "").split("\n").map((l) => `  ${mark} ${l}`)
        .join("\n") +
        "\n";
    }
    case "stop":
      return `\n[stopped: ${event.reason}]\n`;
  }
}

/**
 * The scripted conversation of the offline demo.
 *
 * @example
 * ```ts
 * import { DEMO_TURNS } from "./cli.ts";
 *
 * console.assert(DEMO_TURNS.at(-1)?.stop_reason === "end_turn");
 * ```
 */
export const DEMO_TURNS: readonly ScriptedTurn[] = [
  {
    content: [
      {
        type: "text",
        text: "I'll write a small script with a heredoc and run it.",
      },
      {
        type: "tool_use",
        id: "toolu_demo_1",
        name: "bash",
        input: {
          command: "cat > greet.sh <<'EOF'\n#!/usr/bin/env bash\n" +
            'echo "Hello from $(basename "$PWD"), $1!"\nEOF\nchmod +x greet.sh && ./greet.sh world',
        },
      },
    ],
    stop_reason: "tool_use",
  },
  {
    content: [
      {
        type: "text",
        text:
          "It works. Two more calls in one turn: list the files, and read a missing one.",
      },
      {
        type: "tool_use",
        id: "toolu_demo_2",
        name: "bash",
        input: { command: "ls -l | tail -n +2 | wc -l && ls" },
      },
      {
        type: "tool_use",
        id: "toolu_demo_3",
        name: "bash",
        input: { command: "cat missing.txt" },
      },
    ],
    stop_reason: "tool_use",
  },
  {
    content: [
      {
        type: "text",
        text:
          "That file does not exist, as expected. Now a command that runs too long.",
      },
      {
        type: "tool_use",
        id: "toolu_demo_4",
        name: "bash",
        input: { command: "export STATE=kept; sleep 30" },
      },
    ],
    stop_reason: "tool_use",
  },
  {
    content: [
      {
        type: "text",
        text:
          "The deadline stopped it and the shell kept its state. Now a restart.",
      },
      {
        type: "tool_use",
        id: "toolu_demo_5",
        name: "bash",
        input: { command: 'echo "STATE=$STATE"' },
      },
      {
        type: "tool_use",
        id: "toolu_demo_6",
        name: "bash",
        input: { restart: true },
      },
      {
        type: "tool_use",
        id: "toolu_demo_7",
        name: "bash",
        input: { command: 'echo "STATE=${STATE:-gone}"; ls' },
      },
    ],
    stop_reason: "tool_use",
  },
  {
    content: [{
      type: "text",
      text:
        "Done: the script ran, the failure and the timeout were reported, and the restart gave a fresh shell.",
    }],
    stop_reason: "end_turn",
  },
];

async function demo(
  options: CommonOptions & { model?: string; apiKey?: string },
  io: CliIo,
): Promise<number> {
  const dir = options.cwd ?? mkdtempSync(join(tmpdir(), "bashbox-demo-"));
  const offline = !options.apiKey;
  const api = offline ? await startFakeApi(DEMO_TURNS) : null;
  const tool = new BashTool({
    sessionOptions: { cwd: dir },
    timeoutMs: options.timeoutMs ?? (offline ? 1000 : 30_000),
    audit: options.audit ? jsonlAudit(options.audit) : undefined,
  });
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
    const client = new Anthropic({
      apiKey: options.apiKey ?? "offline-demo",
      ...(api ? { baseURL: api.url } : {}),
      maxRetries: 0,
    });
    const run = await runAgent({
      client,
      model: options.model ?? DEFAULT_MODEL,
      prompt: offline
        ? "Show what the bash tool can do."
        : "In the current directory, write a script greet.sh with a heredoc and run it; read a missing file; run `sleep 30` (it will time out); restart the shell and show that its state is gone. Be brief.",
      tool,
      maxTurns: 10,
      onEvent: (e) => io.out(describeEvent(e)),
    });
    return run.stopReason === "end_turn" ? 0 : 1;
  } finally {
    await tool.close();
    await api?.close();
    if (options.cwd === undefined) {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

async function* stdinLines(): AsyncIterable<string> {
  const decoder = new TextDecoder();
  // deno-lint-ignore no-explicit-any
  const g = globalThis as any;
  const stream: ReadableStream<Uint8Array> = g.Deno
    ? g.Deno.stdin.readable
    : g.Bun.stdin.stream();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = buffered.indexOf("\n")) !== -1) {
      yield buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
    }
  }
  if (buffered) yield buffered;
}

if (import.meta.main) {
  // deno-lint-ignore no-explicit-any
  const g = globalThis as any;
  const args: string[] = g.Deno ? g.Deno.args : g.process.argv.slice(2);
  const encoder = new TextEncoder();
  const write = (fd: 1 | 2) => (text: string) => {
    if (g.Deno) {
      const file = fd === 1 ? g.Deno.stdout : g.Deno.stderr;
      const bytes = encoder.encode(text);
      for (let i = 0; i < bytes.length;) i += file.writeSync(bytes.subarray(i));
    } else g.process[fd === 1 ? "stdout" : "stderr"].write(text);
  };
  let env: Record<string, string | undefined> = {};
  try {
    env = g.Deno
      ? { ANTHROPIC_API_KEY: g.Deno.env.get("ANTHROPIC_API_KEY") }
      : g.process.env;
  } catch {
    // no env permission: run offline
  }
  const code = await main(args, {
    out: write(1),
    err: write(2),
    lines: stdinLines(),
    env,
  });
  if (g.Deno) g.Deno.exit(code);
  else g.process.exit(code);
}
