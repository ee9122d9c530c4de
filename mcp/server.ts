/**
 * An MCP server that gives any MCP client bashbox's bash: over stdio for
 * desktops and editors, over Streamable HTTP for agents that run where no
 * process can be spawned. Built on the official MCP TypeScript server package
 * (`@modelcontextprotocol/server`, loaded on first use, so importing this
 * module loads no npm package).
 *
 * One persistent {@linkcode BashSession} per MCP session, through a
 * {@linkcode SessionPool} (a bound on live shells, idle shells closed), closed
 * when the MCP session ends. Tools:
 *
 * - `bash`: the input of Anthropic's `bash_20250124` (`command`, `restart`)
 *   plus an optional `timeout` in seconds; results formatted as
 *   {@linkcode BashTool} formats them. Progress notifications while a command
 *   runs; a cancelled request interrupts the command as a deadline does; a
 *   command still running after `returnAfterMs` answers with a handle id.
 * - `bash_wait`: waits for such a command (`id`, `wait`, `interrupt`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BashMcp } from "./server.ts";
 *
 * await using mcp = new BashMcp({ timeoutMs: 30_000 });
 * const http = await mcp.serveHttp({ port: 0 });
 * assert.match(http.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
 * ```
 *
 * @module
 */

import { serveFetch } from "../runtime/serve.ts";
import { importNpm, unrefTimer } from "../runtime/host.ts";
import type {
  CallToolResult,
  McpServer,
  ServerContext,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { BashTool } from "../tools/bash.ts";
import { PROCESS_TOOLS } from "../tools/definitions.ts";
import { EditorTool, TEXT_EDITOR_TOOL } from "../tools/editor.ts";
import type { CommandPolicy } from "../tools/types.ts";
import type { AuditSink } from "../egress/audit.ts";
import { sanitize } from "../egress/format.ts";
import { Egress, messageOf } from "../egress/egress.ts";
import { delay } from "../runtime/_runtime.ts";
import { SessionPool } from "../core/pool.ts";
import {
  type ContainmentStatus,
  type ContainMode,
  describeContainment,
} from "../core/containment.ts";
import type { BashSession, BashSessionOptions } from "../core/session.ts";
export type { ContainmentStatus, ContainMode } from "../core/containment.ts";

export type { CommandPolicy, PolicyDecision } from "../tools/types.ts";
export type {
  AuditEnd,
  AuditRecord,
  AuditSink,
  AuditStart,
} from "../egress/audit.ts";
export type * from "../core/_session_types.ts";

/** The version the server reports to clients. */
const SERVER_VERSION = "0.1.0";
/** How often a running command reports progress. */
const PROGRESS_INTERVAL_MS = 1000;
/** An HTTP MCP session with no request for this long is forgotten. */
const SESSION_TTL_MS = 24 * 3600_000;
/** Characters of the last output line shown in progress and handles. */
const LAST_LINE_CHARS = 200;

/** Options of a {@linkcode BashMcp} server. */
export interface BashMcpOptions {
  /** Options of each MCP session's shell (cwd, env, sandbox, limits, transport, ...). */
  sessionOptions?: BashSessionOptions;
  /**
   * Default deadline of a command in milliseconds.
   *
   * @default {120000}
   */
  timeoutMs?: number;
  /**
   * The largest deadline a call may ask for with its `timeout` argument.
   *
   * @default {600000}
   */
  maxTimeoutMs?: number;
  /**
   * A command still running after this many milliseconds answers with a
   * handle id (polled with `bash_wait`) instead of holding the request, so a
   * client's own request time limit never drops a result.
   *
   * @default {50000}
   */
  returnAfterMs?: number;
  /**
   * Characters of output the model sees per command.
   *
   * @default {30000}
   */
  maxOutputChars?: number;
  /**
   * Judges each command; `ask` decisions go to the user through MCP
   * elicitation when the client supports it. A policy that promises
   * (`Policy.readOnly()`) has every shell contained (see `contain`).
   */
  policy?: CommandPolicy;
  /**
   * Containment of the shells for a policy that promises: "auto" (default)
   * where bubblewrap works, otherwise uncontained and said so in every
   * result's `_meta` and the tool description; "required": the constructor
   * throws where it cannot contain; false: never.
   */
  contain?: ContainMode;
  /** Applied to everything the model and the audit see (e.g. `redactor(env)`). */
  redact?: (text: string) => string;
  /** Receives a record before and after each command; `sessionId` is the MCP session id. */
  audit?: AuditSink;
  /** Where output cut for the model is kept in full (default: a private temp dir per session). */
  spillDir?: string | false;
  /**
   * Most live shells (MCP sessions beyond it get the least recently used
   * idle shell's slot; that session's next result says its shell was
   * restarted).
   *
   * @default {16}
   */
  maxSessions?: number;
  /**
   * A shell idle this long is closed (its session's next command starts a
   * fresh shell and says so).
   *
   * @default {600000}
   */
  idleMs?: number;
  /** Text added to the `bash` tool's description (e.g. what the policy allows). */
  instructions?: string;
  /**
   * Offer the text editor tool (`str_replace_based_edit_tool`: view, create,
   * str_replace, insert) on the same session and policy.
   *
   * @default {true}
   */
  editor?: boolean;
  /**
   * Offer the process tools (`process_start`, `process_read`,
   * `process_write`, `process_stop`, `process_list`) on the same session and
   * policy.
   *
   * @default {true}
   */
  processTools?: boolean;
}

/** Options of {@linkcode BashMcp.serveHttp}. */
export interface McpHttpOptions {
  /**
   * Address to listen on. Anything but a loopback address needs a bearer
   * token (one is generated when none is given).
   *
   * @default {"127.0.0.1"}
   */
  host?: string;
  /**
   * Port (0: any free port).
   *
   * @default {8765}
   */
  port?: number;
  /**
   * Bearer tokens accepted (`Authorization: Bearer <token>`); an MCP session
   * is bound to the token that opened it. Empty: no token on loopback, a
   * generated one otherwise.
   */
  tokens?: readonly string[];
  /**
   * Browser origins allowed besides localhost, matched by the MCP SDK's
   * `validateOriginHeader` (port-agnostic): host names (`app.example`,
   * `::1`), whole origins (`https://app.example:3000`, only the host name
   * counts), or `<scheme>://*` for every origin of a browser-extension scheme
   * (`moz-extension://*`). Requests without an `Origin` (non-browser
   * clients) pass; an unparsable one (`null`) is refused.
   */
  allowedOrigins?: readonly string[];
  /**
   * Largest request body in bytes.
   *
   * @default {4194304}
   */
  maxBodyBytes?: number;
  /**
   * Most MCP sessions kept at once (the least recently used idle one is
   * forgotten beyond it).
   *
   * @default {1024}
   */
  maxMcpSessions?: number;
}

/** A running HTTP server of {@linkcode BashMcp.serveHttp}. */
export interface McpHttpServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8765/mcp`. */
  readonly url: string;
  /** The port listened on. */
  readonly port: number;
  /** The token generated because none was given for a non-loopback address. */
  readonly generatedToken?: string;
  /** Stops listening and ends every MCP session. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------
// The SDK, loaded on first use.

interface Sdk {
  server: typeof import("@modelcontextprotocol/server");
  stdio: typeof import("@modelcontextprotocol/server/stdio");
  z: typeof import("zod");
}

let sdkPromise: Promise<Sdk> | undefined;

function loadSdk(): Promise<Sdk> {
  const whatFor = "The MCP server";
  sdkPromise ??= (async (): Promise<Sdk> => ({
    server: await importNpm(() => import("@modelcontextprotocol/server"), {
      specifier: "npm:@modelcontextprotocol/server@2.4.0",
      name: "@modelcontextprotocol/server",
      whatFor,
    }),
    stdio: await importNpm(
      () => import("@modelcontextprotocol/server/stdio"),
      {
        specifier: "npm:@modelcontextprotocol/server@2.4.0/stdio",
        name: "@modelcontextprotocol/server",
        whatFor,
      },
    ),
    z: await importNpm(() => import("zod"), {
      specifier: "npm:zod@4.6.7",
      name: "zod",
      whatFor,
    }),
  }))();
  return sdkPromise;
}

// ---------------------------------------------------------------------------
// One MCP session.

interface Job {
  id: string;
  command: string;
  started: number;
  timeoutMs: number;
  controller: AbortController;
  bytes: number;
  lastLine: string;
  partial: string;
  promise: Promise<CallToolResult>;
  done: CallToolResult | null;
  /** A request is waiting for the result (its cancellation interrupts the command). */
  attached: boolean;
}

class Conversation {
  /** The MCP session id ("" until the session is initialized). */
  id: string;
  tool: BashTool | null = null;
  editor: EditorTool | null = null;
  hadShell = false;
  job: Job | null = null;
  jobs = 0;
  /** The request being served, for elicitation. */
  ctx: ServerContext | null = null;
  server: McpServer | null = null;
  /** 2026-07-28 era: the user's answer about this command, from a retried call. */
  answered: { command: string; run: boolean } | null = null;
  closed = false;
  constructor(id: string) {
    this.id = id;
  }
}

/** An approval that had no one to ask (see tools/pipeline.ts). */
function unavailable(message: string): Error {
  const error = new Error(message);
  error.name = "ApprovalUnavailableError";
  return error;
}

/**
 * A result's text with the note that the shell's state was lost, after its
 * status line; unchanged when the result already says the shell restarted
 * (with what of its state was restored).
 */
function withLostNote(content: string): string {
  if (content.includes("\nThe shell was restarted")) return content;
  const nl = content.indexOf("\n");
  const head = nl === -1 ? content : content.slice(0, nl);
  const rest = nl === -1 ? "" : content.slice(nl);
  return `${head}\nThe shell was restarted: its state (working directory, variables, functions, background jobs) was lost.${rest}`;
}

function text(value: string, isError = false): CallToolResult {
  return isError
    ? { content: [{ type: "text", text: value }], isError: true }
    : { content: [{ type: "text", text: value }] };
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? `${s} s` : `${s.toFixed(1)} s`;
}

function firstLine(result: CallToolResult): string {
  const c = result.content[0];
  return c?.type === "text" ? c.text.split("\n", 1)[0] : "";
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** A Host header: a name or an address, and a port (no user, path or blank). */
const HOST_SYNTAX = /^(?:\[[0-9A-Fa-f:.]+\]|[^\s[\]:@/\\?#%]+)(?::\d{1,5})?$/;

/** The host name of a URL as the URL parser writes it ("" when no URL). */
function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}

/**
 * The allow-list `validateOriginHeader` (the SDK's) matches: the SDK's
 * localhost names and `allowedOrigins`, each written the way the URL parser
 * writes a hostname (lower case, punycode, IPv6 in brackets), so that
 * `Example.COM`, `::1` or a whole origin `https://app.example:3000` match
 * what browsers send. `<scheme>://*` (`moz-extension://*`) is kept as the SDK
 * reads it: every origin of that scheme.
 */
function originAllowList(
  sdk: Sdk,
  allowed: readonly string[] = [],
): string[] {
  const names = sdk.server.localhostAllowedOrigins();
  for (const entry of allowed) {
    const given = String(entry).trim();
    if (
      /^[a-z][a-z0-9+.-]*:\/\/\*$/i.test(given) && !/^https?:/i.test(given)
    ) {
      names.push(given.toLowerCase());
      continue;
    }
    const name = given.includes("://")
      ? hostnameOf(given)
      : hostnameOf(`http://${given}`) || hostnameOf(`http://[${given}]`);
    // "*" would match no browser: the SDK honours no wildcard for websites.
    if (name === "" || given === "" || name.includes("*")) {
      throw new RangeError(
        `Expected each allowed origin to be a host name, an origin or <scheme>://*, got ${
          JSON.stringify(entry)
        }`,
      );
    }
    names.push(name);
  }
  return names;
}

function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }),
    { status, headers: { "content-type": "application/json", ...headers } },
  );
}

