/**
 * `BashSession`: one persistent bash whose state (cwd, environment, functions,
 * files) carries across calls, as Anthropic's `bash_20250124` tool expects.
 *
 * How a command runs (see `_protocol.ts`): the host writes a short line
 * and then the command text as data, which bash reads with one
 * `read -r -N <bytes>`; once bash's own parser has checked it, the command
 * runs at the top level (through an alias, or an eval where it must be read
 * line by line), so an open quote, an unterminated heredoc or a trailing
 * backslash can never swallow the framing. After the command a function
 * reads the call's id (66 random bits, kept in no variable while the command
 * runs) and prints it followed by `$?`, `$-` and `$PWD`, through a file
 * descriptor saved at start, so `exec >file` inside a command cannot hide
 * it. Commands read EOF on stdin. A call costs the same whatever the
 * session holds: no fork, a fixed number of builtins.
 *
 * @module
 */

import {
  type Capture,
  CaptureBuffer,
  captureSink,
  checkByteLimit,
  DEFAULT_HEAD_BYTES,
  DEFAULT_TAIL_BYTES,
} from "./_capture.ts";
import { NONINTERACTIVE_ENV, unsetCredentials } from "./_env.ts";
import { SentinelScanner } from "./_framing.ts";
import {
  drainAfterExit,
  type ExitStatus,
  type GroupProcess,
  type GroupSignal,
  openStdinFifo,
  type Pump,
  pump,
  resolveProgram,
  SpawnError,
  spawnGroup,
  type StdinFifo,
} from "../runtime/_runtime.ts";
import {
  bootstrapLine,
  callLines,
  initFrame,
  initScript,
  launcherArgv,
  needle as sentinelNeedle,
  parseTrailer,
  randomId,
  shellQuote,
} from "./_protocol.ts";
import {
  checkCommand,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_TIMEOUT_MS,
} from "./exec.ts";
import {
  abortedBeforeStart,
  checkDuration,
  checkSignal,
  escalation,
  guardCallback,
  OutputCallbackError,
} from "./_deadline.ts";
import {
  ControlChannel,
  type Launch,
  launchArgv,
  launchOf,
  signalSandbox,
  type Transport,
} from "./_launch.ts";
import { type Limits, limitsScript } from "../shell/limits.ts";
import {
  type BackgroundProcess,
  ProcessTable,
  type SpawnProcessOptions,
} from "./processes.ts";
import {
  bwrapArgv,
  bwrapChildPid,
  type Sandbox,
  writeSeccompFile,
} from "./sandbox.ts";
import {
  bytesToBinary,
  changedSections,
  dumpCall,
  knownNames,
  parseDump,
  replayCommand,
  type RestoredState,
  SECTIONS,
  type Snapshot,
  StateJournal,
} from "./_journal.ts";

export type { Capture } from "./_capture.ts";
export type { Limits } from "../shell/limits.ts";
export type { Sandbox } from "./sandbox.ts";
export type { RestoredState, StateJournal } from "./_journal.ts";
export type { Transport };
export type {
  BackgroundProcess,
  ProcessOutput,
  ProcessStatus,
  ReadOptions,
  SpawnProcessOptions,
  StopOptions,
} from "./processes.ts";

/** Options for {@linkcode BashSession}. */
export interface BashSessionOptions {
  /** Working directory the shell starts in (default: the host's). */
  cwd?: string;
  /**
   * Variables set in the shell, over the inherited environment. A provider
   * credential given here (e.g. `ANTHROPIC_API_KEY`) is kept whatever
   * `inheritCredentials` says: this is how to pass one on purpose.
   */
  env?: Record<string, string>;
  /**
   * Let the shell inherit the host's provider credentials (default false:
   * `ANTHROPIC_*`, `OPENAI_*`, `AZURE_OPENAI_*`, `CLAUDE_API_*` and the API
   * keys of other model providers, see `CREDENTIAL_NAMES`, are removed
   * before the first command, so a command cannot print the key the host
   * talks to the model with).
   */
  inheritCredentials?: boolean;
  /** Default deadline of each command in milliseconds (default 120000). */
  timeoutMs?: number;
  /** Time from the interrupt to the kill of the whole group (default 500). */
  killGraceMs?: number;
  /** Bytes kept from the start of each stream per command (default 256 KiB). */
  headBytes?: number;
  /** Bytes kept from the end of each stream per command (default 768 KiB). */
  tailBytes?: number;
  /** `"merge"` (default): stdout and stderr in arrival order in `output`; `"separate"`: stderr apart. */
  stderr?: "merge" | "separate";
  /** Load the user's login profile (default false: `--noprofile --norc`). */
  login?: boolean;
  /** The bash binary (default "bash"). */
  shell?: string;
  /**
   * Run the shell in a sandbox: `{ kind: "bwrap", workdir, writable, network }`
   * (bubblewrap must be installed; Deno needs `--allow-run=bwrap,bash`).
   */
  sandbox?: Sandbox;
  /** Resource limits applied when the shell starts (`ulimit`, for the shell and all it runs). */
  limits?: Limits;
  /**
   * Run the shell at the other end of a byte pipe: `{ argv: ["ssh", "-T", "host"] }`,
   * `["docker", "exec", "-i", "ctr"]`, `["kubectl", "exec", "-i", "pod", "--"]`.
   * bashbox appends `bash --noprofile --norc`; signals go in-band, by running
   * `kill` through a second invocation of the same argv. `cwd` and `env` apply
   * to the remote shell.
   */
  transport?: Transport;
  /**
   * Keep a journal of the shell's state (working directory, directory
   * stack, variables, functions, aliases, `set`/`shopt` options, umask,
   * limits) and replay it into the fresh shell that replaces one that died
   * (`exit`, `exec`, a kill, a deadline that escalated, a crash; the pool's
   * eviction and idle close). Default true. The journal is taken by one
   * hidden call of builtins after a command that may change the state
   * (`cd`, `export`, an assignment, a definition), never after `ls` or
   * `git`; a result whose shell was replaced says in `restored` what came
   * back and what did not. An explicit {@linkcode BashSession.restart}
   * clears it.
   */
  restoreState?: boolean;
}

