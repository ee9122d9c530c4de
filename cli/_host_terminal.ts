/**
 * Hosting a program that needs the terminal (see `_terminal_programs.ts`) on
 * the person's own terminal, for `repl`: the program runs as a terminal
 * process of the session (a pseudo-terminal of its own, started with the
 * session's working directory, exported variables and functions), its screen
 * output goes to the person's terminal unchanged, their keys go to it (Ctrl-C
 * included: the pseudo-terminal makes it the program's SIGINT), and resizes
 * follow. The session's shell is not touched.
 *
 * @module
 */

import { closeSync, openSync, readSync } from "node:fs";
import { NONINTERACTIVE_ENV } from "../core/_env.ts";
import type { ProcessStatus } from "../core/processes.ts";
import type { BashSession } from "../core/session.ts";

/** The person's terminal, as hosting uses it (raw mode is the caller's). */
export interface HostTerminalIo {
  /**
   * Every key byte waiting (or the next ones typed), null at the end of
   * input, or "stopped" once `stop` settles first (no byte is taken then).
   */
  take(stop: Promise<unknown>): Promise<Uint8Array | null | "stopped">;
  /** Gives back bytes taken but not used: they go to the next reader. */
  putBack(bytes: Uint8Array): void;
  /** Writes to the terminal as is (no newline translation). */
  write(text: string): void;
  /** The terminal's size, or null when it cannot be told. */
  size(): { cols: number; rows: number } | null;
  /** Calls `listener` at each resize; returns the function that stops it. */
  onResize(listener: () => void): () => void;
}

/** Options of {@linkcode hostOnTerminal}. */
export interface HostOptions {
  /** The person's terminal. */
  terminal: HostTerminalIo;
  /**
   * The host's environment: the program gets the person's own `TERM`,
   * `PAGER`, `EDITOR`, `NO_COLOR`, … back where the session still has the
   * values it sets for commands nobody answers (`PAGER=cat`, `TERM=dumb`).
   *
   * @default {{}}
   */
  env?: Record<string, string | undefined>;
}

/** What {@linkcode hostOnTerminal} returns. */
export interface Hosted extends ProcessStatus {
  /** The terminal's cursor is at the start of a line (no newline is needed). */
  atLineStart: boolean;
}

