/**
 * Generated adversarial variants, one generator per class of issue 11: every
 * dangerous option in every spelling getopt_long accepts (short, bundled,
 * joined and separate values, long, `=`, every unique abbreviation, after
 * operands, inside braces, quoted pieces), mini-language scripts with the
 * writing or running construct in every position, words bash makes at run
 * time, words the policy never sees, and deny rules reached through wrappers.
 * Used by the policy tests and by the effect oracle.
 *
 * @module
 */

/** A generated case: the command and the class it tests. */
export interface Variant {
  /** The class (for messages). */
  family: string;
  /** The command string. */
  command: string;
}

/** The long options of a table that are unique prefixes of `name`, from shortest. */
export function abbreviations(
  name: string,
  longs: readonly string[],
): string[] {
  const out: string[] = [];
  for (let n = 1; n <= name.length; n++) {
    const p = name.slice(0, n);
    const hits = longs.filter((l) => l.startsWith(p));
    if (hits.length === 1 || p === name) out.push(p);
  }
  return out;
}

/** Dangerous options: program, table of its long names, and how to spell each danger. */
interface Danger {
  program: string;
  /** A safe flag that may be bundled before a short option. */
  safeFlag?: string;
  /** A harmless operand. */
  operand: string;
  short?: string;
  long?: string;
  /** The value the option takes (none when it is a flag). */
  value?: string;
  /** All long names of the program (for abbreviations). */
  longs: readonly string[];
  /** Operands to add so the command is otherwise allowed. */
  rest?: string;
}

const SORT_LONGS = [
  "ignore-leading-blanks",
  "dictionary-order",
  "ignore-case",
  "general-numeric-sort",
  "ignore-nonprinting",
  "month-sort",
  "human-numeric-sort",
  "numeric-sort",
  "random-sort",
  "random-source",
  "reverse",
  "sort",
  "version-sort",
  "batch-size",
  "check",
  "compress-program",
  "debug",
  "files0-from",
  "key",
  "merge",
  "output",
  "stable",
  "buffer-size",
  "field-separator",
  "temporary-directory",
  "parallel",
  "unique",
  "zero-terminated",
  "help",
  "version",
];