/** Options for one {@linkcode BashSession.run} call. */
export interface RunOptions {
  /** Deadline of this command (default: the session's). */
  timeoutMs?: number;
  /** Stops the command like a deadline does. */
  signal?: AbortSignal;
  /** Called with every chunk the command prints (a copy the callee may keep). */
  onOutput?: (chunk: Uint8Array, stream: "stdout" | "stderr") => void;
  /**
   * What the deadline does: `"kill"` (default) stops the command;
   * `"background"` runs the command as a {@linkcode BashSession.spawn}
   * process from the start and, should the deadline pass, returns with
   * `timedOut: true` and the still-running process in `background`. In that
   * mode the command's own state changes (`cd`, variables) stay in its
   * process, output is merged, `onOutput` is not called, and stdin is at its
   * end from the start, as in every run.
   */
  onTimeout?: "kill" | "background";
}

/** What {@linkcode BashSession.run} returns. */
export interface SessionResult {
  /** stdout and stderr in arrival order, or stdout alone with `stderr: "separate"`. */
  output: Capture;
  /** stderr, only with `stderr: "separate"`. */
  stderr?: Capture;
  /** `$?` after the command; the shell's exit code if it died; null when a signal ended it. */
  exitCode: number | null;
  /** Name of the signal that ended the shell, when one did. */
  signal: string | null;
  /** The deadline passed and the command was stopped. */
  timedOut: boolean;
  /** The AbortSignal fired and the command was stopped. */
  aborted: boolean;
  /** The shell died or was killed and a fresh one replaces it: state was lost. */
  restarted: boolean;
  /** The shell's working directory after the command. */
  cwd: string;
  /** Wall time of the call, queueing excluded. */
  durationMs: number;
  /** With `onTimeout: "background"`: the process still running at the deadline. */
  background?: BackgroundProcess;
  /**
   * Set when a fresh shell replaced one that died and the journal was
   * replayed into it (see `restoreState`): what came back, what failed and
   * what is never kept.
   */
  restored?: RestoredState;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** After a relayed frame: the streams count as quiet after this long. */
const RELAY_QUIET_MS = 30;
/** After a relayed frame: the longest the host waits for the relay. */
const RELAY_MAX_MS = 500;
type Frame =
  | { kind: "done"; status: number | null; cwd: string }
  | { kind: "exit"; status: ExitStatus };

/** One bash process and the readers of its pipes. */
class Shell {
  readonly proc: GroupProcess;
  readonly separate: boolean;
  readonly out = new SentinelScanner();
  readonly err = new SentinelScanner();
  readonly #pumps: Pump[];
  /** Settles when the shell has exited and its pipes are drained. */
  readonly gone: Promise<ExitStatus>;
  exitStatus: ExitStatus | null = null;
  /** Set when the library itself killed the shell. */
  killed = false;
  /** xtrace was on after the last command: the runner turns it on again. */
  xtrace = false;
  /** `$?` after the last command, handed to the next one. */
  lastStatus = 0;
  /** The ulimit lines run first. */
  readonly limits: string;
  readonly killer: string;
  /** The transport's argv, when the shell is remote. */
  readonly transport: readonly string[] | undefined;
  /** Lines run first on a remote shell (environment, cwd). */
  readonly remoteSetup: string[];
  /** The remote shell's process group and session, for in-band signals. */
  remoteGroup: number | null = null;
  remoteSession: number | null = null;
  /** The second connection that carries signals to the remote side. */
  readonly control: ControlChannel | null;
  readonly launch: Launch;
  /** The first line the plain bash reads: it execs the session's shell. */
  readonly bootstrap: string;
  /** Runs inside a sandbox whose processes form the group `innerGroup`. */
  readonly sandboxed: boolean;
  innerGroup: number | null = null;
  #onGone: ((frame: Frame) => void) | null = null;

