/**
 * Test helpers that look for processes by a unique marker in their command
 * line, never by name, so tests do not depend on other processes.
 *
 * @module
 */

import { exec } from "../mod.ts";

/** A marker no other process has: use it as `sleep <marker>`. */
export function marker(): string {
  const n = crypto.getRandomValues(new Uint32Array(1))[0];
  return `1000.${String(n).padStart(10, "0")}`;
}

/**
 * Pids of live (non-zombie) processes whose command line contains `mark`: one
 * grep over /proc, quick under load.
 */
export async function alive(mark: string): Promise<number[]> {
  // The pattern does not match itself: "[.]" stands for the marker's ".".
  const pattern = mark.replace(".", "[.]");
  const r = await exec([
    "bash",
    "-c",
    `grep -laE -- "$0" /proc/[0-9]*/cmdline 2>/dev/null; :`,
    pattern,
  ]);
  return r.stdout.text.split("\n").filter(Boolean).map((f) =>
    Number(f.split("/")[2])
  );
}

/** Waits up to `ms` for every process with `mark` to be gone; returns the survivors. */
export async function gone(mark: string, ms = 3000): Promise<number[]> {
  const until = performance.now() + ms;
  let left = await alive(mark);
  while (left.length > 0 && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    left = await alive(mark);
  }
  return left;
}

/** Waits up to `ms` until a process with `mark` runs; returns its pids. */
export async function started(mark: string, ms = 3000): Promise<number[]> {
  const until = performance.now() + ms;
  let found = await alive(mark);
  while (found.length === 0 && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
    found = await alive(mark);
  }
  return found;
}

/**
 * Starts `script` as the leader of a new session; returns its pid. Markers
 * go in `env` (as variables the script names), so that no command line but
 * the marked `sleep`s' holds one.
 */
export async function leader(
  script: string,
  env: Record<string, string>,
): Promise<number> {
  const r = await exec([
    "bash",
    "-c",
    `setsid bash -c "$0" </dev/null >/dev/null 2>&1 & echo $!`,
    script,
  ], { env });
  return Number(r.stdout.text.trim());
}
