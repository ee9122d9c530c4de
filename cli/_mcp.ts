/**
 * `bashbox mcp`: the command line of the MCP server (flags, the JSON config
 * file, stdio or HTTP). Loaded by `cli.ts` only for the `mcp` subcommand, so
 * the other subcommands never load the MCP package.
 *
 * @module
 */

import { onHostSignal } from "../runtime/host.ts";
import { readFileSync, statSync } from "node:fs";
import { policyOf, readPolicyFile, UsageError } from "./_policy.ts";
import type { CommandPolicy } from "../tools/types.ts";
import { Egress } from "../egress/egress.ts";
import { type ContainMode, describeContainment } from "../core/containment.ts";
import { jsonlAudit } from "../egress/audit.ts";
import {
  BashMcp,
  type BashMcpOptions,
  type McpHttpOptions,
} from "../mcp/server.ts";
import { Policy, type PolicyOptions } from "../policy/mod.ts";
import type { Limits } from "../shell/limits.ts";
import { redactor } from "../egress/redact.ts";
import type { BashSessionOptions } from "../core/session.ts";

/** Where the MCP command line writes, and its environment. */
export interface McpCliIo {
  /** Writes to standard output (only `--help` does: on stdio it carries the protocol). */
  out(text: string): void;
  /** Writes to standard error (standard output carries the protocol on stdio). */
  err(text: string): void;
  /** The environment: redaction hides its secret-looking values. */
  env?: Record<string, string | undefined>;
  /** How the user invoked the program, for messages. */
  name?: string;
  /** Standard input is a terminal (a person ran it, not an MCP client). */
  terminal?: unknown;
}

/** The help text of `bashbox mcp`. */
export function mcpHelp(name = "bashbox"): string {
  return `${name} mcp: bashbox's bash as an MCP server

Usage:
  ${name} mcp [options]                   serve one client over stdin/stdout
  ${name} mcp --http [options]            serve Streamable HTTP at http://HOST:PORT/mcp

Tools: bash {command | restart, timeout?} (Anthropic bash_20250124's input
plus a timeout in seconds) and bash_wait {id, wait?, interrupt?} for
commands still running after --return-after. One persistent shell per MCP
session.

Server:
  --http                 serve Streamable HTTP instead of stdio
  --host <addr>          address to listen on (default 127.0.0.1); any
                         non-loopback address requires a bearer token
  --port <n>             port (default 8765; 0 picks a free one)
  --token <t>            a bearer token clients must send (Authorization:
                         Bearer); repeatable, and each MCP session is bound to
                         the token that opened it; default $BASHBOX_MCP_TOKEN
                         (comma-separated; prefer it: arguments show in ps);
                         on a non-loopback address without one, a token is
                         generated and printed once to stderr; at least 16
                         characters
  --allow-origin <host>  a browser Origin host name to accept besides localhost
                         (repeatable); other Origins are refused (DNS rebinding)
  --max-body <bytes>     largest HTTP request body (default 4194304)
  --config <file>        JSON file with any of these options, keyed by their
                         long names in camelCase (flags win), e.g.
                         {"cwd": "/work", "policy": "readonly",
                          "sandbox": {"workdir": "/work", "writable": [],
                          "network": false}, "limits": {"cpuSeconds": 600},
                          "maxSessions": 8}; "policy" may also be an object
                         {allow, ask, deny, default}

Commands:
  --cwd <dir>            working directory of every shell
  --timeout <ms>         default deadline per command (default 120000)
  --max-timeout <ms>     largest deadline a call may ask for (default 600000)
  --return-after <ms>    answer with a handle id after this long (default 50000)
  --max-output <chars>   output characters the model sees (default 30000)
  --spill-dir <dir>      where output cut for the model is kept in full
                         (default: a private temp dir per session)
  --policy <p>           readonly, allow-all (default), or a JSON rules file
                         {allow, ask, deny, default}; "ask" decisions go to
                         the user through MCP elicitation when the client
                         supports it, and are refused with the reason otherwise;
                         readonly (or a file with "contain") runs every shell
                         contained: see --contain
  --contain <mode>       auto (default): a policy that promises (readonly;
                         "contain": {"writable": [...], "network": false} in
                         a file) runs every shell in bubblewrap so the kernel
                         keeps the promise, or says at start and in every
                         result that it could not; required: refuse to start
                         without; off: never
  --audit <file>         append an audit trail (JSON Lines; records carry the
                         MCP session id)
  --no-redact            show secret-looking values of the server's
                         environment (default: hidden in output and audit)

Isolation and limits:
  --sandbox <dir>        run every shell in bubblewrap with <dir> as its
                         writable workdir (read-only root, private /tmp,
                         no network)
  --writable <path>      another writable path in the sandbox (repeatable)
  --network              keep the network in the sandbox
  --limit <k>=<v>        ulimit for every shell (repeatable): cpu=<s>,
                         memory=<bytes>, file-size=<bytes>, processes=<n>,
                         open-files=<n>; sizes take K, M, G suffixes
  --max-sessions <n>     most live shells (default 16); beyond it the least
                         recently used idle shell is closed, and its session's
                         next result says its state was lost
  --idle <ms>            close a shell idle this long (default 600000)

  -h, --help             this text

Deno needs --allow-run=bash (bwrap,bash with --sandbox) --allow-read
--allow-write --allow-env, and --allow-net=HOST:PORT with --http.
`;
}

