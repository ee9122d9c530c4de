/**
 * The `bashbox` command of the npm package: runs the CLI's `main` on the
 * host's arguments and standard streams, and exits with its code.
 *
 * It starts unconditionally: `cli/main.ts` starts itself only under
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

import { runFromHost } from "./main.ts";

await runFromHost();
