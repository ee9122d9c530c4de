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
console.log("consumer ok " + process.version);
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
      `cd "$1" && sed -i 's#"exports": {#"exports": {\\n    "./fake-api": "./_fake_api.js",#' package.json`,
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