  constructor(
    options: Required<Pick<BashSessionOptions, "login" | "shell">> & {
      cwd?: string;
      env?: Record<string, string>;
      inheritCredentials?: boolean;
      separate: boolean;
      sandbox?: Sandbox;
      limits?: Limits;
      transport?: Transport;
      /** Node: stdin is this FIFO (see openStdinFifo). */
      fifo?: StdinFifo;
      /** The sandbox's seccomp program as a file (see writeSeccompFile). */
      seccompFile?: string;
    },
  ) {
    this.separate = options.separate;
    this.limits = options.limits ? limitsScript(options.limits) : "";
    this.killer = options.shell;
    this.launch = launchOf(options);
    this.transport = options.transport?.argv;
    // Over a transport a plain bash first (any transport passes these words
    // on as they are); the first line of its script replaces it with the
    // prompt-like shell (see PROMPT_LAUNCHER). Here or in a sandbox, that
    // shell directly.
    const inner = this.transport
      ? ["bash", "--noprofile", "--norc"]
      : launcherArgv(options.shell, options.login);
    this.bootstrap = this.transport ? bootstrapLine(options.login) : "";
    this.sandboxed = options.sandbox !== undefined;
    const remoteEnv = this.transport
      ? { ...NONINTERACTIVE_ENV, ...options.env }
      : undefined;
    this.remoteSetup = [
      ...(options.inheritCredentials === true
        ? []
        : [unsetCredentials(Object.keys(options.env ?? {}))]),
    ];
    if (remoteEnv) {
      this.remoteSetup.push(
        ...Object.entries(remoteEnv).map(([k, v]) =>
          `export ${k}=${shellQuote(v)}`
        ),
        ...(options.cwd ? [`cd -- ${shellQuote(options.cwd)} || exit 97`] : []),
      );
    }
    this.proc = spawnGroup(
      launchArgv(this.launch, options.shell, inner, options.seccompFile),
      {
        cwd: options.sandbox || this.transport ? undefined : options.cwd,
        env: this.transport
          ? undefined
          : { ...NONINTERACTIVE_ENV, ...options.env },
        stdin: true,
        fifo: options.fifo,
        killer: options.shell,
      },
    );
    // Opened with the session, so a signal never waits for a connection.
    this.control = options.transport
      ? new ControlChannel(options.transport, options.shell)
      : null;
    this.#pumps = [
      pump(this.proc.stdout, (c) => this.out.push(c)),
      pump(
        this.proc.stderr,
        this.separate ? (c) => this.err.push(c) : (c) => this.out.pushRaw(c),
      ),
    ];
    this.gone = this.proc.status.then(async (status) => {
      this.exitStatus = status;
      await drainAfterExit(this.proc, this.#pumps);
      await this.proc.closeStdin();
      this.out.end();
      this.err.end();
      this.#onGone?.({ kind: "exit", status });
      this.#onGone = null;
      return status;
    });
  }

  /** The script bash runs once at start. */
  initScript(): string {
    return initScript({
      separate: this.separate,
      limits: this.limits,
      remoteSetup: this.remoteSetup,
      transport: this.transport !== undefined,
    });
  }

  /**
   * After a frame whose stdout led into another pipe (\`exec > >(tee log)\`):
   * the command's output comes through that relay after the frame, so it is
   * still the command's until the streams have been quiet for
   * {@linkcode RELAY_QUIET_MS} (at most {@linkcode RELAY_MAX_MS}).
   */
  #settle(
    sinks: { out: (b: Uint8Array) => void; err: (b: Uint8Array) => void },
  ): Promise<void> {
    const streams = this.separate ? [this.out, this.err] : [this.out];
    return new Promise<void>((done) => {
      const started = performance.now();
      let quiet: ReturnType<typeof setTimeout>;
      const stop = () => {
        clearTimeout(quiet);
        for (const stream of streams) stream.stopPassing();
        done();
      };
      const arm = () => {
        clearTimeout(quiet);
        const left = RELAY_MAX_MS - (performance.now() - started);
        quiet = setTimeout(stop, Math.max(0, Math.min(RELAY_QUIET_MS, left)));
      };
      arm();
      this.out.passOn((b) => {
        sinks.out(b);
        arm();
      });
      if (this.separate) {
        this.err.passOn((b) => {
          sinks.err(b);
          arm();
        });
      }
    });
  }

  /** Sends a command (or the start-up script) and resolves when it is done or the shell died. */
  send(
    script: string,
    command: string | null,
    sinks: { out: (b: Uint8Array) => void; err: (b: Uint8Array) => void },
  ): Promise<Frame> {
    const id = randomId();
    const needle = sentinelNeedle(id);
    return new Promise<Frame>((resolve) => {
      let status: number | null = null;
      let cwd = "";
      let relayed = false;
      let waiting = this.separate ? 2 : 1;
      const finish = () => {
        if (--waiting > 0) return;
        this.#onGone = null;
        const done: Frame = { kind: "done", status, cwd };
        if (relayed) this.#settle(sinks).then(() => resolve(done));
        else resolve(done);
      };
      if (this.exitStatus !== null) {
        resolve({ kind: "exit", status: this.exitStatus });
        return;
      }
      this.#onGone = resolve;
      this.out.begin(needle, sinks.out, (trailer) => {
        const read = parseTrailer(decoder.decode(trailer));
        // A trailer that does not read right never passes for success.
        status = read?.status ?? null;
        this.lastStatus = read?.status ?? 0;
        this.xtrace = read?.xtrace ?? false;
        relayed = read?.relayed ?? false;
        cwd = read?.cwd ?? "";
        finish();
      });
      if (this.separate) this.err.begin(needle, sinks.err, finish);
      this.proc.write(encoder.encode(
        command === null
          ? `${this.bootstrap}${script}${initFrame(id)}`
          : callLines(command, id, {
            xtrace: this.xtrace,
            status: this.lastStatus,
          }),
      ));
    });
  }

