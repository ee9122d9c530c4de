/**
 * git 2.39 (Debian 12) and later: global options, the read-only subcommands
 * and each one's options; `branch`, `tag`, `config`, `remote`, `stash`,
 * `reflog`, `worktree` and `help` are read-only only in their listing or
 * reading forms, decided by their action (an operand, an action option), not
 * by flags seen anywhere. Options that write (`--output`), run programs
 * (`--ext-diff`, `--textconv`, `-O`/`--open-files-in-pager`, `-c`,
 * `--config-env`, `--exec-path=`) or are not in the tables are not allowed.
 *
 * `--remerge-diff` is left out: the effect oracle saw it write a temporary
 * object directory into .git.
 *
 * A repository's own configuration can still run programs (`core.fsmonitor`,
 * `diff.external`, `core.pager`): the sandbox is the boundary for that.
 *
 * @module
 */

import {
  type Arg,
  OptionError,
  type OptionTable,
  type ParsedOption,
  parseOptions,
} from "../options.ts";
import { ask, deny, type Problem, type Program } from "../program.ts";

const w = (s: string): string[] => s.trim().split(/\s+/);

/** Options that write files or run programs, by long name or letter. */
const DANGER: Record<string, string> = {
  output: "writes the output to a file",
  "ext-diff": "runs the external diff program",
  textconv: "runs textconv filters",
  filters: "runs conversion filters",
  "open-files-in-pager": "runs a pager program named on the command line",
  O: "runs a pager program named on the command line",
  "show-signature": "runs gpg to verify signatures (which writes ~/.gnupg)",
};

/** `--diff-merges` values that do not remerge (2.39-2.47's diff-merges.c). */
const DIFF_MERGES = new Set(w(`
  off none 1 first-parent separate m on c combined cc dense-combined
`));

/**
 * Why an option's value runs or writes something: `--format`/`--pretty`
 * with `%G` placeholders run gpg; `--diff-merges=remerge` (`r`) is
 * `--remerge-diff`, which writes a temporary object directory into .git.
 */
function valueProblem(sub: string, o: ParsedOption): Problem | null {
  if (o.name === "format" || o.name === "pretty") {
    const v = o.value?.value;
    if (v === undefined) return null;
    if (v === null) {
      return ask(
        `git ${sub} ${o.text} ${o.value?.text}: a format known only at run time may hold %G, which runs gpg`,
      );
    }
    if (/%G/.test(v.replace(/%%/g, ""))) {
      return deny(
        `git ${sub} ${o.text}: %G placeholders run gpg to verify signatures (which writes ~/.gnupg)`,
      );
    }
  }
  if (o.name === "diff-merges") {
    const v = o.value?.value ?? null;
    if (v === null || !DIFF_MERGES.has(v)) {
      return deny(
        `git ${sub} --diff-merges=${o.value?.text ?? ""}: only ${
          [...DIFF_MERGES].join(", ")
        } are allowed (remerge writes a temporary object directory into .git)`,
      );
    }
  }
  return null;
}

const DIFF = w(`
  p u patch s no-patch U= unified= raw patch-with-raw stat=? numstat shortstat
  dirstat=? cumulative dirstat-by-file=? summary patch-with-stat z name-only
  name-status submodule=? color=? no-color color-moved=? no-color-moved
  color-moved-ws= no-color-moved-ws word-diff=? word-diff-regex= color-words=?
  no-renames rename-empty no-rename-empty check ws-error-highlight= full-index
  binary abbrev=? no-abbrev B=? break-rewrites=? M=? find-renames=? C=?
  find-copies=? find-copies-harder D irreversible-delete l= diff-filter= S= G=
  find-object= pickaxe-all pickaxe-regex skip-to= rotate-to= R relative=?
  no-relative a text ignore-cr-at-eol ignore-space-at-eol b ignore-space-change
  w ignore-all-space ignore-blank-lines I= ignore-matching-lines=
  inter-hunk-context= W function-context exit-code quiet no-ext-diff
  no-textconv ignore-submodules=? src-prefix= dst-prefix= no-prefix
  default-prefix line-prefix= ita-invisible-in-index ita-visible-in-index
  minimal patience histogram anchored= diff-algorithm= indent-heuristic
  no-indent-heuristic compact-summary output-indicator-new=
  output-indicator-old= output-indicator-context= c cc m dd combined-all-paths
  diff-merges= no-diff-merges t r root no-commit-id
  ext-diff textconv output=
`);

