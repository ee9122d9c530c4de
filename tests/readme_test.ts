/**
 * Every TypeScript block of README.md and of docs/*.md, as written: type-checked (with
 * `deno check`), then run (imported in this process) unless its info string
 * says `check-only` (blocks that need an API key, the network, bubblewrap or
 * an SSH host; they say so in their first line). Blocks carry `ignore` so
 * that `deno test --doc` leaves them to this file, the one runner for both
 * runtimes. `@bashbox/core` imports are pointed at this checkout. Blocks
 * assert with `node:assert` (it throws, so a wrong example fails the suite),
 * never `console.assert` (it prints "Assertion failed" and goes on).
 *
 * @module
 */

import { equal, ok } from "node:assert/strict";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { exec } from "../mod.ts";
import { runtime, test } from "./_harness.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const readme = readFileSync(join(root, "README.md"), "utf8");
/** The Markdown files whose examples are checked: README.md and docs/*.md. */
const documents = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];
const config = JSON.parse(readFileSync(join(root, "deno.json"), "utf8"));
const exportsMap: Record<string, string> = config.exports;

interface Block {
  file: string;
  line: number;
  info: string[];
  code: string;
  heading: string;
}

function blocks(file: string, markdown: string): Block[] {
  const found: Block[] = [];
  const fence = /^```(ts|typescript)\b([^\n]*)\n([\s\S]*?)^```$/gm;
  for (const m of markdown.matchAll(fence)) {
    const before = markdown.slice(0, m.index);
    const heading = [...before.matchAll(/^#+ (.*)$/gm)].at(-1)?.[1] ?? "";
    found.push({
      file,
      line: before.split("\n").length,
      info: m[2].trim().split(/\s+/).filter(Boolean),
      code: m[3],
      heading,
    });
  }
  return found;
}

/** Points `@bashbox/core` and its subpaths at this checkout's files. */
function localise(code: string): string {
  return code.replace(
    /(["'])@bashbox\/core(\/[a-z]+)?\1/g,
    (whole, _q, sub: string | undefined) => {
      const target = exportsMap[sub ? `.${sub}` : "."];
      if (!target) {
        throw new Error(`An example imports an unknown entry point: ${whole}`);
      }
      return JSON.stringify(join(root, target));
    },
  );
}

const all = documents.flatMap((file) =>
  blocks(file, readFileSync(join(root, file), "utf8"))
);
/** Where a block is, for messages and file names: `docs/mcp.md:120`. */
const where = (b: Block) => `${b.file}:${b.line}`;

/** Writes the blocks inside the checkout (so deno.json's import map applies), runs `fn`, removes them. */
async function withFiles<T>(
  chosen: Block[],
  fn: (files: string[]) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(root, "tests", ".readme-"));
  try {
    const files = chosen.map((b) => {
      const path = join(
        dir,
        `${b.file.replace(/[^a-z0-9]+/gi, "-")}-line-${b.line}.ts`,
      );
      writeFileSync(path, localise(b.code));
      return path;
    });
    return await fn(files);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("README.md and docs/*.md have TypeScript blocks, each marked for deno test --doc", () => {
  ok(documents.length >= 2, `found ${documents.join(", ")}`);
  ok(
    all.filter((b) => b.file === "README.md").length >= 2,
    "README.md has examples",
  );
  ok(all.length >= 15, `found ${all.length} blocks`);
  for (const b of all) {
    ok(
      b.info.includes("ignore"),
      `${where(b)}: add "ignore" to the info string`,
    );
    ok(
      !/\bconsole\.assert\(/.test(b.code),
      `${where(b)}: console.assert does not throw; use node:assert`,
    );
    if (b.info.includes("check-only")) {
      ok(
        /^\/\/ Needs .*: the tests type-check this block but do not run it\./
          .test(b.code),
        `${where(b)}: a check-only block says why in its first line`,
      );
    } else {
      ok(
        /from "node:assert(\/strict)?"/.test(b.code),
        `${where(b)}: a block that runs asserts what it shows (node:assert)`,
      );
    }
  }
  ok(
    /^```sh\ndeno add jsr:@bashbox\/core\nbunx jsr add @bashbox\/core\n```/m
      .test(readme),
    "install lines",
  );
});

test(
  "README.md and docs/*.md TypeScript blocks type-check",
  async () => {
    const r = await withFiles(all, (files) =>
      exec(
        [
          "bash",
          "-c",
          'cd "$ROOT" && deno check --quiet "$@"',
          "check",
          ...files,
        ],
        { env: { ROOT: root, NO_COLOR: "1" }, timeoutMs: 120_000 },
      ));
    equal(r.exitCode, 0, r.stdout.text + r.stderr.text);
  },
  {
    // Type-checking is the same whatever runs the tests; Deno does it once.
    skip: runtime !== "deno" &&
      `type-checked by the Deno run (${runtime} has no type checker)`,
    timeoutMs: 120_000,
  },
);

for (const b of all) {
  const checkOnly = b.info.includes("check-only");
  test(
    `${where(b)} (${b.heading}) runs as written`,
    async () => {
      await withFiles([b], async ([file]) => {
        await import(new URL(`file://${file}`).href);
      });
    },
    {
      skip: checkOnly && b.code.split("\n")[0].replace(/^\/\/ /, ""),
      timeoutMs: 60_000,
    },
  );
}
