import { deepStrictEqual, equal, match, ok, rejects } from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import {
  type AuditEnd,
  type AuditRecord,
  BASH_TOOL,
  BashTool,
  jsonlAudit,
  memoryAudit,
  runAgent,
  runnableBashTool,
} from "../mod.ts";
import { startFakeApi } from "../anthropic/fake_api.ts";
import { test } from "./_harness.ts";
import { gone, marker } from "./_procs.ts";

function use(id: string, input: unknown) {
  return { type: "tool_use" as const, id, name: "bash", input };
}

test("BASH_TOOL is the schema-less bash_20250124 definition", () => {
  deepStrictEqual(BASH_TOOL, { type: "bash_20250124", name: "bash" });
});

test("runAgent() answers several tool_use blocks of one response in one user message, in order", async () => {
  const api = await startFakeApi([
    {
      content: [
        { type: "text", text: "three calls" },
        use("t1", { command: "cd /tmp && export V=1" }),
        use("t2", { command: "echo $V $PWD" }),
        use("t3", { command: "exit 4" }),
      ],
      stop_reason: "tool_use",
    },
    { content: [{ type: "text", text: "done" }], stop_reason: "end_turn" },
  ]);
  await using tool = new BashTool();
  try {
    const client = new Anthropic({
      apiKey: "test",
      baseURL: api.url,
      maxRetries: 0,
    });
    const events: string[] = [];
    const run = await runAgent({
      client,
      model: "test-model",
      prompt: "go",
      tool,
      onEvent: (e) => events.push(e.type),
    });
    equal(run.stopReason, "end_turn");
    equal(run.turns, 2);
    equal(api.requests.length, 2);
    const first = api.requests[0];
    deepStrictEqual(first.tools, [{ type: "bash_20250124", name: "bash" }]);
    equal(first.model, "test-model");
    const second = api.requests[1].messages as Array<
      { role: string; content: unknown }
    >;
    equal(second.length, 3);
    equal(second[2].role, "user");
    const results = second[2].content as Array<Record<string, unknown>>;
    deepStrictEqual(results.map((r) => r.tool_use_id), ["t1", "t2", "t3"]);
    equal(
      results[0].content,
      "Exit code 0\nWorking directory: /tmp\n(no output)",
    );
    equal(results[1].content, "Exit code 0\n1 /tmp\n");
    equal(results[1].is_error, undefined);
    match(String(results[2].content), /^Exit code 4\n/);
    match(String(results[2].content), /The shell was restarted/);
    equal(results[2].is_error, true);
    deepStrictEqual(events, [
      "text",
      "tool_use",
      "tool_result",
      "tool_use",
      "tool_result",
      "tool_use",
      "tool_result",
      "text",
      "stop",
    ]);
  } finally {
    await api.close();
  }
});

test("runAgent() continues pause_turn, stops at maxTurns and on refusal", async () => {
  const api = await startFakeApi([
    {
      content: [{ type: "text", text: "thinking" }],
      stop_reason: "pause_turn",
    },
    { content: [use("a", { command: "true" })], stop_reason: "tool_use" },
    { content: [use("b", { command: "true" })], stop_reason: "tool_use" },
  ]);
  await using tool = new BashTool();
  try {
    const client = new Anthropic({
      apiKey: "test",
      baseURL: api.url,
      maxRetries: 0,
    });
    const run = await runAgent({
      client,
      model: "m",
      prompt: "go",
      tool,
      maxTurns: 3,
    });
    equal(run.stopReason, "max_turns");
    equal(run.turns, 3);
  } finally {
    await api.close();
  }
  const refusing = await startFakeApi([{
    content: [],
    stop_reason: "refusal",
  }]);
  try {
    const client = new Anthropic({
      apiKey: "test",
      baseURL: refusing.url,
      maxRetries: 0,
    });
    const run = await runAgent({ client, model: "m", prompt: "go", tool });
    equal(run.stopReason, "refusal");
  } finally {
    await refusing.close();
  }
  await rejects(
    runAgent({
      client: new Anthropic({ apiKey: "x" }),
      model: "m",
      prompt: " ",
      tool,
    }),
    /non-empty prompt/,
  );
});

