/**
 * The MCP server driven by the official MCP client
 * (`@modelcontextprotocol/client`) over stdio (the CLI as a child process)
 * and over Streamable HTTP; processes are checked by unique markers.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { BashTool } from "../anthropic/mod.ts";
import { memoryAudit } from "../egress/audit.ts";
import {
  BashMcp,
  type BashMcpOptions,
  type McpHttpOptions,
} from "../mcp/server.ts";
import { Policy } from "../policy/mod.ts";
import { mcpHelp, planMcp } from "../cli/_mcp.ts";
import { main } from "../cli/main.ts";
import { runtime, test } from "./_harness.ts";
import { alive, gone, marker, started } from "./_procs.ts";
import { exec } from "../mod.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

interface ToolText {
  text: string;
  isError: boolean;
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: Parameters<Client["callTool"]>[1] = {},
): Promise<ToolText> {
  const r = await client.callTool({ name, arguments: args }, options);
  const content = r.content as { type: string; text?: string }[];
  return {
    text: content.map((c) => c.text ?? "").join(""),
    isError: r.isError === true,
  };
}

async function bash(
  client: Client,
  command: string,
  extra: Record<string, unknown> = {},
): Promise<ToolText> {
  return await call(client, "bash", { command, ...extra });
}

async function httpServer(
  options: BashMcpOptions = {},
  http: McpHttpOptions = {},
): Promise<{ mcp: BashMcp; url: string }> {
  const mcp = new BashMcp({ timeoutMs: 20_000, ...options });
  const server = await mcp.serveHttp({ port: 0, ...http });
  return { mcp, url: server.url };
}

async function connect(
  url: string,
  options: { token?: string; elicit?: (message: string) => boolean } = {},
): Promise<Client> {
  const client = new Client(
    { name: "bashbox-test", version: "1.0.0" },
    options.elicit ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  if (options.elicit) {
    const elicit = options.elicit;
    client.setRequestHandler("elicitation/create", (request) => {
      const yes = elicit(String(request.params.message));
      return Promise.resolve(
        yes
          ? { action: "accept" as const, content: { run: true } }
          : { action: "decline" as const },
      );
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: options.token
        ? { headers: { authorization: `Bearer ${options.token}` } }
        : undefined,
    }),
  );
  return client;
}

async function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<
  { status: number; json: { error?: { code: number; message: string } } }
> {
  const r = await fetch(url, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
  });
  const text = await r.text();
  let json = {};
  try {
    json = JSON.parse(text);
  } catch {
    json = { raw: text };
  }
  return { status: r.status, json };
}

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

/** The CLI as an MCP stdio server child, spawned through bash (Deno's narrow --allow-run). */
function stdioTransport(args: string[] = []): StdioClientTransport {
  // deno-lint-ignore no-explicit-any
  const g = globalThis as any;
  const exe = runtime === "deno" ? g.Deno.execPath() : g.process.execPath;
  const run = runtime === "deno"
    ? `exec "$EXE" run --quiet --allow-run=bash --allow-read --allow-write --allow-env cli/main.ts mcp "$@"`
    : `exec "$EXE" cli/main.ts mcp "$@"`;
  return new StdioClientTransport({
    command: "bash",
    // --norc: a bash whose stdin is a socket (Node's pipes) and whose
    // environment has no SHLVL reads ~/.bashrc, as if run by sshd.
    args: ["--norc", "-c", run, "bashbox", ...args],
    cwd: root,
    env: {
      EXE: exe,
      PATH: g.Deno ? g.Deno.env.get("PATH") : g.process.env.PATH,
      HOME: g.Deno ? g.Deno.env.get("HOME") : g.process.env.HOME,
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
    },
    stderr: "ignore",
  });
}

test(
  "BashMcp over stdio: the CLI lists the tools and keeps state across calls",
  async () => {
    const client = new Client({ name: "bashbox-test", version: "1.0.0" });
    await client.connect(stdioTransport(["--timeout", "10000"]));
    try {
      const tools = (await client.listTools()).tools;
      deepEqual(tools.map((t) => t.name).sort(), [
        "bash",
        "bash_wait",
        "process_list",
        "process_read",
        "process_start",
        "process_stop",
        "process_write",
        "str_replace_based_edit_tool",
      ]);
      const schema = tools.find((t) => t.name === "bash")!.inputSchema as {
        properties: Record<string, unknown>;
      };
      deepEqual(Object.keys(schema.properties).sort(), [
        "command",
        "restart",
        "timeout",
      ]);
      await bash(client, "cd /tmp && export GREETING=hello");
      const r = await bash(
        client,
        'echo "$GREETING from $PWD"; ls /nonexistent',
      );
      match(r.text, /^Exit code 2\nhello from \/tmp\nls: cannot access/);
      equal(r.isError, true);
      const restarted = await call(client, "bash", { restart: true });
      match(restarted.text, /restarted/);
      equal(
        (await bash(client, "echo ${GREETING:-gone}")).text,
        "Exit code 0\ngone\n",
      );
    } finally {
      await client.close();
    }
  },
  { timeoutMs: 60_000 },
);