const REVS = w(`
  n= max-count= skip= since= after= since-as-filter= until= before= author=
  committer= grep-reflog= grep= all-match invert-grep i regexp-ignore-case
  basic-regexp E extended-regexp F fixed-strings P perl-regexp remove-empty
  merges no-merges min-parents= max-parents= no-min-parents no-max-parents
  first-parent exclude-first-parent-only not all branches=? tags=? remotes=?
  glob= exclude= exclude-hidden= reflog alternate-refs single-worktree
  ignore-missing bisect stdin cherry-mark cherry-pick left-only right-only
  cherry walk-reflogs g merge boundary simplify-by-decoration show-pulls
  full-history dense sparse simplify-merges ancestry-path=? date-order
  author-date-order topo-order reverse no-walk=? do-walk pretty=? format=
  abbrev-commit no-abbrev-commit oneline encoding= expand-tabs=?
  no-expand-tabs notes=? no-notes show-notes=? show-signature relative-date
  date= parents children left-right graph show-linear-break=? follow
  decorate=? no-decorate decorate-refs= decorate-refs-exclude=
  clear-decorations source log-size L= use-mailmap mailmap no-mailmap
  no-use-mailmap full-diff count objects objects-edge objects-edge-aggressive
  unpacked object-names no-object-names timestamp header disk-usage=?
  end-of-options
`);

/** Builds a getopt table from `w()` lists: one letter = short, else long. */
function table(names: string[], extra: Partial<OptionTable> = {}): OptionTable {
  let short = "";
  const long: string[] = [];
  for (const n of names) {
    const base = n.replace(/=\??$/, "");
    const kind = n.endsWith("=?") ? "::" : n.endsWith("=") ? ":" : "";
    if (base.length === 1) short += base + kind;
    else long.push(n);
  }
  return { short, long, ...extra };
}

const LOG = table([...DIFF, ...REVS, ..."0123456789"]);
const DIFF_CMD = table([
  ...DIFF,
  ...w("cached staged merge-base no-index 1 2 3 ours theirs base"),
  ..."0123456789",
]);

/** A subcommand: its table and what decides read versus write. */
interface Sub {
  table: OptionTable;
  /** After options are known: null when read-only. */
  check?: (opts: Set<string>, operands: readonly Arg[]) => Problem | null;
  /** Options (git's LASTARG_DEFAULT) that take the next word when there is one. */
  lastArg?: readonly string[];
}

const ANYTHING: Sub = { table: {} };

function listing(
  what: string,
  listOpts: string[],
): Sub["check"] {
  return (opts, operands) => {
    if (operands.length === 0) return null;
    if (listOpts.some((o) => opts.has(o))) return null;
    return deny(`git ${what} with a name operand creates or changes one`);
  };
}

const REF_FILTERS = w("contains no-contains merged no-merged points-at");