  /**
   * Signals everything the shell runs: its process group and every other
   * process of its session (inside a sandbox: the sandbox's session; over a
   * transport: the remote ones, through the control channel). Resolves when
   * the signal was delivered.
   */
  async signal(signal: GroupSignal): Promise<void> {
    if (this.control !== null && this.remoteGroup !== null) {
      // Signals cannot cross the pipe: the control channel runs kill there.
      await this.control.signal(
        signal,
        this.remoteGroup,
        this.remoteSession ?? this.remoteGroup,
      );
      if (signal !== "SIGKILL") return;
    }
    if (this.innerGroup !== null) {
      await signalSandbox(this.innerGroup, signal, this.killer);
      if (signal !== "SIGKILL") return;
    }
    await this.proc.killSession(signal);
  }

  /** Kills the whole group and waits until the shell is gone. */
  async kill(): Promise<void> {
    this.killed = true;
    // A remote group may outlive the local transport (background jobs): it is
    // killed in any case. A sandbox's group dies with bwrap, and its pid may
    // be reused afterwards: it is signalled only while bwrap runs.
    if (this.exitStatus === null || this.remoteGroup !== null) {
      await this.signal("SIGKILL");
    } else if (this.launch.kind === "local") {
      // What left the group but not the session dies with the shell.
      await this.proc.killSession("SIGKILL");
    }
    await this.gone;
    await this.control?.close();
  }
}

/**
 * A persistent bash session. The shell starts on the first {@linkcode run}
 * (or {@linkcode start}); concurrent calls queue and run one at a time.
 *
 * Deadlines: at `timeoutMs` the command's process group gets SIGINT, as Ctrl-C
 * would give it; a command that stops keeps the session's state
 * (`timedOut: true, restarted: false`). One that does not gets SIGTERM after
 * half of `killGraceMs` and SIGKILL at `killGraceMs`, for the whole group;
 * the next command then runs in a fresh shell (`restarted: true`). Background
 * jobs (`server &`) live until {@linkcode restart} or {@linkcode close}.
 *
 * Bad input (a non-string, empty or NUL-containing command, a run after
 * `close()`) throws a `TypeError`; a missing `cwd` makes `start()` throw a
 * `SpawnError`.
 *
 * Deno needs `--allow-run=bash` (the shell binary).
 *
 * @example State persists across calls
 * ```ts
 * import { BashSession } from "../mod.ts";
 *
 * await using session = new BashSession();
 * await session.run("cd /tmp && export GREETING=hi");
 * const r = await session.run("echo $GREETING from $PWD");
 * console.assert(r.output.text === "hi from /tmp\n");
 * console.assert(r.exitCode === 0 && r.cwd === "/tmp");
 * ```
 *
 * @example A deadline stops the command but keeps the shell
 * ```ts
 * import { BashSession } from "../mod.ts";
 *
 * await using session = new BashSession({ timeoutMs: 200 });
 * await session.run("x=kept");
 * const slow = await session.run("sleep 30");
 * console.assert(slow.timedOut && !slow.restarted);
 * console.assert((await session.run("echo $x")).output.text === "kept\n");
 * ```
 */
export class BashSession {
  readonly #options: BashSessionOptions;
  readonly #timeoutMs: number;
  readonly #killGraceMs: number;
  readonly #headBytes: number;
  readonly #tailBytes: number;
  #shell: Shell | null = null;
  #starting: Promise<Shell> | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  #inflight = 0;
  #idleWaiters: (() => void)[] = [];
  #cwd = "";
  #initialCwd = "";
  /** The state the next fresh shell is brought back to (see _journal.ts). */
  #journal: Snapshot | null = null;
  /** The journal being taken after the last command, if any. */
  #journalTaking: Promise<void> = Promise.resolve();
  /** Shells that have the journal's dump function (see _journal.ts). */
  readonly #dumpReady = new WeakSet<Shell>();
  /** The shell the journal describes (a different one needs the replay). */
  #journalShell: Shell | null = null;
  /** A fresh shell's state, what a replay is the difference from. */
  #baseline: Snapshot | null = null;
  #known = knownNames(null);