test(
  "BashMcp over stdio: a client that disconnects mid-command leaves nothing running",
  async () => {
    const mark = marker();
    const client = new Client({ name: "bashbox-test", version: "1.0.0" });
    await client.connect(stdioTransport());
    const pending = bash(client, `sleep ${mark}`).catch(() => null);
    ok((await started(mark, 10_000)).length > 0, "the command started");
    await client.close();
    await pending;
    deepEqual(await gone(mark, 10_000), [], "nothing left running");
  },
  { timeoutMs: 60_000 },
);

test("BashMcp over HTTP: state across calls, a timeout that keeps the state, progress", async () => {
  const { mcp, url } = await httpServer({ returnAfterMs: 30_000 });
  const client = await connect(url);
  try {
    await bash(client, "cd / && x=kept");
    const mark = marker();
    const timedOut = await bash(client, `echo started; sleep ${mark}`, {
      timeout: 1,
    });
    match(timedOut.text, /^TIMEOUT: the command ran longer than 1 s/);
    equal(timedOut.isError, true);
    deepEqual(await gone(mark), []);
    equal((await bash(client, "echo $x $PWD")).text, "Exit code 0\nkept /\n");
    const progress: string[] = [];
    const slow = await call(client, "bash", {
      command: "echo first; sleep 1.3; echo second-line; sleep 1.2",
    }, { onprogress: (p) => progress.push(String(p.message)) });
    equal(slow.text, "Exit code 0\nfirst\nsecond-line\n");
    ok(progress.length >= 2, `progress: ${JSON.stringify(progress)}`);
    match(
      progress[0],
      /c\d+ running for \d+ s, 6 bytes of output; last line: first/,
    );
    match(progress.at(-1)!, /last line: second-line/);
    const tooLong = await bash(client, "true", { timeout: 601 });
    equal(tooLong.isError, true);
    match(tooLong.text, /timeout/);
  } finally {
    await client.close();
    await mcp.close();
  }
});

test("BashMcp over HTTP: cancelling a call interrupts the command as a deadline does", async () => {
  const { mcp, url } = await httpServer();
  const client = await connect(url);
  try {
    await bash(client, "y=still-here");
    const mark = marker();
    const controller = new AbortController();
    const pending = call(client, "bash", {
      command: `sleep ${mark}; y=changed`,
    }, { signal: controller.signal }).then(() => "answered", () => "cancelled");
    ok((await started(mark)).length > 0);
    controller.abort();
    equal(await pending, "cancelled");
    deepEqual(await gone(mark), []);
    // Like Ctrl-C: the rest of the line is skipped, the state is kept.
    equal((await bash(client, "echo $y")).text, "Exit code 0\nstill-here\n");
  } finally {
    await client.close();
    await mcp.close();
  }
});

test("BashMcp over HTTP: a long command answers with an id that bash_wait polls and interrupts", async () => {
  const { mcp, url } = await httpServer({ returnAfterMs: 1000 });
  const client = await connect(url);
  try {
    const early = await bash(client, "echo one; sleep 1.6; echo two");
    match(early.text, /^STILL RUNNING: command (c\d+) has run for 1 s/);
    match(early.text, /last line: one/);
    equal(early.isError, false);
    const id = /command (c\d+)/.exec(early.text)![1];
    const busy = await bash(client, "echo other");
    equal(busy.isError, true);
    match(busy.text, new RegExp(`command ${id} is still running`));
    const done = await call(client, "bash_wait", { id, wait: 1 });
    equal(done.text, "Exit code 0\none\ntwo\n");
    const again = await call(client, "bash_wait", { id });
    equal(again.isError, true);
    match(again.text, /no command is waiting/);

    const mark = marker();
    const slow = await bash(client, `z=before; sleep ${mark}; z=after`);
    const id2 = /command (c\d+)/.exec(slow.text)![1];
    const stopped = await call(client, "bash_wait", {
      id: id2,
      interrupt: true,
    });
    match(stopped.text, /^ABORTED: the command was stopped/);
    equal(stopped.isError, true);
    deepEqual(await gone(mark), []);
    equal((await bash(client, "echo $z")).text, "Exit code 0\nbefore\n");

    // Cancelling a bash_wait call interrupts the command too.
    const mark3 = marker();
    const third = await bash(client, `w=kept; sleep ${mark3}; w=lost`);
    const id3 = /command (c\d+)/.exec(third.text)![1];
    const controller = new AbortController();
    const waiting = call(client, "bash_wait", { id: id3 }, {
      signal: controller.signal,
    }).then(() => "answered", () => "cancelled");
    await new Promise((r) => setTimeout(r, 200));
    controller.abort();
    equal(await waiting, "cancelled");
    deepEqual(await gone(mark3), []);
    equal((await bash(client, "echo $w")).text, "Exit code 0\nkept\n");
  } finally {
    await client.close();
    await mcp.close();
  }
});

