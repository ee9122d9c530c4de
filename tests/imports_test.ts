/**
 * The package's entry points: each one listed in deno.json exists, has
 * module docs, reaches no npm package by a static import (the SDK is loaded
 * only by what needs it), and loads by file path without the project's
 * deno.json (Deno: `--no-config`; Bun: run from `/`).
 *
 * @module
 */

import { deepEqual, ok } from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { exec } from "../mod.ts";
import { execPath, runtime, test } from "./_harness.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const config = JSON.parse(readFileSync(join(root, "deno.json"), "utf8"));
const entries: Record<string, string> = config.exports;

/** Non-relative, non-`node:` specifiers that `entry` reaches by static imports. */
function npmReached(entry: string, seen = new Set<string>()): string[] {
  const npm = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    const re =
      /^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']/gm;
    for (const m of text.matchAll(re)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec));
      else if (!spec.startsWith("node:")) {
        npm.add(`${spec} (in ${file.replace(root + "/", "")})`);
      }
    }
  };
  visit(join(root, entry));
  return [...npm];
}

const anthropicSource = readFileSync(
  join(root, "anthropic/agent.ts"),
  "utf8",
);
const anthropicPending =
  /^import [^;]*from "@anthropic-ai\/sdk/m.test(anthropicSource) &&
  "anthropic.ts still imports the SDK when it loads (its own change in issue 12)";

test("deno.json exports every part, each with module docs", () => {
  deepEqual(Object.keys(entries).sort(), [
    ".",
    "./anthropic",
    "./audit",
    "./cli",
    "./editor",
    "./exec",
    "./format",
    "./mcp",
    "./parse",
    "./policy",
    "./pool",
    "./redact",
    "./sandbox",
    "./session",
  ]);
  for (const [name, file] of Object.entries(entries)) {
    const text = readFileSync(join(root, file), "utf8");
    ok(
      /^\/\*\*[\s\S]*?@module[\s\S]*?\*\//.test(text),
      `${name}: @module docs`,
    );
  }
});

// Entry points whose graph includes anthropic.ts wait for its lazy SDK.
const viaAnthropic = new Set(["mod.ts", "anthropic/mod.ts", "cli/main.ts"]);

