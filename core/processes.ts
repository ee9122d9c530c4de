/**
 * Background and terminal processes of a {@linkcode BashSession}: dev
 * servers, watchers, REPLs and full-screen programs that keep running while
 * the session runs other commands, can be read, typed into, resized,
 * signalled and stopped by id, and die with the session.
 *
 * A process is started by {@linkcode BashSession.spawn}: the session's shell
 * writes down its state (working directory, exported variables, functions),
 * and the host starts the command with that state as the leader of a new
 * process group and session (`bash --noprofile --norc`). In a sandbox the
 * host starts a fresh bwrap with the session's options, over a transport a
 * connection of its own, and the far bash reads the state from its input.
 * Every process it starts carries `BASHBOX_PROCESS=<token>` in its
 * environment, so stop, restart, close and host exit find it even after it
 * left the group and the session (a daemon after `setsid`), at the far end of
 * a transport too.
 *
 * With `tty: true` (local sessions) the process gets a pseudo-terminal: on
 * Bun through `Bun.spawn`'s built-in terminal, on Deno and Node through
 * util-linux `script`, or Python's `pty` module where `script` is absent. A
 * headless terminal emulator (`@xterm/headless`, imported dynamically when the
 * first terminal process starts) keeps the screen.
 *
 * @example
 * ```ts
 * import { BashSession } from "../mod.ts";
 *
 * await using session = new BashSession();
 * await session.run("greet() { echo hello $1; }");
 * const proc = await session.spawn("greet world; sleep 30");
 * const first = await proc.read({ until: "hello", waitMs: 5000 });
 * console.assert(first.text === "hello world\n" && first.running);
 * await proc.stop();
 * console.assert(!proc.running);
 * ```
 *
 * @module
 */

import { hostEnv, hostPlatform, importNpm } from "../runtime/host.ts";
import { spawnBunTerminal } from "../runtime/bun_terminal.ts";
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Launch, transportLauncher } from "./_launch.ts";
import { messageOf } from "../egress/egress.ts";
import { type Capture, CaptureBuffer } from "./_capture.ts";
import { checkDuration, escalation } from "./_deadline.ts";
import {
  addExitSweep,
  delay,
  type GroupProcess,
  type GroupSignal,
  guardDirectory,
  MARK_SWEEP,
  type Pump,
  pump,
  runQuiet,
  runQuietSync,
  RUNTIME,
  signalGroup,
  SpawnError,
  spawnGroup,
  trackGroup,
} from "../runtime/_runtime.ts";
import { SIGNAL_NAMES } from "../runtime/signals.ts";
import {
  redactStream,
  safeStart,
  type StreamRedactor,
} from "../egress/redact.ts";
import { bwrapArgv, sandboxPrelude } from "./sandbox.ts";
import { unsetCredentials } from "./_env.ts";

/** Options of {@linkcode BashSession.spawn}. */
export interface SpawnProcessOptions {
  /** Give the process a pseudo-terminal (default false: pipes). */
  tty?: boolean;
  /** Terminal width in columns (default 80; only with `tty`). */
  cols?: number;
  /** Terminal height in rows (default 24; only with `tty`). */
  rows?: number;
  /** Variables set for the process, over the session's exported ones. */
  env?: Record<string, string>;
  /**
   * Redacts the full log ({@linkcode BackgroundProcess.logPath}) as it is
   * written, chunk by chunk without missing a secret split between chunks
   * (e.g. `redactor(env)`; `BashTool` passes its own).
   */
  redact?: (text: string) => string;
}

/** Options of {@linkcode BackgroundProcess.read}. */
export interface ReadOptions {
  /** Wait up to this many milliseconds for output (default 0: return at once). */
  waitMs?: number;
  /**
   * Return as soon as the new output matches (a string is searched
   * literally). Each check looks at what arrived since the last one, from the
   * start of a line up to 64 KiB before it, so a chatty process costs no
   * rescans of everything unread.
   */
  until?: RegExp | string;
  /** Return at most the last this many bytes of new output (default 64 KiB). */
  maxBytes?: number;
}

/** What {@linkcode BackgroundProcess.read} returns. */
export interface ProcessOutput {
  /** Output since the last read (for a terminal: escape codes removed). */
  text: string;
  /** True while the process runs. */
  running: boolean;
  /** Exit code once it exited on its own; null while running or after a signal. */
  exitCode: number | null;
  /** Name of the signal that ended it, or null. */
  signal: string | null;
  /** Every byte the process wrote so far. */
  totalBytes: number;
  /** New bytes not in `text` (beyond `maxBytes`): they are in the log file. */
  omittedBytes: number;
  /** True when `until` matched. */
  matched: boolean;
}

/** How a background process ended. */
export interface ProcessStatus {
  /** Exit code, or null when a signal ended it. */
  exitCode: number | null;
  /** Name of the signal that ended it, or null. */
  signal: string | null;
}

/** Options of {@linkcode BackgroundProcess.stop}. */
export interface StopOptions {
  /** SIGINT at once, SIGTERM at half of this, SIGKILL at this (default 1000 ms). */
  graceMs?: number;
}

const DEFAULT_READ_BYTES = 64 * 1024;
/** Terminal output kept for the emulator while it loads. */
const TERM_FEED_CAP = 4 * 1024 * 1024;
const DEFAULT_STOP_GRACE_MS = 1000;
/** Bytes kept between reads; more is dropped from the front (still in the log). */
const PENDING_CAP = 1024 * 1024;

const encoder = new TextEncoder();

function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** How long a sweep through a transport may take. */
const REMOTE_SWEEP_MS = 15_000;

/**
 * The terminal helper for Deno and Node when util-linux `script` is absent
 * (run as `python3 -I bashbox_pty.py program args…`): the program gets a
 * pseudo-terminal as its controlling terminal (`pty.fork`: a new session);
 * the helper copies its own stdin to the terminal and the terminal to its
 * stdout, and exits as the program did.
 */
