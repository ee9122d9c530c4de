/**
 * The npm package `bashbox` as a user gets it: `scripts/pack.sh` builds the
 * tarball once, `npm install -g --prefix` puts it into a fresh prefix, and
 * the installed `bashbox` command (npm's bin link, started by its
 * `#!/usr/bin/env node` line) runs `--version`, `run -- …` and `mcp` (driven
 * over stdio by the official MCP client) on the machine's Node (20) and the
 * pinned Node 24. `npx` and `bunx` start it from the tarball too.
 *
 * The Deno run alone does this (it takes about a minute, most of it npm).
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { exec } from "../mod.ts";
import { VERSION } from "../cli/main.ts";
import { envGet, runtime, test } from "./_harness.ts";
import { marker } from "./_procs.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const tools = join(root, ".tools/node_modules/.bin");

interface Packed {
  /** Scratch directory: the build, the prefix, the npm cache. */
  dir: string;
  /** The tarball. */
  tgz: string;
  /** The prefix `npm install -g` installed it into. */
  prefix: string;
}

let packed: Promise<Packed> | undefined;

/** `bash -c script` with positional `args`; fails the test unless it exits 0. */
async function sh(
  script: string,
  args: string[] = [],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<string> {
  const r = await exec(["bash", "--norc", "-c", script, "sh", ...args], {
    timeoutMs: 120_000,
    ...options,
  });
  equal(
    r.exitCode,
    0,
    `${script}\nexit ${r.exitCode}\n${r.stdout.text}${r.stderr.text}`,
  );
  return r.stdout.text;
}

/** Builds the tarball and installs it into a fresh prefix, once. */
function pack(): Promise<Packed> {
  packed ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "bashbox-pack-"));
    const out = await sh('bash "$1/scripts/pack.sh" "$2"', [
      root,
      join(dir, "dist"),
    ]);
    const tgz = out.trim().split("\n").at(-1)!;
    match(tgz, /\/bashbox-\d+\.\d+\.\d+.*\.tgz$/);
    const prefix = join(dir, "prefix");
    // A cache of this run's own: nothing from an earlier build is reused.
    await sh(
      'npm install -g --prefix "$1" --cache "$2" --no-audit --no-fund --loglevel=error "$3"',
      [prefix, join(dir, "npm-cache"), tgz],
    );
    return { dir, tgz, prefix };
  })();
  return packed;
}

const nodes: Array<[string, string]> = [
  ["Node 20 (/usr/bin/node)", "/usr/bin/node"],
  ["Node 24 (.tools)", join(tools, "node")],
];
const have = await Promise.all(
  nodes.map(async ([, bin]) =>
    (await exec(["bash", "-c", 'test -x "$1"', "x", bin])).exitCode === 0
  ),
);
const npm = (await exec(["bash", "-c", "command -v npm"])).stdout.text.trim();
const skipped = runtime !== "deno"
  ? `built, installed and run once, by the Deno run (${runtime} would repeat a minute of npm)`
  : npm === "" && "no npm on PATH";
const nodeMajor = (bin: string) => bin === "/usr/bin/node" ? "v20." : "v24.";
let done = 0;
/** The tests that run (and call finished()). */
const TESTS = 2 + have.filter(Boolean).length;

