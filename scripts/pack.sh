#!/usr/bin/env bash
# Builds the npm package `bashbox` into dist/package (scripts/npm_build.sh:
# ESM JavaScript, a .d.ts per module, exports mirroring deno.json's) with the
# `bashbox` command (cli/bin.ts) and packs it as dist/bashbox-<version>.tgz.
# Prints the tarball's path last.   Usage: scripts/pack.sh [OUTDIR]  (default dist)
#
# The npm dependencies are optionalDependencies pinned to the versions of the
# root package.json: npm and bun install them by default, so `bashbox mcp`,
# `agent` and `demo` work from `npx`; the library loads each one lazily
# (runtime/host.ts importNpm), so `--omit=optional` leaves a working exec,
# session and policy.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-dist}
cd "$root"
export PATH="$root/.tools/node_modules/.bin:$PATH" DENO_NO_UPDATE_CHECK=1 NO_COLOR=1
case $out in /*) ;; *) out="$root/$out" ;; esac
pkg="$out/package"
rm -rf "$pkg" "$out"/bashbox-*.tgz
mkdir -p "$out"
bash scripts/npm_build.sh "$pkg"
cp README.md LICENSE "$pkg"/
deno eval --no-config '
const [pkgDir] = Deno.args;
const config = JSON.parse(Deno.readTextFileSync("deno.json"));
const root = JSON.parse(Deno.readTextFileSync("package.json"));
const built = JSON.parse(Deno.readTextFileSync(pkgDir + "/package.json"));
const wanted = ["@anthropic-ai/sdk", "@modelcontextprotocol/server", "@xterm/headless", "zod"];
const all = { ...root.devDependencies, ...root.dependencies };
const optionalDependencies = Object.fromEntries(wanted.map((name) => {
  if (!all[name]) throw new Error(`package.json names no version of ${name}`);
  return [name, all[name]];
}));
const pkg = {
  name: "bashbox",
  version: config.version,
  description: "A persistent bash for AI agents: the Anthropic bash and text editor tools, an MCP server (bash, editor, processes), a policy engine and a CLI",
  license: config.license,
  keywords: ["bash", "shell", "mcp", "mcp-server", "anthropic", "claude", "agent", "tool-use"],
  type: "module",
  bin: { bashbox: "cli/bin.js" },
  exports: { ...built.exports, "./package.json": "./package.json" },
  engines: { node: ">=20.6" },
  os: ["linux", "darwin"],
  optionalDependencies,
};
Deno.writeTextFileSync(pkgDir + "/package.json", JSON.stringify(pkg, null, 2) + "\n");
' "$pkg"
# npm links the bin as is: it needs its interpreter line and the exec bit.
bin="$pkg/cli/bin.js"
{ echo '#!/usr/bin/env node'; cat "$bin"; } >"$bin.tmp" && mv "$bin.tmp" "$bin"
chmod +x "$bin"
(cd "$pkg" && npm pack --silent --pack-destination "$out" >/dev/null)
tgz="$out/bashbox-$(deno eval --no-config 'console.log(JSON.parse(Deno.readTextFileSync(Deno.args[0])).version)' "$pkg/package.json").tgz"
test -s "$tgz"
echo "$tgz"