const DANGERS: Danger[] = [
  {
    program: "sort",
    safeFlag: "u",
    operand: "f",
    short: "o",
    long: "output",
    value: "out.txt",
    longs: SORT_LONGS,
  },
  {
    program: "sort",
    safeFlag: "n",
    operand: "f",
    long: "compress-program",
    value: "pwn",
    longs: SORT_LONGS,
  },
  {
    program: "sort",
    safeFlag: "r",
    operand: "f",
    short: "T",
    long: "temporary-directory",
    value: "d",
    longs: SORT_LONGS,
  },
  {
    program: "sed",
    safeFlag: "n",
    operand: "p",
    short: "i",
    long: "in-place",
    longs: [
      "binary",
      "debug",
      "expression",
      "file",
      "follow-symlinks",
      "in-place",
      "line-length",
      "null-data",
      "zero-terminated",
      "posix",
      "quiet",
      "silent",
      "regexp-extended",
      "sandbox",
      "separate",
      "unbuffered",
      "help",
      "version",
    ],
    rest: "f",
  },
  {
    program: "tail",
    safeFlag: "q",
    operand: "f",
    short: "f",
    long: "follow",
    longs: [
      "bytes",
      "follow",
      "lines",
      "max-unchanged-stats",
      "pid",
      "quiet",
      "silent",
      "retry",
      "sleep-interval",
      "verbose",
      "zero-terminated",
      "help",
      "version",
    ],
  },
  {
    program: "date",
    safeFlag: "u",
    operand: "",
    short: "s",
    long: "set",
    value: "2001-01-01",
    longs: [
      "date",
      "debug",
      "file",
      "iso-8601",
      "resolution",
      "rfc-email",
      "rfc-3339",
      "reference",
      "set",
      "utc",
      "universal",
      "help",
      "version",
    ],
  },
  {
    program: "file",
    safeFlag: "b",
    operand: "f",
    short: "C",
    long: "compile",
    longs: [
      "help",
      "version",
      "magic-file",
      "uncompress",
      "uncompress-noreport",
      "brief",
      "checking-printout",
      "exclude",
      "exclude-quiet",
      "files-from",
      "separator",
      "mime",
      "mime-encoding",
      "apple",
      "extension",
      "mime-type",
      "keep-going",
      "list",
      "dereference",
      "no-dereference",
      "no-buffer",
      "no-pad",
      "print0",
      "preserve-date",
      "parameter",
      "raw",
      "special-files",
      "no-sandbox",
      "compile",
      "debug",
    ],
  },
  {
    program: "hostname",
    safeFlag: "s",
    operand: "",
    short: "F",
    long: "file",
    value: "name.txt",
    longs: [
      "alias",
      "all-fqdns",
      "boot",
      "domain",
      "fqdn",
      "long",
      "file",
      "ip-address",
      "all-ip-addresses",
      "short",
      "yp",
      "nis",
      "help",
      "version",
    ],
  },
  {
    program: "diff",
    safeFlag: "u",
    operand: "a b",
    short: "l",
    long: "paginate",
    longs: [
      "normal",
      "brief",
      "paginate",
      "label",
      "left-column",
      "line-format",
      "help",
      "version",
    ],
  },
  {
    program: "rg",
    safeFlag: "n",
    operand: "x",
    long: "pre",
    value: "pwn",
    longs: [
      "pre",
      "pre-glob",
      "pretty",
      "passthru",
      "passthrough",
      "path-separator",
      "pcre2",
      "pcre2-version",
    ],
  },
  {
    program: "rg",
    safeFlag: "i",
    operand: "x",
    short: "z",
    long: "search-zip",
    longs: [
      "search-zip",
      "smart-case",
      "sort",
      "sortr",
      "stats",
      "stop-on-nonmatch",
    ],
  },
  {
    program: "tree",
    safeFlag: "a",
    operand: ".",
    short: "o",
    value: "out.txt",
    longs: [],
  },
  { program: "tree", safeFlag: "a", operand: ".", short: "R", longs: [] },
  {
    program: "awk",
    operand: "1",
    short: "f",
    value: "prog.awk",
    longs: [],
    rest: "f",
  },
  {
    program: "gawk",
    operand: "1",
    short: "o",
    long: "pretty-print",
    value: "out.txt",
    longs: ["pretty-print", "profile", "posix"],
    rest: "f",
  },
  {
    program: "gawk",
    operand: "1",
    short: "p",
    long: "profile",
    value: "out.txt",
    longs: ["pretty-print", "profile", "posix"],
    rest: "f",
  },
  {
    program: "gawk",
    operand: "1",
    short: "d",
    long: "dump-variables",
    value: "out.txt",
    longs: ["dump-variables", "debug"],
    rest: "f",
  },
  {
    program: "gawk",
    operand: "1",
    short: "l",
    long: "load",
    value: "x",
    longs: ["load", "lint", "lint-old"],
    rest: "f",
  },
  {
    program: "gawk",
    operand: "1",
    short: "i",
    long: "include",
    value: "inplace",
    longs: ["include"],
    rest: "f",
  },
];

function spellings(d: Danger): string[] {
  const out: string[] = [];
  const v = d.value;
  if (d.short) {
    if (v === undefined) {
      out.push(`-${d.short}`);
      if (d.safeFlag) {
        out.push(`-${d.safeFlag}${d.short}`, `-${d.short}${d.safeFlag}`);
      }
    } else {
      out.push(`-${d.short} ${v}`, `-${d.short}${v}`);
      if (d.safeFlag) {
        out.push(
          `-${d.safeFlag}${d.short} ${v}`,
          `-${d.safeFlag}${d.short}${v}`,
        );
      }
      out.push(`-${d.short}'${v}'`, `'-${d.short}' ${v}`, `-"${d.short}"${v}`);
    }
  }
  if (d.long) {
    for (const a of abbreviations(d.long, d.longs)) {
      if (v === undefined) out.push(`--${a}`, `'--${a}'`, `--"${a}"`);
      else {out.push(
          `--${a}=${v}`,
          `--${a} ${v}`,
          `"--${a}=${v}"`,
          `--${a}=\\${v}`,
        );}
    }
  }
  return out;
}