test("runnableBashTool() is driven by the SDK's tool runner", async () => {
  const api = await startFakeApi([
    {
      content: [
        use("r1", { command: "echo via runner" }),
        use("r2", { command: "false" }),
      ],
      stop_reason: "tool_use",
    },
    { content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" },
  ]);
  await using tool = new BashTool();
  try {
    const client = new Anthropic({
      apiKey: "test",
      baseURL: api.url,
      maxRetries: 0,
    });
    const final = await client.beta.messages.toolRunner({
      model: "m",
      max_tokens: 100,
      messages: [{ role: "user", content: "go" }],
      tools: [runnableBashTool(tool)],
    });
    equal(final.stop_reason, "end_turn");
    // The runner may send the whole conversation or only what is new (threads):
    // either way the last message carries the tool results.
    const sent = api.requests[1].messages as Array<
      { content: Array<Record<string, unknown>> }
    >;
    const results = sent.at(-1)!.content;
    equal(results[0].tool_use_id, "r1");
    const first = JSON.stringify(results[0].content);
    ok(first.includes("via runner"), first);
    equal(results[0].is_error ?? false, false);
    equal(results[1].is_error, true);
    deepStrictEqual((api.requests[0].tools as unknown[])[0], {
      type: "bash_20250124",
      name: "bash",
    });
  } finally {
    await api.close();
  }
});

test("BashTool.handle() answers every bad input shape with is_error", async () => {
  await using tool = new BashTool();
  const bad: [unknown, RegExp][] = [
    [
      {},
      /Expected input \{"command": string\} or \{"restart": true\}, got \{\}/,
    ],
    [{ command: 42 }, /got \{"command":42\}/],
    [{ command: null }, /Expected input/],
    [{ cmd: "ls" }, /got \{"cmd":"ls"\}/],
    [{ restart: "yes" }, /Expected input/],
    ["ls", /got "ls"/],
    [null, /got null/],
    [["ls"], /Expected input/],
    [{ command: "" }, /non-empty command/],
    [{ command: "  \n" }, /non-empty command/],
    [{ command: "a\0b" }, /NUL/],
  ];
  for (const [input, message] of bad) {
    const block = await tool.handle({ id: "x", name: "bash", input });
    equal(block.is_error, true, JSON.stringify(input));
    match(String(block.content), message);
    equal(block.tool_use_id, "x");
  }
  const other = await tool.handle({
    id: "y",
    name: "str_replace_editor",
    input: { command: "view" },
  });
  equal(other.is_error, true);
  match(String(other.content), /Expected a call of the "bash" tool/);
  await rejects(tool.handle({ id: "", input: {} }), /string id/);
  // The session still works afterwards.
  equal(
    (await tool.handle({ id: "z", input: { command: "echo fine" } })).content,
    "Exit code 0\nfine\n",
  );
});

test("BashTool.handle() restart kills everything and answers that it restarted", async () => {
  await using tool = new BashTool();
  const mark = marker();
  await tool.handle({
    id: "a",
    input: { command: `export K=1; sleep ${mark} &` },
  });
  const block = await tool.handle({ id: "b", input: { restart: true } });
  match(String(block.content), /restarted/);
  equal(block.is_error, undefined);
  equal((await gone(mark)).length, 0);
  equal(
    (await tool.handle({ id: "c", input: { command: "echo ${K:-none}" } }))
      .content,
    "Exit code 0\nnone\n",
  );
});

test("BashTool.handle() reports a timeout as is_error", async () => {
  await using tool = new BashTool({ timeoutMs: 200 });
  const block = await tool.handle({ id: "t", input: { command: "sleep 20" } });
  equal(block.is_error, true);
  match(String(block.content), /^TIMEOUT: the command ran longer than 200 ms/);
});

test("BashTool applies the policy hook: deny and ask refuse, allow runs", async () => {
  const audit = memoryAudit();
  const asked: string[] = [];
  await using tool = new BashTool({
    audit,
    policy: {
      check: (c) =>
        c.startsWith("rm")
          ? { decision: "deny", reason: "rm is not allowed" }
          : c.startsWith("curl")
          ? { decision: "ask", reason: "network" }
          : { decision: "allow", reason: "fine" },
    },
    onAsk: (c) => {
      asked.push(c);
      return c.includes("ok");
    },
  });
  const denied = await tool.handle({
    id: "1",
    input: { command: "rm -rf /tmp/x" },
  });
  equal(denied.is_error, true);
  match(String(denied.content), /refused by policy: rm is not allowed/);
  const refused = await tool.handle({ id: "2", input: { command: "curl x" } });
  equal(refused.is_error, true);
  const approved = await tool.handle({
    id: "3",
    input: { command: "curl ok; echo ran" },
  });
  match(String(approved.content), /ran/);
  deepStrictEqual(asked, ["curl x", "curl ok; echo ran"]);
  const decisions = audit.records.filter((r) => r.event === "start").map((r) =>
    r.decision
  );
  deepStrictEqual(decisions, ["deny", "ask:refused", "ask:approved"]);
});

test("BashTool redacts what the model and the audit see", async () => {
  const audit = memoryAudit();
  await using tool = new BashTool({
    audit,
    redact: (t) => t.replaceAll("hunter2", "[REDACTED]"),
  });
  const block = await tool.handle({
    id: "r",
    input: { command: "echo hunter2" },
  });
  equal(block.content, "Exit code 0\n[REDACTED]\n");
  ok(!JSON.stringify(audit.records).includes("hunter2"));
});

test("BashTool audit has both records for a normal command, a timeout and a shell exit", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bashbox-audit-"));
  const path = join(dir, "audit.jsonl");
  const sink = jsonlAudit(path);
  const tool = new BashTool({
    audit: sink,
    timeoutMs: 300,
    sessionId: "sess-1",
  });
  try {
    await tool.handle({ id: "n", input: { command: "echo normal" } });
    await tool.handle({ id: "t", input: { command: "sleep 10" } });
    // The start record is on disk before the command ends.
    const during = tool.handle({
      id: "e",
      input: { command: "sleep 0.2; exit 9" },
    });
    await new Promise((r) => setTimeout(r, 100));
    const early = readFileSync(path, "utf8").trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    equal(early.at(-1).event, "start");
    equal(early.at(-1).toolUseId, "e");
    await during;
  } finally {
    await tool.close();
    sink.close();
  }
  const records: AuditRecord[] = readFileSync(path, "utf8").trim().split("\n")
    .map((l) => JSON.parse(l));
  rmSync(dir, { recursive: true });
  deepStrictEqual(records.map((r) => `${r.toolUseId}:${r.event}`), [
    "n:start",
    "n:end",
    "t:start",
    "t:end",
    "e:start",
    "e:end",
  ]);
  const [n, t, e] = [1, 3, 5].map((i) => records[i] as AuditEnd);
  equal(n.exitCode, 0);
  equal(n.outputBytes, 7);
  equal(n.sessionId, "sess-1");
  equal(n.command, "echo normal");
  match(n.preview, /normal/);
  equal(t.timedOut, true);
  equal(t.isError, true);
  equal(e.exitCode, 9);
  equal(e.restarted, true);
  ok(typeof n.time === "string" && typeof n.durationMs === "number");
});