test("BashMcp over HTTP: policy refusals, and ask decisions through elicitation", async () => {
  const policy = new Policy({
    allow: ["echo", "ls"],
    ask: ["touch"],
    deny: ["rm"],
    default: "deny",
  });
  const { mcp, url } = await httpServer({ policy });
  const plain = await connect(url);
  const asked: string[] = [];
  let answer = true;
  const asking = await connect(url, {
    elicit: (message) => {
      asked.push(message);
      return answer;
    },
  });
  const dir = mkdtempSync(join(tmpdir(), "bashbox-mcp-"));
  try {
    const denied = await bash(plain, `rm -rf ${dir}`);
    equal(denied.isError, true);
    match(denied.text, /^Error: The command was refused by policy: .*rm/);
    const noElicitation = await bash(plain, `touch ${dir}/a`);
    equal(noElicitation.isError, true);
    match(
      noElicitation.text,
      /refused by policy.*does not support elicitation/,
    );
    const approved = await bash(asking, `touch ${dir}/b && echo made`);
    equal(approved.text, "Exit code 0\nmade\n");
    equal(asked.length, 1);
    ok(asked[0].includes(`touch ${dir}/b`), asked[0]);
    answer = false;
    const declined = await bash(asking, `touch ${dir}/c`);
    equal(declined.isError, true);
    match(declined.text, /refused by policy/);
    equal((await bash(plain, `ls ${dir}`)).text, "Exit code 0\nb\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await plain.close();
    await asking.close();
    await mcp.close();
  }
});

test("BashMcp over HTTP: two concurrent sessions do not see each other's state; audit records carry the session id", async () => {
  const audit = memoryAudit();
  const { mcp, url } = await httpServer({ audit });
  const a = await connect(url);
  const b = await connect(url);
  try {
    await Promise.all([
      bash(a, "cd /tmp && export WHO=a"),
      bash(b, "cd / && export WHO=b"),
    ]);
    const [ra, rb] = await Promise.all([
      bash(a, "echo $WHO $PWD"),
      bash(b, "echo $WHO $PWD"),
    ]);
    equal(ra.text, "Exit code 0\na /tmp\n");
    equal(rb.text, "Exit code 0\nb /\n");
    // Calls of one session sent together run one after the other.
    const together = await Promise.all([
      bash(a, "sleep 0.3; echo first"),
      bash(a, "echo second"),
      bash(a, "echo third"),
    ]);
    deepEqual(together.map((r) => r.text).sort(), [
      "Exit code 0\nfirst\n",
      "Exit code 0\nsecond\n",
      "Exit code 0\nthird\n",
    ]);
    const ids = new Set(audit.records.map((r) => r.sessionId));
    const sa = (a.transport as StreamableHTTPClientTransport).sessionId!;
    const sb = (b.transport as StreamableHTTPClientTransport).sessionId!;
    deepEqual([...ids].sort(), [sa, sb].sort());
    ok(
      audit.records.some((r) =>
        r.sessionId === sa && r.command === "echo $WHO $PWD" &&
        r.event === "end"
      ),
    );
  } finally {
    await a.close();
    await b.close();
    await mcp.close();
  }
});

test("BashMcp over HTTP: ending a session (DELETE) or a client disconnecting mid-command leaves nothing running", async () => {
  const { mcp, url } = await httpServer();
  try {
    const mark1 = marker();
    const a = await connect(url);
    await bash(a, `sleep ${mark1} &`);
    ok((await started(mark1, 10_000)).length > 0);
    await (a.transport as StreamableHTTPClientTransport).terminateSession();
    await a.close();
    deepEqual(await gone(mark1, 5000), [], "DELETE ends the session's shell");

    const mark2 = marker();
    const b = await connect(url);
    const pending = bash(b, `sleep ${mark2}`).catch(() => null);
    ok((await started(mark2, 10_000)).length > 0);
    await b.close(); // drops the connection, no DELETE
    await pending;
    deepEqual(await gone(mark2, 5000), [], "the waiting command was stopped");
  } finally {
    await mcp.close();
  }
});

test("BashMcp over HTTP: bad JSON-RPC and oversized requests get clear errors and the server keeps serving", async () => {
  const { mcp, url } = await httpServer({}, { maxBodyBytes: 64 * 1024 });
  try {
    const notJson = await post(url, "{oops");
    equal(notJson.status, 400);
    equal(notJson.json.error?.code, -32700);
    match(
      notJson.json.error!.message,
      /^Parse error: the request body is not JSON/,
    );
    const notRpc = await post(url, JSON.stringify({ hello: 1 }));
    equal(notRpc.status, 400);
    equal(notRpc.json.error?.code, -32600);
    match(notRpc.json.error!.message, /expected JSON-RPC 2\.0 messages/);
    const big = await post(
      url,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "bash", arguments: { command: "x".repeat(70_000) } },
      }),
    );
    equal(big.status, 413);
    match(big.json.error!.message, /at most 65536 bytes/);
    const noSession = await post(
      url,
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
    );
    equal(noSession.status, 400);
    match(
      noSession.json.error!.message,
      /expected an initialize request first/,
    );
    const unknown = await post(
      url,
      JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }),
      {
        "mcp-session-id": "no-such-session",
      },
    );
    equal(unknown.status, 404);
    const wrongPath = await fetch(url.replace(/\/mcp$/, "/other"));
    equal(wrongPath.status, 404);
    await wrongPath.body?.cancel();
    // Still serving.
    const client = await connect(url);
    equal((await bash(client, "echo ok")).text, "Exit code 0\nok\n");
    const bad = await call(client, "bash", { command: 5 });
    equal(bad.isError, true);
    match(bad.text, /command/);
    await client.close();
  } finally {
    await mcp.close();
  }
});

