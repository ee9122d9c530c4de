/**
 * Containment: the kernel keeps a policy's promise. A policy that promises
 * where commands may write and whether they may reach the network (the
 * read-only preset promises no writes and no network) has its session run
 * in a bubblewrap sandbox built from that promise; where bubblewrap cannot
 * run, the session runs uncontained and says so, and the policy is then
 * best effort.
 *
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import { runSync } from "../runtime/_runtime.ts";
import { existsSync } from "node:fs";
import { hostCwd, hostEnv, hostPlatform } from "../runtime/host.ts";
import { bwrapArgv, type Sandbox, unixSocketsBlocked } from "./sandbox.ts";

/** What a policy promises about effects, for the kernel to keep. */
export interface Containment {
  /**
   * Paths commands may write (absolute, or relative to the session's
   * working directory: `"."` is the working directory itself). Empty: none
   * but a private scratch `/tmp`.
   */
  readonly writable: readonly string[];
  /** Whether commands may reach the network (all of it: no host lists). */
  readonly network: boolean;
}

/** Whether a session is contained, and if not, why. */
export type ContainmentStatus =
  | { readonly contained: true; readonly sandbox: Sandbox }
  | { readonly contained: false; readonly reason: string };

/** How a host asks for containment: "auto" falls back with a notice, "required" refuses to run uncontained. */
export type ContainMode = "auto" | "required" | false;

/**
 * The sandbox that keeps `promise` for a session working in `cwd`: the
 * root and `cwd` read-only unless named writable, the promised paths
 * writable, a private `/tmp`, no network unless promised, no Unix sockets.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { containmentSandbox } from "./containment.ts";
 *
 * const s = containmentSandbox({ writable: [], network: false }, "/work");
 * assert.equal(s.readOnlyWorkdir, true);
 * assert.equal(containmentSandbox({ writable: ["."], network: false }, "/work").readOnlyWorkdir, false);
 * ```
 */
export function containmentSandbox(
  promise: Containment,
  cwd: string,
): Sandbox {
  const paths = promise.writable.map((p) =>
    isAbsolute(p) ? resolve(p) : resolve(cwd, p)
  );
  const workdir = resolve(cwd);
  return {
    kind: "bwrap",
    workdir,
    readOnlyWorkdir: !paths.includes(workdir),
    writable: [...new Set(paths.filter((p) => p !== workdir))],
    network: promise.network,
  };
}

const probes = new Map<string, string | null>();

/**
 * Why bubblewrap cannot contain a session here, or null when it can: runs
 * it once (per binary, cached for the process) with the namespaces a
 * contained session uses.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sandboxUnavailable } from "./containment.ts";
 *
 * assert.match(String(sandboxUnavailable("/nonexistent/bwrap")), /bubblewrap/);
 * ```
 */
export function sandboxUnavailable(bwrap = "bwrap"): string | null {
  const cached = probes.get(bwrap);
  if (cached !== undefined) return cached;
  let reason: string | null = null;
  const platform = hostPlatform();
  if (platform !== "linux") {
    reason =
      `no sandbox on ${platform} (bashbox contains sessions with bubblewrap, on Linux only)`;
  } else {
    const argv = bwrapArgv({ kind: "bwrap", workdir: "/", bwrap }, ["true"])
      .filter((a, i, all) =>
        // The probe needs no info fd and no seccomp descriptor.
        !(a === "--info-fd" || all[i - 1] === "--info-fd" ||
          a === "--seccomp" || all[i - 1] === "--seccomp")
      );
    // Through bash, as sessions start bwrap (Deno may run only bash).
    const out = runSync(["bash", "-c", 'exec "$@"', "bashbox-probe", ...argv]);
    if (out.code !== 0) {
      const why = out.stderr.trim().split("\n").at(-1) ?? "";
      reason = out.code === 127 || out.code === 126
        ? `bubblewrap ("${bwrap}") is not installed (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)`
        : `bubblewrap ("${bwrap}") cannot create a sandbox here${
          why ? `: ${why}` : ""
        }`;
    }
  }
  probes.set(bwrap, reason);
  return reason;
}

/**
 * The status in words, as results and start-up notices say it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeContainment } from "./containment.ts";
 *
 * assert.match(
 *   describeContainment({ contained: false, reason: "no bubblewrap" }),
 *   /^not contained: no bubblewrap; the policy is best effort/,
 * );
 * ```
 */
