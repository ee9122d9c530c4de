/**
 * The host process, whatever runs it (Deno, Bun or Node): its arguments,
 * environment, standard streams, signals, timers, exit, and npm imports. The
 * rest of bashbox asks here instead of branching on the runtime itself.
 *
 * @module
 */

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
const DenoNs = typeof g.Deno?.version?.deno === "string" ? g.Deno : undefined;
const BunNs = typeof g.Bun?.version === "string" ? g.Bun : undefined;

/** The command line's arguments after the script. */
export function hostArgs(): string[] {
  return DenoNs ? [...DenoNs.args] : g.process.argv.slice(2);
}

/** One environment variable of the host; undefined when unset or unreadable. */
export function hostEnv(name: string): string | undefined {
  try {
    return DenoNs ? DenoNs.env.get(name) : g.process?.env?.[name];
  } catch {
    return undefined;
  }
}

/** The whole environment of the host ({} without permission to read it). */
export function hostEnvObject(): Record<string, string | undefined> {
  try {
    return DenoNs ? DenoNs.env.toObject() : { ...g.process.env };
  } catch {
    return {};
  }
}

/** The host's working directory ("/" where it cannot be read). */
export function hostCwd(): string {
  try {
    return DenoNs ? DenoNs.cwd() : g.process.cwd();
  } catch {
    return "/";
  }
}

/** The host's operating system as Node names it ("linux", "darwin", ...). */
export function hostPlatform(): string {
  return DenoNs ? DenoNs.build.os : g.process?.platform ?? "unknown";
}

/** The host's CPU architecture as Node names it ("x64", "arm64", ...). */
export function hostArch(): string {
  const arch = DenoNs ? DenoNs.build.arch : g.process?.arch ?? "unknown";
  return arch === "x86_64" ? "x64" : arch === "aarch64" ? "arm64" : arch;
}

const encoder = new TextEncoder();

/** Writes text to the host's stdout (1) or stderr (2). */
export function writeHost(fd: 1 | 2, text: string): void {
  if (DenoNs) {
    const file = fd === 1 ? DenoNs.stdout : DenoNs.stderr;
    const bytes = encoder.encode(text);
    for (let i = 0; i < bytes.length;) i += file.writeSync(bytes.subarray(i));
  } else g.process[fd === 1 ? "stdout" : "stderr"].write(text);
}

/** True when the host's stdout is a terminal. */
export function stdoutIsTerminal(): boolean {
  return DenoNs ? DenoNs.stdout.isTerminal() : Boolean(g.process.stdout.isTTY);
}

/** The host's stdin as a byte stream. */
export function stdinStream(): ReadableStream<Uint8Array> {
  return DenoNs
    ? DenoNs.stdin.readable
    : BunNs
    ? BunNs.stdin.stream()
    : ReadableStream.from(g.process.stdin);
}

/** A terminal on the host's stdin, read key by key in raw mode. */
export interface HostTerminal {
  /** Turns raw mode on or off. */
  setRaw(on: boolean): void;
  /** The next bytes typed; null at end of input. */
  read(): Promise<Uint8Array | null>;
}

/** The host's stdin as a {@linkcode HostTerminal}, where it is one. */
export function stdinTerminal(): HostTerminal | undefined {
  if (DenoNs) {
    const stdin = DenoNs.stdin;
    if (!stdin.isTerminal()) return undefined;
    const buffer = new Uint8Array(4096);
    return {
      setRaw: (on) => stdin.setRaw(on),
      read: async () => {
        const n = await stdin.read(buffer);
        return n === null ? null : buffer.slice(0, n);
      },
    };
  }
  const stdin = g.process.stdin;
  if (!stdin.isTTY) return undefined;
  const chunks: Uint8Array[] = [];
  let ended = false;
  let wake: (() => void) | null = null;
  let listening = false;
  const listen = () => {
    if (listening) return;
    listening = true;
    stdin.on("data", (c: Uint8Array) => {
      chunks.push(new Uint8Array(c));
      wake?.();
    });
    stdin.on("end", () => {
      ended = true;
      wake?.();
    });
  };
  return {
    setRaw: (on) => {
      stdin.setRawMode(on);
      if (on) stdin.resume();
      else stdin.pause();
    },
    read: async () => {
      listen();
      stdin.resume();
      while (chunks.length === 0 && !ended) {
        await new Promise<void>((r) => wake = r);
      }
      return chunks.shift() ?? null;
    },
  };
}

/** Ends the host with `code`. */
export function exitHost(code: number): never {
  if (DenoNs) DenoNs.exit(code);
  g.process.exit(code);
  throw new Error("unreachable");
}

/** Listeners added through {@linkcode onHostSignal}, by signal. */
const appListeners = new Map<string, number>();

/**
 * Runs `listener` at each of the host's `signal`s (SIGINT, SIGTERM, ...).
 * The application then owns that signal: bashbox's own handler, which
 * otherwise kills every shell and exits, leaves the shutdown to it (and
 * kills what is left when the host exits).
 *
 * @example
 * ```ts ignore
 * import { BashSession, onHostSignal } from "@bashbox/core";
 *
 * const session = new BashSession();
 * onHostSignal("SIGTERM", async () => {
 *   await session.close(); // the application's own shutdown runs first
 *   Deno.exit(0);
 * });
 * ```
 */
export function onHostSignal(signal: string, listener: () => void): void {
  if (DenoNs) DenoNs.addSignalListener(signal, listener);
  else g.process.on(signal, listener);
  appListeners.set(signal, (appListeners.get(signal) ?? 0) + 1);
}

/**
 * Whether the application listens for `signal` itself: through
 * {@linkcode onHostSignal}, or `process.on` (any listener but `own`; Deno's
 * `process` too). (A listener added with `Deno.addSignalListener` directly
 * cannot be seen.)
 */
export function appHandlesSignal(signal: string, own: () => void): boolean {
  if ((appListeners.get(signal) ?? 0) > 0) return true;
  try {
    if (typeof g.process?.listeners !== "function") return false;
    return g.process.listeners(signal).some((l: unknown) => l !== own);
  } catch {
    return false;
  }
}

/** Lets the host exit while `timer` is pending. */
export function unrefTimer(timer: ReturnType<typeof setTimeout>): void {
  if (typeof DenoNs?.unrefTimer === "function") DenoNs.unrefTimer(timer);
  else (timer as unknown as { unref?: () => void }).unref?.();
}

/**
 * Loads an npm package with `load` (a literal `import("name")`: the project's
 * import map or `node_modules`), else, on Deno, straight from npm as
 * `specifier` (`npm:name@version`), for a module imported by path without
 * the project's configuration. Throws, naming the package to install, when
 * neither works.
 */
export async function importNpm<T>(
  load: () => Promise<T>,
  fallback: { specifier: string; name: string; whatFor: string },
): Promise<T> {
  try {
    return await load();
  } catch (first) {
    if (!DenoNs) {
      throw new Error(
        `${fallback.whatFor} needs the ${fallback.name} package (npm install ${fallback.name}): ${
          first instanceof Error ? first.message : String(first)
        }`,
      );
    }
    return await import(fallback.specifier);
  }
}