/** Class 1 (option grammar) and 5 (hidden write modes): every spelling, placement and brace form. */
export function optionVariants(): Variant[] {
  const out: Variant[] = [];
  for (const d of DANGERS) {
    for (const s of spellings(d)) {
      const rest = d.rest ? ` ${d.rest}` : "";
      const family = `option ${d.program} ${s}`;
      out.push({
        family,
        command: `${d.program} ${s} ${d.operand}${rest}`.replace(/ +/g, " ")
          .trim(),
      });
      if (d.operand) {
        // After operands: GNU getopt permutes (not awk, whose program ends its options).
        if (!/awk$/.test(d.program)) {
          out.push({
            family,
            command: `${d.program} ${d.operand}${rest} ${s}`,
          });
        }
        out.push({
          family,
          command: `${d.program} ${s} -- ${d.operand}${rest}`,
        });
      }
    }
    // Inside braces: {-o,out} becomes two words.
    if (d.short && d.value) {
      out.push({
        family: `brace ${d.program}`,
        command: `${d.program} {-${d.short},${d.value}} ${d.operand}${
          d.rest ? " " + d.rest : ""
        }`,
      });
      out.push({
        family: `brace ${d.program}`,
        command: `${d.program} {'-${d.short}',"${d.value}"} ${d.operand}${
          d.rest ? " " + d.rest : ""
        }`,
      });
    }
    if (d.long) {
      const first = d.operand.split(" ")[0] || "x";
      out.push({
        family: `brace ${d.program}`,
        command: `${d.program} {--${d.long}${
          d.value ? "=" + d.value : ""
        },${first}}${d.rest ? " " + d.rest : ""}`,
      });
    }
  }
  // Programs whose operands write or set.
  for (
    const c of [
      "uniq in out",
      "uniq -c in out",
      "uniq in -c out",
      "uniq -- in out",
      "xxd in out",
      "xxd -r dump out",
      "xxd -revert dump out",
      "xxd -rfoo dump",
      "xxd -r -p dump out",
      "xxd -l 10 in out",
      "xxd in -l 10 out",
      "xxd -- in out",
      "date 010100002030",
      "date -u 010100002030",
      "date 0101",
      "hostname newname",
      "hostname -s newname",
      "hostname -b",
      "hostname --boot",
      "hostname --bo",
      "tee out",
      "tee -a out",
      "tee /dev/null out",
      "file -p f",
      "file --preserve-date f",
      "file --pre f",
      "free -s 1",
      "free --seconds=1",
      "strings @opts",
    ]
  ) out.push({ family: "operand or mode", command: c });
  // tar: key letters and modes in every spelling.
  for (const mode of ["c", "x", "r", "u", "A", "d"]) {
    out.push({ family: "tar mode", command: `tar ${mode}f a.tar f` });
    out.push({ family: "tar mode", command: `tar -${mode}f a.tar f` });
    out.push({ family: "tar mode", command: `tar -${mode} -f a.tar f` });
    out.push({ family: "tar mode", command: `tar -f a.tar -${mode} f` });
    out.push({ family: "tar mode", command: `tar tf a.tar -${mode}` });
  }
  for (
    const long of [
      "create",
      "extract",
      "get",
      "append",
      "update",
      "delete",
      "concatenate",
      "catenate",
      "diff",
      "compare",
    ]
  ) {
    for (
      const a of abbreviations(long, [
        "create",
        "checkpoint",
        "checkpoint-action",
        "check-links",
        "check-device",
        "clamp-mtime",
        "compare",
        "compress",
        "concatenate",
        "catenate",
        "delete",
        "delay-directory-restore",
        "dereference",
        "diff",
        "directory",
        "extract",
        "exclude",
        "get",
        "gzip",
        "group",
        "gunzip",
        "gnu",
        "append",
        "atime-preserve",
        "acls",
        "after-date",
        "anchored",
        "auto-compress",
        "absolute-names",
        "update",
        "utc",
        "unlink-first",
        "uncompress",
        "ungzip",
        "unquote",
        "use-compress-program",
        "usage",
        "ustar",
      ]).slice(0, 3)
    ) {
      out.push({ family: "tar mode", command: `tar --${a} -f a.tar f` });
    }
  }
  for (
    const opt of [
      "--to-command=pwn",
      "--to-com=pwn",
      "--to-command pwn",
      "--checkpoint-action=exec=pwn",
      "--checkpoint-act=exec=pwn",
      "--use-compress-program=pwn",
      "--use-compress-program pwn",
      "--use=pwn",
      "-I pwn",
      "-Ipwn",
      "--rsh-command=pwn",
      "--info-script=pwn",
      "-F pwn",
      "--new-volume-script=pwn",
      "--index-file=out",
      "-g snap",
      "--listed-incremental=snap",
      "--remove-files",
    ]
  ) {
    out.push({ family: "tar exec option", command: `tar -tf a.tar ${opt}` });
    out.push({ family: "tar exec option", command: `tar ${opt} -tf a.tar` });
  }
  out.push({ family: "tar exec option", command: "tar tIf pwn a.tar" });
  out.push({ family: "tar exec option", command: "tar tFf pwn a.tar" });
  out.push({ family: "tar remote", command: "tar tf host:a.tar" });
  return out;
}

