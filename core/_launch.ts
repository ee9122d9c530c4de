/**
 * The three ways a session's shell is launched — on this host, inside a
 * bubblewrap sandbox, or at the other end of a transport (ssh, docker exec,
 * kubectl exec) — as one tagged union, and how each is signalled.
 *
 * Internal module: only `session.ts` imports it.
 *
 * @module
 */

import {
  type GroupProcess,
  type GroupSignal,
  GUARD_SWEEP,
  MARK_SWEEP,
  pump,
  signalGroup,
  signalSession,
  spawnGroup,
  SWEEP_SCRIPT,
  within,
} from "../runtime/_runtime.ts";
import { guardToken } from "../runtime/_guardian.ts";
import { bwrapArgv, type Sandbox, sandboxLauncher } from "./sandbox.ts";

/** A byte pipe to a remote bash. */
export interface Transport {
  /** The local command whose stdin/stdout reach the remote side. */
  argv: readonly string[];
}

/** Where a session's shell runs. */
export type Launch =
  | { readonly kind: "local" }
  | { readonly kind: "sandbox"; readonly sandbox: Sandbox }
  | { readonly kind: "transport"; readonly transport: Transport };

/** The launch a session's options ask for. */
export function launchOf(
  options: { sandbox?: Sandbox; transport?: Transport },
): Launch {
  if (options.sandbox) return { kind: "sandbox", sandbox: options.sandbox };
  if (options.transport) {
    return { kind: "transport", transport: options.transport };
  }
  return { kind: "local" };
}

/**
 * Runs a transport through the shell (`exec "$@"`), so Deno needs no run
 * permission beyond the shell's; the pid and process group stay the same.
 */
export function transportLauncher(
  shell: string,
  argv: readonly string[],
): string[] {
  return [shell, "-c", 'exec "$@"', "bashbox-transport", ...argv];
}

/**
 * The variable a remote shell and everything it starts carry (value: a
 * token of that shell), so that its control channel finds them all when the
 * connection drops (see {@linkcode ControlChannel}).
 */
export const REMOTE_GUARD_VARIABLE = "BASHBOX_REMOTE";

/**
 * The token of the remote shell last launched over each transport, until its
 * control channel takes it: a session starts its shell and then, at once,
 * its control channel (see {@linkcode launchArgv}).
 */
const remoteTokens = new WeakMap<Transport, string>();

/**
 * The local argv that starts `inner` (a bash command line) for a launch.
 * Over a transport the remote shell starts as `env BASHBOX_REMOTE=<token>
 * bash …` (plain words, as any transport passes them on), and the next
 * {@linkcode ControlChannel} opened over the same transport guards it.
 */
