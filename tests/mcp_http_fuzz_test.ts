// BashMcp.serveHttp() under malformed requests, sent as raw bytes: a bad Host,
// bad URLs, huge headers, bodies over the limit (declared and streamed),
// broken JSON, a body that never finishes, broken chunked encoding. None may
// stop the server: each gets a clear HTTP or JSON-RPC error (or, where the
// HTTP layer cannot read a request at all, a closed connection), and a real
// client is served right after every one.
import { equal, match, ok } from "node:assert/strict";
import { connect as tcp } from "node:net";
import {
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { BashMcp } from "../mcp/mod.ts";
import { test } from "./_harness.ts";
import { rng } from "./_random.ts";

/** The raw answer to `bytes`: its status (0: none) and body. */
function raw(
  port: number,
  bytes: Uint8Array | string,
  options: { holdMs?: number } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const socket = tcp({ host: "127.0.0.1", port });
    const chunks: Uint8Array[] = [];
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = new TextDecoder().decode(
        chunks.length
          ? Uint8Array.from(chunks.flatMap((c) => [...c]))
          : new Uint8Array(),
      );
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, text });
    };
    // A request that never finishes is given up on by the client side.
    const timer = setTimeout(finish, options.holdMs ?? 5000);
    socket.on("data", (c: Uint8Array) => {
      chunks.push(new Uint8Array(c));
      // One answer is enough: keep-alive would hold the socket open.
      const text = new TextDecoder().decode(chunks.at(-1));
      if (/\r\n\r\n/.test(text) && /\}\s*$|\r\n0\r\n\r\n$/.test(text)) {
        setTimeout(finish, 50);
      }
    });
    socket.on("end", finish);
    socket.on("close", finish);
    socket.on("error", finish);
    socket.on("connect", () => {
      socket.write(bytes, () => {});
    });
  });
}

async function stillServes(url: string): Promise<void> {
  const client = new Client({ name: "fuzz", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const r = await client.callTool({
      name: "bash",
      arguments: { command: "echo alive" },
    });
    const text = (r.content as { text: string }[])[0].text;
    equal(text, "Exit code 0\nalive\n");
  } finally {
    await client.close();
  }
}

const JSON_RPC =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}';

