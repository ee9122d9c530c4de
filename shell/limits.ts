/**
 * Resource limits for a shell: the `ulimit` lines that apply them.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

/** Resource limits applied when a shell starts. */
export interface Limits {
  /** CPU seconds per process (`ulimit -t`: SIGXCPU at this soft limit, SIGKILL a second later). */
  cpuSeconds?: number;
  /** Virtual memory per process in bytes (`ulimit -v`, rounded down to KiB). */
  memoryBytes?: number;
  /** Largest file a process may write, in bytes (`ulimit -f`, in 1024-byte blocks). */
  fileSizeBytes?: number;
  /** Processes of the user (`ulimit -u`). */
  processes?: number;
  /** Open files per process (`ulimit -n`). */
  openFiles?: number;
}

/**
 * The `ulimit` lines that apply `limits` (hard and soft) in a shell.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { limitsScript } from "./limits.ts";
 *
 * assert.equal(limitsScript({ openFiles: 256 }), "ulimit -n 256\n");
 * ```
 */
export function limitsScript(limits: Limits): string {
  const lines: string[] = [];
  const put = (key: keyof Limits, flag: string, scale: number) => {
    const v = limits[key];
    if (v === undefined) return;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
      throw new RangeError(
        `Expected limits.${key} to be a positive number, got ${String(v)}`,
      );
    }
    const n = Math.max(1, Math.floor(v / scale));
    lines.push(`ulimit ${flag} ${n}`);
  };
  put("cpuSeconds", "-t", 1);
  if (lines.length > 0 && limits.cpuSeconds !== undefined) {
    // Soft limit first (SIGXCPU, which names the cause), hard a second later (SIGKILL).
    const n = Math.max(1, Math.floor(limits.cpuSeconds));
    lines[0] = `ulimit -t ${n + 1}; ulimit -S -t ${n}`;
  }
  put("memoryBytes", "-v", 1024);
  put("fileSizeBytes", "-f", 1024);
  put("processes", "-u", 1);
  put("openFiles", "-n", 1);
  return lines.map((l) => l + "\n").join("");
}