  /** Checks the options; the shell itself starts on the first run. */
  constructor(options: BashSessionOptions = {}) {
    if (options === null || typeof options !== "object") {
      throw new TypeError(
        `Expected the options to be an object, got ${
          options === null ? "null" : typeof options
        }`,
      );
    }
    this.#timeoutMs = checkDuration(
      "timeoutMs",
      options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    this.#killGraceMs = checkDuration(
      "killGraceMs",
      options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      true,
    );
    this.#headBytes = checkByteLimit(
      "headBytes",
      options.headBytes ?? DEFAULT_HEAD_BYTES,
    );
    this.#tailBytes = checkByteLimit(
      "tailBytes",
      options.tailBytes ?? DEFAULT_TAIL_BYTES,
    );
    const mode = options.stderr ?? "merge";
    if (mode !== "merge" && mode !== "separate") {
      throw new TypeError(
        `Expected stderr to be "merge" or "separate", got ${
          JSON.stringify(mode)
        }`,
      );
    }
    if (options.cwd !== undefined && typeof options.cwd !== "string") {
      throw new TypeError(
        `Expected cwd to be a string, got ${typeof options.cwd}`,
      );
    }
    if (
      options.inheritCredentials !== undefined &&
      typeof options.inheritCredentials !== "boolean"
    ) {
      throw new TypeError(
        `Expected inheritCredentials to be true or false, got ${typeof options
          .inheritCredentials}`,
      );
    }
    if (options.sandbox !== undefined) bwrapArgv(options.sandbox, ["bash"]);
    if (options.transport !== undefined) {
      const argv = options.transport?.argv;
      if (
        !Array.isArray(argv) || argv.length === 0 ||
        argv.some((a) => typeof a !== "string" || a.includes("\0"))
      ) {
        throw new TypeError(
          `Expected transport to be { argv: [program, ...args] } of strings, got ${
            JSON.stringify(options.transport)
          }`,
        );
      }
      if (options.sandbox !== undefined) {
        throw new TypeError(
          "Expected either a sandbox or a transport, got both",
        );
      }
    }
    if (options.limits !== undefined) limitsScript(options.limits);
    if (
      options.restoreState !== undefined &&
      typeof options.restoreState !== "boolean"
    ) {
      throw new TypeError(
        `Expected restoreState to be true or false, got ${typeof options
          .restoreState}`,
      );
    }
    this.#options = { ...options };
  }

  /** Process id of the running shell (also its process-group id), if any. */
  get pid(): number | undefined {
    return this.#shell?.exitStatus === null ? this.#shell.proc.pid : undefined;
  }

  /** The shell's working directory after the last command (undefined before the start). */
  get cwd(): string | undefined {
    return this.#cwd === "" ? undefined : this.#cwd;
  }

  /** True after {@linkcode close}. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The sandbox commands run in, if any (where spill files must be to be readable). */
  get sandbox(): Sandbox | undefined {
    return this.#options.sandbox;
  }

  /** The transport commands run through, if any (they run on the remote side). */
  get transport(): Transport | undefined {
    return this.#options.transport;
  }

  /**
   * Starts the shell now instead of on the first command.
   *
   * @example
   * ```ts
   * import { BashSession } from "../mod.ts";
   *
   * await using session = new BashSession({ cwd: "/tmp" });
   * await session.start();
   * console.assert(typeof session.pid === "number");
   * ```
   */
  async start(): Promise<void> {
    this.#assertOpen();
    await this.#ensureShell();
  }

  /**
   * Runs one command in the session and resolves with its result. Throws a
   * `TypeError` for a non-string, empty or NUL-containing command, or when the
   * session is closed.
   *
   * @example
   * ```ts
   * import { BashSession } from "../mod.ts";
   *
   * await using session = new BashSession({ stderr: "separate" });
   * const r = await session.run("echo out; echo err >&2; false");
   * console.assert(r.output.text === "out\n" && r.stderr?.text === "err\n");
   * console.assert(r.exitCode === 1);
   * ```
   */
  run(command: string, options: RunOptions = {}): Promise<SessionResult> {
    if (options?.onTimeout !== undefined && options.onTimeout !== "kill") {
      return this.#runToBackground(command, options);
    }
    try {
      this.#assertOpen();
      checkCommand(command);
      if (options === null || typeof options !== "object") {
        throw new TypeError(
          `Expected the run options to be an object, got ${
            options === null ? "null" : typeof options
          }`,
        );
      }
      if (options.timeoutMs !== undefined) {
        checkDuration("timeoutMs", options.timeoutMs);
      }
      const signal = checkSignal(options.signal);
      if (signal?.aborted) throw abortedBeforeStart(signal);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#inflight++;
    const result = this.#queue.then(() => this.#run(command, options));
    this.#queue = result.catch(() => {}).then(() => this.#settled());
    return result;
  }

  /** One piece of work (a command, a journal being taken) is done. */
  #settled(): void {
    if (--this.#inflight === 0) {
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      waiters.forEach((w) => w());
    }
  }

  /** True while a command runs or waits in the queue. */
  get busy(): boolean {
    return this.#inflight > 0;
  }

  /**
   * Resolves when no command runs or waits (at once when idle).
   *
   * @example
   * ```ts
   * import { BashSession } from "../mod.ts";
   *
   * await using session = new BashSession();
   * session.run("sleep 0.05");
   * await session.idle();
   * console.assert(!session.busy);
   * ```
   */
  idle(): Promise<void> {
    if (this.#inflight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Kills the shell and everything it started, then starts a fresh one.
   * A command in flight ends with `restarted: true`.
   *
   * @example
   * ```ts
   * import { BashSession } from "../mod.ts";
   *
   * await using session = new BashSession();
   * await session.run("export X=1");
   * await session.restart();
   * console.assert((await session.run("echo ${X:-unset}")).output.text === "unset\n");
   * ```
   */
  async restart(): Promise<void> {
    this.#assertOpen();
    await this.#killShellAndProcesses();
    // (After the kill: a journal still being taken ends with it, and is
    // then forgotten too.)
    await this.#journalTaking;
    this.#journal = null;
    this.#known = knownNames(null);
    const started = this.#queue.then(() => this.#ensureShell());
    this.#queue = started.catch(() => {});
    await started;
  }

  /**
   * Kills the shell and every process it started; later runs throw. A command
   * in flight ends at once. Safe to call twice.
   *
   * @example
   * ```ts
   * import { BashSession } from "../mod.ts";
   *
   * const session = new BashSession();
   * await session.run("sleep 1000 &");
   * await session.close();
   * console.assert(session.closed);
   * ```
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#killShellAndProcesses();
  }

  /** Same as {@linkcode close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #assertOpen(): void {
    if (this.#closed) throw new TypeError("The session is closed");
  }

  async #killShell(): Promise<void> {
    const starting = this.#starting;
    if (starting) await starting.catch(() => {});
    const shell = this.#shell;
    this.#shell = null;
    if (shell) await shell.kill();
  }

  async #ensureShell(): Promise<Shell> {
    if (this.#shell && this.#shell.exitStatus === null) return this.#shell;
    if (this.#starting) return await this.#starting;
    this.#starting = this.#startShell();
    try {
      return await this.#starting;
    } finally {
      this.#starting = null;
    }
  }

  async #startShell(): Promise<Shell> {
    // The seccomp file is open in the shell once it has started: removed then.
    const seccomp = this.#options.sandbox ? writeSeccompFile() : null;
    try {
      return await this.#startShellWith(seccomp?.path);
    } finally {
      seccomp?.remove();
    }
  }

  async #startShellWith(seccompFile: string | undefined): Promise<Shell> {
    const o = this.#options;
    const fifo = await openStdinFifo();
    let shell: Shell;
    try {
      shell = new Shell({
        fifo,
        cwd: o.cwd,
        env: o.env,
        inheritCredentials: o.inheritCredentials,
        login: o.login ?? false,
        shell: resolveProgram(o.shell ?? "bash", o.env),
        separate: o.stderr === "separate",
        sandbox: o.sandbox,
        limits: o.limits,
        transport: o.transport,
        seccompFile,
      });
    } catch (error) {
      fifo?.release();
      const bwrap = o.sandbox?.bwrap ?? "bwrap";
      if (
        o.sandbox && error instanceof SpawnError &&
        error.message.includes(`"${bwrap}"`)
      ) {
        throw new SpawnError(
          `The sandbox needs bubblewrap, and ${
            error.message.replace(/^Cannot run /, "")
          }: install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)`,
          { cause: error },
        );
      }
      throw error;
    }
    const startup = new CaptureBuffer(4096, 4096);
    const frame = await shell.send(shell.initScript(), null, {
      out: (b) => startup.push(b),
      err: (b) => startup.push(b),
    });
    if (frame.kind === "exit") {
      await shell.kill();
      const text = startup.finish().text.trim();
      if (o.transport && frame.status.code === 97) {
        throw new SpawnError(
          `Expected cwd to be an existing directory on the remote side, got "${o.cwd}"${
            text ? ` (${text})` : ""
          }`,
        );
      }
      if (o.sandbox && frame.status.code === 127) {
        throw new SpawnError(
          `The sandbox needs bubblewrap, and "${
            o.sandbox.bwrap ?? "bwrap"
          }" was not found: install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)${
            text ? ` (${text})` : ""
          }`,
        );
      }
      throw new Error(
        `The shell exited while starting (${describeExit(frame.status)})${
          text ? `: ${text}` : ""
        }`,
      );
    }
    if (this.#closed) {
      await shell.kill();
      throw new TypeError("The session is closed");
    }
    if (shell.transport) {
      const m = /BASHBOX_PGID=\s*(\d+)\s+(\d+)/.exec(startup.finish().text);
      if (m === null) {
        await shell.kill();
        throw new Error("The remote shell did not report its process group");
      }
      shell.remoteGroup = Number(m[1]);
      shell.remoteSession = Number(m[2]);
    }
    if (shell.sandboxed) {
      shell.innerGroup = bwrapChildPid(startup.finish().text);
      if (shell.innerGroup === null) {
        await shell.kill();
        throw new Error(
          "The sandbox did not report its process id (bwrap --info-fd)",
        );
      }
    }
    this.#cwd = frame.cwd;
    this.#initialCwd ||= frame.cwd;
    this.#shell = shell;
    return shell;
  }

  async #run(command: string, options: RunOptions): Promise<SessionResult> {
    this.#assertOpen();
    // Aborted while it waited in the queue: it never starts.
    if (options.signal?.aborted) throw abortedBeforeStart(options.signal);
    // A journal still being taken after the last command goes first.
    await this.#journalTaking;
    const lostBefore = this.#shell !== null &&
      this.#shell.exitStatus !== null &&
      !this.#shell.killed;
    const shell = await this.#ensureShell();
    let restored = await this.#restoreInto(shell);
    const started = performance.now();
    const out = new CaptureBuffer(this.#headBytes, this.#tailBytes);
    const err = shell.separate
      ? new CaptureBuffer(this.#headBytes, this.#tailBytes)
      : null;
    const onOutput = guardCallback(options.onOutput);
    const sinks = {
      out: captureSink(out, "stdout", onOutput.call),
      // Merged mode has no stderr stream: nothing reaches this sink.
      err: err ? captureSink(err, "stderr", onOutput.call) : () => {},
    };

    let timedOut = false;
    let aborted = false;
    let finished = false;
    /** A signal past the interrupt was sent: the shell's state is not trusted. */
    let escalated = false;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const stop = async (why: "timeout" | "abort") => {
      if (timedOut || aborted) return;
      if (why === "timeout") timedOut = true;
      else aborted = true;
      // The grace counts from the interrupt's delivery (a transport may take
      // a while), so a command that obeys it is never escalated against.
      await shell.signal("SIGINT");
      if (finished) return;
      for (const step of escalation(this.#killGraceMs)) {
        timers.push(setTimeout(() => {
          if (finished) return;
          escalated = true;
          if (step.signal === "SIGKILL") shell.killed = true;
          shell.signal(step.signal);
        }, step.afterMs));
      }
    };
    const deadline = setTimeout(
      () => stop("timeout"),
      options.timeoutMs ?? this.#timeoutMs,
    );
    const onAbort = () => stop("abort");
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    let frame: Frame;
    try {
      frame = await shell.send("", command, sinks);
    } finally {
      finished = true;
      clearTimeout(deadline);
      timers.forEach(clearTimeout);
      options.signal?.removeEventListener("abort", onAbort);
    }

    let exitCode: number | null;
    let signal: string | null = null;
    let restarted = lostBefore;
    if (frame.kind === "done" && !escalated) {
      exitCode = frame.status;
      if (frame.cwd !== "") this.#cwd = frame.cwd;
      if (this.#options.restoreState !== false) {
        const sections = changedSections(command, this.#known);
        // Taken after the result is handed back: the caller (a model that
        // reads it) does not wait for it; the next command does, should it
        // come first.
        if (sections !== "") this.#deferJournal(shell, sections);
      }
    } else if (frame.kind === "done") {
      // The command ended just as the escalation went out: the shell may be
      // dying. Say so now rather than with the next command.
      shell.killed = true;
      await shell.kill();
      if (this.#shell === shell) this.#shell = null;
      exitCode = frame.status;
      restarted = true;
      this.#cwd = this.#initialCwd;
    } else {
      // The shell died: exit, exec, set -e, a kill from outside, or the escalation.
      await shell.kill();
      if (this.#shell === shell) this.#shell = null;
      exitCode = frame.status.code;
      signal = frame.status.signal;
      restarted = true;
      this.#cwd = this.#initialCwd;
    }
    if (restarted && restored === undefined && this.#journal !== null) {
      // The fresh shell is brought back now, so that this result says so.
      restored = await this.#ensureShell().then(
        (fresh) => this.#restoreInto(fresh),
        () => undefined,
      );
    }
    const result: SessionResult = {
      output: out.finish(),
      ...(err ? { stderr: err.finish() } : {}),
      exitCode,
      signal,
      timedOut,
      aborted,
      restarted,
      cwd: this.#cwd,
      durationMs: performance.now() - started,
      ...(restored ? { restored } : {}),
    };
    if (onOutput.error() !== undefined) {
      throw new OutputCallbackError(result, onOutput.error());
    }
    return result;
  }

  // -------------------------------------------------------------------------
  // The state journal (_journal.ts).

  /**
   * The journal of the shell's state (undefined before a command changed
   * it, or with `restoreState: false`): what the pool keeps of a
   * conversation whose shell it closes, at most `JOURNAL_MAX_BYTES` (1 MiB).
   */
  get journal(): StateJournal | undefined {
    return this.#journal ? new StateJournal(this.#journal) : undefined;
  }

  /**
   * Takes `journal` (from another session's {@linkcode journal}) as this
   * session's: the next command first brings its fresh shell back to it.
   * Does nothing with `restoreState: false`.
   */
  resume(journal: StateJournal): void {
    this.#assertOpen();
    if (this.#options.restoreState === false) return;
    this.#journal = journal.snapshot;
    this.#known = knownNames(journal.snapshot);
    this.#journalShell = null;
  }

  /**
   * One call of the framing's own, not the user's: its output goes nowhere
   * but the returned text (one character per byte), and `$?` is handed on
   * to the next command as if it had not run. Null when the shell died.
   */
  async #hidden(
    shell: Shell,
    command: string,
  ): Promise<{ text: string; cwd: string } | null> {
    const chunks: Uint8Array[] = [];
    const status = shell.lastStatus;
    // (No deadline of its own: builtins only, nothing of the user's runs,
    // and a loaded host may take seconds; close() and kills still end it.)
    try {
      const frame = await shell.send("", command, {
        out: (b) => chunks.push(b.slice()),
        err: () => {},
      });
      if (frame.kind !== "done") return null;
      return { text: bytesToBinary(chunks), cwd: frame.cwd };
    } finally {
      shell.lastStatus = status;
    }
  }

  async #dump(shell: Shell, sections?: string): Promise<Snapshot | null> {
    const mark = randomId();
    // Only what the command may have changed is taken again, while the
    // journal describes this shell.
    const previous = sections !== undefined && this.#journalShell === shell
      ? this.#journal
      : null;
    const out = await this.#hidden(
      shell,
      dumpCall(
        mark,
        previous ? sections! : SECTIONS,
        this.#dumpReady.has(shell),
      ),
    );
    const snapshot = out ? parseDump(out.text, mark, previous) : null;
    // (A dump that failed defines the function again next time.)
    if (snapshot) this.#dumpReady.add(shell);
    else this.#dumpReady.delete(shell);
    return snapshot;
  }

  /** Takes the journal after the current command, counted as work in flight. */
  #deferJournal(shell: Shell, sections: string): void {
    this.#inflight++;
    // (Started on the next turn of the event loop: the caller has its result
    // first, without the dump's work in between.)
    const taking = new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => this.#takeJournal(shell, sections))
      .catch(() => {});
    this.#journalTaking = taking.then(() => {
      this.#settled();
    });
  }

  async #takeJournal(shell: Shell, sections?: string): Promise<void> {
    const snapshot = await this.#dump(shell, sections);
    if (snapshot === null) return;
    this.#journal = snapshot;
    this.#journalShell = shell;
    this.#known = knownNames(snapshot);
  }

  /** Replays the journal into `shell` when it is not the one it describes. */
  async #restoreInto(shell: Shell): Promise<RestoredState | undefined> {
    if (this.#options.restoreState === false) return undefined;
    if (this.#journalShell === shell) return undefined;
    this.#journalShell = shell;
    const journal = this.#journal;
    if (journal === null) return undefined;
    this.#baseline ??= await this.#dump(shell);
    if (this.#baseline === null) return undefined;
    const mark = randomId();
    const replay = replayCommand(journal, this.#baseline, mark);
    const out = await this.#hidden(shell, replay.command);
    const { restored, snapshot } = replay.read(out?.text ?? "", mark);
    if (snapshot !== null) {
      this.#journal = snapshot;
      this.#known = knownNames(snapshot);
    }
    if (out && out.cwd !== "") this.#cwd = out.cwd;
    return restored;
  }

  // -------------------------------------------------------------------------
  // Background and terminal processes (processes.ts).

  #processTable: ProcessTable | null = null;

  /**
   * Starts `command` in the background from the session's state (its working
   * directory, exported variables and functions), as the leader of its own
   * process group, and returns its handle. It dies with {@linkcode restart},
   * {@linkcode close} and the host. In a sandbox it runs in a fresh bwrap
   * with the session's options (its own `/tmp` and network namespace); over
   * a transport through a connection of its own. `tty: true` needs a local
   * session (elsewhere: a `SpawnError`).
   *
   * @example
   * ```ts
   * import { BashSession } from "../mod.ts";
   *
   * await using session = new BashSession();
   * await session.run("cd /tmp && export GREETING=hi");
   * const p = await session.spawn('echo "$GREETING from $PWD"');
   * await p.wait();
   * console.assert((await p.read()).text === "hi from /tmp\n");
   * ```
   */
  async spawn(
    command: string,
    options: SpawnProcessOptions = {},
  ): Promise<BackgroundProcess> {
    this.#assertOpen();
    const env = this.#options.env;
    this.#processTable ??= new ProcessTable({
      dump: async (script) => {
        const r = await this.run(script);
        return { text: r.output.text, cwd: r.cwd };
      },
      shell: resolveProgram(this.#options.shell ?? "bash", env),
      launch: launchOf(this.#options),
      path: env?.PATH,
      remoteSweep: async (signal, token) =>
        await this.#shell?.control?.sweepMark(signal, token) ?? false,
      headBytes: this.#headBytes,
      tailBytes: this.#tailBytes,
      inheritCredentials: this.#options.inheritCredentials,
    });
    return await this.#processTable.spawn(command, options);
  }

  /**
   * The processes {@linkcode spawn} started since the last restart, running
   * or ended, oldest first.
   *
   * @example
   * ```ts
   * import { BashSession } from "../mod.ts";
   *
   * await using session = new BashSession();
   * const p = await session.spawn("sleep 30");
   * console.assert(session.processes()[0] === p && p.running);
   * ```
   */
  processes(): BackgroundProcess[] {
    return this.#processTable?.list() ?? [];
  }

  /** {@linkcode run} with `onTimeout: "background"`. */
  async #runToBackground(
    command: string,
    options: RunOptions,
  ): Promise<SessionResult> {
    if (options.onTimeout !== "background") {
      throw new TypeError(
        `Expected onTimeout to be "kill" or "background", got ${
          JSON.stringify(options.onTimeout)
        }`,
      );
    }
    this.#assertOpen();
    checkCommand(command);
    const timeoutMs = options.timeoutMs === undefined
      ? this.#timeoutMs
      : checkDuration("timeoutMs", options.timeoutMs);
    const signal = checkSignal(options.signal);
    if (signal?.aborted) throw abortedBeforeStart(signal);
    const proc = await this.spawn(command);
    // As in every run, stdin is at its end: a command that reads it (\`read\`,
    // \`cat\`, a prompt) ends at once instead of waiting to be backgrounded.
    await proc.endInput();
    const started = performance.now();
    let aborted = false;
    let wake!: () => void;
    const woken = new Promise<void>((r) => wake = r);
    const timer = setTimeout(wake, timeoutMs);
    const onAbort = () => {
      aborted = true;
      wake();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    await Promise.race([proc.wait(), woken]);
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    if (aborted && proc.running) {
      await proc.stop({ graceMs: this.#killGraceMs });
    }
    const status = proc.status;
    const output = proc.output();
    await proc.read({ maxBytes: 1 }); // what the result holds is read
    // Ended in time: the result holds all of it, so the process is not kept
    // in processes() (nor its log on disk).
    if (status !== null) await this.#processTable?.forget(proc);
    return {
      output,
      exitCode: status?.exitCode ?? null,
      signal: status?.signal ?? null,
      timedOut: status === null,
      aborted,
      restarted: false,
      cwd: this.#cwd,
      durationMs: performance.now() - started,
      ...(status === null ? { background: proc } : {}),
    };
  }

  /**
   * Kills the shell and stops the spawned processes. Over a transport the
   * processes go first, while the control channel that reaches their marks
   * is open (a round trip instead of a connection).
   */
  async #killShellAndProcesses(): Promise<void> {
    if (this.#options.transport && this.processes().length > 0) {
      await this.#stopProcesses();
      await this.#killShell();
    } else {
      await Promise.all([this.#killShell(), this.#stopProcesses()]);
    }
  }

  /** Stops and forgets every spawned process (restart, close); ids are not reused. */
  async #stopProcesses(): Promise<void> {
    await this.#processTable?.disposeAll();
  }
}

function describeExit(status: ExitStatus): string {
  return status.signal ? `signal ${status.signal}` : `exit code ${status.code}`;
}