test("BashMcp over HTTP: Origin and bearer token checks, sessions bound to their token", async () => {
  const tokenA = "token-a-0123456789abcdef";
  const tokenB = "token-b-0123456789abcdef";
  const { mcp, url } = await httpServer({}, { tokens: [tokenA, tokenB] });
  try {
    const evil = await post(url, INIT, {
      origin: "http://evil.example",
      authorization: `Bearer ${tokenA}`,
    });
    equal(evil.status, 403);
    match(
      evil.json.error!.message,
      /Origin "http:\/\/evil\.example" is not allowed/,
    );
    const local = await post(url, INIT, {
      origin: "http://localhost:3000",
      authorization: `Bearer ${tokenA}`,
    });
    equal(local.status, 200);
    const missing = await post(url, INIT);
    equal(missing.status, 401);
    match(missing.json.error!.message, /expected an Authorization: Bearer/);
    const wrong = await post(url, INIT, {
      authorization: "Bearer token-c-0123456789abcdef",
    });
    equal(wrong.status, 401);
    match(wrong.json.error!.message, /not valid/);
    const a = await connect(url, { token: tokenA });
    equal((await bash(a, "echo fine")).text, "Exit code 0\nfine\n");
    const sid = (a.transport as StreamableHTTPClientTransport).sessionId!;
    const stolen = await post(
      url,
      JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
      {
        authorization: `Bearer ${tokenB}`,
        "mcp-session-id": sid,
        "mcp-protocol-version": "2025-06-18",
      },
    );
    equal(stolen.status, 403);
    match(stolen.json.error!.message, /belongs to another token/);
    await a.close();
  } finally {
    await mcp.close();
  }
});

test("BashMcp.serveHttp() refuses an allowed origin that names no host, before it listens", async () => {
  for (
    const bad of [
      "",
      " ",
      "http://",
      "a b",
      "https://[::1",
      "*",
      "https://*",
      "*.example",
    ]
  ) {
    await using mcp = new BashMcp();
    let error: unknown;
    try {
      const http = await mcp.serveHttp({ port: 0, allowedOrigins: [bad] });
      await http.close();
    } catch (e) {
      error = e;
    }
    ok(error instanceof RangeError, `${JSON.stringify(bad)}: ${error}`);
    match(
      error.message,
      /^Expected each allowed origin to be a host name, an origin or <scheme>:\/\/\*, got /,
    );
  }
});

test("BashMcp: a session whose shell the pool closed gets its state back, and is told so", async () => {
  const { mcp, url } = await httpServer({ maxSessions: 1 });
  const a = await connect(url);
  const b = await connect(url);
  try {
    await bash(a, "export V=1");
    await bash(b, "true"); // takes a's slot
    const r = await bash(a, "echo ${V:-gone}");
    match(
      r.text,
      /^Exit code 0\nThe shell was restarted and its state restored: [^\n]*variable V[^\n]*\n1\n$/,
    );
  } finally {
    await a.close();
    await b.close();
    await mcp.close();
  }
});

test(
  "BashMcp.serveHttp() on a non-loopback address generates a token",
  async () => {
    const mcp = new BashMcp();
    try {
      const http = await mcp.serveHttp({ host: "0.0.0.0", port: 0 });
      ok(http.generatedToken && http.generatedToken.length >= 32);
      const r = await fetch(`http://127.0.0.1:${http.port}/mcp`, {
        method: "POST",
        body: INIT,
      });
      equal(r.status, 401);
      await r.body?.cancel();
    } finally {
      await mcp.close();
    }
  },
  {
    skip: runtime === "deno" &&
      "binding 0.0.0.0 needs --allow-net beyond the suite's 127.0.0.1 (tested on Bun)",
  },
);

test(
  "BashMcp over HTTP: 50 concurrent sessions x 20 commands, all right, nothing left",
  async () => {
    const { mcp, url } = await httpServer({ maxSessions: 64 });
    const mark = marker();
    const clients = await Promise.all(
      Array.from({ length: 50 }, () => connect(url)),
    );
    try {
      await Promise.all(clients.map(async (client, i) => {
        await bash(client, `n=0; me=${i}; sleep ${mark} &`);
        for (let k = 1; k <= 20; k++) {
          const r = await bash(client, "n=$((n+1)); echo $me:$n");
          equal(r.text, `Exit code 0\n${i}:${k}\n`);
        }
      }));
      ok((await started(mark)).length === 50);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await mcp.close();
    }
    deepEqual(await gone(mark, 5000), []);
  },
  { timeoutMs: 120_000 },
);