const VALUE = new Set([
  "host",
  "port",
  "token",
  "allow-origin",
  "max-body",
  "config",
  "cwd",
  "timeout",
  "max-timeout",
  "return-after",
  "max-output",
  "spill-dir",
  "policy",
  "contain",
  "audit",
  "sandbox",
  "writable",
  "limit",
  "max-sessions",
  "idle",
]);
const FLAGS = new Set(["http", "network", "no-redact", "help"]);
const REPEATED = new Set(["allow-origin", "writable", "limit", "token"]);

type Values = Record<string, unknown>;

function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function parse(args: readonly string[]): Values {
  const out: Values = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-h") {
      out.help = true;
      continue;
    }
    if (!arg.startsWith("--")) {
      throw new UsageError(`Expected an option, got "${arg}"`);
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (FLAGS.has(name)) {
      if (eq !== -1) {
        throw new UsageError(`Option "--${name}" takes no value, got "${arg}"`);
      }
      out[camel(name)] = true;
      continue;
    }
    if (!VALUE.has(name)) throw new UsageError(`Unknown option "--${name}"`);
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (i + 1 < args.length) value = args[++i];
    if (value === undefined) {
      throw new UsageError(`Expected a value after "--${name}", got none`);
    }
    const key = camel(name);
    if (REPEATED.has(name)) {
      out[key] = [...(out[key] as string[] ?? []), value];
    } else out[key] = value;
  }
  return out;
}

const CONFIG_KEYS = new Set([
  "http",
  "host",
  "port",
  "token",
  "allowOrigin",
  "allowOrigins",
  "maxBody",
  "cwd",
  "timeout",
  "maxTimeout",
  "returnAfter",
  "maxOutput",
  "spillDir",
  "policy",
  "contain",
  "audit",
  "redact",
  "sandbox",
  "limits",
  "maxSessions",
  "idle",
]);

function readConfig(path: string): Values {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(
      `Expected --config to be a readable JSON file, got "${path}" (${
        (error as Error).message
      })`,
    );
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `The config file ${path} is not JSON: ${(error as Error).message}`,
    );
  }
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    throw new UsageError(
      `Expected the config file ${path} to hold a JSON object`,
    );
  }
  for (const key of Object.keys(config)) {
    if (!CONFIG_KEYS.has(key)) {
      throw new UsageError(
        `The config file ${path} has an unknown key "${key}"; expected some of ${
          [...CONFIG_KEYS].join(", ")
        }`,
      );
    }
  }
  return config as Values;
}

function whole(name: string, value: unknown, min = 1): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(n) || n < min) {
    throw new UsageError(
      `Expected --${name} to be a whole number of at least ${min}, got ${
        JSON.stringify(value)
      }`,
    );
  }
  return n;
}

function size(name: string, value: string): number {
  const m = /^(\d+)([KMG]?)(i?B)?$/i.exec(value.trim());
  if (!m) {
    throw new UsageError(
      `Expected ${name} to be a size such as 512M, got "${value}"`,
    );
  }
  const unit = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[
    m[2].toUpperCase() as "" | "K" | "M" | "G"
  ];
  return Number(m[1]) * unit;
}

const LIMIT_KEYS: Record<string, keyof Limits> = {
  cpu: "cpuSeconds",
  memory: "memoryBytes",
  "file-size": "fileSizeBytes",
  processes: "processes",
  "open-files": "openFiles",
};

