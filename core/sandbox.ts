/**
 * Isolation for a session: the argv that runs a shell inside bubblewrap
 * (`bwrap`) with a read-only root, a writable (or read-only) workdir, a
 * private `/tmp` (the scratch for temporary files), new PID, IPC, UTS and (by
 * default) network namespaces, a fresh `/proc`, a new session, no
 * capabilities (even when the host runs as root), and death with its parent. When the PID namespace's first process dies the kernel kills
 * everything inside, so nothing a command started, double-forked daemons
 * included, outlives the sandbox.
 *
 * Sockets are the way out of a read-only file system: connecting to a Unix
 * socket needs no write permission on the mount (the D-Bus system bus, a
 * Docker socket, an agent's socket would run commands outside). So, by
 * default, `/run` is hidden (without network) and a seccomp filter lets
 * `socket` create only what a network namespace isolates (no Unix sockets,
 * no vsock to the hypervisor), makes io_uring (which opens sockets without
 * `socket`) and the uid-wide kernel keyrings unavailable (x86-64 and arm64;
 * other architectures get no filter, and `unixSocketsBlocked` says so).
 *
 * Builds arguments (reading the host's architecture for the seccomp
 * program), and writes the seccomp program to a short-lived private file so
 * that bash opens it without a fork.
 *
 * @module
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostArch } from "../runtime/host.ts";

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
  /**
   * Bind the workdir read-only (default false: writable). With it, nothing
   * outside `writable` and the private `/tmp` can be written.
   */
  readOnlyWorkdir?: boolean;
  /**
   * Let commands create Unix sockets (default false: a seccomp filter makes
   * `socket(AF_UNIX, …)` fail, so no socket on the host, such as the D-Bus
   * bus or a Docker socket, can be reached).
   */
  unixSockets?: boolean;
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
  // /run holds the host's sockets (D-Bus, Docker, sshd, the user's runtime
  // dir); with network, /etc/resolv.conf may point into it, so it stays.
  if (!sandbox.network) argv.push("--tmpfs", "/run");
  argv.push(sandbox.readOnlyWorkdir ? "--ro-bind" : "--bind", workdir, workdir);
  for (const path of sandbox.writable ?? []) {
    checkPath("sandbox.writable[]", path);
    argv.push("--bind", path, path);
  }
  if (!sandbox.unixSockets && seccompFilter() !== null) {
    argv.push("--seccomp", String(SECCOMP_FD));
  }
  argv.push(
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    ...(sandbox.network ? [] : ["--unshare-net"]),
    "--die-with-parent",
    // Started by root, bwrap would keep every capability (remount / rw).
    "--cap-drop",
    "ALL",
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

/** The descriptor bwrap reads the seccomp program from. */
const SECCOMP_FD = 4;

/** Audit architecture, socket(2) and add_key(2) numbers of the architectures filtered (request_key and keyctl follow add_key). */
const ARCHES: Record<
  string,
  { audit: number; socket: number; addKey: number }
> = {
  x64: { audit: 0xc000003e, socket: 41, addKey: 248 },
  arm64: { audit: 0xc00000b7, socket: 198, addKey: 217 },
};

/**
 * The classic BPF program (as the bytes `struct sock_filter[]` holds) that
 * lets `socket` create only the families a network namespace isolates
 * (AF_INET, AF_INET6, AF_NETLINK; any other, AF_UNIX and AF_VSOCK among
 * them, fails with EPERM), makes the keyring calls (`add_key`,
 * `request_key`, `keyctl`: keys belong to the uid and outlive the sandbox)
 * fail with EPERM and `io_uring_setup` with ENOSYS (io_uring creates sockets
 * without `socket`; programs fall back to plain calls), lets every other
 * call through, and fails every call of a foreign ABI (x32, 32-bit) with
 * ENOSYS so that no other syscall table gets past it; null on an
 * architecture it does not know.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { seccompFilter } from "./sandbox.ts";
 *
 * assert.equal(seccompFilter("x64")?.length, 16 * 8);
 * assert.equal(seccompFilter("mips"), null);
 * ```
 */
export function seccompFilter(arch: string = hostArch()): Uint8Array | null {
  const a = ARCHES[arch];
  if (a === undefined) return null;
  const LD_ABS = 0x20, JEQ = 0x15, JGE = 0x35, RET = 0x06;
  // io_uring_setup has the same number on x86-64 and arm64.
  const IO_URING_SETUP = 425;
  const AF_INET = 2, AF_INET6 = 10, AF_NETLINK = 16;
  type Target = "next" | "allow" | "eperm" | "enosys";
  // [code, k, jump if true, jump if false]; targets are resolved below.
  const program: [number, number, Target, Target][] = [
    [LD_ABS, 4, "next", "next"], // arch
    [JEQ, a.audit, "next", "enosys"], // a foreign ABI: nothing
    [LD_ABS, 0, "next", "next"], // the syscall number
    [JGE, 0x40000000, "enosys", "next"], // x32
    [JEQ, IO_URING_SETUP, "enosys", "next"], // its IORING_OP_SOCKET skips socket()
    // The kernel's keyrings belong to the uid, not to a namespace: a key
    // written inside would outlive the sandbox on the host.
    [JEQ, a.addKey, "eperm", "next"],
    [JEQ, a.addKey + 1, "eperm", "next"], // request_key
    [JEQ, a.addKey + 2, "eperm", "next"], // keyctl
    [JEQ, a.socket, "next", "allow"],
    [LD_ABS, 16, "next", "next"], // socket's family (args[0], low half)
    // Only the families a network namespace isolates: no Unix sockets
    // (they cross a read-only mount), no vsock (the hypervisor's), ...
    [JEQ, AF_INET, "allow", "next"],
    [JEQ, AF_INET6, "allow", "next"],
    [JEQ, AF_NETLINK, "allow", "eperm"],
  ];
  const ALLOW = 0x7fff0000, ERRNO = 0x00050000;
  const returns: Record<Exclude<Target, "next">, number> = {
    allow: ALLOW,
    eperm: ERRNO | 1,
    enosys: ERRNO | 38,
  };
  const at: Record<Exclude<Target, "next">, number> = {
    allow: program.length,
    eperm: program.length + 1,
    enosys: program.length + 2,
  };
  const bytes = new Uint8Array((program.length + 3) * 8);
  const view = new DataView(bytes.buffer);
  const put = (i: number, code: number, jt: number, jf: number, k: number) => {
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k >>> 0, true);
  };
  // A jump counts the instructions after the next one.
  const jump = (i: number, t: Target) => t === "next" ? 0 : at[t] - i - 1;
  program.forEach(([code, k, t, f], i) =>
    put(i, code, jump(i, t), jump(i, f), k)
  );
  for (const [name, i] of Object.entries(at)) {
    put(i, RET, 0, 0, returns[name as keyof typeof returns]);
  }
  return bytes;
}