/** Class 4: sed scripts with the running or writing construct in every position. */
export function sedVariants(): Variant[] {
  const out: Variant[] = [];
  const bad = [
    "e pwn",
    "e",
    "w out",
    "W out",
    "s/a/b/e",
    "s/a/b/w out",
    "s/a/b/gew out",
    "s/a/b/ge",
    "s/a/b/3e",
    "s|a|b|e",
    "s,a,b,we",
    "s/[/]/x/e",
    "s/a\\/b/c/e",
    "y/a/b/;e",
  ];
  const addresses = [
    "",
    "1",
    "$",
    "/x/",
    "1,3",
    "/a/,/b/",
    "0~2",
    "1,+2",
    "\\%x%",
    "2!",
    "/x/I",
    "/x/ !",
  ];
  for (const cmd of bad) {
    for (const addr of addresses) {
      const script = `${addr}${cmd}`;
      out.push({ family: "sed script", command: `sed '${script}' f` });
    }
    out.push({ family: "sed script", command: `sed -n 'p;${cmd}' f` });
    out.push({ family: "sed script", command: `sed -n 'p\n${cmd}' f` });
    out.push({ family: "sed script", command: `sed -n '/x/{p;${cmd}}' f` });
    out.push({ family: "sed script", command: `sed -n '/x/{\n${cmd}\n}' f` });
    out.push({ family: "sed script", command: `sed -e p -e '${cmd}' f` });
    out.push({ family: "sed script", command: `sed --expression='${cmd}' f` });
    out.push({ family: "sed script", command: `sed --expr '${cmd}' f` });
    out.push({ family: "sed script", command: `sed -ne '${cmd}' f` });
    out.push({ family: "sed script", command: `sed f -e '${cmd}'` });
    out.push({ family: "sed script", command: `sed 'a\\\nx\n${cmd}' f` });
    out.push({ family: "sed script", command: `sed '#c\n${cmd}' f` });
  }
  for (
    const c of [
      "sed -f script.sed f",
      "sed --file=script.sed f",
      "sed --fi=script.sed f",
      "sed -nf script.sed f",
      "sed -i s/a/b/ f",
      "sed -ni p f",
      "sed -i.bak s/a/b/ f",
      "sed --in-place=.bak s/a/b/ f",
      "sed -s -i p f",
      "sed -E -i p f",
      "sed p f -i",
      'sed "$script" f',
      "sed -e 'a\\' -e 'x' -e 'e pwn' f",
      "sed 's/x/y/;e pwn' f",
      "sed '1!G;h;$!d;e pwn' f",
    ]
  ) out.push({ family: "sed options", command: c });
  return out;
}