const SUBS: Record<string, Sub> = {
  log: { table: LOG },
  show: { table: LOG },
  whatchanged: { table: LOG },
  "rev-list": { table: LOG },
  shortlog: {
    table: table([
      ...REVS,
      ...w("n numbered s summary e email c committer w=? group="),
      ..."0123456789",
    ]),
  },
  diff: { table: DIFF_CMD },
  "diff-tree": { table: table([...DIFF, ...w("v s stdin always merge-base")]) },
  "diff-files": { table: table([...DIFF, ...w("q 0 1 2 3 base ours theirs")]) },
  "diff-index": { table: table([...DIFF, ...w("cached merge-base")]) },
  status: {
    table: table(w(`
      s short b branch porcelain=? long z u=? untracked-files=? ignored=?
      ignore-submodules=? column=? no-column ahead-behind no-ahead-behind
      renames no-renames find-renames=? v verbose show-stash null
    `)),
  },
  branch: {
    table: table(w(`
      a all r remotes l list v vv verbose q quiet contains= no-contains=
      merged= no-merged= points-at= sort= format= color=? no-color column=?
      no-column show-current i ignore-case omit-empty abbrev=? no-abbrev
    `)),
    lastArg: REF_FILTERS,
    check: listing("branch", ["l", "list", ...REF_FILTERS]),
  },
  tag: {
    table: table(w(`
      l list n=? contains= no-contains= merged= no-merged= points-at= sort=
      format= color=? column=? no-column i ignore-case omit-empty
    `)),
    lastArg: REF_FILTERS,
    check: listing("tag", ["l", "list", "n", ...REF_FILTERS]),
  },
  // git config stops reading options at its first operand: `git config
  // name value --get` sets name (to value, where it matches "--get").
  config: {
    table: table(
      w(`
      get get-all get-regexp get-urlmatch l list get-color get-colorbool
      show-origin show-scope name-only z null global system local worktree
      f= file= blob= includes no-includes type= bool int bool-or-int path
      expiry-date default= fixed-value
    `),
      { noPermute: true },
    ),
    check(opts, operands) {
      const reading = [
        "get",
        "get-all",
        "get-regexp",
        "get-urlmatch",
        "l",
        "list",
        "get-color",
        "get-colorbool",
      ];
      if (reading.some((o) => opts.has(o))) return null;
      const first = operands[0]?.value;
      if (first === "get" || first === "list") return null;
      if (operands.length === 1 && first !== null) return null;
      return deny("git config with these operands changes the configuration");
    },
  },
  remote: {
    table: table(w("v verbose push all")),
    check(_opts, operands) {
      const first = operands[0]?.value;
      if (first === undefined) return null;
      if (first === "get-url") return null;
      return deny(
        `git remote ${operands[0].text} changes remotes or contacts them`,
      );
    },
  },
  // `git stash list|show ...`: the action is the first word (judgeGit
  // checks it); any other first word, an option included, is `stash push`.
  stash: { table: LOG },
  // `git submodule [--quiet] [--cached] [status [--cached] [--recursive]]`.
  submodule: {
    table: table(w("q quiet cached recursive")),
    check(_opts, operands) {
      const first = operands[0]?.value;
      return first === undefined || first === "status" ? null : deny(
        `git submodule ${
          operands[0].text
        } changes or runs something in submodules`,
      );
    },
  },
  reflog: {
    table: LOG,
    check(_opts, operands) {
      const first = operands[0]?.value;
      return first === undefined || first === "show" || first === "list" ||
          (first !== null && first !== "expire" && first !== "delete" &&
            first !== "exists" &&
            operands.length === 1)
        ? null
        : deny(`git reflog ${operands[0].text} changes the reflog`);
    },
  },
  worktree: {
    table: table(w("porcelain v verbose z expire=")),
    check(_opts, operands) {
      return operands[0]?.value === "list" && operands.length === 1
        ? null
        : deny("git worktree may only list");
    },
  },
  "ls-files": {
    table: table(w(`
      c cached d deleted m modified o others i ignored s stage k killed u
      unmerged z t v f x= exclude= X= exclude-from= exclude-per-directory=
      exclude-standard directory no-empty-directory error-unmatch with-tree=
      full-name recurse-submodules abbrev=? debug eol deduplicate format= sparse
    `)),
  },
  "ls-tree": {
    table: table(w(
      "d r t l long z name-only name-status object-only full-name full-tree abbrev=? format=",
    )),
  },
  "cat-file": {
    table: table(w(`
      t s e p batch=? batch-check=? batch-command=? batch-all-objects buffer
      unordered follow-symlinks allow-unknown-type path= Z z mailmap use-mailmap
      no-mailmap textconv filters
    `)),
  },
  blame: {
    table: table(w(`
      L= l t S= reverse= first-parent p porcelain line-porcelain incremental
      encoding= contents= date= progress no-progress M=? C=? ignore-rev=
      ignore-revs-file= color-lines color-by-age minimal s e w b root
      show-stats score-debug f show-name n show-number c abbrev=? show-email
    `)),
  },
  grep: {
    table: table(w(`
      cached untracked no-index no-exclude-standard exclude-standard
      recurse-submodules a text textconv no-textconv i ignore-case I
      max-depth= r recursive no-recursive w word-regexp v invert-match h H
      full-name E extended-regexp G basic-regexp P perl-regexp F fixed-strings
      n line-number column l files-with-matches name-only L
      files-without-match O=? open-files-in-pager=? z null o only-matching c
      count color=? no-color break heading p show-function A= after-context=
      B= before-context= C= context= threads= f= e= and or not all-match q
      quiet m= max-count= W function-context 0 1 2 3 4 5 6 7 8 9
    `)),
  },
  describe: {
    table: table(w(`
      all tags contains abbrev= candidates= exact-match debug long match=
      exclude= always first-parent dirty=? broken=?
    `)),
  },
  "name-rev": {
    table: table(
      w("tags refs= exclude= all stdin annotate-stdin name-only no-undefined always"),
    ),
  },
  "merge-base": {
    table: table(w("a all octopus is-ancestor independent fork-point")),
  },
  "show-ref": {
    table: table(
      w("head heads branches tags d dereference s hash=? verify abbrev=? q quiet exclude-existing=? exists"),
    ),
  },
  "for-each-ref": {
    table: table(w(`
      count= shell s perl p python tcl sort= format= color=? points-at=
      merged=? no-merged=? contains=? no-contains=? ignore-case omit-empty
      exclude= stdin include-root-refs
    `)),
  },
  "count-objects": { table: table(w("v verbose H human-readable")) },
  cherry: { table: table(w("v abbrev=?")) },
  "check-ignore": {
    table: table(w("q quiet v verbose stdin z n non-matching no-index")),
  },
  "rev-parse": ANYTHING,
  version: { table: table(w("build-options")) },
  help: {
    table: table(
      w("a all g guides c config user-interfaces developer-interfaces no-external-commands no-aliases verbose"),
    ),
    check(_opts, operands) {
      return operands.length === 0
        ? null
        : ask("git help NAME starts a manual viewer");
    },
  },
};