async function digest(value: string): Promise<Uint8Array> {
  return new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)),
  );
}

/** Compares two SHA-256 digests in time independent of where they differ. */
function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** Reads at most `max` bytes of a body; null when it is larger. */
async function readBody(request: Request, max: number): Promise<string | null> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > max) return null;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all);
}

function positive(name: string, value: unknown, min = 1): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min) {
    throw new RangeError(
      `Expected ${name} to be a number of at least ${min}, got ${
        JSON.stringify(value)
      }`,
    );
  }
  return value;
}

interface HttpSession {
  conversation: Conversation;
  transport: WebStandardStreamableHTTPServerTransport;
  tokenDigest: Uint8Array | null;
  lastSeen: number;
}

/**
 * bashbox's bash as an MCP server. {@linkcode BashMcp.serveStdio} serves one
 * client over the process's stdin/stdout; {@linkcode BashMcp.serveHttp}
 * serves many over Streamable HTTP with sessions (`Mcp-Session-Id`), each
 * with its own shell. {@linkcode BashMcp.close} ends everything, killing
 * every process the shells started.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BashMcp } from "./server.ts";
 *
 * const mcp = new BashMcp({ maxSessions: 4, returnAfterMs: 20_000 });
 * const http = await mcp.serveHttp({ port: 0 });
 * const r = await fetch(http.url, { method: "PUT" });
 * assert.equal(r.status, 405);
 * await r.body?.cancel();
 * await mcp.close();
 * ```
 */