export function describeContainment(status: ContainmentStatus): string {
  if (!status.contained) {
    return `not contained: ${status.reason}; the policy is best effort (the parser alone judges each command)`;
  }
  const s = status.sandbox;
  const writable = [
    ...(s.readOnlyWorkdir ? [] : [s.workdir]),
    ...(s.writable ?? []),
  ];
  return `contained (bubblewrap): writes only to ${
    writable.length ? `${writable.join(", ")} and ` : ""
  }a private /tmp, ${s.network ? "network allowed" : "no network"}${
    unixSocketsBlocked(s) ? ", no Unix sockets" : ""
  }`;
}

/** The options {@linkcode containSession} needs of a session. */
export interface ContainableOptions {
  /** The working directory (default: the host's). */
  cwd?: string;
  /** A sandbox chosen by the caller. */
  sandbox?: Sandbox;
  /** A transport: the shell runs elsewhere. */
  transport?: unknown;
  /** The session's environment (its PATH decides what must stay visible). */
  env?: Record<string, string>;
}

/**
 * The session options that keep `promise`, and the status to report: with
 * a sandbox chosen by the caller, that sandbox; over a transport, not
 * contained; otherwise a sandbox built from the promise where bubblewrap
 * works. `mode` "required" throws where the session would run uncontained;
 * false leaves the options as they are. Without a promise nothing changes
 * and the status is null (unless the caller chose a sandbox).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { containSession } from "./containment.ts";
 *
 * const { status } = containSession(null, {});
 * assert.equal(status, null);
 * const over = containSession({ writable: [], network: false }, { transport: { argv: ["ssh", "h"] } });
 * assert.equal(over.status?.contained, false);
 * ```
 */
export function containSession<T extends ContainableOptions>(
  promise: Containment | null,
  options: T,
  mode: ContainMode = "auto",
): { options: T & { sandbox?: Sandbox }; status: ContainmentStatus | null } {
  if (mode !== "auto" && mode !== "required" && mode !== false) {
    throw new TypeError(
      `Expected contain to be "auto", "required" or false, got ${
        JSON.stringify(mode)
      }`,
    );
  }
  if (options.sandbox !== undefined) {
    return { options, status: { contained: true, sandbox: options.sandbox } };
  }
  if (promise === null) return { options, status: null };
  let reason: string | null;
  if (mode === false) reason = "containment is turned off (contain: false)";
  else if (options.transport !== undefined) {
    reason =
      "the shell runs over a transport, where bashbox contains nothing (contain the remote side yourself)";
  } else reason = sandboxUnavailable();
  if (reason === null) {
    const cwd = options.cwd ?? hostCwd();
    const sandbox = containmentSandbox(promise, cwd);
    // The private /tmp hides the host's: programs the session finds on its
    // PATH there (a toolchain unpacked under /tmp, whose links point into its
    // own tree) stay visible, read-only, with the top directory holding them.
    const readable = (options.env?.PATH ?? hostEnv("PATH") ?? "").split(":")
      .map((d) => /^\/tmp\/([^/]+)/.exec(resolve("/", d))?.[0])
      .filter((d): d is string =>
        d !== undefined && existsSync(d) && d !== sandbox.workdir &&
        !d.startsWith(`${sandbox.workdir}/`)
      );
    if (readable.length > 0) sandbox.readable = [...new Set(readable)];
    return {
      options: { ...options, sandbox },
      status: { contained: true, sandbox },
    };
  }
  if (mode === "required") {
    throw new Error(`Containment is required, and ${reason}`);
  }
  return { options, status: { contained: false, reason } };
}

/**
 * The status of a session made elsewhere (handed to a tool), for a policy
 * with `promise`: contained when it runs in a sandbox. Throws in mode
 * "required" when it does not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sessionContainment } from "./containment.ts";
 *
 * assert.equal(sessionContainment({ writable: [], network: false }, {})?.contained, false);
 * ```
 */
export function sessionContainment(
  promise: Containment | null,
  session: { readonly sandbox?: Sandbox },
  mode: ContainMode = "auto",
): ContainmentStatus | null {
  if (session.sandbox !== undefined) {
    return { contained: true, sandbox: session.sandbox };
  }
  if (promise === null) return null;
  const reason =
    "the session was handed in without a sandbox (bashbox contains only the sessions it creates)";
  if (mode === "required") {
    throw new Error(`Containment is required, and ${reason}`);
  }
  return { contained: false, reason };
}
