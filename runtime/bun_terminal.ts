/**
 * Bun's built-in pseudo-terminal: `Bun.spawn(argv, { terminal })`. Only
 * called on Bun (Deno and Node use the `script` or Python helper).
 *
 * @module
 */

/** A process running in Bun's terminal. */
export interface BunTerminalProcess {
  /** The process id. */
  readonly pid: number;
  /** Resolves when the process has exited. */
  readonly exited: Promise<unknown>;
  /** The exit code, once exited (null when a signal ended it). */
  readonly exitCode: number | null;
  /** The signal that ended it, by number or name, once exited. */
  readonly signalCode: number | string | null;
  /** The terminal: what is written goes to the program's input. */
  readonly terminal?: {
    write(text: string): void;
    resize(cols: number, rows: number): void;
    close(): void;
  };
  /** Sends a signal to the process. */
  kill(signal?: number | string): void;
}

/** Starts `argv` in a new terminal of `cols` x `rows`; `onData` gets what it shows. */
export function spawnBunTerminal(
  argv: readonly string[],
  options: {
    cols: number;
    rows: number;
    onData: (bytes: Uint8Array) => void;
  },
): BunTerminalProcess {
  // deno-lint-ignore no-explicit-any
  const Bun = (globalThis as any).Bun;
  return Bun.spawn([...argv], {
    env: {},
    terminal: {
      cols: options.cols,
      rows: options.rows,
      data: (_t: unknown, bytes: Uint8Array) => options.onData(bytes),
    },
  });
}
