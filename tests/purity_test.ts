import { equal } from "node:assert/strict";
import { runtime, test } from "./_harness.ts";

// A Deno worker with no permissions at all can load format.ts: it uses no
// Deno, Bun or node: API. (Bun has no permission model to prove this with.)
test("format.ts loads in a worker with no permissions", async () => {
  const url = new URL("../format.ts", import.meta.url).href;
  const source = `
    const m = await import(${JSON.stringify(url)});
    const c = { text: "x\\n", head: "x\\n", tail: "", totalBytes: 2, omittedBytes: 0, truncated: false };
    postMessage(m.formatResult({ output: c, exitCode: 0, timedOut: false }));
  `;
  const blob = new Blob([source], { type: "application/javascript" });
  const workerUrl = URL.createObjectURL(blob);
  const worker = new Worker(workerUrl, {
    type: "module",
    // @ts-ignore: Deno's worker options
    deno: { permissions: "none" },
  });
  try {
    const message = await new Promise((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new Error(e.message));
      };
    });
    equal(message, "Exit code 0\nx\n");
  } finally {
    worker.terminate();
    URL.revokeObjectURL(workerUrl);
  }
}, {
  skip: runtime === "bun"
    ? "Bun has no permission model to load a module without permissions"
    : false,
});