/**
 * The read-only subcommands and their option tables (for generating
 * commands to test them with).
 */
export function gitTables(): [string, OptionTable][] {
  return Object.entries(SUBS).map(([name, sub]) => [name, sub.table]);
}

/**
 * Configuration `git -c` may set: how output looks, nothing that names a
 * program (`core.pager`, `pager.*`, `diff.external`), a file or gpg
 * (`log.showSignature`).
 */
const HARMLESS_CONFIG =
  /^(color\.[a-z0-9.-]+|core\.(quotepath|abbrev)|column\.ui|log\.(decorate|abbrevcommit|date)|diff\.(noprefix|mnemonicprefix|renames|relative|algorithm|context|interhunkcontext)|advice\.[a-z]+)$/i;

/** Global options that take the next word (or an `=value`). */
const GLOBAL_VALUE = new Set([
  "-C",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--list-cmds",
]);
const GLOBAL_FLAG = new Set([
  "--no-pager",
  "-P",
  "-p",
  "--paginate",
  "--bare",
  "--no-replace-objects",
  "--no-lazy-fetch",
  "--no-optional-locks",
  "--no-advice",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--exec-path",
  "--html-path",
  "--man-path",
  "--info-path",
]);

function judgeGit(args: readonly Arg[]): Problem | null {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    const v = a.value;
    if (v === null) {
      return ask("git has a word known only at run time before its subcommand");
    }
    if (!v.startsWith("-")) break;
    if (v === "--version" || v === "-v" || v === "--help" || v === "-h") {
      return i === args.length - 1 ? null : ask(`git ${v} with more words`);
    }
    if (v === "-c") {
      const setting = args[i + 1]?.value ?? null;
      if (setting !== null && HARMLESS_CONFIG.test(setting.split("=")[0])) {
        i++;
        continue;
      }
      return deny(
        `git -c ${
          args[i + 1]?.text ?? ""
        } sets configuration, which can run programs (only colour and display settings are allowed)`,
      );
    }
    if (v.startsWith("--config-env") || v.startsWith("-c")) {
      return deny(`git ${v} sets configuration, which can run programs`);
    }
    if (v.startsWith("--exec-path=")) {
      return deny("git --exec-path= runs git commands from another directory");
    }
    if (GLOBAL_FLAG.has(v)) continue;
    const eq = v.indexOf("=");
    if (eq > 0 && GLOBAL_VALUE.has(v.slice(0, eq))) continue;
    if (GLOBAL_VALUE.has(v)) {
      i++;
      continue;
    }
    if (/^-C./.test(v)) continue;
    return ask(`git ${v} is not a global option in bashbox's table`);
  }
  const subArg = args[i];
  if (subArg === undefined) return null;
  const sub = subArg.value!;
  const spec = SUBS[sub];
  if (spec === undefined) {
    return ask(`git ${sub} is not a read-only subcommand bashbox knows`);
  }
  if (spec === ANYTHING) return null;
  let rest = args.slice(i + 1);
  if (sub === "stash") {
    const action = rest[0]?.value;
    if (action !== "list" && action !== "show") {
      return deny(
        `git stash ${
          rest[0]?.text ?? ""
        }: only git stash list and git stash show read (any other first word is git stash push)`,
      );
    }
    rest = rest.slice(1);
  }
  // --end-of-options: every later word is a revision or path, as after --.
  const end = rest.findIndex((a) => a.value === "--end-of-options");
  const dashes = rest.findIndex((a) => a.value === "--");
  if (end >= 0 && (dashes < 0 || end < dashes)) {
    rest = rest.map((a, k) => k === end ? { ...a, value: "--" } : a);
  }
  if (spec.lastArg) {
    // --contains [COMMIT]: takes the next word when it is not an option.
    const out: Arg[] = [];
    for (let k = 0; k < rest.length; k++) {
      const v = rest[k].value;
      const name = v?.startsWith("--") ? v.slice(2) : null;
      if (name !== null && spec.lastArg.includes(name)) {
        const next = rest[k + 1];
        if (next && next.value !== null && !next.value.startsWith("-")) {
          out.push({ ...rest[k], value: `${v}=${next.value}` });
          k++;
        } else out.push({ ...rest[k], value: `${v}=HEAD` });
        continue;
      }
      out.push(rest[k]);
    }
    rest = out;
  }
  let parsed;
  try {
    parsed = parseOptions(rest, spec.table);
  } catch (error) {
    if (error instanceof OptionError) {
      return ask(`git ${sub}: ${error.message} (not in bashbox's table)`);
    }
    throw error;
  }
  for (const o of parsed.options) {
    const why = DANGER[o.name];
    if (why !== undefined) return deny(`git ${sub} ${o.text} ${why}`);
    const problem = valueProblem(sub, o);
    if (problem) return problem;
  }
  if (parsed.unknown) {
    return ask(
      `git ${sub} ${
        parsed.unknownText ?? "has a word that"
      } is known only at run time and could be an option (an earlier call may have set it to one)`,
    );
  }
  const names = new Set(parsed.options.map((o) => o.name));
  return spec.check?.(names, parsed.operands) ?? null;
}

/** The grammar of `git`. */
export const git: Program = {
  names: ["git"],
  judge: judgeGit,
};