const PTY_HELPER = `import os, pty, select, signal, sys

pid, fd = pty.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)


# The helper is not the program: an interrupt meant for the group (a stop)
# must not end it with a traceback before the program has answered.
signal.signal(signal.SIGINT, signal.SIG_IGN)


def put(out, data):
    while data:
        data = data[os.write(out, data):]


inputs = [0, fd]
while True:
    try:
        ready = select.select(inputs, [], [])[0]
    except InterruptedError:
        continue
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            break
        put(1, data)
    if 0 in ready:
        data = os.read(0, 65536)
        if data:
            put(fd, data)
        else:
            inputs.remove(0)
_, status = os.waitpid(pid, 0)
if os.WIFSIGNALED(status):
    sig = os.WTERMSIG(status)
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
sys.exit(os.waitstatus_to_exitcode(status))
`;

/** The program that gives a process its terminal on Deno and Node. */
type PtyHelper = { kind: "script" | "python"; program: string };

function findOnPath(program: string, path: string): string | null {
  for (const dir of path.split(":")) {
    if (!dir.startsWith("/")) continue;
    try {
      if (statSync(`${dir}/${program}`).isFile()) return `${dir}/${program}`;
    } catch {
      // not there, or not readable: try the next directory
    }
  }
  return null;
}

/**
 * The terminal helper: util-linux `script`, else Python's `pty` module
 * (`python3`), looked up on `path`. Off Linux `script` is BSD's, whose
 * options differ (no `-c`, `-e`, `-f`): Python only. Internal, for tests:
 * `BASHBOX_PTY_HELPER` in the host's environment forces `script` or `python`
 * (any other value: either), on Bun too.
 */
function findPtyHelper(path: string): PtyHelper | null {
  const forced = hostEnv("BASHBOX_PTY_HELPER");
  const kinds: PtyHelper["kind"][] = forced === "python"
    ? ["python"]
    : forced === "script"
    ? ["script"]
    : hostPlatform() === "linux"
    ? ["script", "python"]
    : ["python"];
  for (const kind of kinds) {
    const program = findOnPath(kind === "script" ? "script" : "python3", path);
    if (program !== null) return { kind, program };
  }
  return null;
}

/** Removes escape sequences and carriage returns from terminal output. */
export function sanitizeTerminalText(text: string): string {
  return text
    // deno-lint-ignore no-control-regex
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g, "")
    // DCS, SOS, PM, APC strings up to their terminator; SS2/SS3 keys.
    // deno-lint-ignore no-control-regex
    .replace(/\x1b[PX^_][^\x1b]*(?:\x1b\\)?/g, "")
    // deno-lint-ignore no-control-regex
    .replace(/\x1b[NO][\x20-\x7e]/g, "")
    // deno-lint-ignore no-control-regex
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "")
    // deno-lint-ignore no-control-regex
    .replace(/\x1b[()][0-9A-Za-z]/g, "")
    // deno-lint-ignore no-control-regex
    .replace(/\x1b[@-_=>78]/g, "")
    .replace(/\r+\n/g, "\n")
    // deno-lint-ignore no-control-regex
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "");
}

/** Shortest token that a read holds back while it may still grow into a secret. */
const HELD_TOKEN = 4;
/** Bytes that end a token (whitespace, quotes, brackets, separators). */
const TOKEN_ENDS = new Set(
  [..." \t\r\n\"'`<>()[]{},;|&"].map((c) => c.charCodeAt(0)),
);

/**
 * Length of the run of token bytes that `bytes` ends with, when it is at
 * least {@linkcode HELD_TOKEN} long (else 0): a prompt that ends in a blank
 * (`Password: `, `>>> `) holds nothing back.
 */
function trailingTokenLength(bytes: Uint8Array): number {
  let i = bytes.length;
  while (i > 0 && !TOKEN_ENDS.has(bytes[i - 1])) i--;
  const n = bytes.length - i;
  return n >= HELD_TOKEN ? Math.min(n, 16 * 1024) : 0;
}

/** How far back of the newest output `read({ until })` looks again. */
const UNTIL_WINDOW_BYTES = 64 * 1024;

/** Longest escape sequence this looks back for (a long OSC title is dropped whole). */
const SEQUENCE_LOOKBACK = 256;

/**
 * How many bytes at the end of `bytes` are an escape sequence not yet
 * complete (0 when none): ESC alone, a CSI without its final byte, an OSC or
 * DCS string without its terminator, a charset or SS2/SS3 prefix.
 */
function openSequenceLength(bytes: Uint8Array): number {
  const from = Math.max(0, bytes.length - SEQUENCE_LOOKBACK);
  const esc = bytes.lastIndexOf(0x1b);
  if (esc < from) return 0;
  const tail = new TextDecoder().decode(bytes.subarray(esc));
  // deno-lint-ignore no-control-regex
  const open = /^\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*|[PX^_][^\x1b]*|[()NO])?$/;
  return open.test(tail) ? bytes.length - esc : 0;
}

/**
 * Moves a cut at `cut` past the escape sequence it falls into, if any, so the
 * kept text does not start with the rest of one.
 */
function pastSequence(bytes: Uint8Array, cut: number): number {
  const from = Math.max(0, cut - SEQUENCE_LOOKBACK);
  for (let i = cut - 1; i >= from; i--) {
    if (bytes[i] !== 0x1b) continue;
    const text = new TextDecoder().decode(
      bytes.subarray(i, Math.min(bytes.length, i + 2 * SEQUENCE_LOOKBACK)),
    );
    const m =
      // deno-lint-ignore no-control-regex
      /^\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[()NO][\x20-\x7e]|[@-_=>78])/
        .exec(text);
    if (m === null) return cut;
    const end = i + new TextEncoder().encode(m[0]).length;
    return end > cut ? end : cut;
  }
  return cut;
}

