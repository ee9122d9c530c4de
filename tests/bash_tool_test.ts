/**
 * BashTool and runAgent, round 2: calls run whole and in order, failing
 * callbacks and sinks are answered and never thrown, spill files are where
 * commands can read them, stop reasons are honoured, and the light import
 * loads no npm package.
 */
import { deepStrictEqual, equal, match, ok, rejects } from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import {
  AgentError,
  type AuditRecord,
  BashTool,
  type BashToolOptions,
  exec,
  memoryAudit,
  runAgent,
  runnableBashTool,
} from "../mod.ts";
import { startFakeApi } from "../anthropic/fake_api.ts";
import { redactor } from "../egress/redact.ts";
import { execPath, runtime, test } from "./_harness.ts";
import { rng } from "./_random.ts";
import { gone, marker } from "./_procs.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "bashbox-tool-"));
}

function use(id: string, input: unknown) {
  return { type: "tool_use" as const, id, name: "bash", input };
}

test("BashTool.handle() runs concurrent calls whole and in call order, with slow approvals, slow audit and restarts", async () => {
  const dir = tempDir();
  try {
    for (const seed of [1, 2, 3]) {
      const rand = rng(seed);
      const n = 6 + seed * 2;
      const log = join(dir, `order-${seed}.log`);
      const audited: string[] = [];
      const tool = new BashTool({
        policy: {
          check: (c) =>
            c.includes("ask") ? { decision: "ask", reason: "asked" } : {
              decision: "allow",
              reason: "ok",
            },
        },
        // Earlier calls are approved more slowly than later ones.
        onAsk: async () => {
          await sleep(Math.floor(rand() * 80));
          return true;
        },
        audit: {
          write: async (r: AuditRecord) => {
            await sleep(Math.floor(rand() * 20));
            audited.push(`${r.toolUseId}:${r.event}`);
          },
        },
      });
      try {
        const calls = Array.from({ length: n }, (_, i) => {
          const sub = join(dir, `s${seed}-${i}`);
          const input = i === 3 ? { restart: true } : {
            command: `${
              i % 2 ? ": ask; " : ""
            }mkdir -p ${sub} && cd ${sub} && echo ${i} >> ${log}`,
          };
          return tool.handle({ id: `c${i}`, name: "bash", input });
        });
        const results = await Promise.all(calls);
        const ran = readFileSync(log, "utf8").trim().split("\n").map(Number);
        deepStrictEqual(
          ran,
          Array.from({ length: n }, (_, i) => i).filter((i) => i !== 3),
        );
        results.forEach((r, i) => {
          equal(r.tool_use_id, `c${i}`);
          if (i === 3) return match(String(r.content), /restarted/);
          equal(r.is_error, undefined, String(r.content));
          // Each cwd note is true for its own call.
          equal(
            r.content,
            `Exit code 0\nWorking directory: ${
              join(dir, `s${seed}-${i}`)
            }\n(no output)`,
          );
        });
        // Audit records come in pairs, call after call.
        deepStrictEqual(
          audited,
          Array.from({ length: n }, (_, i) => [`c${i}:start`, `c${i}:end`])
            .flat(),
        );
      } finally {
        await tool.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("runnableBashTool() under the SDK's tool runner runs the calls of one message in order, the first held by a slow approval", async () => {
  const dir = tempDir();
  const log = join(dir, "log");
  const api = await startFakeApi([
    {
      content: [
        use("r1", { command: `: slow; echo 1 >> ${log}; cd /tmp` }),
        use("r2", { command: `echo 2 >> ${log}; pwd` }),
        use("r3", { command: "false" }),
      ],
      stop_reason: "tool_use",
    },
    { content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" },
  ]);
  const tool = new BashTool({
    policy: {
      check: (c) =>
        c.includes("slow")
          ? { decision: "ask", reason: "slow" }
          : { decision: "allow", reason: "ok" },
    },
    onAsk: async () => {
      await sleep(300);
      return true;
    },
  });
  try {
    const client = new Anthropic({
      apiKey: "test",
      baseURL: api.url,
      maxRetries: 0,
    });
    await client.beta.messages.toolRunner({
      model: "m",
      max_tokens: 100,
      messages: [{ role: "user", content: "go" }],
      tools: [runnableBashTool(tool)],
    });
    equal(readFileSync(log, "utf8"), "1\n2\n");
    const sent = api.requests[1].messages as Array<
      { content: Array<Record<string, unknown>> }
    >;
    const results = sent.at(-1)!.content;
    deepStrictEqual(results.map((r) => r.tool_use_id), ["r1", "r2", "r3"]);
    ok(JSON.stringify(results[1].content).includes("/tmp"));
    // An error result is thrown as the SDK's ToolError: its content is ours, unprefixed.
    equal(results[2].is_error, true);
    equal(JSON.stringify(results[2].content), '"Exit code 1\\n(no output)"');
  } finally {
    await api.close();
    await tool.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BashTool.handle() answers a throwing onAsk, policy or redactor with is_error and runs nothing", async () => {
  const dir = tempDir();
  try {
    const mark = join(dir, "ran");
    const cases: [BashToolOptions, RegExp][] = [
      [
        {
          policy: {
            check: () => ({ decision: "ask", reason: "needs a human" }),
          },
          onAsk: () => {
            throw new Error("no terminal");
          },
        },
        /refused by policy: needs a human; the approval callback failed: no terminal/,
      ],
      [{
        policy: { check: () => ({ decision: "ask", reason: "r" }) },
        onAsk: () => Promise.reject(new Error("rejected later")),
      }, /approval callback failed: rejected later/],
      [{
        policy: {
          check: () => {
            throw new Error("policy broke");
          },
        },
      }, /refused by policy: the policy failed: policy broke/],
      [{
        // deno-lint-ignore no-explicit-any
        policy: { check: () => ({ decision: "maybe" }) as any },
      }, /the policy failed: Expected a decision/],
    ];
    for (const [options, message] of cases) {
      await using tool = new BashTool(options);
      const block = await tool.handle({
        id: "x",
        input: { command: `touch ${mark}` },
      });
      equal(block.is_error, true);
      match(String(block.content), message);
      equal(existsSync(mark), false);
    }
    await using tool = new BashTool({
      redact: () => {
        throw new TypeError("bad pattern with hunter2");
      },
    });
    const block = await tool.handle({ id: "y", input: { command: "echo hi" } });
    equal(block.is_error, true);
    match(String(block.content), /withheld: the redactor failed \(TypeError\)/);
    ok(!String(block.content).includes("hunter2"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BashTool.handle() answers a failing audit sink: no run without a start record, is_error when the end record fails", async () => {
  const dir = tempDir();
  try {
    const mark = join(dir, "ran");
    await using failsAtStart = new BashTool({
      audit: {
        write: () => {
          throw new Error("disk full");
        },
      },
    });
    const a = await failsAtStart.handle({
      id: "a",
      input: { command: `touch ${mark}` },
    });
    equal(a.is_error, true);
    match(String(a.content), /not run: the audit sink failed: disk full/);
    equal(existsSync(mark), false);
    const r = await failsAtStart.handle({ id: "r", input: { restart: true } });
    equal(r.is_error, true);

    await using failsAtEnd = new BashTool({
      audit: {
        write: (rec: AuditRecord) =>
          rec.event === "end"
            ? Promise.reject(new Error("sink gone"))
            : undefined,
      },
    });
    const b = await failsAtEnd.handle({
      id: "b",
      input: { command: `touch ${mark}; echo made` },
    });
    equal(b.is_error, true);
    match(String(b.content), /^Exit code 0\nmade\n/);
    match(
      String(b.content),
      /audit record of this call could not be written: sink gone/,
    );
    equal(existsSync(mark), true);
    // The tool keeps working.
    equal(
      (await failsAtEnd.handle({ id: "c", input: { command: "echo again" } }))
        .content.startsWith("Exit code 0\nagain\n"),
      true,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BashTool.handle() answers a deleted spill directory with is_error and the output still shown", async () => {
  const dir = tempDir();
  const spillDir = join(dir, "spill");
  try {
    await using tool = new BashTool({ maxOutputChars: 500, spillDir });
    const first = await tool.handle({
      id: "1",
      input: { command: "seq 1 5000" },
    });
    match(String(first.content), /the full output is in /);
    rmSync(spillDir, { recursive: true, force: true });
    const started = performance.now();
    const second = await tool.handle({
      id: "2",
      input: { command: "seq 1 5000" },
    });
    ok(performance.now() - started < 10_000);
    equal(second.is_error, true);
    match(
      String(second.content),
      /the full output could not be kept \(.*ENOENT|no such file/i,
    );
    ok(String(second.content).endsWith("5000\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BashTool.close() during a command: the result says the session was closed, not out of memory", async () => {
  const tool = new BashTool();
  const mark = marker();
  const pending = tool.handle({ id: "c", input: { command: `sleep ${mark}` } });
  await sleep(300);
  await tool.close();
  const block = await pending;
  equal(block.is_error, true);
  match(
    String(block.content),
    /^CLOSED: the session was closed while the command ran/,
  );
  ok(!/out of memory/.test(String(block.content)), String(block.content));
  equal((await gone(mark)).length, 0);
  const after = await tool.handle({ id: "d", input: { command: "echo x" } });
  equal(after.is_error, true);
  match(String(after.content), /session is closed/);
});

test("BashTool spill files: unique per tool and call, exclusive, private, one per cut stream with stderr apart", async () => {
  const dir = tempDir();
  try {
    // Two tools with the same session id share a directory.
    const tools = [0, 1].map(() =>
      new BashTool({
        maxOutputChars: 300,
        spillDir: dir,
        sessionId: "same-id",
        sessionOptions: { stderr: "separate" },
      })
    );
    try {
      const blocks = await Promise.all(tools.map((t, i) =>
        t.handle({
          id: `t${i}`,
          input: {
            command: `seq ${i} 20000; seq 1 30000 | sed 's/^/err${i} /' >&2`,
          },
        })
      ));
      const paths = new Set<string>();
      blocks.forEach((b, i) => {
        const content = String(b.content);
        const found = [...content.matchAll(/the full output is in (\S+):/g)]
          .map((m) => m[1]);
        equal(found.length, 2, content);
        const [out, err] = found;
        paths.add(out).add(err);
        equal(readFileSync(out, "utf8").split("\n")[0], String(i));
        equal(readFileSync(out, "utf8").trim().split("\n").length, 20001 - i);
        const errText = readFileSync(err, "utf8");
        equal(errText.split("\n").length - 1, 30000);
        ok(errText.startsWith(`err${i} 1\n`));
        for (const p of [out, err]) {
          const st = lstatSync(p);
          ok(st.isFile() && !st.isSymbolicLink());
          equal(st.mode & 0o777, 0o600);
        }
      });
      equal(paths.size, 4);
      equal(readdirSync(dir).length, 4);
    } finally {
      await Promise.all(tools.map((t) => t.close()));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BashTool keeps secrets out of spill files, the content and the audit, whatever the chunking", async () => {
  const dir = tempDir();
  try {
    const secret = "ghp_" + "Ab3".repeat(12);
    const audit = memoryAudit();
    await using tool = new BashTool({
      maxOutputChars: 400,
      spillDir: dir,
      audit,
      redact: redactor(),
      policy: {
        check: (c) => ({
          decision: "allow",
          reason: `allowed: ${c.slice(0, 30)}`,
        }),
      },
    });
    const command =
      `for i in $(seq 1 3000); do printf 'line %d ' $i; [ $((i % 700)) = 0 ] && printf '${secret}'; echo; done; echo ${secret}`;
    const block = await tool.handle({ id: "s", input: { command } });
    const content = String(block.content);
    const path = content.match(/the full output is in (\S+):/)?.[1];
    ok(path, content);
    const spilled = readFileSync(path, "utf8");
    ok(!spilled.includes("Ab3Ab3"), "the spill file has the secret");
    equal((spilled.match(/\[REDACTED:github-token\]/g) ?? []).length, 5);
    ok(!content.includes("Ab3Ab3"));
    ok(!JSON.stringify(audit.records).includes("Ab3Ab3"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const bwrap = await exec(
  "command -v bwrap >/dev/null && bwrap --ro-bind / / --unshare-pid --unshare-net --die-with-parent -- true && echo ok",
).catch(() => null);

test(
  "BashTool in a sandbox names a spill file that the next command can read inside it",
  async () => {
    const workdir = tempDir();
    try {
      await using tool = new BashTool({
        maxOutputChars: 300,
        sessionOptions: { sandbox: { kind: "bwrap", workdir } },
      });
      const block = await tool.handle({
        id: "a",
        input: { command: "seq 1 50000" },
      });
      const path = String(block.content).match(
        /the full output is in (\S+): read it with sed -n or grep/,
      )?.[1];
      ok(path, String(block.content));
      const read = await tool.handle({
        id: "b",
        input: { command: `sed -n '40000p' ${path}` },
      });
      equal(read.content, "Exit code 0\n40000\n");
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  },
  {
    skip: bwrap?.stdout.text === "ok\n"
      ? false
      : "bubblewrap (bwrap) is not installed or cannot create namespaces here",
  },
);

test("BashTool over a transport says plainly that the spill file is on the host and how to see another part", async () => {
  await using tool = new BashTool({
    maxOutputChars: 300,
    sessionOptions: { transport: { argv: ["env"] } },
  });
  const block = await tool.handle({
    id: "a",
    input: { command: "seq 1 5000" },
  });
  match(
    String(block.content),
    /the full output is in \S+: that file is on the host, not where commands run: to see another part, run the command again with a filter/,
  );
});

test("runAgent() runs no tool call of a response cut by max_tokens: it retries with more tokens, then stops", async () => {
  const dir = tempDir();
  const mark = join(dir, "ran");
  const cut = {
    content: [
      { type: "text" as const, text: "running" },
      use("m1", { command: `touch ${mark}` }),
    ],
    stop_reason: "max_tokens" as const,
  };
  const api = await startFakeApi([
    cut,
    {
      content: [use("m2", { command: "echo whole" })],
      stop_reason: "tool_use",
    },
    { content: [{ type: "text", text: "done" }], stop_reason: "end_turn" },
  ]);
  await using tool = new BashTool();
  try {
    const client = new Anthropic({
      apiKey: "t",
      baseURL: api.url,
      maxRetries: 0,
    });
    const run = await runAgent({
      client,
      model: "m",
      prompt: "go",
      tool,
      maxTokens: 1000,
    });
    equal(run.stopReason, "end_turn");
    deepStrictEqual(api.requests.map((r) => r.max_tokens), [1000, 2000, 2000]);
    equal(existsSync(mark), false);
    ok(!JSON.stringify(run.messages).includes("m1"));
    ok(JSON.stringify(run.messages).includes("whole"));
  } finally {
    await api.close();
  }
  const always = await startFakeApi([cut, cut, cut]);
  try {
    const client = new Anthropic({
      apiKey: "t",
      baseURL: always.url,
      maxRetries: 0,
    });
    const run = await runAgent({
      client,
      model: "m",
      prompt: "go",
      tool,
      maxTokens: 1000,
      maxTokensCeiling: 4000,
    });
    equal(run.stopReason, "max_tokens");
    equal(run.turns, 3);
    deepStrictEqual(always.requests.map((r) => r.max_tokens), [
      1000,
      2000,
      4000,
    ]);
    equal(run.incomplete?.[1].id, "m1");
    equal(run.messages.length, 1);
    equal(existsSync(mark), false);
  } finally {
    await always.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("runAgent() throws an AgentError with the conversation so far when the API fails", async () => {
  const api = await startFakeApi([
    { content: [use("a", { command: "echo first" })], stop_reason: "tool_use" },
    { error: { status: 529, type: "overloaded_error", message: "Overloaded" } },
  ]);
  await using tool = new BashTool();
  try {
    const client = new Anthropic({
      apiKey: "t",
      baseURL: api.url,
      maxRetries: 0,
    });
    let caught: unknown;
    await runAgent({ client, model: "m", prompt: "go", tool }).catch((e) =>
      caught = e
    );
    ok(caught instanceof AgentError, String(caught));
    match(caught.message, /turn 2 failed: .*Overloaded/);
    equal(caught.run.stopReason, "error");
    equal(caught.run.turns, 2);
    equal(caught.run.messages.length, 3);
    const results = caught.run.messages[2].content as Array<
      { content: string }
    >;
    equal(results[0].content, "Exit code 0\nfirst\n");
    ok(caught.cause instanceof Error);
  } finally {
    await api.close();
  }
  await rejects(
    runAgent({
      client: { messages: { create: () => Promise.resolve({}) } },
      model: "m",
      prompt: "go",
      tool,
    } as never),
    (e: unknown) =>
      e instanceof AgentError && /content array/.test(e.message) &&
      e.run.messages.length === 1,
  );
});

test("anthropic.ts and format.ts load no npm package, imported by path without the project's configuration", async () => {
  const here = new URL("..", import.meta.url).pathname;
  const script = join(tempDir(), "light.ts");
  const source = `
import { BASH_TOOL, BashTool } from "${here}anthropic/mod.ts";
import { formatResult } from "${here}egress/format.ts";
const g = globalThis as any;
await using tool = new BashTool();
const block = await tool.handle({ id: "a", input: { command: "echo hi" } });
const loaded = typeof g.require === "function" && g.require.cache
  ? Object.keys(g.require.cache).filter((k) => k.includes("node_modules")).length
  : 0;
console.log(JSON.stringify([BASH_TOOL.name, typeof formatResult, block.content, loaded]));
`;
  writeFileSync(script, source);
  // deno: --no-npm fails any npm import; bun: require.cache lists every module loaded.
  // node: without a package.json around the script, an npm import would fail.
  const command = runtime === "deno"
    ? `"${execPath()}" run --no-config --no-npm --no-lock --allow-run=bash --allow-read --allow-write --allow-env "${script}"`
    : runtime === "bun"
    ? `"${execPath()}" run "${script}"`
    : `"${execPath()}" "${script}"`;
  const r = await exec(command, { timeoutMs: 60_000 });
  rmSync(join(script, ".."), { recursive: true, force: true });
  equal(r.exitCode, 0, r.stdout.text + r.stderr.text);
  deepStrictEqual(JSON.parse(r.stdout.text), [
    "bash",
    "function",
    "Exit code 0\nhi\n",
    0,
  ]);
});

test("BashTool never opens a planted file or symlink at a spill file's name: it picks another name", async () => {
  const dir = tempDir();
  const spillDir = join(dir, "spill");
  const target = join(dir, "target");
  writeFileSync(target, "untouched\n");
  const g = globalThis as { crypto: { randomUUID: () => string } };
  const original = g.crypto.randomUUID;
  const uuids = ["aaaaaaaa-0000-4000-8000-000000000000"];
  const planted = join(spillDir, "fixedid0-1-stdout-aaaaaaaa.txt");
  try {
    const { mkdirSync, symlinkSync } = await import("node:fs");
    mkdirSync(spillDir);
    symlinkSync(target, planted);
    g.crypto.randomUUID = () => uuids.shift() ?? original.call(g.crypto);
    await using tool = new BashTool({
      maxOutputChars: 200,
      spillDir,
      sessionId: "fixedid0",
    });
    const block = await tool.handle({
      id: "p",
      input: { command: "seq 1 3000" },
    });
    g.crypto.randomUUID = original;
    const path = String(block.content).match(/the full output is in (\S+):/)
      ?.[1];
    ok(path, String(block.content));
    ok(path !== planted);
    equal(readFileSync(target, "utf8"), "untouched\n");
    equal(readFileSync(path, "utf8").split("\n").length - 1, 3000);
    ok(lstatSync(planted).isSymbolicLink());
  } finally {
    g.crypto.randomUUID = original;
    rmSync(dir, { recursive: true, force: true });
  }
});
