/**
 * GNU tar 1.34: only listing (`t`, `--list`) and extracting to standard
 * output (`-xO`, `--extract --to-stdout`) are read-only. The mode may be
 * given as a first word of key letters (`tzf`, old style), bundled short
 * options (`-tzf`) or long options; every option is read from tar's table,
 * and those that run programs (`-I`, `--use-compress-program`,
 * `--to-command`, `--checkpoint-action`, `--rsh-command`, `-F`,
 * `--info-script`, `--new-volume-script`) or write (`--index-file`,
 * `-g`/`--listed-incremental`, `--volno-file`) are refused. An archive name
 * with a colon (`host:file`) runs rsh and is not allowed.
 *
 * @module
 */

import type { Arg } from "../options.ts";
import { OptionError, parseOptions } from "../options.ts";
import { ask, deny, type Problem, type Program } from "../program.ts";

const SHORT = "AcdrtuxC:f:g:GhiI:jJkK:lL:mMnN:oOpPRsSUvV:wWzZab:BF:H:T:X:";

const LONG = [
  "catenate",
  "concatenate",
  "create",
  "delete",
  "diff",
  "compare",
  "append",
  "list",
  "test-label",
  "update",
  "extract",
  "get",
  "directory=",
  "file=",
  "listed-incremental=",
  "incremental",
  "dereference",
  "ignore-zeros",
  "keep-old-files",
  "skip-old-files",
  "keep-newer-files",
  "keep-directory-symlink",
  "starting-file=",
  "one-file-system",
  "multi-volume",
  "tape-length=",
  "newer=",
  "after-date=",
  "newer-mtime=",
  "touch",
  "no-same-owner",
  "same-owner",
  "preserve-permissions",
  "same-permissions",
  "no-same-permissions",
  "sparse",
  "sparse-version=",
  "same-order",
  "preserve-order",
  "preserve",
  "verbose",
  "verify",
  "interactive",
  "confirmation",
  "show-defaults",
  "show-omitted-dirs",
  "show-transformed-names",
  "show-stored-names",
  "show-snapshot-field-ranges",
  "totals=?",
  "utc",
  "full-time",
  "index-file=",
  "check-links",
  "no-recursion",
  "recursion",
  "numeric-owner",
  "owner=",
  "group=",
  "mode=",
  "mtime=",
  "clamp-mtime",
  "sort=",
  "atime-preserve=?",
  "block-number",
  "blocking-factor=",
  "record-size=",
  "read-full-records",
  "null",
  "no-null",
  "unquote",
  "no-unquote",
  "quote-chars=",
  "no-quote-chars=",
  "quoting-style=",
  "exclude=",
  "exclude-from=",
  "exclude-backups",
  "exclude-caches",
  "exclude-caches-under",
  "exclude-caches-all",
  "exclude-tag=",
  "exclude-tag-under=",
  "exclude-tag-all=",
  "exclude-vcs",
  "exclude-vcs-ignores",
  "exclude-ignore=",
  "exclude-ignore-recursive=",
  "anchored",
  "no-anchored",
  "ignore-case",
  "no-ignore-case",
  "wildcards",
  "no-wildcards",
  "wildcards-match-slash",
  "no-wildcards-match-slash",
  "files-from=",
  "verbatim-files-from",
  "no-verbatim-files-from",
  "label=",
  "format=",
  "old-archive",
  "portability",
  "posix",
  "gnu",
  "v7",
  "oldgnu",
  "ustar",
  "pax-option=",
  "auto-compress",
  "no-auto-compress",
  "gzip",
  "gunzip",
  "ungzip",
  "bzip2",
  "xz",
  "lzip",
  "lzma",
  "lzop",
  "zstd",
  "compress",
  "uncompress",
  "use-compress-program=",
  "strip-components=",
  "transform=",
  "xform=",
  "checkpoint=?",
  "checkpoint-action=",
  "to-command=",
  "rsh-command=",
  "info-script=",
  "new-volume-script=",
  "volno-file=",
  "to-stdout",
  "warning=",
  "ignore-failed-read",
  "ignore-command-error",
  "no-ignore-command-error",
  "occurrence=?",
  "restrict",
  "backup=?",
  "suffix=",
  "remove-files",
  "unlink-first",
  "recursive-unlink",
  "overwrite",
  "overwrite-dir",
  "no-overwrite-dir",
  "hole-detection=",
  "level=",
  "seek",
  "no-seek",
  "acls",
  "no-acls",
  "selinux",
  "no-selinux",
  "xattrs",
  "no-xattrs",
  "xattrs-include=",
  "xattrs-exclude=",
  "force-local",
  "delay-directory-restore",
  "no-delay-directory-restore",
  "help",
  "usage",
  "version",
  "absolute-names",
  "one-top-level=?",
  "no-check-device",
  "check-device",
];

