/**
 * What a Node user gets: the package built the way JSR's npm layer serves it
 * (`scripts/npm_build.sh`: ESM JavaScript, `.js` specifiers), installed into
 * a scratch `"type": "module"` project beside the real `@anthropic-ai/sdk`,
 * and used from plain JavaScript on the machine's Node (20) and the pinned
 * Node 24: `exec`, `BashSession`, `BashTool.handleAll` and the SDK's
 * `toolRunner` with `runnableBashTool` against the loopback Messages API.
 *
 * @module
 */

import { equal } from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exec } from "../mod.ts";
import { runtime, test } from "./_harness.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

const APP = `
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { BashSession, BashTool, exec, runnableBashTool } from "@bashbox/core";
import { startFakeApi } from "@bashbox/core/fake-api";

const once = await exec("echo out; echo err >&2; exit 3");
assert.deepEqual([once.exitCode, once.stdout.text, once.stderr.text], [3, "out\\n", "err\\n"]);
const timed = await exec("sleep 5 & sleep 5", { timeoutMs: 200 });
assert.equal(timed.timedOut, true);

const session = new BashSession();
await session.run("cd /tmp && export V=kept");
assert.equal((await session.run("echo $PWD $V")).output.text, "/tmp kept\\n");
await session.close();

const tool = new BashTool();
const results = await tool.handleAll({ content: [
  { type: "tool_use", id: "a", name: "bash", input: { command: "cd /tmp" } },
  { type: "tool_use", id: "b", name: "bash", input: { command: "pwd" } },
] });
assert.equal(results[1].content, "Exit code 0\\n/tmp\\n");

const api = await startFakeApi([
  { content: [{ type: "tool_use", id: "r1", name: "bash", input: { command: "echo via runner" } }],
    stop_reason: "tool_use" },
  { content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" },
]);
try {
  const client = new Anthropic({ apiKey: "test", baseURL: api.url, maxRetries: 0 });
  const final = await client.beta.messages.toolRunner({
    model: "m", max_tokens: 100,
    messages: [{ role: "user", content: "go" }],
    tools: [runnableBashTool(tool)],
  });
  assert.equal(final.stop_reason, "end_turn");
  const sent = api.requests[1].messages.at(-1).content;
  assert.match(JSON.stringify(sent[0].content), /via runner/);
} finally {
  await api.close();
  await tool.close();
}
// Every entry point parses on this Node (no \`await using\` on Node 20).
await import("@bashbox/core/cli");
console.log("consumer ok " + process.version);
`;

/** A TypeScript consumer, type-checked against the package's .d.ts files. */
const TYPED_APP = `
import { BashSession, BashTool, exec, type ExecResult } from "@bashbox/core";
import { SessionPool } from "@bashbox/core/pool";
import { Policy } from "@bashbox/core/policy";

const once: ExecResult = await exec("true");
const session = new BashSession();
const text: string = (await session.run("pwd")).output.text;
await session.close();
const tool = new BashTool({ session });
await tool.close();
await new SessionPool().close();
new Policy();
// @ts-expect-error: the exit code is a number or null, never a string
const wrong: string = once.exitCode;
console.log(text, wrong);
`;

/** Builds the package and a scratch project once, in `dir`. */
async function build(dir: string): Promise<void> {
  const pkg = join(dir, "node_modules", "@bashbox", "core");
  const r = await exec(["bash", join(root, "scripts", "npm_build.sh"), pkg], {
    timeoutMs: 120_000,
  });
  equal(r.exitCode, 0, r.stdout.text + r.stderr.text);
  // The loopback API is internal: the scratch copy exposes it for this app.
  const add = await exec(
    [
      "bash",
      "-c",
      `cd "$1" && sed -i 's#"exports": {#"exports": {\\n    "./fake-api": "./anthropic/fake_api.js",#' package.json`,
      "x",
      pkg,
    ],
  );
  equal(add.exitCode, 0, add.stderr.text);
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  const link = await exec([
    "bash",
    "-c",
    'ln -s "$1/node_modules/@anthropic-ai" "$2/node_modules/@anthropic-ai"',
    "x",
    root,
    dir,
  ]);
  equal(link.exitCode, 0, link.stderr.text);
  writeFileSync(join(dir, "app.js"), APP);
  writeFileSync(join(dir, "typed.ts"), TYPED_APP);
}

const nodes: Array<[string, string]> = [
  ["Node 20 (/usr/bin/node)", "/usr/bin/node"],
  ["Node 24 (.tools)", join(root, ".tools/node_modules/.bin/node")],
];
const have = await Promise.all(
  nodes.map(async ([, bin]) =>
    (await exec(["bash", "-c", 'test -x "$1"', "x", bin])).exitCode === 0
  ),
);
/** TypeScript's compiler: the pinned one in .tools, else one on PATH. */
const tsc = (await exec([
  "bash",
  "-c",
  'PATH="$1/.tools/node_modules/.bin:$PATH" command -v tsc',
  "x",
  root,
])).stdout.text.trim();
let dir: string | undefined;

nodes.forEach(([name, bin], i) => {
  test(
    `@bashbox/core transpiled for npm: exec, BashSession, BashTool and toolRunner on ${name}`,
    async () => {
      dir ??= mkdtempSync(join(tmpdir(), "bashbox-consumer-"));
      try {
        if (i === 0 || !have[0]) await build(dir);
        // Through bash: Deno's --allow-run names bash alone.
        const r = await exec(["bash", "-c", 'exec "$1" app.js', "x", bin], {
          cwd: dir,
          timeoutMs: 60_000,
        });
        equal(r.exitCode, 0, r.stdout.text + r.stderr.text);
        equal(r.stdout.text.startsWith("consumer ok v"), true, r.stdout.text);
      } finally {
        if (i === nodes.length - 1) {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    },
    {
      skip: runtime !== "deno"
        ? `built and run once, by the Deno run (${runtime} would repeat it)`
        : !have[i] && `no Node binary at ${bin}`,
      timeoutMs: 180_000,
    },
  );
});

test(
  "@bashbox/core transpiled for npm: a .d.ts per module that a strict TypeScript consumer type-checks against",
  async () => {
    const scratch = mkdtempSync(join(tmpdir(), "bashbox-consumer-types-"));
    try {
      await build(scratch);
      const types = await exec(
        [
          "bash",
          "-c",
          'cd "$1" && ls */*.d.ts | wc -l',
          "x",
          join(scratch, "node_modules", "@bashbox", "core"),
        ],
      );
      equal(Number(types.stdout.text.trim()) > 20, true, types.stdout.text);
      const link = await exec([
        "bash",
        "-c",
        'ln -s "$1/node_modules/@types" "$2/node_modules/@types"',
        "x",
        root,
        scratch,
      ]);
      equal(link.exitCode, 0, link.stderr.text);
      const r = await exec(
        [
          "bash",
          "-c",
          '"$1" --noEmit --strict --target es2022 --module nodenext --moduleResolution nodenext --types node typed.ts',
          "x",
          tsc,
        ],
        { cwd: scratch, timeoutMs: 120_000 },
      );
      equal(r.exitCode, 0, r.stdout.text + r.stderr.text);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
  {
    skip: runtime !== "deno"
      ? `built and checked once, by the Deno run (${runtime} would repeat it)`
      : tsc === "" &&
        "no TypeScript compiler (tsc): ./denow installs the pinned one into .tools",
    timeoutMs: 240_000,
  },
);