export class BashMcp {
  readonly #options: BashMcpOptions;
  readonly #pool: SessionPool;
  readonly #timeoutMs: number;
  readonly #maxTimeoutMs: number;
  readonly #returnAfterMs: number;
  readonly #conversations = new Set<Conversation>();
  readonly #closers = new Set<() => Promise<void>>();
  #closed = false;

  /**
   * Creates the server; nothing listens until a `serve` method is called.
   *
   * @throws {RangeError} For a bad duration, size or count.
   */
  constructor(options: BashMcpOptions = {}) {
    this.#options = { ...options };
    this.#timeoutMs = positive("timeoutMs", options.timeoutMs ?? 120_000);
    this.#maxTimeoutMs = positive(
      "maxTimeoutMs",
      options.maxTimeoutMs ?? Math.max(600_000, this.#timeoutMs),
    );
    if (this.#timeoutMs > this.#maxTimeoutMs) {
      throw new RangeError(
        `Expected timeoutMs (${this.#timeoutMs}) to be at most maxTimeoutMs (${this.#maxTimeoutMs})`,
      );
    }
    this.#returnAfterMs = positive(
      "returnAfterMs",
      options.returnAfterMs ?? 50_000,
    );
    const sessionOptions = options.sessionOptions ?? {};
    this.#pool = new SessionPool({
      max: options.maxSessions ?? 16,
      idleMs: options.idleMs ?? 600_000,
      sessionOptions: {
        ...sessionOptions,
        timeoutMs: sessionOptions.timeoutMs ?? this.#timeoutMs,
      },
      policy: options.policy,
      contain: options.contain,
    });
  }

  /**
   * Ends every MCP session, stops serving and closes every shell.
   *
   * @example
   * ```ts
   * import { BashMcp } from "./server.ts";
   *
   * const mcp = new BashMcp();
   * await mcp.close();
   * ```
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#closers].map((c) => c().catch(() => {})));
    await Promise.all(
      [...this.#conversations].map((c) => this.#endConversation(c)),
    );
    await this.#pool.close();
    await this.#options.audit?.close?.();
  }

  /** Same as {@linkcode BashMcp.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Serves one MCP client over this process's stdin and stdout (the client
   * started this process). Resolves when the client closes stdin; by then
   * the session's shell and everything it started are gone.
   *
   * @example
   * ```ts ignore
   * import { BashMcp } from "@bashbox/core/mcp";
   *
   * await using mcp = new BashMcp();
   * await mcp.serveStdio();
   * ```
   */
  async serveStdio(): Promise<void> {
    const sdk = await loadSdk();
    const conversation = this.#newConversation(`stdio-${crypto.randomUUID()}`);
    // node:process works on Deno and Bun alike; the SDK reads from it too.
    const { default: process } = await import("node:process");
    let closed = (): void => {};
    const ended = new Promise<void>((resolve) => {
      closed = resolve;
      process.stdin.once("end", () => resolve());
      process.stdin.once("close", () => resolve());
    });
    const transport = answeringBadLines(
      new sdk.stdio.StdioServerTransport(),
      () => closed(),
    );
    const handle = sdk.stdio.serveStdio(
      () => this.#newServer(sdk, conversation),
      { transport, onerror: () => {} },
    );
    await ended;
    await handle.close().catch(() => {});
    await this.close();
  }

  /**
   * Serves Streamable HTTP at `/mcp` with the runtime's own server
   * (`Deno.serve`, `Bun.serve`, or `node:http` on Node). Loopback by
   * default; a bearer token is required on any other address (generated
   * when none is given: see
   * {@linkcode McpHttpServer.generatedToken}); browsers' `Origin` is checked
   * against DNS rebinding; bodies are bounded; every refusal is a JSON-RPC
   * error with an HTTP status.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { BashMcp } from "./server.ts";
   *
   * await using mcp = new BashMcp();
   * const http = await mcp.serveHttp({ port: 0, tokens: ["s3cret-token-1234"] });
   * const r = await fetch(http.url, { method: "POST", body: "{}" });
   * assert.equal(r.status, 401);
   * await r.body?.cancel();
   * ```
   *
   * @throws {RangeError} For a bad port, size, token or allowed origin.
   */
  async serveHttp(options: McpHttpOptions = {}): Promise<McpHttpServer> {
    if (this.#closed) throw new TypeError("The MCP server is closed");
    const sdk = await loadSdk();
    const host = options.host ?? "127.0.0.1";
    const port = options.port ?? 8765;
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new RangeError(
        `Expected port to be a whole number from 0 to 65535, got ${port}`,
      );
    }
    const maxBody = positive("maxBodyBytes", options.maxBodyBytes ?? 4 << 20);
    const maxMcp = positive("maxMcpSessions", options.maxMcpSessions ?? 1024);
    const loopback = isLoopback(host);
    let tokens = [...(options.tokens ?? [])];
    for (const t of tokens) {
      if (typeof t !== "string" || t.length < 16 || /\s/.test(t)) {
        throw new RangeError(
          "Expected each token to be at least 16 characters without spaces",
        );
      }
    }
    let generatedToken: string | undefined;
    if (!loopback && tokens.length === 0) {
      const bytes = crypto.getRandomValues(new Uint8Array(32));
      generatedToken = btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
      tokens = [generatedToken];
    }
    const digests = await Promise.all(tokens.map(digest));
    // DNS rebinding protection is the SDK's (validateHostHeader,
    // validateOriginHeader); bashbox answers with its own sentences.
    const allowedHosts = sdk.server.localhostAllowedHostnames();
    const allowedOrigins = originAllowList(sdk, options.allowedOrigins);
    const sessions = new Map<string, HttpSession>();

    const endSession = async (id: string): Promise<void> => {
      const s = sessions.get(id);
      if (!s) return;
      sessions.delete(id);
      // The command in flight is stopped first, so its caller gets an answer
      // (ABORTED) before the streams close.
      await this.#endConversation(s.conversation);
      await delay(10).promise;
      await s.transport.close().catch(() => {});
    };
    const sweep = setInterval(() => {
      const now = Date.now();
      for (const [id, s] of sessions) {
        if (now - s.lastSeen > SESSION_TTL_MS && !s.conversation.job) {
          endSession(id);
        }
      }
    }, 60_000);
    unrefTimer(sweep);

    const handle = async (
      request: Request,
      gone: (listener: () => void) => void,
    ): Promise<Response> => {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        // (Deno hands on a Host with a blank; the URL it makes is no URL.)
        return rpcError(
          400,
          -32000,
          `Bad request: expected a valid Host header and path, got ${
            JSON.stringify(request.url.slice(0, 200))
          }`,
        );
      }
      if (loopback) {
        const hostHeader = request.headers.get("host");
        // The SDK's parser takes `user@host` as a URL would (the name after
        // the @ is checked): a Host is a name or address and a port only.
        const host = HOST_SYNTAX.test(hostHeader ?? "")
          ? sdk.server.validateHostHeader(hostHeader, allowedHosts)
          : { ok: false as const, errorCode: "invalid_host_header" as const };
        // The SDK's list names 127.0.0.1; the rest of 127.0.0.0/8 is
        // loopback too (a server bound to 127.0.0.2 is called by that name).
        if (
          !host.ok &&
          !(host.errorCode === "invalid_host" &&
            isLoopback(host.hostname ?? ""))
        ) {
          const malformed = host.errorCode !== "invalid_host";
          return rpcError(
            malformed ? 400 : 403,
            -32000,
            `${
              malformed ? "Bad request" : "Forbidden"
            }: expected a loopback Host header, got ${
              JSON.stringify((hostHeader ?? "").slice(0, 200))
            } (DNS rebinding protection)`,
          );
        }
      }
      if (url.pathname !== "/mcp") {
        return rpcError(
          404,
          -32000,
          `Not found: the MCP endpoint is /mcp, got ${url.pathname}`,
        );
      }
      const origin = sdk.server.validateOriginHeader(
        request.headers.get("origin"),
        allowedOrigins,
      );
      if (!origin.ok) {
        return rpcError(
          403,
          -32000,
          `Forbidden: Origin ${
            JSON.stringify((origin.originHeader ?? "").slice(0, 200))
          } is not allowed (DNS rebinding protection); allow it with --allow-origin`,
        );
      }
      let tokenDigest: Uint8Array | null = null;
      if (digests.length > 0) {
        const auth = request.headers.get("authorization") ?? "";
        const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
        const given = m ? await digest(m[1]) : null;
        tokenDigest = given && digests.find((d) => sameDigest(d, given)) ||
          null;
        if (!tokenDigest) {
          return rpcError(
            401,
            -32001,
            m
              ? "Unauthorized: the bearer token is not valid"
              : "Unauthorized: expected an Authorization: Bearer <token> header",
            { "www-authenticate": 'Bearer realm="bashbox"' },
          );
        }
      }
      const method = request.method;
      if (method !== "POST" && method !== "GET" && method !== "DELETE") {
        return rpcError(
          405,
          -32000,
          `Method not allowed: expected POST, GET or DELETE, got ${method}`,
          { allow: "POST, GET, DELETE" },
        );
      }
      const sessionId = request.headers.get("mcp-session-id");
      let session: HttpSession | undefined;
      if (sessionId !== null) {
        session = sessions.get(sessionId);
        if (!session) {
          return rpcError(
            404,
            -32001,
            "Session not found: it ended or expired; start a new session with initialize",
          );
        }
        if (
          session.tokenDigest !== null &&
          (tokenDigest === null ||
            !sameDigest(session.tokenDigest, tokenDigest))
        ) {
          return rpcError(
            403,
            -32000,
            "Forbidden: this MCP session belongs to another token",
          );
        }
        session.lastSeen = Date.now();
      }
      let parsedBody: unknown;
      if (method === "POST") {
        const body = await readBody(request, maxBody);
        if (body === null) {
          return rpcError(
            413,
            -32000,
            `Payload too large: expected a request body of at most ${maxBody} bytes`,
          );
        }
        try {
          parsedBody = JSON.parse(body);
        } catch (error) {
          return rpcError(
            400,
            -32700,
            `Parse error: the request body is not JSON (${messageOf(error)})`,
          );
        }
        const messages = Array.isArray(parsedBody) ? parsedBody : [parsedBody];
        const bad = messages.find((m) =>
          m === null || typeof m !== "object" || Array.isArray(m) ||
          (m as { jsonrpc?: unknown }).jsonrpc !== "2.0" ||
          (typeof (m as { method?: unknown }).method !== "string" &&
            !("result" in m) && !("error" in m))
        );
        if (messages.length === 0 || bad !== undefined) {
          return rpcError(
            400,
            -32600,
            `Invalid Request: expected JSON-RPC 2.0 messages with "jsonrpc": "2.0" and a "method", got ${
              JSON.stringify(bad ?? parsedBody).slice(0, 200)
            }`,
          );
        }
        if (!session) {
          const init = messages.some((m) =>
            (m as { method?: unknown }).method === "initialize"
          );
          if (!init) {
            return rpcError(
              400,
              -32000,
              "Bad Request: expected an initialize request first, or an Mcp-Session-Id header (this server keeps one shell per MCP session: it serves the session-based Streamable HTTP protocol, 2025-11-25 and earlier)",
            );
          }
        }
      } else if (!session) {
        return rpcError(
          400,
          -32000,
          `Bad Request: ${method} needs an Mcp-Session-Id header`,
        );
      }
      if (!session) {
        if (this.#closed) {
          return rpcError(503, -32000, "Service unavailable: shutting down");
        }
        if (sessions.size >= maxMcp) {
          const idle = [...sessions.entries()]
            .filter(([, s]) => !s.conversation.job)
            .sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
          if (!idle) {
            return rpcError(
              503,
              -32000,
              `Service unavailable: ${maxMcp} MCP sessions are busy`,
            );
          }
          await endSession(idle[0]);
        }
        const conversation = this.#newConversation("");
        const transport: WebStandardStreamableHTTPServerTransport = new sdk
          .server.WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          maxRequestBodySize: maxBody,
          // A comment frame a second on open streams: a client that went
          // away is noticed at the next write, and its command interrupted.
          keepAliveMs: 1000,
          onsessioninitialized: (id) => {
            conversation.id = id;
            sessions.set(id, {
              conversation,
              transport,
              tokenDigest,
              lastSeen: Date.now(),
            });
          },
          onsessionclosed: (id) => {
            endSession(id);
          },
        });
        const server = this.#newServer(sdk, conversation);
        await server.connect(transport);
        const response = await transport.handleRequest(request, {
          parsedBody,
        });
        if (transport.sessionId === undefined) {
          // The initialize failed: nothing to keep.
          await transport.close().catch(() => {});
          await this.#endConversation(conversation);
        }
        return response;
      }
      const detach = () => this.#detachedBy(session!.conversation, request);
      gone(detach);
      const response = await session.transport.handleRequest(request, {
        parsedBody,
      });
      return watchBody(response, detach);
    };

    const wrapped = async (
      request: Request,
      gone: (listener: () => void) => void,
    ): Promise<Response> => {
      try {
        return await handle(request, gone);
      } catch (error) {
        return rpcError(
          500,
          -32603,
          `Internal error: ${messageOf(error)}`,
        );
      }
    };

    const served = await serveFetch(
      {
        hostname: host,
        port,
        // Bun's own limit answers an empty 413 before the handler sees the
        // request: kept well above the handler's, so that a body over the
        // limit gets the JSON-RPC error (up to 64 MiB at least).
        maxBodyBytes: Math.max(maxBody * 2 + (1 << 20), 64 << 20),
      },
      wrapped,
    );
    const bound = served.port;
    const stop = served.stop;
    let closed: Promise<void> | null = null;
    const close = (): Promise<void> => {
      closed ??= (async () => {
        clearInterval(sweep);
        this.#closers.delete(close);
        await Promise.all([...sessions.keys()].map(endSession));
        await stop();
      })();
      return closed;
    };
    this.#closers.add(close);
    const shownHost = host.includes(":") ? `[${host}]` : host;
    return {
      url: `http://${shownHost}:${bound}/mcp`,
      port: bound,
      generatedToken,
      close,
    };
  }

  /** A client's HTTP request went away: a command it waited for is interrupted. */
  #detachedBy(conversation: Conversation, request: Request): void {
    const job = conversation.job;
    if (
      job && job.attached && (job as { request?: Request }).request === request
    ) {
      job.controller.abort();
    }
  }

  #newConversation(id: string): Conversation {
    const c = new Conversation(id);
    this.#conversations.add(c);
    return c;
  }

  async #endConversation(c: Conversation): Promise<void> {
    if (c.closed) return;
    c.closed = true;
    this.#conversations.delete(c);
    c.job?.controller.abort();
    await c.job?.promise.catch(() => {});
    await c.tool?.close().catch(() => {});
    if (c.id !== "") await this.#pool.end(c.id).catch(() => {});
  }

  #describe(): string {
    const o = this.#options;
    const maxChars = o.maxOutputChars ?? 30_000;
    const lines = [
      "Run a command in a persistent bash shell. State carries across calls: working directory, variables, functions and background jobs stay until restart.",
      "- stdin is /dev/null: commands that read input get end-of-file; pagers are cat. Do not start interactive programs.",
      `- Each command runs until it ends or its timeout: ${
        seconds(this.#timeoutMs)
      } by default, set \`timeout\` (seconds, at most ${
        this.#maxTimeoutMs / 1000
      }) for longer work. At the timeout the command is interrupted like Ctrl-C and the shell keeps its state.`,
      `- A command still running after ${
        seconds(this.#returnAfterMs)
      } answers with an id instead of its result: call bash_wait with that id to wait for it (or to interrupt it). Only one command runs at a time.`,
      `- The result starts with the status (Exit code N, TIMEOUT, ...), then the output: at most ${maxChars} characters, keeping the start and the end; when output was cut, the full output is saved to a file named in the result (read parts of it with sed -n or grep).`,
      "- restart: true kills the shell and everything it started and starts a fresh shell (send it without command).",
      o.processTools === false
        ? "- Run long-lived servers in the background with output redirected to a file: `server > log 2>&1 &`."
        : "- For servers, watchers and REPLs use process_start: read their output, type into them and stop them with the process tools.",
    ];
    if (o.policy) {
      lines.push(
        "- A policy judges every command; a refused command is not run and the result says why.",
      );
    }
    const containment = this.#containmentText();
    if (containment !== null) lines.push(`- The shell is ${containment}.`);
    if (o.instructions) lines.push(o.instructions);
    return lines.join("\n");
  }

  #newServer(sdk: Sdk, conversation: Conversation): McpServer {
    const { z } = sdk;
    const server = new sdk.server.McpServer(
      { name: "bashbox", version: SERVER_VERSION },
      { capabilities: { tools: {} } },
    );
    conversation.server = server;
    const maxTimeoutS = this.#maxTimeoutMs / 1000;
    const returnAfterS = this.#returnAfterMs / 1000;
    server.registerTool(
      "bash",
      {
        title: "Bash",
        description: this.#describe(),
        inputSchema: z.object({
          command: z.string().optional().describe(
            "The bash command to run; several lines, pipes and heredocs are fine.",
          ),
          restart: z.boolean().optional().describe(
            "true: kill the shell and everything it started, and start a fresh one. Send without command.",
          ),
          timeout: z.number().positive().max(maxTimeoutS).optional().describe(
            `Seconds before the command is interrupted (default ${
              this.#timeoutMs / 1000
            }, at most ${maxTimeoutS}).`,
          ),
        }),
        annotations: {
          title: "Bash",
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: true,
        },
      },
      (args, ctx) => this.#withMeta(this.#bash(conversation, args, ctx)),
    );
    server.registerTool(
      "bash_wait",
      {
        title: "Wait for a bash command",
        description:
          `Wait for a command that bash answered as still running (with an id), and get its result. Waits up to \`wait\` seconds (default and at most ${returnAfterS}); if the command is still running then, answers with its output so far and the same id, so call again. interrupt: true stops the command now, as a timeout would (the shell keeps its state), and returns its result. The command's own timeout still applies. Cancelling this call also interrupts the command.`,
        inputSchema: z.object({
          id: z.string().describe("The id bash answered with, e.g. c3."),
          wait: z.number().min(0).max(returnAfterS).optional().describe(
            `Most seconds to wait (default and at most ${returnAfterS}).`,
          ),
          interrupt: z.boolean().optional().describe(
            "true: stop the command now and return its result.",
          ),
        }),
        annotations: {
          title: "Wait for a bash command",
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
      },
      (args, ctx) => this.#withMeta(this.#wait(conversation, args, ctx)),
    );
    if (this.#options.editor !== false) {
      server.registerTool(
        TEXT_EDITOR_TOOL.name,
        {
          title: "Text editor",
          description:
            "View, create and edit text files through the bash session (absolute paths). view: a file with line numbers (view_range [first, last], -1 for the end) or a directory two levels deep. create: write file_text to a new file. str_replace: replace old_str, which must occur exactly once, with new_str. insert: put insert_text after line insert_line (0: at the top). Files must be UTF-8 text.",
          inputSchema: z.object({
            command: z.enum(["view", "create", "str_replace", "insert"])
              .describe("What to do."),
            path: z.string().describe(
              "Absolute path of the file or directory.",
            ),
            file_text: z.string().optional().describe("create: the content."),
            old_str: z.string().optional().describe(
              "str_replace: the exact text to replace (unique in the file).",
            ),
            new_str: z.string().optional().describe(
              "str_replace: the replacement (default empty).",
            ),
            insert_line: z.number().int().optional().describe(
              "insert: the line after which to insert (0: at the top).",
            ),
            insert_text: z.string().optional().describe(
              "insert: the text to insert.",
            ),
            view_range: z.array(z.number().int()).length(2).optional()
              .describe("view: [first, last] line, -1 for the end."),
          }),
          annotations: {
            title: "Text editor",
            readOnlyHint: false,
            destructiveHint: true,
            idempotentHint: false,
            openWorldHint: false,
          },
        },
        (args, ctx) =>
          this.#withMeta(
            this.#other(conversation, TEXT_EDITOR_TOOL.name, args, ctx),
          ),
      );
    }
    if (this.#options.processTools !== false) {
      for (const def of PROCESS_TOOLS) {
        const reads = def.name === "process_read" ||
          def.name === "process_list";
        server.registerTool(
          def.name,
          {
            title: def.name.replace("_", " "),
            description: def.description,
            inputSchema: z.fromJSONSchema(
              def.input_schema as Parameters<typeof z.fromJSONSchema>[0],
            ) as ReturnType<typeof z.object>,
            annotations: {
              title: def.name.replace("_", " "),
              readOnlyHint: reads,
              destructiveHint: !reads,
              idempotentHint: def.name === "process_list",
              openWorldHint: def.name === "process_start",
            },
          },
          (args, ctx) =>
            this.#withMeta(this.#other(conversation, def.name, args, ctx)),
        );
      }
    }
    return server;
  }

  /**
   * A call of the editor or a process tool: on the conversation's session,
   * after the command it may be running (it answers busy then, as bash does).
   */
  async #other(
    conversation: Conversation,
    name: string,
    args: Record<string, unknown>,
    ctx: ServerContext,
  ): Promise<CallToolResult> {
    if (conversation.closed || this.#closed) {
      return text("Error: the MCP session has ended", true);
    }
    const running = conversation.job;
    if (running && running.done === null) {
      return text(
        `Error: command ${running.id} is still running: wait for it with bash_wait {"id": "${running.id}"}, or stop it with {"id": "${running.id}", "interrupt": true}, before using ${name}`,
        true,
      );
    }
    if (ctx.mcpReq.signal.aborted) {
      return text("ABORTED: the call was cancelled before it started", true);
    }
    conversation.ctx = ctx;
    const lease = await this.#pool.acquire(conversation.id);
    try {
      const lost = await this.#attach(conversation, lease.session);
      const id = `${name}-${++conversation.jobs}`;
      const block = name === TEXT_EDITOR_TOOL.name
        ? await this.#editorOf(conversation, lease.session).handle({
          id,
          name,
          input: args,
        })
        : await conversation.tool!.handle({ id, name, input: args });
      return text(
        lost ? withLostNote(block.content) : block.content,
        block.is_error === true,
      );
    } catch (error) {
      return text(`Error: ${name} could not run: ${messageOf(error)}`, true);
    } finally {
      lease.release();
    }
  }

  /** Makes the conversation's tools use `session`; true when a shell it had was lost. */
  async #attach(
    conversation: Conversation,
    session: BashSession,
    restarting = false,
  ): Promise<boolean> {
    let lost = false;
    if (conversation.tool?.session !== session) {
      const old = conversation.tool;
      conversation.tool = this.#newTool(conversation, session);
      lost = conversation.hadShell && !restarting;
      await old?.close().catch(() => {});
    }
    conversation.hadShell = true;
    return lost;
  }

  #editorOf(conversation: Conversation, session: BashSession): EditorTool {
    if (conversation.editor?.session !== session) {
      conversation.editor = new EditorTool({
        ...this.#toolOptions(conversation, session),
        maxCharacters: this.#options.maxOutputChars,
      });
    }
    return conversation.editor;
  }

  #newTool(conversation: Conversation, session: BashSession): BashTool {
    return new BashTool({
      ...this.#toolOptions(conversation, session),
      maxOutputChars: this.#options.maxOutputChars,
      spillDir: this.#options.spillDir,
    });
  }

  /**
   * Whether the shells keep the policy's promise (see `BashTool.containment`);
   * null when the policy promises nothing and no sandbox was chosen.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { BashMcp } from "./server.ts";
   * import { Policy } from "../policy/mod.ts";
   *
   * const mcp = new BashMcp({ policy: Policy.readOnly(), contain: false });
   * assert.equal(mcp.containment?.contained, false);
   * await mcp.close();
   * ```
   */
  get containment(): ContainmentStatus | null {
    return this.#pool.containment;
  }

  /** The containment status in words, through the egress (it names paths and bwrap's own error). */
  #containmentText(): string | null {
    const status = this.#pool.containment;
    return status === null ? null : new Egress(this.#options.redact).text(
      describeContainment(status),
      "mcp_content",
    );
  }

  /** A result with the containment status in `_meta` (every result says it). */
  async #withMeta(result: Promise<CallToolResult>): Promise<CallToolResult> {
    const r = await result;
    const status = this.#pool.containment;
    const text = this.#containmentText();
    if (status === null || text === null) return r;
    return {
      ...r,
      _meta: {
        ...r._meta,
        "bashbox/contained": status.contained,
        "bashbox/containment": text,
      },
    };
  }

  /** What the bash tool and the editor of a conversation share. */
  #toolOptions(conversation: Conversation, session: BashSession): {
    session: BashSession;
    sessionId: string;
    policy?: CommandPolicy;
    contain?: ContainMode;
    onAsk: (command: string, reason: string) => Promise<boolean>;
    redact?: (text: string) => string;
    audit?: AuditSink;
    timeoutMs: number;
  } {
    const o = this.#options;
    return {
      session,
      sessionId: conversation.id,
      policy: o.policy,
      contain: o.contain,
      onAsk: (command, reason) => this.#ask(conversation, command, reason),
      redact: o.redact,
      audit: o.audit
        ? { write: (record) => o.audit!.write(record) } // closed by BashMcp
        : undefined,
      timeoutMs: this.#timeoutMs,
    };
  }

  /** Puts an `ask` decision to the user through elicitation. */
  async #ask(
    conversation: Conversation,
    command: string,
    reason: string,
  ): Promise<boolean> {
    const answered = conversation.answered;
    conversation.answered = null;
    if (answered !== null && answered.command === command) return answered.run;
    const ctx = conversation.ctx;
    const caps = conversation.server?.server.getClientCapabilities();
    if (ctx && isModern(ctx)) {
      throw unavailable(
        "the MCP client did not answer the question about this command, so it was not run",
      );
    }
    if (!ctx || !caps?.elicitation) {
      throw unavailable(
        "the MCP client cannot ask the user (it does not support elicitation), so the command was not run",
      );
    }
    const shown = new Egress(this.#options.redact).text(
      command,
      "mcp_content",
    );
    const answer = await ctx.mcpReq.elicitInput({
      mode: "form",
      message: askMessage(shown, reason),
      requestedSchema: ASK_SCHEMA,
    });
    if (answer.action !== "accept") return false;
    return answer.content?.run === true;
  }

  /**
   * On a 2026-07-28 connection, an `ask` decision becomes an input_required
   * result holding an elicitation; the retried call carries the answer, kept
   * for `#ask`. Null when the command can go on to `BashTool`.
   */
  async #askModern(
    conversation: Conversation,
    command: string,
    ctx: ServerContext,
  ): Promise<CallToolResult | null> {
    let verdict;
    try {
      verdict = this.#options.policy!.check(command, {
        contained: this.#pool.containment?.contained === true,
      });
    } catch {
      return null; // BashTool reports the failing policy
    }
    if (verdict?.decision !== "ask") return null;
    const sdk = await loadSdk();
    const responses = ctx.mcpReq.inputResponses;
    if (responses && "approve" in responses) {
      const content = sdk.server.acceptedContent(responses, "approve");
      conversation.answered = { command, run: content?.run === true };
      return null;
    }
    const envelope = ctx.mcpReq.envelope as
      | Record<string, { elicitation?: unknown } | undefined>
      | undefined;
    const caps = envelope?.["io.modelcontextprotocol/clientCapabilities"] ??
      conversation.server?.server.getClientCapabilities();
    if (!caps?.elicitation) return null; // refused by #ask with the reason
    const shown = new Egress(this.#options.redact).text(
      command,
      "mcp_content",
    );
    return sdk.server.inputRequired({
      inputRequests: {
        approve: sdk.server.inputRequired.elicit({
          message: askMessage(shown, verdict.reason),
          requestedSchema: ASK_SCHEMA,
        }),
      },
    }) as unknown as CallToolResult;
  }

  async #bash(
    conversation: Conversation,
    args: { command?: string; restart?: boolean; timeout?: number },
    ctx: ServerContext,
  ): Promise<CallToolResult> {
    if (conversation.closed || this.#closed) {
      return text("Error: the MCP session has ended", true);
    }
    if (args.restart === true && args.command !== undefined) {
      return text(
        'Error: expected either {"command": string} or {"restart": true}, got both',
        true,
      );
    }
    if (args.restart !== true && args.command === undefined) {
      return text(
        'Error: expected input {"command": string} or {"restart": true}, got neither',
        true,
      );
    }
    let note = "";
    const arrived = performance.now();
    for (;;) {
      const running = conversation.job;
      if (!running) break;
      if (running.done !== null) {
        // Attached: its own call is delivering the result right now.
        if (!running.attached) {
          note =
            `(Command ${running.id}, answered earlier as still running, has finished: ${
              firstLine(running.done)
            }. Its output was not collected.)\n`;
        }
        conversation.job = null;
        break;
      }
      if (args.restart === true || running.controller.signal.aborted) {
        // A restart stops it; a cancelled or interrupted one is ending.
        running.controller.abort();
        await running.promise;
        if (conversation.job === running) conversation.job = null;
        continue;
      }
      if (ctx.mcpReq.signal.aborted) {
        return text("ABORTED: the call was cancelled before it started", true);
      }
      const waited = performance.now() - arrived;
      if (running.attached && waited < this.#returnAfterMs) {
        // Another call of this session is waiting for its command (calls
        // sent together): run after it, as the model sent them.
        await Promise.race([running.promise, delay(50).promise]);
        continue;
      }
      return text(
        `Error: command ${running.id} is still running (${
          seconds(
            Math.round((performance.now() - running.started) / 1000) * 1000,
          )
        } so far): wait for it with bash_wait {"id": "${running.id}"}, or stop it with {"id": "${running.id}", "interrupt": true}, before running another command`,
        true,
      );
    }
    if (
      args.command !== undefined && this.#options.policy && isModern(ctx)
    ) {
      // The 2026-07-28 revision asks by answering input_required; the client
      // retries the call with the user's answer.
      const asked = await this.#askModern(conversation, args.command, ctx);
      if (asked !== null) return asked;
    }
    const input = args.restart === true
      ? { restart: true }
      : { command: args.command };
    const timeoutMs = args.timeout !== undefined
      ? Math.round(args.timeout * 1000)
      : this.#timeoutMs;
    const job = this.#start(conversation, input, timeoutMs, ctx);
    const result = await this.#await(
      conversation,
      job,
      ctx,
      this.#returnAfterMs,
    );
    if (note === "") return result;
    const first = result.content[0];
    if (first?.type === "text") {
      return {
        ...result,
        content: [
          { type: "text", text: note + first.text },
          ...result.content.slice(1),
        ],
      };
    }
    return result;
  }

  async #wait(
    conversation: Conversation,
    args: { id: string; wait?: number; interrupt?: boolean },
    ctx: ServerContext,
  ): Promise<CallToolResult> {
    const job = conversation.job;
    if (!job || job.id !== args.id) {
      return text(
        `Error: expected the id of a command still running, got ${
          JSON.stringify(args.id)
        }: ${
          job
            ? `the command waiting is ${job.id}`
            : "no command is waiting (its result was already returned, or the id is wrong)"
        }`,
        true,
      );
    }
    if (args.interrupt === true) job.controller.abort();
    const waitMs = args.wait !== undefined
      ? Math.round(args.wait * 1000)
      : this.#returnAfterMs;
    return await this.#await(conversation, job, ctx, waitMs);
  }

  /** Starts a command as a job of the conversation. */
  #start(
    conversation: Conversation,
    input: { command?: string; restart?: boolean },
    timeoutMs: number,
    ctx: ServerContext,
  ): Job {
    const id = `c${++conversation.jobs}`;
    const job: Job = {
      id,
      command: input.command ?? "(restart)",
      started: performance.now(),
      timeoutMs,
      controller: new AbortController(),
      bytes: 0,
      lastLine: "",
      partial: "",
      promise: Promise.resolve(text("")),
      done: null,
      attached: false,
    };
    const decoder = new TextDecoder();
    const onOutput = (chunk: Uint8Array): void => {
      job.bytes += chunk.length;
      const tail = chunk.length > 4096
        ? chunk.subarray(chunk.length - 4096)
        : chunk;
      const s = job.partial + decoder.decode(tail, { stream: true });
      const lines = s.split("\n");
      job.partial = lines.pop()!.slice(-4096);
      for (let i = lines.length - 1; i >= 0; i--) {
        if (lines[i].trim() !== "") {
          job.lastLine = lines[i].slice(-4096);
          break;
        }
      }
    };
    conversation.job = job;
    conversation.ctx = ctx;
    job.promise = (async (): Promise<CallToolResult> => {
      const lease = await this.#pool.acquire(conversation.id);
      try {
        const lost = await this.#attach(
          conversation,
          lease.session,
          input.restart === true,
        );
        if (job.controller.signal.aborted) {
          return text(
            "ABORTED: the command was cancelled before it started",
            true,
          );
        }
        const block = await conversation.tool!.handle(
          { id, name: "bash", input },
          {
            timeoutMs,
            signal: job.controller.signal,
            onOutput: (chunk) => {
              try {
                onOutput(chunk);
              } catch {
                // progress is best effort
              }
            },
          },
        );
        return text(
          lost ? withLostNote(block.content) : block.content,
          block.is_error === true,
        );
      } finally {
        lease.release();
      }
    })().catch((error) =>
      text(`Error: the command could not run: ${messageOf(error)}`, true)
    ).then((r) => {
      job.done = r;
      return r;
    });
    return job;
  }

  /** Waits for a job up to `windowMs`, reporting progress; a cancelled request interrupts it. */
  async #await(
    conversation: Conversation,
    job: Job,
    ctx: ServerContext,
    windowMs: number,
  ): Promise<CallToolResult> {
    conversation.ctx = ctx;
    job.attached = true;
    (job as { request?: Request }).request = ctx.http?.req;
    const signal = ctx.mcpReq.signal;
    const token = ctx.mcpReq._meta?.progressToken;
    let ticks = 0;
    const progress = token === undefined ? undefined : setInterval(() => {
      ticks++;
      const line = this.#lastLine(job);
      ctx.mcpReq.notify({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress: ticks,
          message: `${job.id} running for ${
            seconds(Math.round((performance.now() - job.started) / 1000) * 1000)
          }, ${job.bytes} bytes of output${line ? `; last line: ${line}` : ""}`,
        },
      }).catch(() => {});
    }, PROGRESS_INTERVAL_MS);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      if (job.attached) job.controller.abort();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    try {
      const winner = await Promise.race([
        job.promise,
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), windowMs);
        }),
      ]);
      if (winner !== null) {
        if (conversation.job === job) conversation.job = null;
        return winner;
      }
      if (job.controller.signal.aborted) {
        const r = await job.promise;
        if (conversation.job === job) conversation.job = null;
        return r;
      }
      const line = this.#lastLine(job);
      return text(
        `STILL RUNNING: command ${job.id} has run for ${
          seconds(Math.round((performance.now() - job.started) / 1000) * 1000)
        } and goes on (it is interrupted at its timeout of ${
          seconds(job.timeoutMs)
        }). Output so far: ${job.bytes} bytes${
          line ? `; last line: ${line}` : ""
        }.\nCall bash_wait with {"id": "${job.id}"} to wait for its result, or {"id": "${job.id}", "interrupt": true} to stop it. Other commands must wait until it ends.`,
      );
    } finally {
      job.attached = false;
      (job as { request?: Request }).request = undefined;
      signal.removeEventListener("abort", onAbort);
      if (timer !== undefined) clearTimeout(timer);
      if (progress !== undefined) clearInterval(progress);
    }
  }

  #lastLine(job: Job): string {
    // Sanitised, then redacted whole before the cut (no part of a secret).
    const line = new Egress(this.#options.redact).text(
      sanitize(job.lastLine).replace(/\n/g, " ").trim(),
      "mcp_content",
    );
    return line.length > LAST_LINE_CHARS
      ? "…" + line.slice(line.length - LAST_LINE_CHARS)
      : line;
  }
}