for (const [name, file] of Object.entries(entries)) {
  const entry = file.replace(/^\.\//, "");
  test(
    `${name} reaches no npm package by a static import`,
    () => {
      deepEqual(npmReached(entry), []);
    },
    { skip: viaAnthropic.has(entry) && anthropicPending },
  );
  test(
    `${name} loads by path without deno.json`,
    async () => {
      const url = new URL(`file://${join(root, entry)}`).href;
      const script = runtime === "deno"
        ? 'cd / && deno eval --no-config --no-lock "await import(\\"$URL\\")"'
        : runtime === "bun"
        ? 'cd / && bun -e "await import(process.env.URL)"'
        : 'cd / && "$BIN" --input-type=module -e "await import(process.env.URL)"';
      const r = await exec(["bash", "-c", script], {
        env: { URL: url, BIN: execPath(), NO_COLOR: "1" },
        timeoutMs: 60_000,
      });
      ok(r.exitCode === 0, r.stderr.text);
      ok(
        !/Download/.test(r.stderr.text),
        `${name} downloaded: ${r.stderr.text}`,
      );
    },
    {
      skip: viaAnthropic.has(entry) && anthropicPending,
      timeoutMs: 60_000,
    },
  );
}

test("the MCP server (mcp.ts) is reached only through ./mcp and the CLI's mcp subcommand", () => {
  for (
    const entry of ["mod.ts", "cli/main.ts", "anthropic/mod.ts", "core/pool.ts"]
  ) {
    const seen = new Set<string>();
    npmReached(entry, seen);
    const files = [...seen].map((f) => f.replace(root + "/", ""));
    ok(
      !files.some((f) => f.startsWith("mcp/")) &&
        !files.includes("cli/_mcp.ts"),
      `${entry} statically reaches the MCP server`,
    );
  }
  const cli = readFileSync(join(root, "cli/main.ts"), "utf8");
  ok(/await import\("\.\/_mcp\.ts"\)/.test(cli), "cli.ts loads it lazily");
});

/** Relative value imports (not `import type`) of every library module, by file. */
function valueGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const visit = (file: string) => {
    if (graph.has(file)) return;
    const text = readFileSync(join(root, file), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "");
    const deps: string[] = [];
    const re =
      /^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+"(\.[^"]+)"|import\("(\.[^"]+)"\)/gm;
    for (const m of text.matchAll(re)) {
      const spec = m[1] ?? m[2];
      deps.push(
        resolve(dirname(join(root, file)), spec).slice(root.length + 1),
      );
    }
    graph.set(file, deps);
    deps.forEach(visit);
  };
  for (const file of Object.values(entries)) visit(file.replace(/^\.\//, ""));
  return graph;
}

test("the library has no import cycle", () => {
  const graph = valueGraph();
  const state = new Map<string, 1 | 2>();
  const cycles: string[] = [];
  const walk = (file: string, path: string[]) => {
    state.set(file, 1);
    for (const dep of graph.get(file) ?? []) {
      if (state.get(dep) === 1) {
        cycles.push([...path.slice(path.indexOf(dep)), dep].join(" -> "));
      } else if (!state.has(dep)) walk(dep, [...path, dep]);
    }
    state.set(file, 2);
  };
  for (const file of graph.keys()) if (!state.has(file)) walk(file, [file]);
  deepEqual(cycles, []);
});

test("folders import only the folders below them: core/ neither policy/ nor tools/ nor an adapter", () => {
  const graph = valueGraph();
  // A folder may import from the folders listed for it (and itself).
  const below: Record<string, string[]> = {
    runtime: [],
    shell: [],
    core: ["runtime", "shell", "egress"],
    egress: ["runtime", "shell", "core"],
    policy: ["shell"],
    tools: ["core", "egress", "policy", "runtime", "shell"],
    anthropic: ["tools", "core", "egress", "policy", "runtime", "shell"],
    mcp: ["anthropic", "tools", "core", "egress", "policy", "runtime", "shell"],
    cli: [
      "mcp",
      "anthropic",
      "tools",
      "core",
      "egress",
      "policy",
      "runtime",
      "shell",
    ],
  };
  const wrong: string[] = [];
  for (const [file, deps] of graph) {
    const from = file.split("/")[0];
    if (!(from in below)) continue;
    for (const dep of deps) {
      const to = dep.split("/")[0];
      if (to !== from && to in below && !below[from].includes(to)) {
        wrong.push(`${file} -> ${dep}`);
      }
    }
  }
  deepEqual(wrong, []);
});

test("no module outside runtime/ touches Deno, Bun or process.versions", () => {
  const wrong: string[] = [];
  for (const file of valueGraph().keys()) {
    if (file.startsWith("runtime/")) continue;
    const code = readFileSync(join(root, file), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "");
    const m = /\b(?:Deno|Bun)\??\.|process\??\.versions/.exec(code);
    if (m) wrong.push(`${file}: ${m[0]}`);
  }
  deepEqual(wrong, []);
});

test("the formatter loads without the shell parser, the session without the policy", () => {
  const graph = valueGraph();
  const reach = (file: string): Set<string> => {
    const seen = new Set<string>();
    const walk = (f: string) => {
      if (seen.has(f)) return;
      seen.add(f);
      for (const d of graph.get(f) ?? []) walk(d);
    };
    walk(file);
    return seen;
  };
  // (The session's framing checks each command with the parser.)
  const rules: [string, (f: string) => boolean][] = [
    [
      "egress/format.ts",
      (f) => f === "shell/parse.ts" || f.startsWith("policy/"),
    ],
    ["core/exec.ts", (f) => f.startsWith("policy/")],
    ["core/session.ts", (f) => f.startsWith("policy/")],
  ];
  for (const [file, isHeavy] of rules) {
    const heavy = [...reach(file)].filter(isHeavy);
    deepEqual(heavy, [], `${file} loads ${heavy.join(", ")}`);
  }
});
