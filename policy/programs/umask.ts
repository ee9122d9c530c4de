/**
 * The `umask` builtin in its reporting forms (`umask`, `umask -S`,
 * `umask -p`). A mask operand changes the session and is refused by the
 * engine.
 *
 * @module
 */

import { ask, type Program } from "../program.ts";

/** The reader of `umask`. */
export const umask: Program = {
  names: ["umask"],
  judge: (args) =>
    args.every((a) => a.value !== null && /^-[Sp]+$/.test(a.value))
      ? null
      : ask("umask with a mask changes the session"),
};