/** Ends the scratch directory after the last test of the file. */
async function finished(): Promise<void> {
  if (++done < TESTS || !packed) return;
  const { dir } = await packed.catch(() => ({ dir: "" }));
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/** PATH with `node`'s own directory and the prefix's bin first. */
function pathFor(node: string, prefix: string): string {
  return [node.replace(/\/node$/, ""), join(prefix, "bin"), envGet("PATH")]
    .join(":");
}

test(
  "bashbox npm tarball: scripts/pack.sh packs the bin, deno.json's exports and lazy npm dependencies",
  async () => {
    try {
      const { dir, prefix } = await pack();
      const installed = join(prefix, "lib/node_modules/bashbox");
      const pkg = JSON.parse(
        readFileSync(join(installed, "package.json"), "utf8"),
      );
      const config = JSON.parse(readFileSync(join(root, "deno.json"), "utf8"));
      equal(pkg.name, "bashbox");
      equal(pkg.version, config.version);
      equal(pkg.version, VERSION);
      deepEqual(pkg.bin, { bashbox: "cli/bin.js" });
      deepEqual(
        Object.keys(pkg.exports).filter((k) => k !== "./package.json").sort(),
        Object.keys(config.exports).sort(),
      );
      for (const [key, value] of Object.entries(pkg.exports)) {
        const file = typeof value === "string"
          ? value
          : (value as { default: string }).default;
        ok(existsSync(join(installed, file)), `${key}: ${file} is missing`);
      }
      // Loaded lazily by the commands that need them: optional, so
      // `--omit=optional` keeps the library.
      deepEqual(Object.keys(pkg.optionalDependencies).sort(), [
        "@anthropic-ai/sdk",
        "@modelcontextprotocol/server",
        "@xterm/headless",
        "zod",
      ]);
      equal(pkg.dependencies, undefined);
      match(
        readFileSync(join(installed, "cli/bin.js"), "utf8"),
        /^#!\/usr\/bin\/env node\n/,
      );
      // No TypeScript, tests or scripts in the package.
      const listed = await sh(
        'tar -tzf "$1" | grep -E "\\.ts$|/(tests|scripts|bench)/" | grep -v "\\.d\\.ts$" || true',
        [join(dir, "dist", `bashbox-${VERSION}.tgz`)],
      );
      equal(listed, "");
    } finally {
      await finished();
    }
  },
  { skip: skipped, timeoutMs: 180_000 },
);

nodes.forEach(([name, bin], i) => {
  test(
    `bashbox npm tarball installed with npm install -g: --version, run and mcp over stdio on ${name}`,
    async () => {
      try {
        const { prefix } = await pack();
        const env = { PATH: pathFor(bin, prefix) };
        const mark = marker();
        const out = await sh(
          'node --version; command -v bashbox; bashbox --version; bashbox run -- echo "$1"',
          [mark],
          { env },
        );
        const [version, where, ...rest] = out.split("\n");
        ok(version.startsWith(nodeMajor(bin)), `node ${version}`);
        equal(where, join(prefix, "bin/bashbox"));
        equal(rest.join("\n"), `bashbox ${VERSION}\nExit code 0\n${mark}\n`);

        const client = new Client({ name: "bashbox-pack-test", version: "1" });
        await client.connect(
          new StdioClientTransport({
            command: "bash",
            // --norc: bash on a socket without SHLVL reads ~/.bashrc.
            args: ["--norc", "-c", "exec bashbox mcp"],
            env: {
              PATH: env.PATH,
              HOME: envGet("HOME") ?? "/",
              NO_COLOR: "1",
            },
            stderr: "ignore",
          }),
        );
        try {
          const names = (await client.listTools()).tools.map((t) => t.name);
          for (
            const tool of [
              "bash",
              "str_replace_based_edit_tool",
              "process_start",
              "process_read",
              "process_stop",
            ]
          ) ok(names.includes(tool), `${tool} in ${names.join(", ")}`);
          const r = await client.callTool({
            name: "bash",
            arguments: { command: `echo ${mark}; node --version` },
          });
          const text = (r.content as Array<{ type: string; text: string }>)
            .map((c) => c.text).join("");
          match(text, new RegExp(`^Exit code 0\\n${mark}\\n${nodeMajor(bin)}`));
          equal(r.isError ?? false, false);
        } finally {
          await client.close();
        }
      } finally {
        await finished();
      }
    },
    {
      skip: skipped || (!have[i] && `no Node binary at ${bin}`),
      timeoutMs: 180_000,
    },
  );
});

test(
  "bashbox npm tarball: npx --yes <tgz> and bunx -p <tgz> bashbox start the command",
  async () => {
    try {
      const { dir, tgz } = await pack();
      const mark = marker();
      // npx takes a local tarball as ./name.tgz or file:path (a bare
      // absolute path is read as a command).
      const npx = await sh(
        'npx --yes --cache "$2" "file:$1" --version && npx --yes --cache "$2" "file:$1" run -- echo "$3"',
        [tgz, join(dir, "npm-cache"), mark],
        { env: { PATH: envGet("PATH")! }, cwd: dir },
      );
      equal(npx, `bashbox ${VERSION}\nExit code 0\n${mark}\n`);
      // bunx runs the bin under Node (its #! line); --bun under Bun itself.
      const bun = await sh(
        'bunx -p "file:$1" bashbox --version && bunx --bun -p "file:$1" bashbox run -- echo "$2"',
        [tgz, mark],
        {
          env: {
            PATH: `${tools}:${envGet("PATH")}`,
            BUN_INSTALL_CACHE_DIR: join(dir, "bun-cache"),
          },
          cwd: dir,
        },
      );
      equal(
        bun.replace(/^(Resolving|Resolved|Saved).*\n/gm, ""),
        `bashbox ${VERSION}\nExit code 0\n${mark}\n`,
      );
    } finally {
      await finished();
    }
  },
  { skip: skipped, timeoutMs: 180_000 },
);
