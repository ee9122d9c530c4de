/**
 * The bash tool's handler, provider-neutral: {@linkcode BashTool} turns tool
 * calls (`tool_use` blocks, MCP calls, CLI lines) into `tool_result` blocks
 * through a persistent {@linkcode BashSession}, and answers the process tools
 * on the same session. Every call goes through the tool pipeline (policy,
 * audit, egress); spill files keep what was cut.
 *
 * @module
 */

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
import { cutText, describeValue, Egress, messageOf } from "../egress/egress.ts";
import { type Executed, ToolPipeline, toolUsesOf } from "./pipeline.ts";
import type { CommandPolicy, ToolUseLike } from "./types.ts";
import { BASH_TOOL, PROCESS_TOOL_NAMES } from "./definitions.ts";
import type { AuditSink } from "../egress/audit.ts";
import {
  DEFAULT_MAX_CHARS,
  errorToolResult,
  spillNeeds,
  type ToolResultBlock,
} from "../egress/format.ts";
import { toToolResult } from "./result.ts";
import type { StreamRedactor } from "../egress/redact.ts";
import type { Sandbox } from "../core/sandbox.ts";
import {
  type ContainmentStatus,
  type ContainMode,
  containSession,
  sessionContainment,
} from "../core/containment.ts";
import {
  type BackgroundProcess,
  BashSession,
  type BashSessionOptions,
  type ProcessOutput,
  type SessionResult,
  type Transport,
} from "../core/session.ts";
export type {
  Containment,
  ContainmentStatus,
  ContainMode,
} from "../core/containment.ts";

export type * from "../core/_session_types.ts";
export type { ToolResultBlock } from "../egress/format.ts";
export type { CommandPolicy, PolicyDecision, ToolUseLike } from "./types.ts";
export type {
  AuditEnd,
  AuditRecord,
  AuditSink,
  AuditStart,
} from "../egress/audit.ts";

/** Longest wait a process tool may ask for, in milliseconds. */
const PROCESS_MAX_WAIT_MS = 30_000;
/** Wait for first output after process_start, by default. */
const PROCESS_START_WAIT_MS = 1000;

/** Options for {@linkcode BashTool}. */
export interface BashToolOptions {
  /** The session to use (not closed by the tool); default: a new one it owns. */
  session?: BashSession;
  /**
   * Options for the session the tool creates. With a policy that promises
   * (`policy.promise`, as `Policy.readOnly()` does) and no `sandbox` or
   * `transport` here, the session is contained: it runs in a bubblewrap
   * sandbox that keeps the promise (see `contain`).
   */
  sessionOptions?: BashSessionOptions;
  /**
   * Containment of the session for a policy that promises (default "auto":
   * contained where bubblewrap works, otherwise uncontained and reported as
   * such in `containment` and the audit). "required": refuse to run
   * uncontained (the constructor throws). false: never contain.
   */
  contain?: ContainMode;
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

/** Per-call options of {@linkcode BashTool.handle}, for hosts that run a call on behalf of another protocol (such as MCP). */
export interface HandleOptions {
  /** Deadline of this command in milliseconds (default: the tool's `timeoutMs`). */
  timeoutMs?: number;
  /** Stops the command the way a deadline does; its result says ABORTED. */
  signal?: AbortSignal;
  /** Called with every chunk the command prints, after the tool's own spill handling. */
  onOutput?: (chunk: Uint8Array, stream: "stdout" | "stderr") => void;
}

const DEFAULT_SPILL_MAX_BYTES = 64 * 1024 * 1024;

/** Where one stream's spill file went, or why it could not be kept. */
interface SpillOutcome {
  path?: string;
  cappedAt?: number;
  error?: string;
}

/**
 * Collects one stream of a command into a spill file once it outgrows the
 * model's budget. Never throws: a write that fails (the directory was
 * deleted, the disk is full) ends the spill and is reported by `finish`.
 */
class Spill {
  readonly #threshold: number;
  readonly #max: number;
  readonly #create: () => { path: string; fd: number };
  readonly #redact: StreamRedactor | null;
  readonly #decoder = new TextDecoder();
  readonly #encoder = new TextEncoder();
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #fd: number | null = null;
  #written = 0;
  #path: string | null = null;
  #capped = false;
  #error: string | null = null;

