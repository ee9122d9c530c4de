/**
 * An HTTP server from a fetch-shaped handler, on whichever runtime runs:
 * `Deno.serve`, `Bun.serve`, or `node:http` behind the same handler. The
 * handler is told, through `gone`, when the client went away.
 *
 * @module
 */

/** A fetch-shaped handler; `gone` registers what to run when the client leaves. */
export type FetchHandler = (
  request: Request,
  gone: (listener: () => void) => void,
) => Promise<Response>;

/** A server that {@linkcode serveFetch} started. */
export interface Served {
  /** The port it listens on. */
  port: number;
  /** Stops it, closing open connections. */
  stop: () => Promise<void>;
}

/** Serves `handler` on `hostname:port` (0: any free port). */
export async function serveFetch(
  options: { hostname: string; port: number; maxBodyBytes: number },
  handler: FetchHandler,
): Promise<Served> {
  // deno-lint-ignore no-explicit-any
  const g = globalThis as any;
  const { hostname, port } = options;
  if (typeof g.Deno?.serve === "function") {
    const server = g.Deno.serve(
      { hostname, port, onListen: () => {} },
      (request: Request, info: { completed?: Promise<void> }) =>
        // The response could not be delivered: the client went away.
        handler(request, (listener) => {
          info.completed?.catch(listener);
        }),
    );
    return {
      port: server.addr.port,
      stop: async () => {
        await server.shutdown();
      },
    };
  }
  if (typeof g.Bun?.serve === "function") {
    const server = g.Bun.serve({
      hostname,
      port,
      fetch: (request: Request) =>
        handler(request, (listener) => {
          request.signal.addEventListener("abort", listener, { once: true });
        }),
      idleTimeout: 0,
      // A backstop only: the handler answers bodies over its limit itself.
      maxRequestBodySize: options.maxBodyBytes,
    });
    return {
      port: server.port,
      stop: async () => {
        await server.stop(true);
      },
    };
  }
  if (g.process?.versions?.node) {
    return await serveNode(hostname, port, handler);
  }
  throw new Error(
    "Unsupported runtime: the HTTP server needs Deno.serve, Bun.serve or node:http",
  );
}

/** `node:http` behind the same fetch-shaped handler, for Node. */
async function serveNode(
  host: string,
  port: number,
  handler: FetchHandler,
): Promise<{ port: number; stop: () => Promise<void> }> {
  const http = await import("node:http");
  const { Readable } = await import("node:stream");
  const server = http.createServer(async (req, res) => {
    try {
      await answer(req, res);
    } catch (error) {
      // A request that cannot even be read as one (a Host header with a
      // blank, a malformed URL): a 400, never an unhandled rejection.
      if (!res.headersSent) {
        res.writeHead(400, { "content-type": "text/plain" });
      }
      res.end(`Bad request: ${error instanceof Error ? error.message : error}`);
    }
  });
  // deno-lint-ignore no-explicit-any
  async function answer(req: any, res: any): Promise<void> {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, [value].flat().join(", "));
    }
    const method = req.method ?? "GET";
    const request = new Request(
      `http://${req.headers.host ?? host}${req.url}`,
      {
        method,
        headers,
        body: method === "GET" || method === "HEAD"
          ? undefined
          : Readable.toWeb(req) as ReadableStream<Uint8Array>,
        // @ts-ignore: a streamed request body (fetch's "duplex" option)
        duplex: "half",
      },
    );
    const response = await handler(request, (listener) => {
      res.once("close", () => {
        if (!res.writableFinished) listener();
      });
    });
    res.writeHead(response.status, [...response.headers]);
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    res.once("close", () => void reader.cancel().catch(() => {}));
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // the client went away
    }
    res.end();
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