function post(
  headers: Record<string, string>,
  body: string,
  path = "/mcp",
): string {
  const lines = [
    `POST ${path} HTTP/1.1`,
    "Host: 127.0.0.1",
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    "Connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  if (!("Content-Length" in headers) && !("Transfer-Encoding" in headers)) {
    lines.push(`Content-Length: ${new TextEncoder().encode(body).length}`);
  }
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

test("BashMcp.serveHttp() answers malformed requests with clear errors and keeps serving", async () => {
  const maxBodyBytes = 64 * 1024;
  await using mcp = new BashMcp({ timeoutMs: 20_000 });
  const server = await mcp.serveHttp({ port: 0, maxBodyBytes });
  const port = server.port;
  const random = rng(20261204);
  const garbage = Array.from(
    { length: 2000 },
    () => String.fromCharCode(32 + Math.floor(random() * 95)),
  ).join("");
  // [what, request, how the answer must look]
  type Expect = "error" | "error or closed" | "any answer";
  const cases: [string, string | Uint8Array, Expect][] = [
    [
      "a Host with a blank",
      post({}, JSON_RPC).replace("Host: 127.0.0.1", "Host: a b"),
      "error or closed",
    ],
    [
      "a Host of another site",
      post({}, JSON_RPC).replace("Host: 127.0.0.1", "Host: evil.example"),
      "error",
    ],
    [
      "an empty Host",
      post({}, JSON_RPC).replace("Host: 127.0.0.1", "Host: "),
      "error or closed",
    ],
    [
      "a bad percent escape in the path",
      post({}, JSON_RPC, "/mcp%zz"),
      "error or closed",
    ],
    ["a path that is not /mcp", post({}, JSON_RPC, "/other"), "error"],
    [
      "an absolute URL with a bad host (Bun reads the Host header instead)",
      post({}, JSON_RPC, "http://[::1/mcp"),
      "any answer",
    ],
    [
      "a query of escapes (ignored)",
      post({}, JSON_RPC, "/mcp?%%%"),
      "any answer",
    ],
    [
      "a 64 KiB header",
      post({ "X-Big": "a".repeat(64 * 1024) }, JSON_RPC),
      "error or closed",
    ],
    [
      "1000 headers",
      post(
        Object.fromEntries(
          Array.from({ length: 1000 }, (_, i) => [`X-H${i}`, "v"]),
        ),
        JSON_RPC,
      ),
      "error or closed",
    ],
    [
      "a body over the limit",
      post({}, `{"pad":"${"x".repeat(maxBodyBytes * 3)}"}`),
      "error or closed",
    ],
    [
      "a body far over the limit",
      post({}, `{"pad":"${"x".repeat(4 << 20)}"}`),
      "error or closed",
    ],
    [
      "a declared length over the limit, sent short",
      post({ "Content-Length": String(64 << 20) }, JSON_RPC),
      "error or closed",
    ],
    ["broken JSON", post({}, '{"jsonrpc":"2.0",'), "error"],
    ["printable garbage", post({}, garbage), "error"],
    ["JSON that is not JSON-RPC", post({}, '[1,"x",null]'), "error"],
    ["an empty batch", post({}, "[]"), "error"],
    [
      "bytes that are not UTF-8",
      new Uint8Array([
        ...new TextEncoder().encode(post({ "Content-Length": "4" }, "")),
        0xff,
        0xfe,
        0x80,
        0x00,
      ]),
      "error",
    ],
    [
      "broken chunked encoding",
      post({ "Transfer-Encoding": "chunked" }, "zz\r\nnot hex\r\n0\r\n\r\n"),
      "error or closed",
    ],
    ["a request line of garbage", "\x00\x01GARBAGE\r\n\r\n", "error or closed"],
    [
      "a method no one knows",
      post({}, JSON_RPC).replace("POST", "BREW"),
      "error or closed",
    ],
    [
      "a wrong content type",
      post({}, JSON_RPC).replace(
        "application/json\r\nAccept",
        "text/plain\r\nAccept",
      ),
      "error",
    ],
  ];
  for (const [what, request, expect] of cases) {
    const answer = await raw(port, request);
    if (expect === "any answer") {
      ok(answer.status > 0, `${what}: no answer`);
    } else if (answer.status === 0) {
      equal(expect, "error or closed", `${what}: no answer`);
    } else {
      ok(
        answer.status >= 400 && answer.status < 500,
        `${what}: ${answer.text.slice(0, 300)}`,
      );
      // What the handler answers says why, as JSON-RPC.
      if (expect === "error") {
        match(answer.text, /"jsonrpc":"2\.0"[\s\S]*"message":"[^"]+"/, what);
      } else {
        ok(
          /\r\n\r\n\S/.test(answer.text) || answer.status === 400 ||
            answer.status === 431 || answer.status === 413,
          `${what}: an error with no reason: ${answer.text.slice(0, 300)}`,
        );
      }
    }
    await stillServes(server.url);
  }
  // A body that never finishes: the server neither waits on it nor stops.
  const slow = raw(port, post({ "Content-Length": "100000" }, '{"jsonrpc"'), {
    holdMs: 1500,
  });
  await stillServes(server.url);
  await slow;
  await stillServes(server.url);
});

test("BashMcp.serveHttp(): a body over the limit gets the JSON-RPC error the README documents, on every runtime", async () => {
  const maxBodyBytes = 32 * 1024;
  await using mcp = new BashMcp({ timeoutMs: 20_000 });
  const server = await mcp.serveHttp({ port: 0, maxBodyBytes });
  for (const size of [maxBodyBytes + 1, maxBodyBytes * 4, 3 << 20, 12 << 20]) {
    const answer = await raw(server.port, post({}, `"${"y".repeat(size)}"`), {
      holdMs: 15_000,
    });
    equal(answer.status, 413, `${size}: ${answer.text.slice(0, 200)}`);
    match(answer.text, /"code":-32000[\s\S]*Payload too large/, String(size));
    await stillServes(server.url);
  }
});

/** `post()` with `Host` (null: none) and, when given, `Origin`. */
function postAs(host: string | null, origin?: string): string {
  const request = post(
    origin === undefined ? {} : { Origin: origin },
    JSON_RPC,
  );
  return host === null
    ? request.replace("Host: 127.0.0.1\r\n", "")
    : request.replace("Host: 127.0.0.1", `Host: ${host}`);
}

test("BashMcp.serveHttp() on loopback answers every Host that does not name loopback with 400 or 403 (the SDK's validateHostHeader, 127.0.0.0/8 kept) and serves the ones that do", async () => {
  await using mcp = new BashMcp({ timeoutMs: 20_000 });
  const server = await mcp.serveHttp({ port: 0 });
  const port = server.port;
  const served = [
    "localhost",
    `localhost:${port}`,
    "LocalHost",
    "127.0.0.1",
    `127.0.0.1:${port}`,
    "127.9.8.7",
    "127.1",
    "[::1]",
    `[::1]:${port}`,
    "[0:0:0:0:0:0:0:1]",
  ];
  const refused = [
    "a b",
    "",
    null,
    "evil.example",
    "evil.example:80",
    "localhost.evil.example",
    "127.0.0.1.nip.io",
    "evil.example:80@localhost",
    "localhost@evil.example",
    "user:pw@127.0.0.1",
    "localhost/evil",
    "localhost?x",
    "localhost#x",
    "%6cocalhost",
    "localhost:80 evil",
    "localhost, evil.example",
    "[::1",
    "::1",
    "localhost:99999",
    "128.0.0.1",
    "0.0.0.0",
    "[::2]",
  ];
  // Generated: printable garbage, and loopback names with one character of
  // another host's syntax spliced in.
  const random = rng(20270127);
  const pick = (s: string): string => s[Math.floor(random() * s.length)];
  const printable = Array.from(
    { length: 95 },
    (_, i) => String.fromCharCode(32 + i),
  )
    .join("");
  for (let i = 0; i < 40; i++) {
    const length = 1 + Math.floor(random() * 24);
    refused.push(
      "x" + Array.from({ length }, () => pick(printable)).join("").trim(),
    );
    const base = pick("lx") === "l" ? "localhost" : "127.0.0.1";
    const at = Math.floor(random() * (base.length + 1));
    refused.push(`${base.slice(0, at)}${pick("@/ ?#%\\")}${base.slice(at)}z`);
  }
  for (const host of refused) {
    const answer = await raw(port, postAs(host));
    ok(
      answer.status === 400 || answer.status === 403,
      `Host ${JSON.stringify(host)}: ${answer.text.slice(0, 300)}`,
    );
  }
  await stillServes(server.url);
  for (const host of served) {
    const answer = await raw(port, postAs(host));
    equal(
      answer.status,
      200,
      `Host ${JSON.stringify(host)}: ${answer.text.slice(0, 300)}`,
    );
  }
  // The refusal says why.
  const evil = await raw(port, postAs("evil.example"));
  equal(evil.status, 403);
  match(
    evil.text,
    /Forbidden: expected a loopback Host header, got \\"evil\.example\\" \(DNS rebinding protection\)/,
  );
  await stillServes(server.url);
});

test("BashMcp.serveHttp() checks a browser's Origin with the SDK's validateOriginHeader against localhost and allowedOrigins (host names, whole origins, <scheme>://*)", async () => {
  await using mcp = new BashMcp({ timeoutMs: 20_000 });
  const server = await mcp.serveHttp({
    port: 0,
    allowedOrigins: [
      "App.Example",
      "https://tool.example:3000",
      "::2",
      "moz-extension://*",
    ],
  });
  const port = server.port;
  const served = [
    undefined, // no Origin: not a browser
    "http://localhost",
    "http://localhost:5173",
    "https://LOCALHOST",
    "http://127.0.0.1:8080",
    "http://[::1]:3000",
    "https://app.example",
    "http://APP.example:9",
    "https://tool.example",
    "http://[::2]",
    "moz-extension://4f3c1a2b-0000-4000-8000-000000000000",
  ];
  const refused = [
    "null",
    "http://evil.example",
    "https://app.example.evil.example",
    "http://localhost.evil.example",
    "http://127.0.0.2",
    "file:///etc/passwd",
    "chrome-extension://abcdefghijklmnopabcdefghijklmnop",
    "not a url",
    "http://",
    "//localhost",
  ];
  for (const origin of served) {
    const answer = await raw(port, postAs("127.0.0.1", origin));
    equal(answer.status, 200, `Origin ${origin}: ${answer.text.slice(0, 300)}`);
  }
  for (const origin of refused) {
    const answer = await raw(port, postAs("127.0.0.1", origin));
    equal(answer.status, 403, `Origin ${origin}: ${answer.text.slice(0, 300)}`);
    match(
      answer.text,
      /Forbidden: Origin .* is not allowed \(DNS rebinding protection\); allow it with --allow-origin/,
      origin,
    );
  }
  await stillServes(server.url);
});
