/**
 * GNU diffutils `diff`: `-l` pipes the output through `pr`.
 *
 * @module
 */

import type { Program } from "../program.ts";

/** The option table of `diff`. */
export const diff: Program = {
  names: ["diff"],
  options: {
    short: "0123456789abBcC:dD:eEF:iI:lnNpqrsS:tTuU:vwW:x:X:yZ",
    long: ["normal", "brief", "report-identical-files", "context=?", "unified=?", "ed", "rcs", "side-by-side", "width=", "left-column", "suppress-common-lines", "show-c-function", "show-function-line=", "label=", "expand-tabs", "initial-tab", "tabsize=", "suppress-blank-empty", "paginate", "recursive", "no-dereference", "new-file", "unidirectional-new-file", "ignore-file-name-case", "no-ignore-file-name-case", "exclude=", "exclude-from=", "starting-file=", "from-file=", "to-file=", "ignore-case", "ignore-tab-expansion", "ignore-trailing-space", "ignore-space-change", "ignore-all-space", "ignore-blank-lines", "ignore-matching-lines=", "text", "strip-trailing-cr", "ifdef=", "old-group-format=", "new-group-format=", "unchanged-group-format=", "changed-group-format=", "line-format=", "old-line-format=", "new-line-format=", "unchanged-line-format=", "minimal", "horizon-lines=", "speed-large-files", "color=?", "palette=", "binary", "help", "version"],
  },
  refuse: {
    "l": "runs pr on the output",
    "paginate": "runs pr on the output",
  },
};