test("BashTool keeps cut output in a spill file the model can read", async () => {
  const tool = new BashTool({ maxOutputChars: 1000 });
  let spillPath = "";
  try {
    const block = await tool.handle({
      id: "s",
      input: { command: "seq 1 100000" },
    });
    const content = String(block.content);
    const m = content.match(
      /the full output is in (\S+): read it with sed -n or grep/,
    );
    ok(m, content.slice(0, 2000));
    spillPath = m[1];
    const full = readFileSync(spillPath, "utf8");
    equal(full.split("\n").length - 1, 100000);
    ok(full.startsWith("1\n2\n"));
    ok(content.endsWith("100000\n"));
    const read = await tool.handle({
      id: "s2",
      input: { command: `sed -n '50000p' ${spillPath}` },
    });
    equal(read.content, "Exit code 0\n50000\n");
    const small = await tool.handle({
      id: "s3",
      input: { command: "echo small" },
    });
    ok(!String(small.content).includes("full output"));
  } finally {
    await tool.close();
  }
  equal(existsSync(spillPath), false);
});

test("BashTool caps a spill file at spillMaxBytes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bashbox-spill-"));
  try {
    await using tool = new BashTool({
      maxOutputChars: 200,
      spillDir: dir,
      spillMaxBytes: 5000,
    });
    const block = await tool.handle({
      id: "c",
      input: { command: "seq 1 100000" },
    });
    const path = String(block.content).match(
      /the first 5000 bytes are in (\S+):/,
    )?.[1];
    ok(path?.startsWith(dir), String(block.content));
    equal(readFileSync(path!, "utf8").length, 5000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BashTool.handleAll() runs only the bash calls of a message, in order", async () => {
  await using tool = new BashTool();
  const results = await tool.handleAll({
    content: [
      { type: "text", text: "hi" },
      use("a", { command: "echo 1" }),
      {
        type: "tool_use",
        id: "other",
        name: "str_replace_based_edit_tool",
        input: {},
      },
      use("b", { command: "echo 2" }),
    ],
  });
  deepStrictEqual(results.map((r) => [r.tool_use_id, r.content]), [[
    "a",
    "Exit code 0\n1\n",
  ], ["b", "Exit code 0\n2\n"]]);
  // deno-lint-ignore no-explicit-any
  await rejects(tool.handleAll({} as any), /content array/);
});
