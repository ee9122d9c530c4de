import { equal } from "node:assert/strict";
import { runtime, test } from "./_harness.ts";

/**
 * Loads `module` in a Deno worker with no permissions at all and returns what
 * `probe` (source run inside the worker, with the module as `m`) posts back.
 */
async function inBareWorker(module: string, probe: string): Promise<unknown> {
  const url = new URL(module, import.meta.url).href;
  const source = `const m = await import(${
    JSON.stringify(url)
  }); postMessage(${probe});`;
  const workerUrl = URL.createObjectURL(
    new Blob([source], { type: "application/javascript" }),
  );
  const worker = new Worker(workerUrl, {
    type: "module",
    // @ts-ignore: Deno's worker options
    deno: { permissions: "none" },
  });
  try {
    return await new Promise((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new Error(e.message));
      };
    });
  } finally {
    worker.terminate();
    URL.revokeObjectURL(workerUrl);
  }
}

const skip = runtime === "deno"
  ? false
  : `${runtime} has no permission model to load a module without permissions`;

test("format.ts loads in a worker with no permissions", async () => {
  const c =
    `{ text: "x\\n", head: "x\\n", tail: "", totalBytes: 2, omittedBytes: 0, truncated: false }`;
  equal(
    await inBareWorker(
      "../egress/format.ts",
      `m.formatResult({ output: ${c}, exitCode: 0, timedOut: false })`,
    ),
    "Exit code 0\nx\n",
  );
}, { skip });

test("policy.ts loads in a worker with no permissions", async () => {
  equal(
    await inBareWorker(
      "../policy/mod.ts",
      `m.Policy.readOnly().check("ls | wc -l").decision`,
    ),
    "allow",
  );
}, { skip });

test("parse.ts loads in a worker with no permissions", async () => {
  equal(
    await inBareWorker("../shell/parse.ts", `m.parse("a && b").body.length`),
    1,
  );
}, { skip });

test("redact.ts loads in a worker with no permissions", async () => {
  equal(
    await inBareWorker(
      "../egress/redact.ts",
      `m.redactSecrets("AKIAIOSFODNN7EXAMPLE")`,
    ),
    "[REDACTED:aws-access-key]",
  );
}, { skip });