export function launchArgv(
  launch: Launch,
  shell: string,
  inner: readonly string[],
  seccompFile?: string,
): string[] {
  switch (launch.kind) {
    case "local":
      return [...inner];
    case "sandbox":
      return sandboxLauncher(
        shell,
        bwrapArgv(launch.sandbox, inner),
        seccompFile,
      );
    case "transport": {
      const token = guardToken();
      remoteTokens.set(launch.transport, token);
      return transportLauncher(shell, [
        ...launch.transport.argv,
        "env",
        `${REMOTE_GUARD_VARIABLE}=${token}`,
        ...inner,
      ]);
    }
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** How long a signal through a transport may take to be acknowledged. */
const CONTROL_ACK_MS = 15_000;

/**
 * The control channel of a remote session: a second connection opened with
 * the session, running a small bash loop that signals the remote process
 * group and session on request and acknowledges each request, so a signal
 * costs a round trip instead of a new connection, and arrives in order.
 *
 * It is also the remote side's lifeline: the loop waits in `read`, so it
 * sees EOF as soon as the connection drops (the host died, or the guardian
 * killed its transport), and then SIGKILLs every process that carries the
 * remote shell's mark ({@linkcode REMOTE_GUARD_VARIABLE}: the shell, its
 * jobs, `setsid` escapes, spawned processes) and every process of their
 * sessions. `close()` says "Q" first, so a session closed on purpose ends
 * the loop without that sweep.
 */
export class ControlChannel {
  readonly #proc: GroupProcess;
  readonly #waiters: (() => void)[] = [];
  readonly #fallback: readonly string[];
  readonly #killer: string;
  #alive = true;

  /** Opens the connection; requests written before it is up wait in the pipe. */
  constructor(transport: Transport, killer: string) {
    this.#killer = killer;
    this.#fallback = transport.argv;
    // The shell launched just before (launchArgv); a fresh token (guarding
    // nothing) if there was none.
    const token = remoteTokens.get(transport) ?? guardToken();
    remoteTokens.delete(transport);
    this.#proc = spawnGroup(
      transportLauncher(killer, [
        ...transport.argv,
        "bash",
        "--noprofile",
        "--norc",
      ]),
      { stdin: true, killer },
    );
    let pending = "";
    const out = pump(this.#proc.stdout, (chunk) => {
      pending += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = pending.indexOf("\n")) !== -1) {
        pending = pending.slice(nl + 1);
        this.#waiters.shift()?.();
      }
    });
    const err = pump(this.#proc.stderr, () => {});
    this.#proc.status.then(async () => {
      this.#alive = false;
      await Promise.all([out.done, err.done]);
      this.#waiters.splice(0).forEach((w) => w());
    });
    // A line "SIG pgid sid" signals a group and session; "M SIG token"
    // signals every process marked BASHBOX_PROCESS=token (spawned processes);
    // "Q" ends the loop. EOF (the connection dropped) runs __gone: the sweep
    // of everything the remote shell started; once more a second later, for
    // a spawned process whose own connection was still starting it. (One
    // line: bash parses it whole before it runs the loop, which reads the
    // lines after it.)
    this.#proc.write(encoder.encode(
      `__sw(){ ${SWEEP_SCRIPT}\n}\n__ms(){ ${MARK_SWEEP}\n}\n` +
        `__gone(){ t=${REMOTE_GUARD_VARIABLE}=${token} s=" "\n${GUARD_SWEEP}\n}\n` +
        `trap '' HUP PIPE\n` +
        `while read -r sig pg sid; do [ "$sig" = Q ] && exit 0; if [ "$sig" = M ]; then __ms "$sid" "$pg"; else` +
        ` kill -s "$sig" -- "-$pg" 2>/dev/null;` +
        ` [ "$sig" = KILL ] && g=0 || g=$pg; __sw "$sid" "$g" "$sig"; fi; echo k; done; __gone; sleep 1; __gone; exit 0\n`,
    ));
  }

  /**
   * Sends `signal` to remote group `group` and the rest of session `session`;
   * resolves when the remote side acknowledged it (or the channel is gone).
   */
  async signal(
    signal: GroupSignal,
    group: number,
    session: number,
  ): Promise<void> {
    const line = `${signal.slice(3)} ${group} ${session}\n`;
    if (this.#alive) {
      const acked = new Promise<void>((resolve) => this.#waiters.push(resolve));
      if (await this.#proc.write(encoder.encode(line))) {
        if (await within(acked, CONTROL_ACK_MS) && this.#alive) return;
      }
    }
    // The channel is gone: one connection for this signal.
    const once = spawnGroup(
      transportLauncher(this.#killer, [
        ...this.#fallback,
        "kill",
        "-s",
        signal.slice(3),
        "--",
        `-${group}`,
      ]),
      { killer: this.#killer },
    );
    const pumps = [pump(once.stdout, () => {}), pump(once.stderr, () => {})];
    if (!await within(once.status, CONTROL_ACK_MS)) {
      await once.killGroup("SIGKILL").catch(() => {});
    }
    await Promise.all(pumps.map((p) => p.stop()));
  }

  /**
   * Sends `signal` (a name without "SIG") to every remote process whose
   * environment holds `BASHBOX_PROCESS=<token>`; resolves true once the
   * remote side acknowledged it, false when the channel is gone (the caller
   * then opens a connection of its own).
   */
  async sweepMark(signal: string, token: string): Promise<boolean> {
    if (!this.#alive || !/^[A-Z0-9]+$/.test(signal + token.toUpperCase())) {
      return false;
    }
    const acked = new Promise<void>((resolve) => this.#waiters.push(resolve));
    if (!await this.#proc.write(encoder.encode(`M ${signal} ${token}\n`))) {
      return false;
    }
    return await within(acked, CONTROL_ACK_MS) && this.#alive;
  }

  /**
   * Closes the channel and ends its local process; the remote loop ends
   * without its sweep (what the session started was stopped on purpose).
   */
  async close(): Promise<void> {
    if (this.#alive) await this.#proc.write(encoder.encode("Q\n"));
    await this.#proc.closeStdin();
    if (!await within(this.#proc.status, 2000)) {
      await this.#proc.killGroup("SIGKILL").catch(() => {});
    }
    await this.#proc.status;
  }
}

/** Signals a sandbox's inner session (its host-side group and session id). */
export async function signalSandbox(
  inner: number,
  signal: GroupSignal,
  killer: string,
): Promise<void> {
  await Promise.all([
    signalGroup(inner, signal, killer).catch(() => {}),
    signalSession(inner, signal, {
      exceptGroup: signal === "SIGKILL" ? 0 : inner,
      killer,
    }),
  ]);
}