  constructor(
    threshold: number,
    max: number,
    create: () => { path: string; fd: number },
    redact: StreamRedactor | null,
  ) {
    this.#threshold = threshold;
    this.#max = max;
    this.#create = create;
    this.#redact = redact;
  }

  add(chunk: Uint8Array): void {
    if (this.#error !== null || this.#capped) return;
    try {
      if (this.#fd === null) {
        this.#chunks.push(chunk);
        this.#buffered += chunk.length;
        if (this.#buffered > this.#threshold) this.#open();
        return;
      }
      this.#write(chunk);
    } catch (error) {
      this.#fail(error);
    }
  }

  #open(): void {
    const { path, fd } = this.#create();
    this.#path = path;
    this.#fd = fd;
    const chunks = this.#chunks;
    this.#chunks = [];
    for (const c of chunks) this.#write(c);
  }

  #write(chunk: Uint8Array, last = false): void {
    let bytes = chunk;
    if (this.#redact) {
      const text = last
        ? this.#redact.push(this.#decoder.decode(chunk)) + this.#redact.flush()
        : this.#redact.push(this.#decoder.decode(chunk, { stream: true }));
      bytes = this.#encoder.encode(text);
    }
    if (this.#capped) return;
    const room = this.#max - this.#written;
    const part = bytes.length > room ? bytes.subarray(0, room) : bytes;
    let offset = 0;
    while (offset < part.length) {
      offset += writeSync(this.#fd!, part, offset, part.length - offset);
    }
    this.#written += part.length;
    if (part.length < bytes.length) this.#capped = true;
  }

  #fail(error: unknown): void {
    this.#error = messageOf(error);
    this.#chunks = [];
    if (this.#fd !== null) {
      try {
        closeSync(this.#fd);
      } catch { /* already reported */ }
      this.#fd = null;
    }
    if (this.#path !== null) {
      try {
        rmSync(this.#path, { force: true });
      } catch { /* the directory may be gone */ }
      this.#path = null;
    }
  }

  /** Ends the spill; keeps the file only when `keep`. */
  finish(keep: boolean): SpillOutcome {
    if (this.#error === null) {
      try {
        if (keep && this.#fd === null && this.#buffered > 0) this.#open();
        if (this.#fd !== null) {
          this.#write(new Uint8Array(0), true);
          closeSync(this.#fd);
          this.#fd = null;
        }
      } catch (error) {
        this.#fail(error);
      }
    }
    this.#chunks = [];
    if (!keep) {
      this.#fail("not needed");
      return {};
    }
    if (this.#error !== null) return { error: this.#error };
    if (this.#path === null) return {};
    return {
      path: this.#path,
      ...(this.#capped ? { cappedAt: this.#max } : {}),
    };
  }
}

/** Directories a sandbox hides from the host's view (bwrap mounts its own). */
const SANDBOX_HIDDEN = ["/tmp", "/dev", "/proc"];

function under(path: string, dir: string): boolean {
  const d = dir.endsWith("/") ? dir : dir + "/";
  return path === dir || path.startsWith(d);
}

/**
 * Whether a host path is visible at the same path inside a bwrap sandbox:
 * under a bound path, or anywhere on the read-only root except the places
 * the sandbox mounts anew (`/tmp`, `/dev`, `/proc`).
 */
function visibleInSandbox(path: string, sandbox: Sandbox): boolean {
  const bound = [
    sandbox.workdir,
    ...(sandbox.writable ?? []),
    ...(sandbox.readable ?? []),
  ];
  if (bound.some((d) => under(path, d))) return true;
  return !SANDBOX_HIDDEN.some((d) => under(path, d));
}

/** What the model is told about a spill file that commands cannot read. */
const HOST_ONLY_HINT =
  "that file is on the host, not where commands run: to see another part, run the command again with a filter such as | head -n, | tail -n, | grep or | sed -n";

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
 * Calls run one at a time in the order `handle` was called, each whole
 * (policy, approval, audit, run, format), so concurrent callers such as the
 * SDK's tool runner see the commands run in the order the model sent them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BashTool } from "../mod.ts";
 *
 * await using tool = new BashTool();
 * const block = await tool.handle({ id: "toolu_1", name: "bash", input: { command: "echo hi" } });
 * assert.equal(block.content, "Exit code 0\nhi\n");
 * assert.equal(block.is_error, undefined);
 * ```
 */
export class BashTool {
  readonly #session: BashSession;
  readonly #ownsSession: boolean;
  readonly #containment: ContainmentStatus | null;
  readonly #options: BashToolOptions;
  readonly #maxChars: number;
  readonly #sessionId: string;
  readonly #egress: Egress;
  readonly #pipeline: ToolPipeline;
  #spillDir: string | null = null;
  #spillCount = 0;
  #cwd: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  /** Creates the tool; the shell starts with the first command. */
  constructor(options: BashToolOptions = {}) {
    this.#options = { ...options };
    const promise = options.policy?.promise ?? null;
    if (options.session !== undefined) {
      this.#session = options.session;
      this.#containment = sessionContainment(
        promise,
        options.session,
        options.contain,
      );
    } else {
      const contained = containSession(
        promise,
        options.sessionOptions ?? {},
        options.contain,
      );
      this.#session = new BashSession(contained.options);
      this.#containment = contained.status;
    }
    this.#ownsSession = options.session === undefined;
    this.#maxChars = options.maxOutputChars ?? DEFAULT_MAX_CHARS;
    if (!Number.isInteger(this.#maxChars) || this.#maxChars < 100) {
      throw new RangeError(
        `Expected maxOutputChars to be a whole number of at least 100, got ${this.#maxChars}`,
      );
    }
    const spillMax = options.spillMaxBytes ?? DEFAULT_SPILL_MAX_BYTES;
    if (!Number.isInteger(spillMax) || spillMax < 1) {
      throw new RangeError(
        `Expected spillMaxBytes to be a positive whole number, got ${spillMax}`,
      );
    }
    this.#sessionId = options.sessionId ?? crypto.randomUUID();
    this.#egress = new Egress(options.redact);
    this.#pipeline = new ToolPipeline({
      policy: options.policy,
      onAsk: options.onAsk,
      audit: options.audit,
      egress: this.#egress,
      sessionId: this.#sessionId,
    });
  }

  /** The session commands run in. */
  get session(): BashSession {
    return this.#session;
  }

  /**
   * Whether the session keeps the policy's promise: `{ contained: true,
   * sandbox }`, `{ contained: false, reason }` (the policy is then best
   * effort), or null when the policy promises nothing and no sandbox was
   * chosen. `describeContainment` puts it in words.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { BashTool, Policy } from "../mod.ts";
   *
   * await using tool = new BashTool({ policy: Policy.readOnly(), contain: false });
   * assert.equal(tool.containment?.contained, false);
   * ```
   */
  get containment(): ContainmentStatus | null {
    return this.#containment;
  }

  /** The id audit records carry. */
  get sessionId(): string {
    return this.#sessionId;
  }

  /**
   * Answers one `tool_use` block. Never throws for a block with an id: bad
   * input, a refusal, and a failing policy, approval callback, audit sink,
   * redactor or spill directory are all answered with `is_error: true` and
   * the reason. Throws a `TypeError` only when `toolUse` has no string `id` to
   * answer to.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { BashTool } from "../mod.ts";
   *
   * await using tool = new BashTool();
   * const bad = await tool.handle({ id: "toolu_2", name: "bash", input: { cmd: "ls" } });
   * assert.equal(bad.is_error, true);
   * ```
   */
  handle(
    toolUse: ToolUseLike,
    options: HandleOptions = {},
  ): Promise<ToolResultBlock> {
    if (
      toolUse === null || typeof toolUse !== "object" ||
      typeof toolUse.id !== "string" || toolUse.id === ""
    ) {
      return Promise.reject(
        new TypeError(
          `Expected a tool_use block with a string id, got ${
            cutText(describeValue(toolUse), 200)
          }`,
        ),
      );
    }
    const id = toolUse.id;
    let name: unknown;
    let input: unknown;
    try {
      name = toolUse.name;
      input = toolUse.input;
    } catch (error) {
      return Promise.resolve(
        errorToolResult(
          id,
          `Could not read the tool_use block: ${messageOf(error)}`,
        ),
      );
    }
    const result = this.#queue.then(() =>
      this.#answer(id, name, input, options)
    );
    this.#queue = result.catch(() => {});
    return result;
  }

  /** One whole call; never throws. */
  async #answer(
    id: string,
    name: unknown,
    input: unknown,
    options: HandleOptions,
  ): Promise<ToolResultBlock> {
    try {
      return await this.#dispatch(id, name, input, options);
    } catch (error) {
      return errorToolResult(
        id,
        this.#egress.quoted(
          `The call failed: ${messageOf(error)}`,
          [],
          "error_echo",
        ),
      );
    }
  }

