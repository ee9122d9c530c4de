/**
 * The `bashbox` command of the npm package: runs {@linkcode main} on the
 * host's arguments and standard streams, and exits with its code.
 *
 * It calls `main` unconditionally: `cli/main.ts` starts itself only under
 * `import.meta.main`, which Node 20 lacks (the command printed nothing and
 * exited 0), and which is false anyway when npm's bin link or `npx` loads the
 * file through a symlink on some runtimes.
 *
 * ```sh
 * npx --yes bashbox --version
 * ```
 *
 * @module
 */

import { main } from "./main.ts";
import {
  exitHost,
  hostArgs,
  hostEnvObject,
  stdinStream,
  stdinTerminal,
  stdoutIsTerminal,
  writeHost,
} from "../runtime/host.ts";

/** Lines of a byte stream (standard input when it is not a terminal). */
async function* lines(
  stream: AsyncIterable<Uint8Array>,
): AsyncIterable<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = buffered.indexOf("\n")) !== -1) {
      yield buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
    }
  }
  buffered += decoder.decode();
  if (buffered) yield buffered;
}

// The whole environment: redaction hides the values of secret-looking
// variables, so it needs all of them.
const env = hostEnvObject();
const terminal = stdinTerminal();
const code = await main(hostArgs(), {
  out: (text) => writeHost(1, text),
  err: (text) => writeHost(2, text),
  terminal,
  // Read lazily: `mcp` and `run` never touch standard input through this.
  lines: terminal ? undefined : lines({
    [Symbol.asyncIterator]: () => stdinStream()[Symbol.asyncIterator](),
  }),
  env,
  name: env.BASHBOX_PROG || "bashbox",
  color: stdoutIsTerminal() && !env.NO_COLOR,
});
exitHost(code);
