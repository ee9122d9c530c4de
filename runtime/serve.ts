/**
 * An HTTP server from a fetch-shaped handler, on whichever runtime runs
 * (`Deno.serve`, `Bun.serve`, or `node:http` behind the same handler: each in
 * its runtime's adapter). The handler is told, through `gone`, when the
 * client went away.
 *
 * @module
 */

import type { FetchHandler, Served, ServeOptions } from "./_adapter.ts";
import { runtimeAdapter } from "./_runtime.ts";

export type { FetchHandler, Served, ServeOptions } from "./_adapter.ts";

/** Serves `handler` on `hostname:port` (0: any free port). */
export async function serveFetch(
  options: ServeOptions,
  handler: FetchHandler,
): Promise<Served> {
  const adapter = runtimeAdapter();
  if (adapter === undefined) {
    throw new Error(
      "Unsupported runtime: the HTTP server needs Deno.serve, Bun.serve or node:http",
    );
  }
  return await adapter.serve(options, handler);
}