test("bashbox mcp --help documents every flag; bad flags and config are usage errors", async () => {
  const help = mcpHelp("bashbox");
  const source = readFileSync(join(root, "cli/_mcp.ts"), "utf8");
  const sets = [
    ...source.matchAll(/^const (?:VALUE|FLAGS) = new Set\(\[([\s\S]*?)\]\)/gm),
  ]
    .flatMap((m) => [...m[1].matchAll(/"([a-z-]+)"/g)].map((x) => x[1]));
  ok(sets.length > 20, `found ${sets.length} flags`);
  for (const flag of sets) {
    ok(help.includes(`--${flag}`), `--${flag} is documented`);
  }
  let out = "";
  let err = "";
  const io = {
    out: (t: string) => out += t,
    err: (t: string) => err += t,
  };
  equal(await main(["mcp", "--help"], io), 0);
  equal(out, help);
  equal(await main(["mcp", "--bogus"], io), 2);
  match(err, /bashbox mcp: Unknown option "--bogus"/);
  equal(await main(["mcp", "--port", "9"], io), 2);
  match(err, /--port needs --http/);
  equal(await main(["mcp", "--http", "--token", "short"], io), 2);
  match(err, /at least 16 characters/);

  const dir = mkdtempSync(join(tmpdir(), "bashbox-mcp-config-"));
  try {
    const config = join(dir, "c.json");
    writeFileSync(
      config,
      JSON.stringify({
        cwd: "/tmp",
        timeout: 5000,
        policy: { allow: ["ls"], default: "deny" },
        sandbox: { workdir: dir, writable: ["/tmp"], network: true },
        limits: { cpuSeconds: 60 },
        maxSessions: 3,
        http: true,
        port: 0,
      }),
    );
    const plan = planMcp([
      "--config",
      config,
      "--timeout",
      "7000",
      "--limit",
      "memory=1G",
    ]);
    ok(plan !== "help");
    equal(plan.server.timeoutMs, 7000);
    equal(plan.server.maxSessions, 3);
    deepEqual(plan.server.sessionOptions?.sandbox, {
      kind: "bwrap",
      workdir: dir,
      writable: ["/tmp"],
      network: true,
    });
    deepEqual(plan.server.sessionOptions?.limits, {
      cpuSeconds: 60,
      memoryBytes: 1024 ** 3,
    });
    equal(plan.server.policy?.check("ls").decision, "allow");
    equal(plan.server.policy?.check("rm x").decision, "deny");
    equal(plan.http?.port, 0);
    const tokens = planMcp([
      "--http",
      "--token",
      "a".repeat(16),
      "--token=" + "b".repeat(16),
    ]);
    ok(tokens !== "help");
    deepEqual(tokens.http?.tokens, ["a".repeat(16), "b".repeat(16)]);
    const fromEnv = planMcp(["--http"], {
      BASHBOX_MCP_TOKEN: `${"c".repeat(16)},${"d".repeat(20)}`,
    });
    ok(fromEnv !== "help");
    deepEqual(fromEnv.http?.tokens, ["c".repeat(16), "d".repeat(20)]);
    writeFileSync(config, JSON.stringify({ colour: true }));
    equal(await main(["mcp", "--config", config], io), 2);
    match(err, /unknown key "colour"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BashMcp over HTTP: a client negotiating the protocol version (mode auto) falls back to sessions", async () => {
  const { mcp, url } = await httpServer();
  const client = new Client({ name: "auto", version: "1" }, {
    versionNegotiation: { mode: "auto" },
  });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    equal(client.getProtocolEra(), "legacy");
    await bash(client, "export K=kept");
    equal((await bash(client, "echo $K")).text, "Exit code 0\nkept\n");
  } finally {
    await client.close();
    await mcp.close();
  }
});

test(
  "bashbox mcp --http: SIGTERM with a call in flight answers it, leaves nothing running or on disk, and exits 0",
  async () => {
    // deno-lint-ignore no-explicit-any
    const g = globalThis as any;
    const exe = runtime === "deno" ? g.Deno.execPath() : g.process.execPath;
    const server = runtime === "deno"
      ? `"$EXE" run --quiet --allow-run=bash --allow-read --allow-write --allow-env --allow-net=127.0.0.1 cli/main.ts mcp --http --port 0 --policy readonly --max-output 2000`
      : `"$EXE" cli/main.ts mcp --http --port 0 --policy readonly --max-output 2000`;
    // A bash between reports the server's own exit status (Deno's
    // node:child_process reports a child it signalled as ended by the
    // signal, whatever its status).
    const run =
      `${server} </dev/null & echo "server-pid=$!" >&2; trap '' TERM; wait $!; echo "server-exit=$?" >&2`;
    // The server's own temp dir: its spill folders must be gone at exit.
    const tmp = mkdtempSync(join(tmpdir(), "bashbox-mcp-term-"));
    const child = spawn("bash", ["-c", run], {
      cwd: root,
      env: {
        EXE: exe,
        PATH: g.Deno ? g.Deno.env.get("PATH") : g.process.env.PATH,
        NO_COLOR: "1",
        TMPDIR: tmp,
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    const exited = new Promise<void>((resolve) => child.on("exit", resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(stderr)), 20_000);
        child.stderr!.on("data", (chunk: Uint8Array) => {
          stderr += new TextDecoder().decode(chunk);
          const m = /serving MCP at (\S+)/.exec(stderr);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      const mark = marker();
      const client = await connect(url);
      let answer: { isError?: boolean; text: string } | Error;
      try {
        const refused = await bash(client, "echo x > out.txt");
        equal(refused.isError, true);
        match(refused.text, /refused by policy/);
        // A cut output leaves a spill file in the server's temp dir.
        match((await bash(client, "seq 1 20000")).text, /Exit code 0/);
        await bash(client, `sleep ${mark} &`);
        const pending = bash(client, `sleep ${mark}`).catch((e) => e as Error);
        let running = await alive(mark);
        for (let i = 0; i < 150 && running.length < 2; i++) {
          await new Promise((r) => setTimeout(r, 20));
          running = await alive(mark);
        }
        equal(running.length, 2, "the background job and the call in flight");
        const pid = Number(/server-pid=(\d+)/.exec(stderr)?.[1]);
        ok(pid > 0, stderr);
        // (Through bash: Deno's tests may run bash only.)
        await exec(["bash", "-c", `kill -TERM ${pid}`]);
        answer = await pending;
      } finally {
        await client.close().catch(() => {});
      }
      // The call in flight got an answer, not the client's time limit.
      ok(!(answer instanceof Error), `no answer: ${answer}`);
      equal(answer.isError, true);
      match(answer.text, /^(ABORTED|CLOSED)/);
      await exited;
      deepEqual(await gone(mark), []);
      match(stderr, /server-exit=0\n/, stderr);
      match(stderr, /shutting down/);
      deepEqual(readdirSync(tmp), [], "nothing left in the server's temp dir");
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      rmSync(tmp, { recursive: true, force: true });
    }
  },
  { timeoutMs: 60_000 },
);

test("BashMcp.close() with clients still connected ends their sessions and kills what they started", async () => {
  const { mcp, url } = await httpServer();
  const client = await connect(url);
  const mark = marker();
  await bash(client, `sleep ${mark} &`);
  const pending = bash(client, `sleep ${mark}`).catch((e) => e);
  let running = await alive(mark);
  for (let i = 0; i < 150 && running.length < 2; i++) {
    await new Promise((r) => setTimeout(r, 20));
    running = await alive(mark);
  }
  equal(running.length, 2, "the background job and the command");
  await mcp.close();
  deepEqual(await gone(mark), []);
  // The call in flight is answered, not left to the client's time limit.
  const answer = await pending;
  equal(answer.isError, true, String(answer.text ?? answer));
  match(answer.text, /^(ABORTED|CLOSED)/);
  await client.close();
});

test("BashMcp over HTTP: long output is cut for the model, kept in a spill file, and exit codes keep their meaning", async () => {
  const { mcp, url } = await httpServer({ maxOutputChars: 2000 });
  const client = await connect(url);
  try {
    const big = await bash(client, "seq 1 20000");
    match(big.text, /^Exit code 0\n1\n2\n/);
    match(big.text, /\n20000\n$/);
    ok(big.text.length < 3000, `${big.text.length} characters`);
    const spill = /(\/\S+bashbox-spill-\S+\.txt)/.exec(big.text);
    ok(spill, big.text.slice(0, 600));
    equal(
      (await bash(client, `wc -l < ${spill![1]}`)).text,
      "Exit code 0\n20000\n",
    );
    const noMatch = await bash(client, "echo abc | grep zzz");
    equal(noMatch.text, "Exit code 1\n(no output)");
    equal(noMatch.isError, false);
    const died = await bash(client, "exit 3");
    match(died.text, /^Exit code 3\nThe shell was restarted/);
    equal(died.isError, true);
    const empty = await call(client, "bash", {});
    equal(empty.isError, true);
    match(empty.text, /got neither/);
    const blank = await bash(client, "  ");
    equal(blank.isError, true);
    match(blank.text, /non-empty command/);
  } finally {
    await client.close();
    await mcp.close();
  }
});

test(
  "BashMcp over HTTP: a streamed body over the limit is cut and refused",
  async () => {
    const { mcp, url } = await httpServer({}, { maxBodyBytes: 32 * 1024 });
    try {
      const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 8) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const r = await fetch(url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
        // @ts-ignore: a streamed request body (fetch's "duplex" option)
        duplex: "half",
      });
      equal(r.status, 413);
      match((await r.json()).error.message, /at most 32768 bytes/);
      const client = await connect(url);
      equal((await bash(client, "echo still")).text, "Exit code 0\nstill\n");
      await client.close();
    } finally {
      await mcp.close();
    }
  },
  {
    skip: runtime === "node"
      ? "Node's HTTP adapter does not cut a streamed body at the limit yet"
      : false,
  },
);

test("BashTool.handle() takes a per-call deadline, abort signal and output callback (what the MCP server uses)", async () => {
  await using tool = new BashTool({ timeoutMs: 30_000 });
  const chunks: string[] = [];
  const ok1 = await tool.handle(
    { id: "t1", input: { command: "echo a; echo b >&2" } },
    { onOutput: (c) => chunks.push(new TextDecoder().decode(c)) },
  );
  equal(ok1.content, "Exit code 0\na\nb\n");
  equal(chunks.join(""), "a\nb\n");
  const slow = await tool.handle(
    { id: "t2", input: { command: "sleep 5" } },
    { timeoutMs: 300 },
  );
  match(slow.content, /^TIMEOUT: the command ran longer than 300 ms/);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  const stopped = await tool.handle(
    { id: "t3", input: { command: "x=1; sleep 5; x=2" } },
    { signal: controller.signal },
  );
  match(stopped.content, /^ABORTED: the command was stopped/);
  equal(stopped.is_error, true);
  equal(
    (await tool.handle({ id: "t4", input: { command: "echo $x" } })).content,
    "Exit code 0\n1\n",
  );
});

test(
  "BashMcp over stdio, 2026-07-28 era: ask decisions go to the user as input_required elicitations",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "bashbox-mcp-modern-"));
    const rules = join(dir, "policy.json");
    writeFileSync(
      rules,
      JSON.stringify({
        allow: ["echo", "ls"],
        ask: ["touch"],
        default: "deny",
      }),
    );
    const asked: string[] = [];
    let answer = true;
    const client = new Client({ name: "modern", version: "1.0.0" }, {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(String(request.params.message));
      return Promise.resolve(
        answer
          ? { action: "accept" as const, content: { run: true } }
          : { action: "decline" as const },
      );
    });
    // The shell starts in the scratch directory: the policy allows no cd.
    await client.connect(stdioTransport(["--policy", rules, "--cwd", dir]));
    try {
      equal(client.getProtocolEra(), "modern");
      equal(
        (await bash(client, "touch a && echo made")).text,
        "Exit code 0\nmade\n",
      );
      equal(asked.length, 1);
      match(asked[0], /touch a && echo made/);
      answer = false;
      const declined = await bash(client, "touch b");
      equal(declined.isError, true);
      match(declined.text, /refused by policy/);
      equal((await bash(client, "ls")).text, "Exit code 0\na\npolicy.json\n");
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { timeoutMs: 60_000 },
);

test(
  "bashbox mcp over stdio: a message that is not JSON-RPC gets a clear error and the server keeps serving",
  async () => {
    // deno-lint-ignore no-explicit-any
    const g = globalThis as any;
    const exe = runtime === "deno" ? g.Deno.execPath() : g.process.execPath;
    const run = runtime === "deno"
      ? `exec "$EXE" run --quiet --allow-run=bash --allow-read --allow-write --allow-env cli/main.ts mcp`
      : `exec "$EXE" cli/main.ts mcp`;
    const child = spawn("bash", ["-c", run], {
      cwd: root,
      env: {
        EXE: exe,
        PATH: g.Deno ? g.Deno.env.get("PATH") : g.process.env.PATH,
        NO_COLOR: "1",
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    let out = "";
    const lines = (): {
      id?: unknown;
      error?: { code: number; message: string };
      result?: unknown;
    }[] => out.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    child.stdout!.on(
      "data",
      (c: Uint8Array) => out += new TextDecoder().decode(c),
    );
    const exited = new Promise<void>((resolve) =>
      child.on("exit", () => resolve())
    );
    const send = (line: string) => child.stdin!.write(line + "\n");
    const until = async (n: number) => {
      for (let i = 0; i < 500 && lines().length < n; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    try {
      send('{"jsonrpc":"2.0","id":7}');
      send("[1, 2]");
      await until(2);
      const [a, b] = lines();
      equal(a.error?.code, -32600);
      match(
        a.error!.message,
        /^Invalid Request: expected a JSON-RPC 2\.0 message/,
      );
      equal(b.error?.code, -32600);
      send(INIT);
      send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
      send(
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo served"}}}',
      );
      await until(4);
      const last = lines().at(-1)!;
      equal(last.id, 2);
      deepEqual(last.result, {
        content: [{ type: "text", text: "Exit code 0\nserved\n" }],
      });
    } finally {
      child.stdin!.end();
      await exited;
    }
  },
  { timeoutMs: 60_000 },
);

const bwrapProbe = await exec(
  "command -v bwrap >/dev/null && bwrap --ro-bind / / --unshare-pid --unshare-net --die-with-parent -- true && echo ok",
).catch(() => null);

test(
  "bashbox mcp --sandbox --limit: every MCP session's shell runs in bubblewrap with the limits",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "bashbox-mcp-sandbox-"));
    const plan = planMcp([
      "--http",
      "--port",
      "0",
      "--sandbox",
      dir,
      "--limit",
      "open-files=200",
    ]);
    ok(plan !== "help");
    const mcp = new BashMcp(plan.server);
    const http = await mcp.serveHttp(plan.http);
    const client = await connect(http.url);
    try {
      const r = await bash(
        client,
        "pwd; echo hi > inside.txt && cat inside.txt; touch /etc/nope 2>&1 | head -1; ulimit -n; (exec 3<>/dev/tcp/127.0.0.1/1) 2>/dev/null || echo no-network",
      );
      equal(r.text.split("\n")[0], "Exit code 0");
      ok(r.text.includes(`${dir}\nhi\n`), r.text);
      match(r.text, /Read-only file system/);
      match(r.text, /\n200\nno-network\n$/);
      equal(readFileSync(join(dir, "inside.txt"), "utf8"), "hi\n");
    } finally {
      await client.close();
      await mcp.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  {
    skip: bwrapProbe?.stdout.text === "ok\n"
      ? false
      : "bubblewrap (bwrap) is not installed or cannot create namespaces here",
  },
);

test("bashbox mcp: the server's secret-looking environment is redacted from results, progress and the audit file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bashbox-mcp-redact-"));
  const auditFile = join(dir, "audit.jsonl");
  const secret = "s3cr3t-value-0123456789";
  const plan = planMcp(
    ["--http", "--port", "0", "--audit", auditFile, "--return-after", "5000"],
    { DEPLOY_TOKEN: secret },
  );
  ok(plan !== "help");
  const mcp = new BashMcp(plan.server);
  const http = await mcp.serveHttp(plan.http);
  const client = await connect(http.url);
  try {
    const progress: string[] = [];
    const r = await call(client, "bash", {
      command: `echo ${secret}; sleep 1.2; echo done`,
    }, { onprogress: (p) => progress.push(String(p.message)) });
    equal(r.text, "Exit code 0\n[REDACTED:env:DEPLOY_TOKEN]\ndone\n");
    ok(progress.length > 0);
    ok(progress.every((p) => !p.includes(secret)), progress.join("\n"));
    match(progress[0], /REDACTED/);
    const sid = (client.transport as StreamableHTTPClientTransport).sessionId;
    const records = readFileSync(auditFile, "utf8").trim().split("\n").map((
      l,
    ) => JSON.parse(l));
    equal(records.length, 2);
    ok(records.every((rec) => rec.sessionId === sid));
    ok(!readFileSync(auditFile, "utf8").includes(secret));
  } finally {
    await client.close();
    await mcp.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BashMcp over HTTP: the editor and the process tools work on the bash session, with annotations and the policy", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bashbox-mcp-tools-"));
  const { mcp, url } = await httpServer({
    policy: {
      check: (command) =>
        command.includes("forbidden")
          ? { decision: "deny", reason: "forbidden is refused" }
          : { decision: "allow", reason: "ok" },
    },
  });
  const client = await connect(url);
  try {
    const tools = (await client.listTools()).tools;
    const byName = new Map(tools.map((t) => [t.name, t]));
    equal(byName.get("process_list")?.annotations?.readOnlyHint, true);
    equal(byName.get("process_stop")?.annotations?.destructiveHint, true);
    equal(
      byName.get("str_replace_based_edit_tool")?.annotations?.destructiveHint,
      true,
    );
    const start = byName.get("process_start")!.inputSchema as {
      required?: string[];
    };
    deepEqual(start.required, ["command"]);
    // The editor works in the bash session's view of the files.
    const file = join(dir, "notes.txt");
    const made = await call(client, "str_replace_based_edit_tool", {
      command: "create",
      path: file,
      file_text: "one\ntwo\n",
    });
    equal(made.isError, false, made.text);
    const edit = await call(client, "str_replace_based_edit_tool", {
      command: "str_replace",
      path: file,
      old_str: "two",
      new_str: "2",
    });
    match(edit.text, /has been edited/);
    equal((await bash(client, `cat ${file}`)).text, "Exit code 0\none\n2\n");
    const view = await call(client, "str_replace_based_edit_tool", {
      command: "view",
      path: file,
      view_range: [2, 2],
    });
    match(view.text, /\s2\t2\n/);
    const bad = await call(client, "str_replace_based_edit_tool", {
      command: "view",
      path: "relative.txt",
    });
    equal(bad.isError, true);
    match(bad.text, /not an absolute path/);
    // The process tools: state from bash carries into the process.
    await bash(client, `export GREETING=hello-${"mcp"}`);
    const p = await call(client, "process_start", {
      command: 'read -r line; echo "$GREETING $line"',
      wait_ms: 300,
    });
    equal(p.isError, false, p.text);
    const id = /Process (p\d+)/.exec(p.text)?.[1];
    ok(id, p.text);
    const wrote = await call(client, "process_write", {
      id,
      text: "world\n",
      until: "hello-mcp world",
      wait_ms: 5000,
    });
    match(wrote.text, /hello-mcp world/);
    match((await call(client, "process_list", {})).text, new RegExp(id!));
    const refused = await call(client, "process_start", {
      command: "echo forbidden",
    });
    equal(refused.isError, true);
    match(refused.text, /refused by policy: forbidden is refused/);
    const badInput = await call(client, "process_read", { id: "p999" });
    equal(badInput.isError, true);
    match(badInput.text, /Expected the id of a process/);
  } finally {
    await client.close();
    await mcp.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