  async #dispatch(
    id: string,
    name: unknown,
    input: unknown,
    options: HandleOptions,
  ): Promise<ToolResultBlock> {
    if (typeof name === "string" && PROCESS_TOOL_NAMES.has(name)) {
      return await this.#processCall(id, name, input);
    }
    if (name !== undefined && name !== BASH_TOOL.name) {
      return errorToolResult(
        id,
        `Expected a call of the "bash" tool or a process tool, got "${
          String(name)
        }"`,
      );
    }
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
      return errorToolResult(
        id,
        `Expected input {"command": string} or {"restart": true}, got ${
          this.#egress.echo(input, 200)
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
          this.#egress.echo(input, 200)
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
    if (this.#closed || this.#session.closed) {
      return errorToolResult(
        id,
        "The session is closed: the command was not run",
      );
    }
    return await this.#run(id, command, options);
  }

  /**
   * Answers every `bash` tool call of one assistant message, in order, in the
   * same session; the blocks form the content of the next `user` message.
   * Tool calls of other tools are left to the caller.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { BashTool } from "../mod.ts";
   *
   * await using tool = new BashTool();
   * const results = await tool.handleAll({
   *   content: [
   *     { type: "tool_use", id: "a", name: "bash", input: { command: "cd /tmp" } },
   *     { type: "tool_use", id: "b", name: "bash", input: { command: "pwd" } },
   *   ],
   * });
   * assert.equal(results[1].content, "Exit code 0\n/tmp\n");
   * ```
   */
  async handleAll(
    message: { content: readonly unknown[] },
  ): Promise<ToolResultBlock[]> {
    const results: ToolResultBlock[] = [];
    for (const use of toolUsesOf(message)) {
      if (use.name === BASH_TOOL.name || PROCESS_TOOL_NAMES.has(use.name)) {
        results.push(await this.handle(use));
      }
    }
    return results;
  }

  /**
   * Kills the shell and everything it started, then starts a fresh one; runs
   * after the calls already waiting.
   */
  restart(): Promise<void> {
    const done = this.#queue.then(() => this.#restartSession());
    this.#queue = done.catch(() => {});
    return done;
  }

  async #restartSession(): Promise<void> {
    await this.#session.restart();
    this.#cwd = undefined;
  }

  /**
   * Closes the session (when the tool created it; a command in flight is
   * stopped and its result says so) and removes the default spill directory.
   * Calls made after it are answered with an error.
   */
  async close(): Promise<void> {
    this.#closed = true;
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

  /** Redacts a text the model or the audit sees (the whole, before any cut). */
  #redact(text: string): string {
    return this.#egress.redact(text);
  }

  async #restart(id: string): Promise<ToolResultBlock> {
    return await this.#pipeline.call({
      id,
      command: "(restart)",
      refusal: (reason) => `Error: The restart was refused: ${reason}`,
      failure: (error) =>
        `Error: Could not restart the shell: ${messageOf(error)}`,
      execute: async () => {
        if (this.#closed || this.#session.closed) {
          throw new Error("the session is closed");
        }
        await this.#restartSession();
        return {
          content:
            "The bash session was restarted: every process it started was killed, and the new shell has a fresh state.",
        };
      },
    });
  }

  async #run(
    id: string,
    command: string,
    options: HandleOptions = {},
  ): Promise<ToolResultBlock> {
    return await this.#pipeline.call({
      id,
      command,
      judged: command,
      contained: this.#containment?.contained === true,
      fields: this.#containmentFields(),
      refusal: (reason) =>
        `Error: The command was refused by policy: ${reason}`,
      failure: (error) => `Error: The shell failed: ${messageOf(error)}`,
      execute: () => this.#execute(command, options),
    });
  }

  /** What audit records add about containment (nothing without a promise). */
  #containmentFields(): { contained?: boolean } {
    return this.#containment === null
      ? {}
      : { contained: this.#containment.contained };
  }

  /** Runs an allowed command and formats its result (the pipeline redacts and audits it). */
  async #execute(command: string, options: HandleOptions): Promise<Executed> {
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs;
    const spills = this.#options.spillDir === false ? null : {
      stdout: this.#newSpill("stdout"),
      stderr: this.#newSpill("stderr"),
    };
    let result: SessionResult;
    let previousCwd: string | undefined;
    try {
      if (this.#cwd === undefined) {
        await this.#session.start();
        this.#cwd = this.#session.cwd;
      }
      previousCwd = this.#cwd;
      const extra = options.onOutput;
      result = await this.#session.run(command, {
        timeoutMs,
        signal: options.signal,
        onOutput: spills || extra
          ? (chunk, stream) => {
            if (spills) {
              (stream === "stderr" ? spills.stderr : spills.stdout).add(chunk);
            }
            extra?.(chunk, stream);
          }
          : undefined,
      });
    } catch (error) {
      spills?.stdout.finish(false);
      spills?.stderr.finish(false);
      const closed = this.#closed || this.#session.closed;
      return {
        content: this.#egress.quoted(
          closed
            ? "Error: The session was closed: the command was not run or was stopped"
            : `Error: The shell failed: ${messageOf(error)}`,
          [command],
          "error_echo",
        ),
        isError: true,
      };
    }
    const closed = this.#closed || this.#session.closed;
    const keep = spillNeeds(result, this.#maxChars);
    const out = spills?.stdout.finish(keep.output) ?? {};
    const err = spills?.stderr.finish(keep.stderr) ?? {};
    this.#cwd = result.cwd;
    const spillError = out.error ?? err.error;
    let content: string;
    let isError: boolean;
    try {
      const block = toToolResult("", result, {
        command,
        maxChars: this.#maxChars,
        timeoutMs: timeoutMs ?? undefined,
        previousCwd,
        spillPath: out.path,
        spillCappedAt: out.cappedAt,
        stderrSpillPath: err.path,
        stderrSpillCappedAt: err.cappedAt,
        spillHint: this.#spillHint(),
        spillError,
        redact: this.#egress.redactor,
        benignExitCodes: this.#options.benignExitCodes,
        closed,
      });
      content = block.content;
      isError = block.is_error === true;
    } catch (error) {
      content = this.#egress.redactor
        ? `Error: The output is withheld: the redactor failed (${
          error instanceof Error ? error.name : typeof error
        })`
        : `Error: Could not format the result: ${messageOf(error)}`;
      isError = true;
    }
    return {
      content,
      isError: isError || closed || spillError !== undefined,
      ending: result,
      outputBytes: result.output.totalBytes + (result.stderr?.totalBytes ?? 0),
    };
  }

  /** Where the session's commands run, as far as spill files are concerned. */
  #placement(): { sandbox?: Sandbox; transport?: Transport } {
    const s = this.#session as { sandbox?: Sandbox; transport?: Transport };
    return {
      sandbox: s.sandbox ?? this.#options.sessionOptions?.sandbox,
      transport: s.transport ?? this.#options.sessionOptions?.transport,
    };
  }

  /** How the model reads a spill file; undefined for the default hint. */
  #spillHint(): string | undefined {
    const { sandbox, transport } = this.#placement();
    if (transport) return HOST_ONLY_HINT;
    if (sandbox && this.#spillDir !== null) {
      if (!visibleInSandbox(this.#spillDir, sandbox)) return HOST_ONLY_HINT;
    }
    return undefined;
  }

  #newSpill(stream: "stdout" | "stderr"): Spill {
    return new Spill(
      this.#maxChars,
      this.#options.spillMaxBytes ?? DEFAULT_SPILL_MAX_BYTES,
      () => this.#createSpillFile(stream),
      this.#egress.stream("spill"),
    );
  }

  /** The spill directory: the configured one, or a private one where commands can read it. */
  #ensureSpillDir(): string {
    if (this.#spillDir !== null) return this.#spillDir;
    const configured = this.#options.spillDir;
    if (typeof configured === "string") {
      mkdirSync(configured, { recursive: true, mode: 0o700 });
      this.#spillDir = configured;
      return configured;
    }
    const { sandbox } = this.#placement();
    const candidates = [tmpdir()];
    // A sandbox mounts its own /tmp: pick a place it shows at the same path.
    if (sandbox) candidates.push("/var/tmp", sandbox.workdir);
    let lastError: unknown = null;
    for (const base of candidates) {
      if (sandbox && !visibleInSandbox(join(base, "x"), sandbox)) continue;
      try {
        this.#spillDir = mkdtempSync(join(base, "bashbox-spill-"));
        return this.#spillDir;
      } catch (error) {
        lastError = error;
      }
    }
    if (lastError !== null) throw lastError;
    this.#spillDir = mkdtempSync(join(tmpdir(), "bashbox-spill-"));
    return this.#spillDir;
  }

  /**
   * Creates a new spill file exclusively (`O_CREAT | O_EXCL`: an existing
   * file or a planted symlink is never opened), under a name unique to the
   * session, the call and the stream, with a random part so that tools
   * sharing a directory cannot collide.
   */
  #createSpillFile(stream: "stdout" | "stderr"): { path: string; fd: number } {
    const dir = this.#ensureSpillDir();
    const call = ++this.#spillCount;
    let lastError: unknown;
    for (let attempt = 0; attempt < 8; attempt++) {
      const random = crypto.randomUUID().slice(0, 8);
      const path = join(
        dir,
        `${this.#sessionId.slice(0, 8)}-${call}-${stream}-${random}.txt`,
      );
      try {
        return { path, fd: openSync(path, "wx", 0o600) };
      } catch (error) {
        lastError = error;
        if ((error as { code?: string }).code !== "EEXIST") break;
      }
    }
    throw lastError;
  }

  // -------------------------------------------------------------------------
  // Process tools (PROCESS_TOOLS).

  /** One call of a process tool: checked here, then judged (start), audited and redacted by the pipeline. */
  async #processCall(
    id: string,
    name: string,
    input: unknown,
  ): Promise<ToolResultBlock> {
    const echo = (value: unknown) => this.#egress.echo(value, 200);
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
      return errorToolResult(
        id,
        `Expected an input object for ${name}, got ${echo(input)}`,
      );
    }
    const i = input as Record<string, unknown>;
    const fail = (text: string) => errorToolResult(id, text);
    const waitMs = i.wait_ms ??
      (name === "process_write"
        ? 500
        : name === "process_read" || name === "process_start"
        ? PROCESS_START_WAIT_MS
        : 0);
    if (
      typeof waitMs !== "number" || !Number.isInteger(waitMs) || waitMs < 0 ||
      waitMs > PROCESS_MAX_WAIT_MS
    ) {
      return fail(
        `Expected wait_ms to be a whole number from 0 to ${PROCESS_MAX_WAIT_MS}, got ${
          echo(i.wait_ms)
        }`,
      );
    }
    let until: RegExp | undefined;
    if (i.until !== undefined) {
      try {
        if (typeof i.until !== "string" || i.until === "") throw new Error();
        until = new RegExp(i.until, "m");
      } catch {
        return fail(
          `Expected until to be a JavaScript regular expression, got ${
            echo(i.until)
          }`,
        );
      }
    }
    if (this.#closed || this.#session.closed) {
      return fail("The session is closed: nothing was done");
    }
    let target: BackgroundProcess | undefined;
    if (name !== "process_start" && name !== "process_list") {
      target = this.#session.processes().find((p) => p.id === i.id);
      if (target === undefined) {
        const ids = this.#session.processes().map((p) => p.id);
        return fail(
          `Expected the id of a process (${
            ids.length ? ids.join(", ") : "none started"
          }), got ${echo(i.id)}`,
        );
      }
    }
    let command: string;
    let judged: string | undefined;
    if (name === "process_start") {
      if (typeof i.command !== "string" || i.command.trim() === "") {
        return fail(`Expected input {"command": string}, got ${echo(input)}`);
      }
      if (i.tty !== undefined && typeof i.tty !== "boolean") {
        return fail(`Expected tty to be true or false, got ${echo(i.tty)}`);
      }
      command = judged = i.command;
    } else if (name === "process_write") {
      if (typeof i.text !== "string" || i.text.length > 65536) {
        return fail(
          `Expected text to be a string of at most 65536 characters, got ${
            echo(i.text)
          }`,
        );
      }
      command = `(${name} ${target!.id}) ${i.text}`;
    } else {
      if (
        name === "process_read" && i.screen !== undefined &&
        typeof i.screen !== "boolean"
      ) {
        return fail(
          `Expected screen to be true or false, got ${echo(i.screen)}`,
        );
      }
      command = `(${name}${target ? " " + target.id : ""})`;
    }
    return await this.#pipeline.call({
      id,
      command,
      judged,
      contained: this.#containment?.contained === true,
      fields: this.#containmentFields(),
      refusal: (reason) =>
        `Error: The command was refused by policy: ${reason}`,
      failure: (error) => `Error: ${name} failed: ${messageOf(error)}`,
      execute: async () => ({
        content: await this.#processAction(name, i, target, { waitMs, until }),
      }),
    });
  }

  async #processAction(
    name: string,
    i: Record<string, unknown>,
    target: BackgroundProcess | undefined,
    o: { waitMs: number; until: RegExp | undefined },
  ): Promise<string> {
    const maxBytes = this.#maxChars;
    switch (name) {
      case "process_start": {
        const p = await this.#session.spawn(i.command as string, {
          tty: i.tty === true,
          // The full log the result points to is redacted as the output is.
          redact: this.#egress.redactor,
        });
        const r = await p.read({ waitMs: o.waitMs, until: o.until, maxBytes });
        return describeProcess(p, r, "Started");
      }
      case "process_read": {
        if (i.screen === true) {
          const screen = await target!.screen();
          return `${
            processHeader(target!)
          }\n--- screen ---\n${screen}\n--- end of screen ---\n${
            processHint(target!)
          }`;
        }
        const r = await target!.read({
          waitMs: o.waitMs,
          until: o.until,
          maxBytes,
        });
        return describeProcess(target!, r);
      }
      case "process_write": {
        // A process that does not read its input (or not yet) must not hold
        // the tool beyond the wait: the rest of the input is written on.
        const writing = target!.write(i.text as string);
        writing.catch(() => {});
        let timer: ReturnType<typeof setTimeout> | undefined;
        const pending = await Promise.race([
          writing.then(() => false),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(true), o.waitMs);
          }),
        ]).finally(() => clearTimeout(timer));
        const r = await target!.read({
          waitMs: pending ? 0 : o.waitMs,
          until: o.until,
          maxBytes,
        });
        const text = describeProcess(target!, r, "Sent input to");
        return pending
          ? `${text}\nThe process has not taken all of the input yet (it has not read it); the rest is written as it reads.`
          : text;
      }
      case "process_stop": {
        await target!.stop();
        const r = await target!.read({ maxBytes });
        return describeProcess(target!, r, "Stopped");
      }
      default: {
        const procs = this.#session.processes();
        if (procs.length === 0) return "No background processes.";
        return procs.map((p) =>
          `${processHeader(p)} — ${p.totalBytes} bytes of output`
        ).join("\n");
      }
    }
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** One line: which process, what it runs, and whether it runs or how it ended. */
function processHeader(p: BackgroundProcess): string {
  const status = p.status;
  const state = status === null
    ? `running for ${seconds(p.elapsedMs)}`
    : status.signal
    ? `ended by ${status.signal} after ${seconds(p.elapsedMs)}`
    : `exited with code ${status.exitCode} after ${seconds(p.elapsedMs)}`;
  return `Process ${p.id} (pid ${p.pid}${p.tty ? ", tty" : ""}) \`${
    p.command.length > 200 ? p.command.slice(0, 200) + "…" : p.command
  }\` — ${state}`;
}

function processHint(p: BackgroundProcess): string {
  return p.running
    ? `More output: process_read {"id": "${p.id}"}; input: process_write; stop: process_stop. Full log: ${p.logPath}`
    : `Full log: ${p.logPath}`;
}

function describeProcess(
  p: BackgroundProcess,
  r: ProcessOutput,
  verb?: string,
): string {
  const lines = [(verb ? `${verb}: ` : "") + processHeader(p)];
  if (r.omittedBytes > 0) {
    lines.push(
      `[${r.omittedBytes} earlier bytes of new output omitted: see the log]`,
    );
  }
  lines.push(
    r.text === ""
      ? "(no new output)"
      : `--- new output ---\n${r.text}${
        r.text.endsWith("\n") ? "" : "\n"
      }--- end of new output ---`,
  );
  lines.push(processHint(p));
  return lines.join("\n");
}