function limitsFrom(specs: readonly string[], base: Limits): Limits {
  const limits: Limits = { ...base };
  for (const spec of specs) {
    const m = /^([a-z-]+)=(.+)$/.exec(spec);
    const key = m ? LIMIT_KEYS[m[1]] : undefined;
    if (!m || !key) {
      throw new UsageError(
        `Expected --limit <name>=<value> with a name among ${
          Object.keys(LIMIT_KEYS).join(", ")
        }, got "${spec}"`,
      );
    }
    limits[key] = key.endsWith("Bytes")
      ? size(`--limit ${m[1]}`, m[2])
      : whole(`limit ${m[1]}`, m[2])!;
  }
  return limits;
}

/** The `--contain` mode: auto (default), required, or off. */
function containFrom(spec: unknown): ContainMode | undefined {
  if (spec === undefined) return undefined;
  if (spec === "auto" || spec === "required") return spec;
  if (spec === "off" || spec === false) return false;
  throw new UsageError(
    `Expected --contain to be auto, required or off, got ${
      JSON.stringify(spec)
    }`,
  );
}

function policyFrom(spec: unknown): CommandPolicy | undefined {
  if (spec === undefined || spec === "allow-all") return undefined;
  if (spec === "readonly" || spec === "read-only") return Policy.readOnly();
  return policyOf(
    typeof spec === "object" && spec !== null
      ? spec as PolicyOptions
      : readPolicyFile(String(spec)),
  );
}

function directory(name: string, dir: unknown): string | undefined {
  if (dir === undefined) return undefined;
  let ok = false;
  try {
    ok = statSync(String(dir)).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new UsageError(
      `Expected --${name} to be an existing directory, got "${dir}"`,
    );
  }
  return String(dir);
}

/** What the flags and config file say: the server's options and how to serve. */
export interface McpCliPlan {
  /** Options of the {@linkcode BashMcp}. */
  server: BashMcpOptions;
  /** Set for `--http`. */
  http?: McpHttpOptions;
}

/**
 * Turns `bashbox mcp`'s arguments (and its `--config` file) into server
 * options. Throws a usage error with a message naming the bad option.
 */
export function planMcp(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): McpCliPlan | "help" {
  const flags = parse(args);
  if (flags.help) return "help";
  const config = flags.config ? readConfig(String(flags.config)) : {};
  const v: Values = { ...config, ...flags };
  if (config.allowOrigins && !flags.allowOrigin) {
    v.allowOrigin = config.allowOrigins;
  }
  const sandboxConfig = typeof config.sandbox === "object" &&
      config.sandbox !== null
    ? config.sandbox as {
      workdir?: string;
      writable?: string[];
      network?: boolean;
    }
    : {};
  const workdir = flags.sandbox !== undefined
    ? String(flags.sandbox)
    : typeof config.sandbox === "string"
    ? config.sandbox
    : sandboxConfig.workdir;
  if ((flags.writable || flags.network) && workdir === undefined) {
    throw new UsageError("--writable and --network need --sandbox <dir>");
  }
  const sessionOptions: BashSessionOptions = {};
  const cwd = directory("cwd", v.cwd);
  if (cwd) sessionOptions.cwd = cwd;
  if (workdir !== undefined) {
    if (!workdir.startsWith("/")) {
      throw new UsageError(
        `Expected --sandbox to be an absolute path, got "${workdir}"`,
      );
    }
    directory("sandbox", workdir);
    sessionOptions.sandbox = {
      kind: "bwrap",
      workdir,
      writable: (flags.writable as string[] | undefined) ??
        sandboxConfig.writable ?? [],
      network: Boolean(flags.network ?? sandboxConfig.network ?? false),
    };
  }
  const limits = limitsFrom(
    (flags.limit as string[] | undefined) ?? [],
    (config.limits as Limits | undefined) ?? {},
  );
  if (Object.keys(limits).length > 0) sessionOptions.limits = limits;
  const redact = !flags.noRedact && config.redact !== false;
  const timeoutMs = whole("timeout", v.timeout);
  const maxTimeoutMs = whole("max-timeout", v.maxTimeout);
  if (
    timeoutMs !== undefined && maxTimeoutMs !== undefined &&
    timeoutMs > maxTimeoutMs
  ) {
    throw new UsageError(
      `Expected --timeout (${timeoutMs}) to be at most --max-timeout (${maxTimeoutMs})`,
    );
  }
  const server: BashMcpOptions = {
    sessionOptions,
    timeoutMs,
    maxTimeoutMs,
    returnAfterMs: whole("return-after", v.returnAfter),
    maxOutputChars: whole("max-output", v.maxOutput, 100),
    policy: policyFrom(v.policy),
    contain: containFrom(v.contain),
    redact: redact ? redactor(env) : undefined,
    audit: v.audit ? jsonlAudit(String(v.audit)) : undefined,
    spillDir: v.spillDir === undefined ? undefined : String(v.spillDir),
    maxSessions: whole("max-sessions", v.maxSessions),
    idleMs: whole("idle", v.idle),
  };
  if (!v.http) {
    for (const key of ["host", "port", "token", "allowOrigin", "maxBody"]) {
      if (flags[key] !== undefined) {
        throw new UsageError(
          `--${
            key.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())
          } needs --http`,
        );
      }
    }
    return { server };
  }
  const given = v.token !== undefined
    ? [v.token].flat().map(String)
    : (env.BASHBOX_MCP_TOKEN ?? "").split(",").filter((t) => t !== "");
  for (const token of given) {
    if (token.length < 16 || /\s/.test(token)) {
      throw new UsageError(
        "Expected each --token to be at least 16 characters without spaces",
      );
    }
  }
  const origins = v.allowOrigin as string[] | string | undefined;
  return {
    server,
    http: {
      host: v.host === undefined ? undefined : String(v.host),
      port: whole("port", v.port ?? 8765, 0),
      tokens: given,
      allowedOrigins: origins === undefined
        ? undefined
        : Array.isArray(origins)
        ? origins
        : [origins],
      maxBodyBytes: whole("max-body", v.maxBody),
    },
  };
}