/**
 * The stdio transport, answering a line that is JSON but not a JSON-RPC
 * message with `-32600` (id null) instead of dropping it silently (the SDK
 * skips lines that are not JSON at all, such as stray log output), and
 * saying so before the SDK closes the connection over a message larger than
 * its read buffer (10 MB). `onClose` runs when the transport closes.
 */
function answeringBadLines<
  T extends {
    onerror?: (error: Error) => void;
    onclose?: () => void;
    send(message: never): Promise<void>;
  },
>(transport: T, onClose: () => void): T {
  let theirs: ((error: Error) => void) | undefined;
  let theirClose: (() => void) | undefined;
  Object.defineProperty(transport, "onclose", {
    configurable: true,
    get: () => () => {
      theirClose?.();
      onClose();
    },
    set: (f: (() => void) | undefined) => {
      theirClose = f;
    },
  });
  const ours = (error: Error): void => {
    const answer = (code: number, message: string) =>
      transport.send(
        { jsonrpc: "2.0", id: null, error: { code, message } } as never,
      ).catch(() => {});
    if (/exceeded maximum size/.test(String(error?.message))) {
      answer(
        -32600,
        `Request too large: ${error.message}; the connection is closed`,
      );
    } else if (error?.name === "ZodError" || error?.name === "$ZodError") {
      answer(
        -32600,
        'Invalid Request: expected a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0" and a "method", or a response)',
      );
    }
    theirs?.(error);
  };
  Object.defineProperty(transport, "onerror", {
    configurable: true,
    get: () => ours,
    set: (f: ((error: Error) => void) | undefined) => {
      theirs = f;
    },
  });
  return transport;
}

/** The response with its body stream watched: `onCancel` runs when the client stops reading it. */
function watchBody(response: Response, onCancel: () => void): Response {
  const body = response.body;
  if (!body) return response;
  const reader = body.getReader();
  const watched = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel(reason) {
      onCancel();
      return reader.cancel(reason);
    },
  });
  return new Response(watched, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** The form an `ask` decision puts to the user. */
const ASK_SCHEMA = {
  type: "object" as const,
  properties: {
    run: {
      type: "boolean" as const,
      title: "Run this command",
      description: "Check to let the command run once",
    },
  },
  required: ["run"],
};

function askMessage(command: string, reason: string): string {
  return `The model wants to run this command:\n\n${command}\n\n${reason}`;
}

/** Whether a request came on a 2026-07-28 connection (it carries the per-request envelope). */
function isModern(ctx: ServerContext): boolean {
  return ctx.mcpReq.envelope !== undefined;
}