/** Class 4: awk programs. */
export function awkVariants(): Variant[] {
  const out: Variant[] = [];
  const bodies = [
    'BEGIN { system("pwn") }',
    '{ system("pwn") }',
    'BEGIN{system ("pwn")}',
    'BEGIN { "pwn" | getline x }',
    'BEGIN { "pwn" |& getline x }',
    '{ print | "pwn" }',
    '{ print |& "pwn" }',
    '{ printf "x" | "pwn" }',
    '{ print > "out" }',
    '{ print >> "out" }',
    '{ print $1, $2 > "out" }',
    '{ printf("%s", $0) > "out" }',
    '{ print (1) > "out" }',
    '{ print \\\n > "out" }',
    '{ f = "out"; print > f }',
    'BEGIN { getline x < "/inet/tcp/0/127.0.0.1/80" }',
    "BEGIN { getline < f }",
    '@load "filefuncs"; BEGIN { }',
    '@include "x.awk"',
    'function f(){} BEGIN { g = "system"; @g("pwn") }',
    'BEGIN { cmd = "pwn"; cmd | getline }',
    'BEGIN { x = "a" } { print x | "sh" }',
    '# comment\n{ system("pwn") }',
    'BEGIN { a = 1 / 2; system("pwn") / 1 }',
    '/x/ { print > "/dev/tcp/h/1" }',
    '{ print > "/dev/stdout" "x" }',
    '{ print > "/dev/stderr" f }',
    '{ print > "-" }',
    'BEGIN { getline x < "/in" "et/tcp/0/127.0.0.1/80" }',
    'BEGIN { while ((getline l < "/inet/tcp/0/h/80") > 0) print l }',
  ];
  for (const name of ["awk", "gawk", "mawk"]) {
    for (const b of bodies) {
      const q = `'${b.replace(/'/g, "'\\''")}'`;
      out.push({ family: "awk program", command: `${name} ${q} f` });
      out.push({ family: "awk program", command: `${name} -F: ${q} f` });
      out.push({ family: "awk program", command: `${name} -v x=1 -- ${q} f` });
    }
    out.push({
      family: "awk program",
      command: `${name} -e 'BEGIN{system("pwn")}'`,
    });
    out.push({
      family: "awk program",
      command: `${name} --source='BEGIN{system("pwn")}'`,
    });
    out.push({ family: "awk program", command: `${name} -f prog.awk f` });
    out.push({
      family: "awk program",
      command: `${name} 1 /inet/tcp/0/127.0.0.1/80`,
    });
    out.push({ family: "awk program", command: `${name} -W exec prog.awk` });
    out.push({ family: "awk program", command: `${name} "$prog" f` });
    out.push({
      family: "awk program",
      command: `${name} -i inplace '{print}' f`,
    });
    out.push({
      family: "awk program",
      command: `${name} -iinplace '{print}' f`,
    });
    out.push({
      family: "awk program",
      command: `${name} --include=inplace '{print}' f`,
    });
  }
  return out;
}