function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * bash that gives a hosted program the person's own terminal settings back:
 * each variable the session sets for commands nobody answers is set to the
 * host's value (or unset) where the session still has that default, and
 * `TERM` is the host's (the process tools' `xterm-256color` otherwise).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { personalSettings } from "./_host_terminal.ts";
 *
 * const bash = personalSettings({ TERM: "screen-256color", PAGER: "less" });
 * assert.match(bash, /builtin export TERM='screen-256color'/);
 * assert.match(bash, /"\$\{PAGER-\}" = 'cat' \] && builtin export PAGER='less'/);
 * assert.match(bash, /"\$\{NO_COLOR-\}" = '1' \] && builtin unset NO_COLOR/);
 * ```
 */
export function personalSettings(
  env: Record<string, string | undefined>,
): string {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(NONINTERACTIVE_ENV)) {
    if (name === "TERM") continue;
    const mine = env[name];
    lines.push(
      `builtin [ "\${${name}-}" = ${quote(value)} ] && ${
        mine === undefined
          ? `builtin unset ${name}`
          : `builtin export ${name}=${quote(mine)}`
      }`,
    );
  }
  const term = env.TERM;
  if (term && term !== "dumb") lines.push(`builtin export TERM=${quote(term)}`);
  return lines.join("\n");
}

/** Modes a full-screen program may leave on when it dies: all turned off. */
const RESTORE =
  // SGR reset, cursor shown, mouse and focus reporting, bracketed paste off,
  // normal cursor keys and keypad.
  "\x1b[0m\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l\x1b[?1l\x1b>";

/** Enters (h) or leaves (l) the alternate screen. */
// deno-lint-ignore no-control-regex
const ALT_SCREEN = /\x1b\[\?(?:1049|1047|47)([hl])/g;
/** Leaves the alternate screen (the cursor goes back where it was, at a line's start). */
// deno-lint-ignore no-control-regex
const ALT_LEAVE = /^\x1b\[\?(?:1049|1047|47)l$/;
/** One escape sequence, or one character. */
const TOKENS =
  // deno-lint-ignore no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-~]|[\s\S]/gu;

/**
 * Runs `command` on the person's terminal as a terminal process of
 * `session` (see the module): the terminal's size, keys relayed, output
 * relayed unchanged, resizes followed. Resolves when the program has ended
 * (at the end of the person's input it is stopped), with how it ended; the
 * process's files are gone by then. Throws what `BashSession.spawn` throws
 * (a session in a sandbox or over a transport has no terminal on this host).
 *
 * @example
 * ```ts ignore
 * import { BashSession } from "../core/session.ts";
 * import { hostOnTerminal } from "./_host_terminal.ts";
 *
 * await using session = new BashSession();
 * const status = await hostOnTerminal(session, "vim notes.txt", { terminal });
 * ```
 */
export async function hostOnTerminal(
  session: BashSession,
  command: string,
  options: HostOptions,
): Promise<Hosted> {
  const terminal = options.terminal;
  const size = terminal.size() ?? { cols: 80, rows: 24 };
  const clamp = (n: number) => Math.max(2, Math.min(1000, Math.floor(n)));
  const proc = await session.spawn(
    `${personalSettings(options.env ?? {})}\n${command}`,
    { tty: true, cols: clamp(size.cols), rows: clamp(size.rows) },
  );
  const ended = proc.wait();
  let alternate = false;
  let atLineStart = true;
  const stopResize = terminal.onResize(() => {
    const now = terminal.size();
    if (now && proc.running) {
      proc.resize(clamp(now.cols), clamp(now.rows)).catch(() => {});
    }
  });
  try {
    // The screen output: the process's log holds every byte as it came (no
    // redactor: this is the person's own program on their own terminal);
    // read() says when there is more, and keeps nothing in memory.
    const log = openSync(proc.logPath, "r");
    const output = (async () => {
      const buffer = new Uint8Array(64 * 1024);
      const decoder = new TextDecoder();
      let offset = 0;
      const relay = (last = false) => {
        for (;;) {
          const n = readSync(log, buffer, 0, buffer.length, offset);
          if (n <= 0) break;
          offset += n;
          show(decoder.decode(buffer.subarray(0, n), { stream: true }));
        }
        if (last) show(decoder.decode());
      };
      const show = (text: string) => {
        if (text === "") return;
        terminal.write(text);
        for (const m of text.matchAll(ALT_SCREEN)) alternate = m[1] === "h";
        for (const [t] of text.matchAll(TOKENS)) {
          if (t === "\n" || t === "\r") atLineStart = true;
          else if (t.length === 1 && t >= " " && t !== "\x7f") {
            atLineStart = false;
          } else if (ALT_LEAVE.test(t)) atLineStart = true;
        }
      };
      try {
        while (proc.running) {
          await proc.read({ waitMs: 60_000, maxBytes: 1 });
          relay();
        }
        await ended;
        relay(true);
      } finally {
        closeSync(log);
      }
    })();
    // The keys: all of them to the program, until it ends.
    const input = (async () => {
      const decoder = new TextDecoder();
      while (proc.running) {
        const keys = await terminal.take(ended);
        if (keys === "stopped") break;
        if (keys === null) {
          // The person's input ended: so does the program.
          await proc.stop();
          break;
        }
        if (!proc.running) {
          terminal.putBack(keys);
          break;
        }
        const text = decoder.decode(keys, { stream: true });
        if (text !== "") await proc.write(text).catch(() => {});
      }
    })();
    await Promise.all([output, input]);
    const status = await ended;
    if (alternate) {
      terminal.write("\x1b[?1049l");
      atLineStart = true;
    }
    terminal.write(RESTORE);
    return { ...status, atLineStart };
  } finally {
    stopResize();
    await proc.dispose();
  }
}
