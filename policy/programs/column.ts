/**
 * util-linux `column`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `column`. */
export const column: Program = {
  names: ["column"],
  options: {
    short: "tn:O:N:l:E:deH:R:T:W:LJr:i:p:c:o:s:xhV",
    long: [
      "table",
      "table-name=",
      "table-order=",
      "table-columns=",
      "table-columns-limit=",
      "table-noextreme=",
      "table-noheadings",
      "table-header-repeat",
      "table-hide=",
      "table-right=",
      "table-truncate=",
      "table-wrap=",
      "keep-empty-lines",
      "json",
      "tree=",
      "tree-id=",
      "tree-parent=",
      "output-width=",
      "output-separator=",
      "separator=",
      "fillrows",
      "help",
      "version",
    ],
  },
};