/** Class 4: find expressions. */
export function findVariants(): Variant[] {
  const out: Variant[] = [];
  const actions = [
    "-exec pwn {} ;",
    "-exec pwn {} +",
    "-execdir pwn {} ;",
    "-ok pwn {} ;",
    "-okdir pwn {} ;",
    "-delete",
    "-fprint out",
    "-fprint0 out",
    "-fprintf out %p",
    "-fls out",
  ];
  for (const a of actions) {
    const q = a.replace(/;$/, "\\;");
    out.push({ family: "find action", command: `find . ${q}` });
    out.push({ family: "find action", command: `find . -name x ${q}` });
    out.push({
      family: "find action",
      command: `find . \\( -name x -o ${q} \\)`,
    });
    out.push({ family: "find action", command: `find . ! -name x -a ${q}` });
    out.push({ family: "find action", command: `find -L . -maxdepth 1 ${q}` });
    out.push({ family: "find action", command: `find . -name x , ${q}` });
    const [first, ...rest] = a.split(" ");
    out.push({
      family: "find action",
      command: `find . {${first},x} ${rest.join(" ").replace(/;$/, "\\;")}`,
    });
    out.push({
      family: "find action",
      command: `find . '${first}' ${rest.join(" ").replace(/;$/, "\\;")}`,
    });
    out.push({
      family: "find action",
      command: `find . -${first.slice(1, 3)}''${first.slice(3)} ${
        rest.join(" ").replace(/;$/, "\\;")
      }`,
    });
  }
  for (
    const c of [
      'find . "$action" pwn {} \\;',
      "find . -exec uniq {} +",
      "find . -exec sort -o x {} \\;",
      "find . -exec sh -c 'cat {}' \\;",
      "find . -exec xxd {} out \\;",
      "find . -exec {} \\;",
      "find . -exec cat {}",
      "find . -exec cat {} \\; -delete",
      "find . -execdir sed -i s/a/b/ {} +",
      "find . -exec env {} \\;",
      "find . -exec xargs {} +",
      "find . $opts",
      'find "$dir" -name x',
      "find . -frobnicate",
      "find . -newerXY f",
      "find * -name x",
    ]
  ) out.push({ family: "find unknown", command: c });
  return out;
}

/** Class 4: git subcommands and options. */
export function gitVariants(): Variant[] {
  const out: Variant[] = [];
  for (
    const c of [
      "git -c core.pager=pwn log",
      "git -ccore.pager=pwn log",
      "git --config-env=core.pager=X log",
      "git --exec-path=/tmp log",
      "git diff --output=f",
      "git diff --outp=f",
      "git diff --output f",
      "git log --output=f",
      "git show --output=f HEAD",
      "git log -p --output=f",
      "git diff --ext-diff",
      "git diff --ext",
      "git log --textconv",
      "git log --textc",
      "git show --textconv HEAD",
      "git cat-file --textconv HEAD:f",
      "git cat-file --filters HEAD:f",
      "git grep -O x",
      "git grep -Opwn x",
      "git grep --open-files-in-pager=pwn x",
      "git grep --open-files-in-pager x",
      "git grep --open x",
      "git grep --textconv x",
      "git commit -m x",
      "git push",
      "git fetch",
      "git pull",
      "git checkout x",
      "git reset --hard",
      "git clean -fd",
      "git config core.fsmonitor pwn",
      "git config --add core.pager pwn",
      "git config --unset user.name",
      "git config -e",
      "git config --edit",
      "git config --global core.pager pwn",
      "git config set core.pager pwn",
      "git branch newbranch",
      "git branch -D main",
      "git branch -d main",
      "git branch -m a b",
      "git branch --delete main",
      "git branch --set-upstream-to=o/m",
      "git branch -f main HEAD",
      "git tag v9",
      "git tag -d v1",
      "git tag -a v2 -m x",
      "git tag -f v1",
      "git tag --delete v1",
      "git stash",
      "git stash drop",
      "git stash pop",
      "git stash push",
      "git reflog expire --all",
      "git reflog delete HEAD@{1}",
      "git remote add o url",
      "git remote remove o",
      "git remote set-url o url",
      "git remote show origin",
      "git worktree add ../x",
      "git worktree remove x",
      "git help log",
      "git $sub",
      "git log $opts",
      'git log "$opt"',
      "git {-c,core.pager=pwn} log",
      "git -C dir -c x=y log",
      "git log --frobnicate",
      "git submodule update",
      "git archive -o out.tar HEAD",
      "git bisect start",
      "git am x.patch",
      "git apply x.patch",
      "git notes add -m x",
      "git gc",
      "git ls-remote origin",
      "git --git-dir=x -c a=b log",
    ]
  ) out.push({ family: "git", command: c });
  return out;
}

