import { deepEqual, equal, ok } from "node:assert/strict";
import { Policy } from "../mod.ts";
import { type Decision, sedScriptProblem } from "../policy/mod.ts";
import { test } from "./_harness.ts";

/** The commands some policy of `policies` allows (each with its policy). */
function allowedOf(
  commands: readonly string[],
  policies: [string, Policy][],
): string[] {
  const out: string[] = [];
  for (const [name, p] of policies) {
    for (const c of commands) {
      if (p.check(c).decision === "allow") {
        out.push(`${name}: ${JSON.stringify(c)}`);
      }
    }
  }
  return out;
}

/** The commands whose decision under `policy` is not `want`. */
function notDecided(
  policy: Policy,
  commands: readonly string[],
  want: Decision,
): string[] {
  return commands
    .map((c) => ({ c, r: policy.check(c) }))
    .filter(({ r }) => r.decision !== want)
    .map(({ c, r }) => `${JSON.stringify(c)}: ${r.decision}: ${r.reason}`);
}

const READ_ONLY: [string, Policy][] = [["readOnly", Policy.readOnly()]];

// --- sh strings are read as dash reads them -----------------------------

/** Strings bash and dash read differently (each also runs `touch x` for one of them). */
const DASH_DIFFERS = [
  "echo $'\\'; touch x #'",
  "cat <<$'E'\ntouch x\nE\nE",
  'echo $"x"; ls',
  "cat <<< x",
  "cat <(ls)",
  "((1)) && ls",
  "echo $[1]",
  "[[ -f x ]] && ls",
  "ls &> /dev/null",
  "ls |& cat",
  "a=(1 2); ls",
  "function f { ls; }",
  "source ./x",
  'echo "${x/a/b}"',
  'echo "${x:1}"',
  'echo "${x^^}"',
  'echo "${!x}"',
  'echo "${x[0]}"',
  "case x in x) ls ;& y) ls ;; esac",
];

/** How a string reaches a POSIX shell. */
const SH_FORMS = [
  (s: string) => `sh -c ${quote(s)}`,
  (s: string) => `dash -c ${quote(s)}`,
  (s: string) => `sh -ec ${quote(s)}`,
  (s: string) => `env sh -c ${quote(s)}`,
  (s: string) => `timeout 5 sh -c ${quote(s)}`,
  (s: string) => `find . -exec sh -c ${quote(s)} \\;`,
  (s: string) => `bash -c ${quote(`sh -c ${quote(s)}`)}`,
];

function quote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

test("Policy judges sh -c and dash -c strings as POSIX sh: bash-only syntax is refused", () => {
  const commands = DASH_DIFFERS.flatMap((s) => SH_FORMS.map((f) => f(s)));
  ok(commands.length > 100, `${commands.length} variants`);
  const custom = new Policy({
    allow: [
      "sh",
      "dash",
      "env",
      "timeout",
      "find",
      "bash",
      "echo",
      "cat",
      "ls",
    ],
  });
  deepEqual(
    allowedOf(commands, [...READ_ONLY, ["custom", custom], [
      "allowAll+deny",
      Policy.allowAll({ deny: ["rm"] }),
    ]]),
    [],
  );
  // The issue's spelling, exactly.
  equal(
    Policy.readOnly().check(`sh -c "echo \\$'\\\\'; touch x #'"`).decision,
    "ask",
  );
  // POSIX strings are read as before.
  deepEqual(
    notDecided(Policy.readOnly(), [
      "sh -c 'ls -la | head'",
      "sh -c 'for f in *.ts; do wc -l \"$f\"; done'",
      "dash -c 'cat f; echo \"${x:-y}\"'",
      "sh -c 'echo ${#x}'",
    ], "allow"),
    [],
  );
  // Shells whose grammar is not bash's are not read as bash.
  for (const shell of ["zsh", "ksh", "fish", "csh"]) {
    equal(Policy.readOnly().check(`${shell} -c ls`).decision, "ask", shell);
  }
});

// --- Option grammars -----------------------------------------------------

test("Policy reads env's options as getopt does: -uu X unsets u and runs X", () => {
  const p = Policy.allowAll({ deny: ["rm"] });
  const commands = [
    "env -uu rm x",
    "env -u u rm x",
    "env -uPATH rm x",
    "env -iuu rm x",
    "env -u X -u Y rm x",
    "env --unset=u rm x",
    "env --unset u rm x",
    "env -C /tmp rm x",
    "env -C/tmp rm x",
    "env - rm x",
    "env -i A=1 rm x",
    "env -- rm x",
  ];
  deepEqual(notDecided(p, commands, "deny"), []);
  // env stops reading options at its first operand.
  deepEqual(
    notDecided(Policy.readOnly(), [
      "env -u u ls",
      "env -uu ls",
      "env -i ls",
      "env TZ=UTC date",
    ], "allow"),
    [],
  );
});

