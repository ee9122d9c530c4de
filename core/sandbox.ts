/**
 * Isolation for a session: the argv that runs a shell inside bubblewrap
 * (`bwrap`) with a read-only root, a writable workdir, a private `/tmp`, new
 * PID, IPC and (by default) network namespaces, a fresh `/proc`, a new
 * session, and death with its parent. When the PID namespace's first process
 * dies the kernel kills everything inside, so nothing a command started,
 * double-forked daemons included, outlives the sandbox.
 *
 * Pure: builds arguments only.
 *
 * @module
 */

/** Options of a bubblewrap sandbox. */
export interface BwrapSandbox {
  /** The sandbox kind. */
  kind: "bwrap";
  /** The writable working directory the shell starts in (an absolute path). */
  workdir: string;
  /** More absolute paths bound writable (default none). */
  writable?: readonly string[];
  /** More absolute paths bound read-only over a hidden place (default none). */
  readable?: readonly string[];
  /** Keep the host's network (default false: a new, empty network namespace). */
  network?: boolean;
  /** The bwrap binary (default "bwrap"). */
  bwrap?: string;
}

/** A sandbox for a session. */
export type Sandbox = BwrapSandbox;

function checkPath(name: string, path: unknown): string {
  if (
    typeof path !== "string" || !path.startsWith("/") || path.includes("\0")
  ) {
    throw new TypeError(
      `Expected ${name} to be an absolute path, got ${JSON.stringify(path)}`,
    );
  }
  return path;
}

/**
 * The argv that runs `command` inside the sandbox. bwrap writes its
 * `child-pid` (as JSON) on fd 3 before the command starts (the host-side
 * process group of everything inside); `sandboxLauncher` points fd 3 at
 * stdout.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bwrapArgv } from "./sandbox.ts";
 *
 * const argv = bwrapArgv({ kind: "bwrap", workdir: "/work" }, ["bash"]);
 * assert.equal(argv[0], "bwrap");
 * assert.ok(argv.includes("--unshare-net"));
 * assert.equal(argv.at(-1), "bash");
 * ```
 */
export function bwrapArgv(
  sandbox: Sandbox,
  command: readonly string[],
): string[] {
  if (
    sandbox === null || typeof sandbox !== "object" || sandbox.kind !== "bwrap"
  ) {
    throw new TypeError(
      `Expected sandbox to be { kind: "bwrap", workdir }, got ${
        JSON.stringify(sandbox)
      }`,
    );
  }
  const workdir = checkPath("sandbox.workdir", sandbox.workdir);
  const argv = [
    sandbox.bwrap ?? "bwrap",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
  ];
  for (const path of sandbox.readable ?? []) {
    checkPath("sandbox.readable[]", path);
    argv.push("--ro-bind", path, path);
  }
  for (const path of [workdir, ...(sandbox.writable ?? [])]) {
    checkPath("sandbox.writable[]", path);
    argv.push("--bind", path, path);
  }
  argv.push(
    "--unshare-pid",
    "--unshare-ipc",
    ...(sandbox.network ? [] : ["--unshare-net"]),
    "--die-with-parent",
    "--new-session",
    "--chdir",
    workdir,
    "--info-fd",
    "3",
    "--",
    ...command,
  );
  return argv;
}

/**
 * The host pid bwrap reports on its info fd, found at the start of its output.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bwrapChildPid } from "./sandbox.ts";
 *
 * assert.equal(bwrapChildPid('{ "child-pid": 42 }'), 42);
 * ```
 */
export function bwrapChildPid(output: string): number | null {
  const m = /"child-pid":\s*(\d+)/.exec(output);
  return m ? Number(m[1]) : null;
}

/**
 * Wraps a bwrap argv so that fd 3 is a copy of stdout (bwrap closes its info
 * fd in the sandbox, so it cannot be stdout itself). The shell `exec`s bwrap,
 * so the pid and process group stay the same.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sandboxLauncher } from "./sandbox.ts";
 *
 * assert.equal(
 *   sandboxLauncher("bash", ["bwrap", "--", "true"])[2],
 *   'exec 3>&1; exec "$@"',
 * );
 * ```
 */
export function sandboxLauncher(
  shell: string,
  argv: readonly string[],
): string[] {
  return [shell, "-c", 'exec 3>&1; exec "$@"', "bashbox-sandbox", ...argv];
}
