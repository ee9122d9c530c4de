/**
 * Version queries of development tools: exactly `NAME --version` (or the
 * tool's own spelling, `node -v`, `go version`). Nothing else these programs
 * do is read-only. Tools whose version query has effects are left out, as
 * the effect oracle found: `terraform` (writes a checkpoint file and
 * connects), `kubectl` (connects), `java`, `mvn`, `kotlin` (the JVM writes
 * /tmp/hsperfdata_*), and `pip`, `gem`, `rustup`, `dotnet`, `gradle` (write
 * caches or run other programs).
 *
 * @module
 */

import type { Arg } from "../options.ts";
import { ask, type Problem, type Program } from "../program.ts";

const TOOLS = [
  "node",
  "npm",
  "npx",
  "pnpm",
  "yarn",
  "deno",
  "bun",
  "python",
  "python3",
  "ruby",
  "perl",
  "php",
  "go",
  "cargo",
  "rustc",
  "gcc",
  "g++",
  "cc",
  "clang",
  "make",
  "cmake",
  "tsc",
  "bash",
  "sh",
  "zsh",
  "curl",
  "wget",
  "docker",
  "less",
  "ssh",
  "openssl",
  "sqlite3",
  "psql",
  "mysql",
  "redis-cli",
];

/** The short spelling each tool documents for printing its version (and nothing else). */
const SHORT: Record<string, string> = {
  node: "-v",
  npm: "-v",
  npx: "-v",
  pnpm: "-v",
  yarn: "-v",
  bun: "-v",
  perl: "-v",
  php: "-v",
  docker: "-v",
  python: "-V",
  python3: "-V",
  cargo: "-V",
  rustc: "-V",
  deno: "-V",
};

function judgeVersion(args: readonly Arg[], name: string): Problem | null {
  const v = args.map((a) => a.value);
  if (v.length === 1 && (v[0] === "--version" || v[0] === SHORT[name])) {
    return null;
  }
  if (name === "go" && v.length === 1 && v[0] === "version") return null;
  return ask(`${name} is read-only only as "${name} --version"`);
}

/** `TOOL --version` for common development tools. */
export const version: Program = {
  names: TOOLS,
  judge: judgeVersion,
};