test("Policy refuses wrappers that act on running processes instead of a command", () => {
  const commands = [
    "ionice -c 3 -p 1",
    "ionice -c3 -p1",
    "ionice -c 3 -P 1",
    "ionice -c 3 -u 0",
    "ionice -c 3 --pid 1",
    "ionice -c 3 -p 1 ls",
    "taskset -p 1",
    "taskset -p 0x1 1",
    "taskset -cp 0 1",
    "taskset --pid 0x1 1",
    "chrt -p 1",
    "chrt -f -p 10 1",
    "chrt --pid 1",
    "renice -n 5 -p 1",
    "xargs --process-slot-var=POSIXLY_CORRECT echo",
    "xargs --process-slot-var X echo",
    "xargs --process-slot=X echo",
  ];
  deepEqual(allowedOf(commands, READ_ONLY), []);
  deepEqual(
    notDecided(Policy.readOnly(), [
      "ionice -c 3 ls",
      "taskset -c 0 ls",
      "taskset 1 ls",
      "chrt -f 10 ls",
      "nice -n 5 ls",
    ], "allow"),
    [],
  );
});

/** git's spellings that run gpg, remerge or write configuration or stashes. */
const GIT_REFUSED = [
  "git log --show-signature",
  "git show --show-signature HEAD",
  "git log --show-sig",
  "git log --format=%G?",
  "git log --format=%GK",
  "git log --pretty=format:%GS",
  "git log --pretty=tformat:%h%GG",
  "git log --format %GF",
  "git shortlog --format=%GT",
  "git show --format=%G? HEAD",
  'git log --format="$f"',
  "git log --diff-merges=remerge",
  "git log --diff-merges=r",
  "git log --diff-merges remerge",
  "git log --diff-merges r",
  "git show --diff-merges=remerge HEAD",
  "git log --diff-merges=x",
  "git log --remerge-diff",
  "git config name value --get",
  "git config name value --list",
  "git config name value -l",
  "git config name --get-all value",
  "git stash -m list",
  "git stash -m show",
  "git stash --message list",
  "git stash -q list",
  "git stash",
  "git stash save list",
  "git -c core.pager=sh log",
  "git -c pager.log=sh log",
  "git -c diff.external=sh diff",
  "git -c log.showSignature=true log",
  'git -c "$x" log',
  "git -ccolor.ui=never log",
  "git submodule foreach ls",
  "git submodule update",
  "git submodule --quiet foreach ls",
];

test("Policy refuses git's spellings that run gpg, remerge, or write configuration and stashes", () => {
  deepEqual(allowedOf(GIT_REFUSED, READ_ONLY), []);
  deepEqual(
    notDecided(Policy.readOnly(), [
      "git log --format=%h%%G",
      "git log --pretty=oneline",
      "git log --diff-merges=first-parent",
      "git log --diff-merges=1",
      "git log --dd",
      "git config --get user.name",
      "git config user.name",
      "git config --list",
      "git stash list",
      "git stash list --format=%h",
      "git stash show -p",
      "git stash show --stat stash@{0}",
      "git -c color.ui=never log -1",
      "git -c color.diff.meta=blue diff",
      "git -c core.quotepath=off status",
      "git submodule",
      "git submodule status",
      "git submodule status --recursive",
      'git show --end-of-options "$sha"',
    ], "allow"),
    [],
  );
});

test("Policy.readOnly() treats environment variables it does not know as unknown", () => {
  const commands = [
    "RUSTUP_TOOLCHAIN=x cargo --version",
    "RUSTUP_TOOLCHAIN=x ls",
    "RUSTUP_HOME=/tmp/x ls",
    "RUSTUP_AUTO_INSTALL=1 ls",
    "OPENSSL_CONF=/tmp/x ls",
    "env OPENSSL_CONF=/tmp/x ls",
    "env A=1 ls",
    "A=$x ls",
    "http_proxy=x ls",
    "RUSTUP_TOOLCHAIN=x; ls",
    "OLDPWD=--output=x",
    "PWD=--output=x",
  ];
  deepEqual(allowedOf(commands, READ_ONLY), []);
  const r = Policy.readOnly().check("OPENSSL_CONF=/tmp/x ls");
  ok(r.reason.includes("OPENSSL_CONF"), r.reason);
  deepEqual(
    notDecided(Policy.readOnly(), [
      "LC_ALL=C sort f",
      "LANG=C.UTF-8 ls",
      "TZ=UTC date",
      "COLUMNS=80 ls",
      "NO_COLOR=1 ls",
      "env LC_ALL=C sort f",
      "x=1; echo $x",
      'files=$(ls); echo "$files"',
    ], "allow"),
    [],
  );
});

