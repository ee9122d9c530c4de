/**
 * A loopback HTTP server that speaks the non-streaming Messages API
 * (`POST /v1/messages`) and replays scripted assistant turns. It drives the
 * offline demo and the tests with the real `@anthropic-ai/sdk` client.
 *
 * Internal module.
 *
 * @module
 */

import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted assistant turn: the content blocks and the stop reason. */
export interface ScriptedTurn {
  /** The assistant's content blocks. */
  content: Array<
    | { type: "text"; text: string }
    | { type: "tool_use"; id: string; name: string; input: unknown }
  >;
  /** Why the turn ended. */
  stop_reason:
    | "end_turn"
    | "tool_use"
    | "max_tokens"
    | "pause_turn"
    | "refusal";
}

/** A scripted API error: the HTTP status and the error body's type and message. */
export interface ScriptedError {
  error: { status: number; type: string; message: string };
}

/** A running fake API. */
export interface FakeApi {
  /** Base URL to give the SDK client (`baseURL`). */
  readonly url: string;
  /** Every request body received, parsed. */
  readonly requests: Array<Record<string, unknown>>;
  /** Stops the server. */
  close(): Promise<void>;
}

/**
 * Starts the server on 127.0.0.1 with a free port. Each request gets the next
 * scripted turn (or scripted error); past the end of the script it answers `end_turn` with no
 * content.
 */
export function startFakeApi(
  turns: readonly (ScriptedTurn | ScriptedError)[],
): Promise<FakeApi> {
  const requests: Array<Record<string, unknown>> = [];
  let next = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Uint8Array[] = [];
    req.on("data", (c: Uint8Array) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.startsWith("/v1/messages")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({
          type: "error",
          error: {
            type: "not_found_error",
            message: `No route ${req.method} ${req.url}`,
          },
        }));
        return;
      }
      const text = new TextDecoder().decode(concat(chunks));
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text);
      } catch {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({
          type: "error",
          error: { type: "invalid_request_error", message: "Body is not JSON" },
        }));
        return;
      }
      requests.push(body);
      const turn = turns[next++] ?? { content: [], stop_reason: "end_turn" };
      if ("error" in turn) {
        res.writeHead(turn.error.status, {
          "content-type": "application/json",
        });
        res.end(JSON.stringify({
          type: "error",
          error: { type: turn.error.type, message: turn.error.message },
        }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({
        id: `msg_fake_${next}`,
        type: "message",
        role: "assistant",
        model: String(body.model ?? "fake"),
        content: turn.content,
        stop_reason: turn.stop_reason,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      }));
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}
