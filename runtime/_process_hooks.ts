/**
 * The host's exit hook and signal handlers where the runtime speaks
 * `node:process` (Node and Bun).
 *
 * Internal module.
 *
 * @module
 */

import process from "node:process";
import type { HostSignal } from "./_adapter.ts";

/** Adds (`on`) or removes the exit hook and the signal handlers. */
export function processHooks(
  on: boolean,
  onExit: () => void,
  handlers: Readonly<Record<HostSignal, () => void>>,
): void {
  if (on) process.on("exit", onExit);
  else process.off("exit", onExit);
  for (const [sig, handler] of Object.entries(handlers)) {
    if (on) process.on(sig, handler);
    else process.off(sig, handler);
  }
}