test("Policy custom allow-lists judge redirections that write", () => {
  const p = new Policy({ allow: ["cat", "echo", "ls"] });
  deepEqual(
    allowedOf([
      "cat f > .git/hooks/post-commit",
      "cat f >> .git/config",
      "echo x >| f",
      "ls &> f",
      "ls 2> f",
      "cat <> f",
      'cat f > "$out"',
      "{ cat f; } > g",
      "(ls) > g",
      "for x in 1; do ls; done > g",
    ], [["custom", p]]),
    [],
  );
  deepEqual(
    notDecided(p, [
      "cat f",
      "cat f 2>/dev/null",
      "cat f 2>&1",
      "cat < f",
      "echo x >&2",
      "ls > /dev/null",
    ], "allow"),
    [],
  );
  // A policy whose default is allow keeps allowing them.
  equal(
    new Policy({ default: "allow", deny: ["rm"] }).check("cat f > g").decision,
    "allow",
  );
});

test("sedScriptProblem() ends labels at a blank, as GNU sed does (:x e cmd runs cmd)", () => {
  const labels = [":x", "bx", "b x", "tx", "t x", "Tx", "T x", "v 4.2"];
  const blanks = [" ", "\t", "  "];
  const commands = ["e id", "w out", "s/a/b/e", "s/a/b/w out", "W out"];
  const scripts: string[] = [];
  for (const l of labels) {
    for (const b of blanks) for (const c of commands) scripts.push(l + b + c);
  }
  const missed = scripts.filter((s) => sedScriptProblem(s) === null);
  deepEqual(missed, []);
  deepEqual(
    allowedOf(scripts.map((s) => `sed -n ${quote(s)} f`), READ_ONLY),
    [],
  );
  // The usual idioms still read.
  for (
    const ok1 of [
      ":a;N;$!ba;s/\\n/ /g",
      ":a\nN\n$!ba",
      "{:x;tx}",
      ":x;tx#comment",
      "b end;p;:end",
    ]
  ) deepEqual([ok1, sedScriptProblem(ok1)], [ok1, null]);
});

// --- False refusals --------------------------------------------------------

test("Policy.readOnly() allows the harmless commands issue 26 names", () => {
  deepEqual(
    notDecided(Policy.readOnly(), [
      'while IFS= read -r line; do echo "$line"; done < f',
      'IFS=: read -r a b <<< "$x"',
      "git -c color.ui=never log -1",
      "git submodule status",
      "tar -xOf x.tar f",
      "tar xOf x.tar",
      "tar --extract --to-stdout -f x.tar",
      "ulimit -n",
      "ulimit -a",
      "ulimit -Sn",
      "umask",
      "umask -S",
      "git diff $(git merge-base HEAD main) --stat",
      "git diff $(git merge-base HEAD origin/main)...HEAD --stat",
      'git log "$(git rev-parse --abbrev-ref HEAD)" -1',
      "git show $(git rev-parse --short HEAD) --stat",
      'sort "$(pwd)"/f',
      "sort src/*.ts",
    ], "allow"),
    [],
  );
  // A value the session carries is still unknown: the spelling that makes
  // it a revision is git's --end-of-options.
  deepEqual(
    allowedOf([
      'git show "$sha"',
      'sed -n "${start},${end}p" f',
      "git diff $(git merge-base HEAD main) -- --output=x",
      "git diff $(git rev-parse --output) --stat",
      'git diff $(git rev-parse "a -o") --stat',
      "sort $(pwd)/f",
      "sort ./$x",
      "sort src/*.ts -- -o",
      'sort "$(git merge-base a b)"-o',
      "sort $(git merge-base a b)$x",
      "git show $(cat f)",
    ], READ_ONLY),
    [],
  );
  // Still refused: the forms that change something.
  deepEqual(
    allowedOf([
      "IFS=: ls",
      "IFS=/ cat f",
      "tar -xf x.tar",
      "tar -xOf x.tar --to-command=sh",
      "ulimit -n 10",
      "ulimit -c unlimited",
      'ulimit -n "$n"',
      "umask 077",
      "umask -S 077",
    ], READ_ONLY),
    [],
  );
});