/** Class 2: words bash makes at run time. */
export function runtimeWordVariants(): Variant[] {
  const out: Variant[] = [];
  for (
    const c of [
      "find . {-exec,'pwn'} {} ';'",
      "find . {-exec,pwn,{},\\;}",
      "find . {-delete,-print}",
      "find . -{delete,print}",
      "find . -{del,x}ete",
      "sort {-o,out} f",
      "sort -{o,u}out f",
      "{pwn,x}",
      "{sed,-i,s/a/b/,f}",
      "e{cho,x} a; {p,q}wn",
      "echo ${PATH:=/tmp}",
      "echo ${PATH=/tmp}",
      "echo ${IFS:=x}",
      "echo ${BASH_ENV:=/tmp/x}",
      ": ${LD_PRELOAD:=x.so}",
      "echo ${BASH_ALIASES[ls]:=pwn}",
      "echo x > ${HOME:0:0}/dev/tcp/127.0.0.1/80",
      "cat < ${x}/dev/tcp/127.0.0.1/80",
      "echo x > $f",
      'echo x > "$f"',
      "echo x >& $f",
      "echo x 2>&3",
      "echo x >&9",
      "cat <&3",
      "read -r line < /dev/fd/255",
      "read -u 255 line",
      "read -ru255 line",
      "mapfile -u 255 a",
      "cat < /proc/self/fd/255",
      "echo x > /dev/fd/9",
      "cat 0<&5",
      "echo x >&out.txt",
      "exec 3>out; echo x >&3",
      "ls {a,b} > {c,d}",
      "echo x > f{1,2}",
      "cat <{a,/dev/tcp/h/1}",
      'ls "$@" > out',
      "$(echo pwn)",
      "`echo pwn`",
      "${x}",
      "${x:-pwn}",
      "x=pwn; $x",
      "p''wn",
      "\\pwn",
      "pw\\\nn",
    ]
  ) out.push({ family: "runtime words", command: c });
  return out;
}

/** Class 3: words the policy never sees. */
export function unseenVariants(): Variant[] {
  const out: Variant[] = [];
  for (
    const c of [
      "xargs sed -i s/a/b/",
      "xargs sort",
      "xargs find",
      "xargs env",
      "xargs -0 sed -n p",
      "xargs -I{} sh -c '{}'",
      "xargs -I % sh -c 'echo %'",
      "xargs -i sh -c '{}'",
      "find . | xargs tar",
      "echo x | xargs -n1 git",
      "xargs -a list sed",
      "xargs -p ls",
      "TAR_OPTIONS=--to-command=pwn tar tf a.tar",
      "RIPGREP_CONFIG_PATH=cfg rg x",
      "GREP_OPTIONS=-r grep x",
      "npm_config_script_shell=/tmp/pwn ls",
      "NPM_CONFIG_SCRIPT_SHELL=x ls",
      "env npm_config_script_shell=/tmp/pwn ls",
      "env TAR_OPTIONS=-x tar tf a.tar",
      "BASH_ALIASES[ls]=pwn",
      "BASH_ALIASES=([ls]=pwn)",
      "BASH_CMDS[ls]=/tmp/pwn",
      "BASH_CMDS=([ls]=/tmp/pwn)",
      "declare BASH_ALIASES[ls]=pwn",
      "x=(['$(pwn)']=1)",
      "x=([$(pwn)]=1)",
      "x=([i+1]=2)",
      "declare -a x='([$(pwn)]=1)'",
      "declare -A a; a=(['$(pwn)']=1)",
      "export x[$(pwn)]=1",
      "local 'a[$(pwn)]'=1",
      "read -a 'a[$(pwn)]'",
      "read 'a[$(pwn)]'",
      "mapfile -C pwn -c 1 a",
      "mapfile 'a[$(pwn)]'",
      "printf -v 'a[$(pwn)]' x",
      "printf -v PATH /tmp",
      'printf "$f" x',
      "read PATH",
      "XZ_OPT=x tar tJf a.tar.xz",
      "GZIP=-S tar tzf a.tgz",
      "SHELL=/tmp/pwn ls",
      "POSIXLY_CORRECT=1 ls",
      "TMPDIR=/ sort f",
      "EXECIGNORE=x ls",
      "for BASH_ENV in x; do ls; done",
      "for npm_config_script_shell in x; do ls; done",
      "TAPE=host:/dev/st0 tar t",
      "GLIBC_TUNABLES=x ls",
    ]
  ) out.push({ family: "unseen words", command: c });
  return out;
}