/** What the table needs from its session. */
export interface ProcessHost {
  /** Runs a command in the session and returns its output and cwd. */
  dump(script: string): Promise<{ text: string; cwd: string }>;
  /** The host's bash, used to start processes and to signal them. */
  readonly shell: string;
  /** Where the session's shell runs: a process is started the same way. */
  readonly launch: Launch;
  /** The session's PATH, if it sets one: the terminal helper is looked up there. */
  readonly path?: string;
  /**
   * Over a transport: signals the marked processes through the session's
   * control channel; false when there is none (then a connection is opened).
   */
  readonly remoteSweep?: (signal: string, token: string) => Promise<boolean>;
  readonly headBytes: number;
  readonly tailBytes: number;
  /** The session lets its shell inherit the host's provider credentials. */
  readonly inheritCredentials?: boolean;
}

/** The processes of one session. Internal: reached through `BashSession`. */
export class ProcessTable {
  readonly #host: ProcessHost;
  readonly #procs = new Map<string, BackgroundProcess>();
  #next = 1;

  constructor(host: ProcessHost) {
    this.#host = host;
  }

  /** Every process started and not yet forgotten, running or not. */
  list(): BackgroundProcess[] {
    return [...this.#procs.values()];
  }

  /** The process with `id`, if any. */
  get(id: string): BackgroundProcess | undefined {
    return this.#procs.get(id);
  }

  /** Starts `command` with the session's state. */
  async spawn(
    command: string,
    options: SpawnProcessOptions = {},
  ): Promise<BackgroundProcess> {
    if (typeof command !== "string" || command.trim() === "") {
      throw new TypeError(
        `Expected the command to be a non-empty string, got ${
          typeof command === "string" ? '""' : typeof command
        }`,
      );
    }
    if (command.includes("\0")) {
      throw new TypeError("Expected a command without NUL bytes, got one");
    }
    if (options === null || typeof options !== "object") {
      throw new TypeError(
        `Expected the spawn options to be an object, got ${
          options === null ? "null" : typeof options
        }`,
      );
    }
    const tty = options.tty === true;
    const cols = checkSize("cols", options.cols ?? 80);
    const rows = checkSize("rows", options.rows ?? 24);
    const env = options.env ?? {};
    if (options.redact !== undefined && typeof options.redact !== "function") {
      throw new TypeError(
        `Expected redact to be a function, got ${typeof options.redact}`,
      );
    }
    for (const [k, v] of Object.entries(env)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || typeof v !== "string") {
        throw new TypeError(
          `Expected env to map variable names to strings, got ${
            JSON.stringify(k)
          }`,
        );
      }
    }
    const launch = this.#host.launch;
    if (tty && launch.kind !== "local") {
      throw new SpawnError(
        `A terminal process (tty: true) needs a local session, got one ${
          launch.kind === "sandbox" ? "in a sandbox" : "over a transport"
        }: its terminal would be on this host, not where the command runs`,
      );
    }
    let helper: PtyHelper | null = null;
    if (tty && (RUNTIME !== "bun" || hostEnv("BASHBOX_PTY_HELPER"))) {
      helper = findPtyHelper(
        this.#host.path ?? hostEnv("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
      );
      if (helper === null) {
        throw new SpawnError(
          `A terminal process needs util-linux \`script\` or Python 3 (\`python3\`, for its pty module) on Deno and Node (Bun has a built-in terminal); neither was found on PATH`,
        );
      }
    }
    const state = await this.#host.dump(
      "builtin export -p; builtin declare -f",
    );
    const id = `p${this.#next++}`;
    const token = randomToken();
    const dir = mkdtempSync(join(tmpdir(), "bashbox-proc-"));
    // (Its runner holds the session's exported variables: should the host
    // die where no exit hook runs, its guardian removes the directory.)
    const unguardDir = guardDirectory(dir, this.#host.shell);
    const lines = [
      // The host's provider credentials are not the process's either (the
      // session's own exports, set below, bring back those given on purpose).
      ...(this.#host.inheritCredentials === true ? [] : [unsetCredentials([])]),
      state.text,
      // The session says TERM=dumb; a terminal process has a real terminal.
      // (Builtins by name: the session's functions are defined by now, and
      // one may be called \`export\`.)
      tty ? "builtin export TERM=xterm-256color" : "",
      ...Object.entries(env).map(([k, v]) => `builtin export ${k}=${quote(v)}`),
      `builtin export BASHBOX_PROCESS=${token}`,
      `builtin cd -- ${quote(state.cwd)} || builtin exit 126`,
      tty
        ? `builtin command stty cols ${cols} rows ${rows} 2>/dev/null`
        : "builtin exec 2>&1",
      "builtin unset -f command_not_found_handle 2>/dev/null",
      ...(tty && launch.kind === "local"
        ? [`builtin printf %s "$$" >${quote(join(dir, "pid"))}`]
        : []),
      signalRelay(launch.kind === "local" ? join(dir, "signal") : null),
      command,
      "",
    ];
    const runner = join(dir, "run.sh");
    if (launch.kind === "local") {
      writeFileSync(runner, lines.join("\n"), { mode: 0o600 });
      // (The runner's notes, made here so that they are the host's mode.)
      for (const note of ["pid", "signal"]) {
        writeFileSync(join(dir, note), "", { mode: 0o600 });
      }
    }
    if (helper?.kind === "python") {
      writeFileSync(join(dir, "bashbox_pty.py"), PTY_HELPER, { mode: 0o600 });
    }
    // Elsewhere the host's files are out of reach (a sandbox has its own
    // /tmp, a transport another machine): the far bash reads the runner from
    // its input, up to a line of its own, and the rest is the command's input.
    const end = `__BASHBOX_${token}__`;
    const boot = launch.kind === "local"
      ? null
      : `eval "$(cat <<'${end}'\n${lines.join("\n")}\n${end}\n)"; exit\n`;
    let proc: BackgroundProcess;
    try {
      proc = new BackgroundProcess({
        id,
        command,
        token,
        dir,
        unguardDir,
        runner,
        tty,
        cols,
        rows,
        launch,
        helper,
        boot,
        remoteSweep: this.#host.remoteSweep,
        shell: this.#host.shell,
        headBytes: this.#host.headBytes,
        tailBytes: this.#host.tailBytes,
        redact: options.redact,
      });
    } catch (error) {
      // (A process that could not start leaves nothing behind.)
      rmSync(dir, { recursive: true, force: true });
      unguardDir();
      throw error;
    }
    this.#procs.set(id, proc);
    return proc;
  }

  /** Forgets a process that ended and removes its files (no one holds it). */
  async forget(proc: BackgroundProcess): Promise<void> {
    if (this.#procs.get(proc.id) !== proc || proc.running) return;
    this.#procs.delete(proc.id);
    await proc.dispose();
  }

  /** Stops every process and removes its files (restart, close). */
  async disposeAll(): Promise<void> {
    const procs = this.list();
    this.#procs.clear();
    await Promise.all(procs.map((p) => p.dispose()));
  }
}

function checkSize(name: string, value: unknown): number {
  if (
    typeof value !== "number" || !Number.isInteger(value) || value < 2 ||
    value > 1000
  ) {
    throw new RangeError(
      `Expected ${name} to be a whole number from 2 to 1000, got ${
        String(value)
      }`,
    );
  }
  return value;
}

/** The signals a user sends a process, whose default is to end it. */
const RELAYED_SIGNALS = ["HUP", "INT", "QUIT", "USR1", "USR2", "ALRM", "TERM"];

/**
 * The runner's lines that keep it, the program's parent, from dying of a
 * signal sent to the whole group before the program has answered it: a
 * runner that died first would end a terminal's session (its program then
 * gets SIGHUP before its own handler has run) and report the process ended
 * while the program, which handled the signal, goes on. Each signal is
 * trapped (the program gets it with its default action, as a trap is not
 * inherited); once the program is gone, a status of 128+n for the signal n
 * the runner got means the program died of it: the runner then dies of it
 * too, so the process reads as ended by that signal (a terminal helper that
 * reports only 128+n finds the signal's name in `file`). A program that
 * handled the signal and lives on keeps the runner waiting.
 */
function signalRelay(file: string | null): string {
  const note = file === null
    ? ""
    : `builtin printf '%s %s' "$1" "$2" >${quote(file)} 2>/dev/null;`;
  return [
    `__bashbox_relay(){ [ "$2" = "$((128 + $(builtin kill -l "$1")))" ]||builtin return 0;${note}builtin trap - "$1";builtin kill -s "$1" "$$"; }`,
    `for __bashbox_s in ${
      RELAYED_SIGNALS.join(" ")
    };do builtin trap "__bashbox_relay $__bashbox_s \\$?" "$__bashbox_s";done;builtin unset __bashbox_s`,
  ].join("\n");
}

interface ProcessInit {
  id: string;
  command: string;
  token: string;
  dir: string;
  /** Tells the guardian the host removed `dir` (see guardDirectory). */
  unguardDir: () => void;
  runner: string;
  tty: boolean;
  cols: number;
  rows: number;
  launch: Launch;
  helper: PtyHelper | null;
  boot: string | null;
  remoteSweep?: (signal: string, token: string) => Promise<boolean>;
  shell: string;
  headBytes: number;
  tailBytes: number;
  redact?: (text: string) => string;
}

/** Minimal surface of an `@xterm/headless` terminal. */
interface HeadlessTerminal {
  write(data: Uint8Array | string, callback?: () => void): void;
  resize(cols: number, rows: number): void;
  dispose(): void;
  readonly buffer: {
    readonly active: {
      readonly baseY: number;
      readonly cursorY: number;
      getLine(
        y: number,
      ): { translateToString(trimRight?: boolean): string } | undefined;
    };
  };
}

const XTERM_SPECIFIER = "@xterm/headless";

async function loadTerminal(
  cols: number,
  rows: number,
): Promise<HeadlessTerminal> {
  // deno-lint-ignore no-explicit-any
  const mod: any = await importNpm(() => import(XTERM_SPECIFIER), {
    specifier: "npm:@xterm/headless@6.0.0",
    name: "@xterm/headless",
    whatFor: "screen()",
  });
  const Terminal = mod.Terminal ?? mod.default?.Terminal;
  return new Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
}

/** Linux signal names (without SIG), as `kill -s` takes them. */
const SIGNAL_NAME =
  /^(?:HUP|INT|QUIT|ILL|TRAP|ABRT|IOT|BUS|FPE|KILL|USR1|SEGV|USR2|PIPE|ALRM|TERM|STKFLT|CHLD|CONT|STOP|TSTP|TTIN|TTOU|URG|XCPU|XFSZ|VTALRM|PROF|WINCH|IO|POLL|PWR|SYS|RTMIN(?:\+(?:[1-9]|1[0-5]))?|RTMAX(?:-(?:[1-9]|1[0-5]))?)$/;

/**
 * A process started by {@linkcode BashSession.spawn}: read its output, type
 * into it, signal, stop or wait for it. Its whole output goes to a log file
 * ({@linkcode logPath}); memory keeps a bounded head and tail.
 *
 * @example
 * ```ts
 * import { BashSession } from "../mod.ts";
 *
 * await using session = new BashSession();
 * const cat = await session.spawn("cat");
 * await cat.write("ping\n");
 * console.assert((await cat.read({ until: "ping", waitMs: 5000 })).text === "ping\n");
 * await cat.endInput();
 * console.assert((await cat.wait()).exitCode === 0);
 * ```
 */
export class BackgroundProcess {
  /** Id within the session (`p1`, `p2`, …). */
  readonly id: string;
  /** The command as given. */
  readonly command: string;
  /** True for a process with a pseudo-terminal. */
  readonly tty: boolean;
  /** When it started (ms since the epoch). */
  readonly startedAt: number = Date.now();
  readonly #init: ProcessInit;
  readonly #capture: CaptureBuffer;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** Bytes of #pending that the last read held back (not new output). */
  #heldBytes = 0;
  #dropped = 0;
  #decoder = new TextDecoder("utf-8", { fatal: false });
  #logFd: number | null;
  readonly #logRedact: StreamRedactor | null;
  readonly #logDecoder = new TextDecoder();
  #status: ProcessStatus | null = null;
  #endedAt: number | null = null;
  #done: Promise<ProcessStatus>;
  #wakers = new Set<() => void>();
  #pid: number;
  #group: GroupProcess | null = null;
  // deno-lint-ignore no-explicit-any
  #bunProc: any = null;
  #term: HeadlessTerminal | null = null;
  #termLoad: Promise<void> | null = null;
  #termError: unknown = null;
  #termFeed: Uint8Array[] = [];
  #termFeedBytes = 0;
  #cols: number;
  #rows: number;
  #removeSweep: () => void;

  /** Starts the process; use {@linkcode BashSession.spawn}. */
  constructor(init: ProcessInit) {
    this.#init = init;
    this.id = init.id;
    this.command = init.command;
    this.tty = init.tty;
    this.#cols = init.cols;
    this.#rows = init.rows;
    this.#capture = new CaptureBuffer(init.headBytes, init.tailBytes);
    this.#logFd = openSync(join(init.dir, "output.log"), "w", 0o600);
    this.#logRedact = init.redact ? redactStream(init.redact) : null;
    this.#removeSweep = addExitSweep(() => this.#sweepSync());
    if (init.tty) {
      // Loaded now (a dynamic import: the core import stays free of npm
      // packages), so the screen follows the output as it comes.
      this.#termLoad = loadTerminal(init.cols, init.rows).then((term) => {
        term.resize(this.#cols, this.#rows);
        for (const c of this.#termFeed) term.write(c);
        this.#termFeed = [];
        this.#term = term;
      }, (error) => {
        this.#termError = error;
        this.#termFeed = [];
      });
    }
    const bash = init.shell;
    const onChunk = (chunk: Uint8Array) => this.#push(chunk);
    let exited: Promise<ProcessStatus>;
    let drained: Promise<unknown>;
    if (init.tty && init.helper === null) {
      const child = spawnBunTerminal([bash, init.runner], {
        cols: init.cols,
        rows: init.rows,
        onData: onChunk,
      });
      this.#bunProc = child;
      this.#pid = child.pid;
      const untrack = trackGroup(child.pid, bash);
      exited = child.exited.then(() => {
        untrack();
        const sig = child.signalCode;
        return {
          exitCode: sig ? null : child.exitCode,
          signal: typeof sig === "number"
            ? SIGNAL_NAMES[sig] ?? `SIG${sig}`
            : sig ?? null,
        };
      });
      drained = exited.then(() => delay(50).promise).then(() => {
        try {
          child.terminal?.close();
        } catch {
          // already closed
        }
      });
    } else {
      const inner = [bash, "--noprofile", "--norc"];
      const far = [
        "env",
        `BASHBOX_PROCESS=${init.token}`,
        "bash",
        "--noprofile",
        "--norc",
      ];
      const launch = init.launch;
      let argv: string[];
      if (launch.kind === "transport") {
        argv = transportLauncher(bash, [...launch.transport.argv, ...far]);
      } else if (launch.kind === "sandbox") {
        // A fresh bwrap with the session's options; its info fd is not read.
        const wrapped = bwrapArgv(launch.sandbox, far);
        argv = [
          ...inner,
          "-c",
          `${sandboxPrelude(wrapped)}exec 3>/dev/null; exec "$@"`,
          "bashbox-sandbox",
          ...wrapped,
        ];
      } else if (init.helper?.kind === "script") {
        // (Without --norc a bash whose stdin is a socket, as Node gives,
        // reads ~/.bashrc. \`script\` runs its command with $SHELL, which
        // must be bash for the quoting and so that no other shell stays in
        // between, to change what Ctrl-C does to the exit status.)
        argv = [
          ...inner,
          "-c",
          'SHELL=$1 exec "$0" -qfec "exec $(printf "%q " "$1" --noprofile --norc "$2")" /dev/null',
          init.helper.program,
          bash,
          init.runner,
        ];
      } else if (init.helper?.kind === "python") {
        argv = [
          ...inner,
          "-c",
          'exec "$0" -I "$@"',
          init.helper.program,
          join(init.dir, "bashbox_pty.py"),
          ...inner,
          init.runner,
        ];
      } else {
        argv = [...inner, init.runner];
      }
      // Local processes get only the runner's variables; a transport needs
      // the host's (ssh: HOME, SSH_AUTH_SOCK), and a sandbox gets them as its
      // session does (the runner sets the session's over them).
      const group = spawnGroup(argv, {
        env: {},
        clearEnv: launch.kind === "local",
        stdin: true,
        killer: bash,
      });
      if (init.boot !== null) void group.write(encoder.encode(init.boot));
      this.#group = group;
      this.#pid = group.pid;
      const pumps: Pump[] = [
        pump(group.stdout, onChunk),
        pump(group.stderr, onChunk),
      ];
      exited = group.status.then((s) => {
        // \`script\` reports a program that died of signal n as exit 128+n;
        // the runner wrote the signal's name (see signalRelay).
        if (init.helper?.kind === "script" && s.code !== null && s.code > 128) {
          try {
            // "<name> <status>": the name of the signal whose number is
            // the status less 128, on this system.
            const [name, code] = readFileSync(join(init.dir, "signal"), "utf8")
              .split(" ");
            if (Number(code) === s.code) {
              return { exitCode: null, signal: `SIG${name}` };
            }
          } catch {
            // no signal noted: the program exited with that code itself
          }
        }
        return { exitCode: s.code, signal: s.signal };
      });
      drained = exited.then(async () => {
        const all = Promise.all(pumps.map((p) => p.done));
        const timer = delay(200);
        await Promise.race([all, timer.promise]);
        timer.cancel();
        await Promise.all(pumps.map((p) => p.stop()));
      });
    }
    this.#done = Promise.all([exited, drained]).then(([status]) => {
      this.#status = status;
      this.#endedAt = Date.now();
      if (this.#logFd !== null) {
        if (this.#logRedact) {
          this.#writeLog(encoder.encode(
            this.#logRedact.push(this.#logDecoder.decode()) +
              this.#logRedact.flush(),
          ));
        }
      }
      if (this.#logFd !== null) {
        try {
          closeSync(this.#logFd);
        } catch {
          // already closed
        }
        this.#logFd = null;
      }
      try {
        rmSync(init.runner, { force: true });
      } catch {
        // the directory is gone already
      }
      this.#wake();
      return status;
    });
  }

  /** Process id of the leader (also its process group and session id). */
  get pid(): number {
    return this.#pid;
  }

  /** True while the process runs. */
  get running(): boolean {
    return this.#status === null;
  }

  /** How it ended, or null while it runs. */
  get status(): ProcessStatus | null {
    return this.#status;
  }

  /** Milliseconds it has run (until now, or until it ended). */
  get elapsedMs(): number {
    return (this.#endedAt ?? Date.now()) - this.startedAt;
  }

  /** Path of the file that holds the whole output. */
  get logPath(): string {
    return join(this.#init.dir, "output.log");
  }

  /** Bytes written so far. */
  get totalBytes(): number {
    return this.#capture.totalBytes;
  }

  /** The whole output so far, with a bounded head and tail kept. */
  output(): Capture {
    const c = this.#capture.finish();
    if (!this.tty) return c;
    const clean = sanitizeTerminalText(c.text);
    return { ...c, text: clean };
  }

  #writeLog(bytes: Uint8Array): void {
    if (this.#logFd === null || bytes.length === 0) return;
    try {
      let offset = 0;
      while (offset < bytes.length) {
        offset += writeSync(this.#logFd, bytes, offset, bytes.length - offset);
      }
    } catch {
      this.#logFd = null; // the disk is full or the file is gone
    }
  }

  #push(chunk: Uint8Array): void {
    const copy = chunk.slice();
    this.#capture.push(copy);
    this.#writeLog(
      this.#logRedact
        ? encoder.encode(this.#logRedact.push(
          this.#logDecoder.decode(copy, { stream: true }),
        ))
        : copy,
    );
    this.#pending.push(copy);
    this.#pendingBytes += copy.length;
    while (this.#pendingBytes > PENDING_CAP && this.#pending.length > 1) {
      const first = this.#pending.shift()!;
      this.#pendingBytes -= first.length;
      this.#heldBytes = Math.max(0, this.#heldBytes - first.length);
      this.#dropped += first.length;
    }
    if (this.tty) {
      if (this.#term) this.#term.write(copy);
      else if (this.#termError === null) {
        // Until the emulator is loaded: the last TERM_FEED_CAP bytes.
        this.#termFeed.push(copy);
        this.#termFeedBytes += copy.length;
        while (
          this.#termFeedBytes > TERM_FEED_CAP && this.#termFeed.length > 1
        ) {
          this.#termFeedBytes -= this.#termFeed.shift()!.length;
        }
      }
    }
    this.#wake();
  }

  #wake(): void {
    const wakers = [...this.#wakers];
    this.#wakers.clear();
    wakers.forEach((w) => w());
  }

  /** The pending output from byte `from` on (at a character's start). */
  #pendingText(from = 0): string {
    const all = new Uint8Array(Math.max(0, this.#pendingBytes - from));
    let skip = from;
    let at = 0;
    for (const c of this.#pending) {
      if (skip >= c.length) {
        skip -= c.length;
        continue;
      }
      const part = skip > 0 ? c.subarray(skip) : c;
      skip = 0;
      all.set(part, at);
      at += part.length;
    }
    let start = 0;
    while (start < all.length && (all[start] & 0xc0) === 0x80) start++;
    return new TextDecoder().decode(all.subarray(start));
  }

  /**
   * Output since the last read. Waits up to `waitMs` for `until` to match (or
   * for any output, without `until`), or for the process to end.
   */
  async read(options: ReadOptions = {}): Promise<ProcessOutput> {
    const waitMs = checkDuration("waitMs", options.waitMs ?? 0, true);
    const maxBytes = options.maxBytes ?? DEFAULT_READ_BYTES;
    if (!Number.isInteger(maxBytes) || maxBytes < 1) {
      throw new RangeError(
        `Expected maxBytes to be a positive whole number, got ${
          String(maxBytes)
        }`,
      );
    }
    const until = options.until;
    // What the last check looked at: the next one starts a window before.
    let checked = 0;
    const matches = (): boolean => {
      // Bytes a previous read held back are not new output.
      if (until === undefined) return this.#pendingBytes > this.#heldBytes;
      if (checked > this.#pendingBytes) checked = 0; // the front was dropped
      const from = Math.max(0, checked - UNTIL_WINDOW_BYTES);
      checked = this.#pendingBytes;
      let raw = this.#pendingText(from);
      if (from > 0) raw = raw.slice(raw.indexOf("\n") + 1);
      const text = this.tty ? sanitizeTerminalText(raw) : raw;
      if (typeof until === "string") return text.includes(until);
      until.lastIndex = 0;
      return until.test(text);
    };
    const deadline = Date.now() + waitMs;
    while (this.running && !matches() && Date.now() < deadline) {
      const timer = delay(deadline - Date.now());
      await Promise.race([
        timer.promise,
        new Promise<void>((r) => this.#wakers.add(r)),
      ]);
      timer.cancel();
    }
    const matched = until !== undefined && matches();
    // Take what is pending: the last maxBytes of it.
    let omitted = this.#dropped;
    let chunks = this.#pending;
    this.#pending = [];
    const total = this.#pendingBytes;
    this.#pendingBytes = 0;
    this.#heldBytes = 0;
    this.#dropped = 0;
    let bytes = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.length;
    }
    chunks = [];
    if (this.tty && this.running) {
      // An escape sequence not yet complete waits for the next read, so no
      // read shows the half of one as text.
      const keep = openSequenceLength(bytes);
      if (keep > 0) {
        this.#pending.push(bytes.slice(bytes.length - keep));
        this.#pendingBytes += keep;
        this.#heldBytes += keep;
        bytes = bytes.subarray(0, bytes.length - keep);
      }
    }
    if (bytes.length > maxBytes) {
      let cut = bytes.length - maxBytes;
      while (cut < bytes.length && (bytes[cut] & 0xc0) === 0x80) cut++;
      // Nor does a cut through the middle of one.
      if (this.tty) cut = pastSequence(bytes, cut);
      omitted += cut;
      bytes = bytes.subarray(cut);
    }
    if (this.#logRedact !== null && this.running) {
      // With redaction on, a token still arriving (the last run of token
      // characters of a line not yet ended) waits for the next read: shown
      // now, its first part would pass the redactor that sees it whole later.
      const keep = trailingTokenLength(bytes);
      if (keep > 0) {
        this.#pending.unshift(bytes.slice(bytes.length - keep));
        this.#pendingBytes += keep;
        this.#heldBytes += keep;
        bytes = bytes.subarray(0, bytes.length - keep);
      }
    }
    if (omitted > 0) this.#decoder = new TextDecoder("utf-8", { fatal: false });
    let text = this.#decoder.decode(bytes, { stream: this.running });
    // The start of the text was cut: a secret it began inside is not shown
    // in part (the whole is in the log, redacted).
    if (omitted > 0 && this.#logRedact !== null) {
      const start = safeStart(text);
      omitted += new TextEncoder().encode(text.slice(0, start)).length;
      text = text.slice(start);
    }
    if (this.tty) text = sanitizeTerminalText(text);
    const status = this.#status;
    return {
      text,
      running: status === null,
      exitCode: status?.exitCode ?? null,
      signal: status?.signal ?? null,
      totalBytes: this.#capture.totalBytes,
      omittedBytes: omitted,
      matched,
    };
  }

  /**
   * The terminal's current screen as plain text, one line per row, trailing
   * blanks trimmed (only for `tty` processes; rendered by `@xterm/headless`).
   */
  async screen(): Promise<string> {
    if (!this.tty) {
      throw new TypeError(
        `Expected a terminal process (spawned with tty: true), got ${this.id} without one`,
      );
    }
    await this.#termLoad;
    const term = this.#term;
    if (term === null) {
      throw new Error(
        this.#termError === null
          ? `The terminal of ${this.id} is gone: its session was restarted or closed`
          : `No terminal emulator for ${this.id}: ${
            messageOf(this.#termError)
          }`,
      );
    }
    await new Promise<void>((r) => term.write("", r));
    const buf = term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.#rows; y++) {
      lines.push(buf.getLine(buf.baseY + y)?.translateToString(true) ?? "");
    }
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    return lines.join("\n");
  }

  /**
   * Sends `text` to the process's input (for a terminal: as typed, so
   * `"\r"` is Enter, `"\x03"` is Ctrl-C, `"\x04"` is Ctrl-D). Resolves once
   * the text is in the pipe: more than a pipe holds (64 KiB) waits until the
   * process reads it. Throws a `TypeError` when the process has ended or its
   * input is closed.
   */
  async write(text: string): Promise<void> {
    if (typeof text !== "string") {
      throw new TypeError(`Expected text to be a string, got ${typeof text}`);
    }
    if (!this.running) {
      throw new TypeError(
        `Expected a running process, got ${this.id} which has ended`,
      );
    }
    if (this.#bunProc) {
      this.#bunProc.terminal.write(text);
      return;
    }
    const ok = await this.#group!.write(encoder.encode(text));
    if (!ok) {
      throw new TypeError(
        `Expected ${this.id} to accept input, but its input is closed`,
      );
    }
  }

  /** Closes the process's input (end of file), for a process without a terminal. */
  async endInput(): Promise<void> {
    if (this.#bunProc) {
      this.#bunProc.terminal.write("\x04");
      return;
    }
    await this.#group?.closeStdin();
  }

  /** Changes the terminal's size (only for `tty` processes). */
  async resize(cols: number, rows: number): Promise<void> {
    checkSize("cols", cols);
    checkSize("rows", rows);
    if (!this.tty) {
      throw new TypeError(
        `Expected a terminal process (spawned with tty: true), got ${this.id} without one`,
      );
    }
    this.#cols = cols;
    this.#rows = rows;
    this.#term?.resize(cols, rows);
    if (!this.running) return;
    if (this.#bunProc) {
      this.#bunProc.terminal.resize(cols, rows);
      return;
    }
    // The helper (`script`, python) owns the pty: set the size on the
    // terminal its child uses (found through `ps` where there is no /proc).
    await runQuiet([
      this.#init.shell,
      "-c",
      `if [ -r /proc/$$/stat ] && [ "$BASHBOX_NO_PROC" != 1 ]; then
        for c in $(cat /proc/$1/task/*/children 2>/dev/null); do
          t=$(readlink /proc/$c/fd/0) && stty cols $2 rows $3 <"$t" 2>/dev/null && break
        done
      else
        ps -A -o pid= -o ppid= -o tty= 2>/dev/null | while read -r c p t; do
          [ "$p" = "$1" ] && case $t in ?*/*|tty*) stty cols $2 rows $3 <"/dev/$t" 2>/dev/null && break ;; esac
        done
      fi; :`,
      "bashbox-resize",
      String(this.#pid),
      String(cols),
      String(rows),
    ]);
  }

  /**
   * Sends `name` (`"SIGINT"`, `"SIGTERM"`, `"SIGKILL"`, `"SIGHUP"`, …) to the
   * whole process group (in a sandbox or over a transport: to every process
   * with the process's mark, where it runs; in a terminal: to the terminal's
   * foreground process group, as its keys would). The shell that runs the
   * command waits for the program to answer: a program that handles the
   * signal keeps running, and one that dies of it is reported with the
   * signal's name, not as exit 128+n.
   */
  async signal(name: string): Promise<void> {
    if (
      typeof name !== "string" || !/^SIG[A-Z0-9+]+$/.test(name) ||
      !SIGNAL_NAME.test(name.slice(3))
    ) {
      throw new TypeError(
        `Expected a signal name such as "SIGTERM", got ${JSON.stringify(name)}`,
      );
    }
    if (!this.running) return;
    if (this.#init.launch.kind !== "local") {
      await this.#sweep(name.slice(3));
      return;
    }
    if (this.tty) {
      await this.#signalTerminal(name.slice(3));
      return;
    }
    if (["SIGINT", "SIGTERM", "SIGKILL"].includes(name)) {
      await signalGroup(this.#pid, name as GroupSignal, this.#init.shell);
      return;
    }
    await runQuiet([
      this.#init.shell,
      "-c",
      `kill -s "$1" -- -"$2" 2>/dev/null; :`,
      "bashbox-signal",
      name.slice(3),
      String(this.#pid),
    ]);
  }

  /**
   * A terminal process: sends `sig` (without "SIG") to the terminal's
   * foreground process group, as a terminal's keys do (the program, or the
   * job a shell in it runs in the foreground), never to a terminal helper
   * (`script`, python). The terminal's session leader is the runner, which
   * wrote its pid at start; before it did, the signal goes to every process
   * with the mark.
   */
  async #signalTerminal(sig: string): Promise<void> {
    let leader = "";
    try {
      leader = readFileSync(join(this.#init.dir, "pid"), "utf8").trim();
    } catch {
      // not there: swept below
    }
    if (!/^[1-9][0-9]*$/.test(leader)) {
      await this.#sweep(sig);
      return;
    }
    await runQuiet([
      this.#init.shell,
      "-c",
      `t=$(ps -o tpgid= -p "$2" 2>/dev/null); t=\${t//[!0-9]/}; case $t in ""|0) t=$2;; esac; kill -s "$1" -- "-$t" 2>/dev/null || kill -s "$1" -- "-$2" 2>/dev/null; :`,
      "bashbox-signal",
      sig,
      leader,
    ]);
  }

  /**
   * The argv that sends signal `sig` (without "SIG") to every process with
   * the mark: here, or (over a transport) through a connection of its own,
   * the sweep piped into a bash at the far end.
   */
  #sweepArgv(sig: string): string[] {
    const { shell, token, launch } = this.#init;
    if (launch.kind !== "transport") {
      return [shell, "-c", MARK_SWEEP, "bashbox-sweep", token, sig];
    }
    return [
      shell,
      "-c",
      'printf "%s\\n" "$0" | "$@"',
      `__bashbox_sweep() {\n${MARK_SWEEP}\n}\n__bashbox_sweep ${token} ${sig}\nexit 0`,
      ...launch.transport.argv,
      "bash",
      "--noprofile",
      "--norc",
    ];
  }

  /** Signals everything the process started (found by its environment mark). */
  async #signalAll(signal: GroupSignal): Promise<void> {
    // Over a transport the local leader is the connection: it ends when the
    // far processes do, or with SIGKILL.
    const local = this.running &&
      (this.#init.launch.kind !== "transport" || signal === "SIGKILL");
    await Promise.all([
      local
        ? signalGroup(this.#pid, signal, this.#init.shell).catch(() => {})
        : Promise.resolve(),
      this.#sweep(signal.slice(3)),
    ]);
  }

  /**
   * Sends `sig` (without "SIG") to every process with the mark: over a
   * transport through the session's control channel when it is open.
   */
  async #sweep(sig: string): Promise<void> {
    const { launch, remoteSweep, token } = this.#init;
    if (launch.kind === "transport" && await remoteSweep?.(sig, token)) return;
    await runQuiet(this.#sweepArgv(sig), { timeoutMs: REMOTE_SWEEP_MS });
  }

  /** At host exit: kill what carries the mark, remove the runner and log. */
  #sweepSync(): void {
    runQuietSync(this.#sweepArgv("KILL"), { timeoutMs: REMOTE_SWEEP_MS });
    try {
      rmSync(this.#init.dir, { recursive: true, force: true });
      this.#init.unguardDir();
    } catch {
      // nothing more can be done while the host exits
    }
  }

  /**
   * Stops the process and everything it started, with the escalation of a
   * deadline: SIGINT, SIGTERM at half of `graceMs`, SIGKILL at `graceMs`.
   * Resolves with how it ended; the log file stays until the session closes.
   */
  async stop(options: StopOptions = {}): Promise<ProcessStatus> {
    const grace = checkDuration(
      "graceMs",
      options.graceMs ?? DEFAULT_STOP_GRACE_MS,
      true,
    );
    if (this.running && grace > 0) {
      await this.#signalAll("SIGINT");
      let waited = 0;
      for (const step of escalation(grace)) {
        const timer = delay(step.afterMs - waited);
        await Promise.race([timer.promise, this.#done]);
        timer.cancel();
        waited = step.afterMs;
        if (!this.running) break;
        await this.#signalAll(step.signal);
      }
    }
    if (this.running) await this.#signalAll("SIGKILL");
    const status = await this.#done;
    // Whatever is left (daemons, children that outlived the leader).
    await this.#signalAll("SIGKILL");
    this.#removeSweep();
    return status;
  }

  /** Resolves when the process has ended and its output is read. */
  wait(): Promise<ProcessStatus> {
    return this.#done;
  }

  /** Stops the process (if running) and removes its log file. */
  async dispose(): Promise<void> {
    await this.stop({ graceMs: 0 });
    await this.#termLoad;
    this.#term?.dispose();
    this.#term = null;
    try {
      rmSync(this.#init.dir, { recursive: true, force: true });
    } catch {
      // already removed
    }
    this.#init.unguardDir();
  }
}