/**
 * Runs `bashbox mcp` with `args` (after `mcp`); returns the exit code when the
 * client disconnected (stdio) or a signal stopped the server (HTTP).
 */
export async function mcpMain(
  args: readonly string[],
  io: McpCliIo,
): Promise<number> {
  const name = io.name ?? "bashbox";
  let plan: McpCliPlan | "help";
  try {
    plan = planMcp(args, io.env ?? {});
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(
        `${name} mcp: ${error.message}\nRun "${name} mcp --help" for usage.\n`,
      );
      return 2;
    }
    io.err(`${name} mcp: ${(error as Error).message}\n`);
    return 2;
  }
  if (plan === "help") {
    io.out(mcpHelp(name));
    return 0;
  }
  let mcp: BashMcp;
  try {
    mcp = new BashMcp(plan.server);
  } catch (error) {
    io.err(`${name} mcp: ${(error as Error).message}\n`);
    return 2;
  }
  const status = mcp.containment;
  if (status !== null) {
    io.err(
      new Egress(plan.server.redact).text(
        `${name} mcp: shells are ${describeContainment(status)}\n`,
        "cli_transcript",
      ),
    );
  }
  try {
    if (!plan.http) {
      if (io.terminal) {
        // A person at a terminal, not a client: say what this waits for.
        io.err(
          `${name} mcp: serving MCP over stdin/stdout, waiting for an MCP client's JSON-RPC messages.\n` +
            `  This command is meant to be started by an MCP client (Claude Desktop, Claude Code): see docs/mcp.md.\n` +
            `  To try it by hand: ${name} mcp --http, then point a client at the URL it prints. Ctrl-D or Ctrl-C ends it.\n`,
        );
      }
      await mcp.serveStdio();
      return 0;
    }
    const http = await mcp.serveHttp(plan.http);
    io.err(`${name} mcp: serving MCP at ${http.url}\n`);
    if (http.generatedToken) {
      io.err(
        `${name} mcp: a non-loopback address needs a token; clients must send\n  Authorization: Bearer ${http.generatedToken}\n(shown once; pass --token or BASHBOX_MCP_TOKEN to choose one)\n`,
      );
    }
    await stopSignal();
    io.err(`${name} mcp: shutting down\n`);
    return 0;
  } catch (error) {
    io.err(`${name} mcp: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await mcp.close();
  }
}

/** Resolves at the first SIGINT or SIGTERM. */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    for (const sig of ["SIGINT", "SIGTERM"]) onHostSignal(sig, () => resolve());
  });
}