/** Every generated variant the read-only preset must not allow. */
export function allVariants(): Variant[] {
  return [
    ...optionVariants(),
    ...sedVariants(),
    ...awkVariants(),
    ...findVariants(),
    ...gitVariants(),
    ...runtimeWordVariants(),
    ...unseenVariants(),
  ];
}

/**
 * Deny-rule evasions: with `deny: ["rm"]`, each must be `deny`; `refuse`
 * marks what cannot be resolved (any decision but `allow`).
 */
export function denyRuleVariants(): {
  command: string;
  expect: "deny" | "ask" | "refuse";
}[] {
  const out: { command: string; expect: "deny" | "ask" | "refuse" }[] = [];
  const wrappers = [
    "command",
    "command --",
    "command -p",
    "builtin",
    "exec",
    "env",
    "env -i",
    "env A=1",
    "env -u X",
    "env -- ",
    "nice",
    "nice -n 5",
    "nice -5",
    "nohup",
    "timeout 5",
    "timeout -s KILL 5",
    "timeout --signal=KILL 5",
    "time",
    "time -p",
    "stdbuf -o0",
    "xargs",
    "xargs -0",
    "xargs -n 1",
    "setsid",
    "sudo",
    "sudo -u root",
    "ionice -c 3",
  ];
  const names = [
    "rm",
    "/bin/rm",
    "/usr/bin/rm",
    "./rm",
    "r''m",
    "\\rm",
    '"rm"',
    "{rm,-f}",
    "{rm,}",
    "r{m,}",
  ];
  for (const n of names) {
    out.push({ command: `${n} -rf x`, expect: "deny" });
    for (const w of wrappers) {
      out.push({ command: `${w} ${n} -rf x`, expect: "deny" });
    }
    out.push({
      command: `command ${n.startsWith("{") ? n : n} x; ls`,
      expect: "deny",
    });
    out.push({ command: `nice timeout 5 env ${n} x`, expect: "deny" });
  }
  for (const sh of ["bash", "sh", "dash", "/bin/sh", "zsh"]) {
    out.push({ command: `${sh} -c 'rm -rf x'`, expect: "deny" });
    out.push({ command: `${sh} -c "ls; rm x"`, expect: "deny" });
    out.push({ command: `${sh} -ec 'rm x'`, expect: "deny" });
    out.push({ command: `${sh} -c 'bash -c "command rm x"'`, expect: "deny" });
    out.push({ command: `${sh} -c "$cmd"`, expect: "ask" });
    out.push({ command: `${sh} script.sh`, expect: "ask" });
  }
  for (
    const c of [
      "eval rm x",
      "eval 'rm -rf x'",
      'eval "ls; rm x"',
      "find . -exec rm {} \\;",
      "find . -execdir /bin/rm {} +",
      "find . -ok rm {} \\;",
      "ls | xargs rm",
      "ls | xargs -I{} rm {}",
      "echo $(rm x)",
      "x=`rm x`",
      "cat <(rm x)",
      "if true; then rm x; fi",
      "f() { rm x; }; f",
      "{rm,-rf,x}",
    ]
  ) out.push({ command: c, expect: "deny" });
  for (
    const c of [
      "$cmd x",
      "${cmd} x",
      "$(echo rm) x",
      'eval "$x"',
      'bash -c "$x"',
      "source f",
      ". f",
      "r*m x",
      "xargs -I{} sh -c '{}'",
      "watch 'rm -rf x'",
      "watch -n 1 rm x",
      "flock /tmp/l rm x",
      "script -qc 'rm x' /dev/null",
      "su -c 'rm x'",
      "strace -f /bin/rm x",
      "chroot / rm x",
      "unshare -r rm x",
      "parallel rm ::: x",
      "busybox rm x",
      "ssh host rm x",
    ]
  ) out.push({ command: c, expect: "refuse" });
  return out;
}