const MODES = new Set([
  "A",
  "c",
  "d",
  "r",
  "t",
  "u",
  "x",
  "catenate",
  "concatenate",
  "create",
  "delete",
  "diff",
  "compare",
  "append",
  "list",
  "test-label",
  "update",
  "extract",
  "get",
]);

/** The letter of a long mode option (the rest are letters already). */
const MODE_LETTER: Record<string, string> = {
  list: "t",
  extract: "x",
  get: "x",
};

const RUNS: Record<string, string> = {
  I: "runs a compression program",
  "use-compress-program": "runs a compression program",
  "to-command": "runs a command for each file",
  "checkpoint-action": "runs actions (exec=) at checkpoints",
  "rsh-command": "runs a remote shell",
  F: "runs a script at the end of each volume",
  "info-script": "runs a script at the end of each volume",
  "new-volume-script": "runs a script at the end of each volume",
  "index-file": "writes the listing to a file",
  g: "writes the incremental snapshot file",
  "listed-incremental": "writes the incremental snapshot file",
  "volno-file": "writes the volume number file",
  "remove-files": "removes files",
};

/** Expands an old-style first word of key letters (`tzf a.tar`) into options. */
function oldStyle(args: readonly Arg[]): Arg[] {
  const first = args[0]?.value;
  if (first === undefined || first === null || first.startsWith("-")) {
    return [...args];
  }
  const out: Arg[] = [];
  let next = 1;
  for (const c of first) {
    const at = SHORT.indexOf(c);
    const takes = at >= 0 && SHORT[at + 1] === ":";
    if (takes) {
      const v = args[next++];
      out.push({
        value: `-${c}`,
        text: first,
        dash: true,
        many: false,
        prefix: `-${c}`,
      });
      if (v) out.push(v);
    } else {
      out.push({
        value: `-${c}`,
        text: first,
        dash: true,
        many: false,
        prefix: `-${c}`,
      });
    }
  }
  return [...out, ...args.slice(next)];
}

function judgeTar(args: readonly Arg[]): Problem | null {
  let parsed;
  try {
    parsed = parseOptions(oldStyle(args), { short: SHORT, long: LONG });
  } catch (error) {
    if (error instanceof OptionError) {
      return ask(`tar: ${error.message} (not in bashbox's table)`);
    }
    throw error;
  }
  const modes = new Set<string>();
  for (const o of parsed.options) {
    if (o.name in RUNS) return deny(`tar ${o.text} ${RUNS[o.name]}`);
    if (MODES.has(o.name)) modes.add(MODE_LETTER[o.name] ?? o.name);
    if ((o.name === "f" || o.name === "file") && o.value) {
      const f = o.value;
      if (f.value === null || f.value.includes(":")) {
        const local = parsed.options.some((x) => x.name === "force-local");
        if (!local) {
          return ask(
            `tar -f ${f.text}: a name with a colon is a remote archive`,
          );
        }
      }
    }
  }
  if (parsed.unknown) {
    return ask("tar has a word known only at run time that could be an option");
  }
  // Extracting to standard output (-xO) writes no file, whatever else is
  // asked (the effect oracle saw none with any of the extract options).
  const toStdout = parsed.options.some((o) =>
    o.name === "O" || o.name === "to-stdout"
  );
  if (modes.size === 1 && modes.has("x") && toStdout) return null;
  if (modes.size !== 1 || !modes.has("t")) {
    return deny(
      "tar may only list archives (-t, --list) or extract to standard output (-xO)",
    );
  }
  return null;
}

/** The option table and checker of `tar`. */
export const tar: Program = {
  names: ["tar"],
  judge: judgeTar,
};