/**
 * Whether sessions in `sandbox` cannot create Unix sockets: true unless the
 * sandbox allows them or the architecture has no filter here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unixSocketsBlocked } from "./sandbox.ts";
 *
 * assert.equal(unixSocketsBlocked({ kind: "bwrap", workdir: "/w", unixSockets: true }), false);
 * ```
 */
export function unixSocketsBlocked(sandbox: Sandbox): boolean {
  return !sandbox.unixSockets && seccompFilter() !== null;
}

/**
 * Writes the seccomp program to a file of its own (mode 0400, in a new
 * private directory under the temp dir) that bash can open without a fork;
 * `remove()` deletes it once the shell has opened it (bwrap has reported
 * its pid). Null where there is no filter or no temp dir to write.
 */
export function writeSeccompFile(): { path: string; remove(): void } | null {
  const filter = seccompFilter();
  if (filter === null) return null;
  try {
    const dir = mkdtempSync(join(tmpdir(), "bashbox-seccomp-"));
    const path = join(dir, "filter.bpf");
    writeFileSync(path, filter, { mode: 0o400 });
    return {
      path,
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch {
    return null;
  }
}

/**
 * Shell code that opens what a bwrap argv reads besides its arguments: the
 * seccomp program on its descriptor (from `seccompFile`, see
 * {@linkcode writeSeccompFile}, or else a pipe bash's printf fills), when the
 * argv asks for one. Empty otherwise.
 */
export function sandboxPrelude(
  argv: readonly string[],
  seccompFile?: string,
): string {
  if (!argv.includes("--seccomp")) return "";
  if (seccompFile !== undefined && !/['\n]/.test(seccompFile)) {
    return `exec ${SECCOMP_FD}<'${seccompFile}'; `;
  }
  const filter = seccompFilter();
  if (filter === null) return "";
  const escaped = [...filter].map((b) => "\\" + b.toString(8).padStart(3, "0"))
    .join("");
  return `exec ${SECCOMP_FD}< <(builtin printf '${escaped}'); `;
}

/**
 * Wraps a bwrap argv so that fd 3 is a copy of stdout (bwrap closes its info
 * fd in the sandbox, so it cannot be stdout itself) and the seccomp program
 * is on its descriptor. The shell `exec`s bwrap, so the pid and process
 * group stay the same.
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
  seccompFile?: string,
): string[] {
  return [
    shell,
    "-c",
    `${sandboxPrelude(argv, seccompFile)}exec 3>&1; exec "$@"`,
    "bashbox-sandbox",
    ...argv,
  ];
}
