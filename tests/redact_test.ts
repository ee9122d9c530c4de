/**
 * `redactSecrets`, `redactor` and `redactStream`: URL credentials in every
 * form, assignments whose name reads as a secret (and the names, values and
 * code that are not), sensitive environment values, idempotence, linear time
 * on adversarial input, and streams that never emit part of a secret,
 * whatever the chunks, and emit complete lines at once.
 */
import { equal, ok } from "node:assert/strict";
import {
  redactor,
  redactQuoted,
  redactSecrets,
  redactStream,
} from "../egress/redact.ts";
import { test } from "./_harness.ts";
import { ALNUM, rng } from "./_random.ts";

/** A seeded generator, so every run tests the same cases. */

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const HEX = "0123456789abcdef";
const B64 = ALNUM + "+/";

function pick(rand: () => number, alphabet: string, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) {
    s += alphabet[Math.floor(rand() * alphabet.length)];
  }
  return s;
}

function one<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)];
}

const R = "[REDACTED:secret-assignment]";
const U = "[REDACTED:url-credentials]";

/** Redacts `input`, checks the result and that redacting it again changes nothing. */
function check(
  input: string,
  expected: string,
  redact: (text: string) => string = redactSecrets,
): void {
  const out = redact(input);
  equal(out, expected, JSON.stringify(input));
  equal(redact(out), out, `not idempotent: ${JSON.stringify(out)}`);
}

/** Every run of `n` characters of `secret` (its lines apart) must be absent from `shown`. */
function assertNoFragment(
  shown: string,
  secret: string,
  where: string,
  n = 8,
): void {
  for (const part of secret.split(/[\r\n]+/)) {
    for (let i = 0; i + n <= part.length; i++) {
      const piece = part.slice(i, i + n);
      ok(
        !shown.includes(piece),
        `${where}: "${piece}" of the secret is shown:\n${shown}`,
      );
    }
  }
}

// ---------------------------------------------------------------------------
// URL credentials.

const SCHEMES = [
  "https",
  "http",
  "postgres",
  "postgresql",
  "mysql",
  "redis",
  "rediss",
  "amqp",
  "mongodb+srv",
  "git+ssh",
  "ftp",
  "s3",
  "x-custom.v2",
];
const USERS = ["u", "deploy", "", "user.name", "a%40b", "svc_account-1"];
const HOSTS = [
  "h",
  "db.example.com",
  "db.example.com:5432",
  "[::1]",
  "[2001:db8::7]:8080",
  "10.0.0.1:6379",
];
const TAILS = ["", "/db", "/path/x?sslmode=require#frag", "/a/b.git"];
const AROUND: [string, string][] = [
  ["", ""],
  ["url ", " next"],
  ["'", "'"],
  ['{"url":"', '"}'],
  ["<", ">"],
  ["git clone ", "\n"],
  ["(", ")"],
];

/** A password with the characters that make userinfo hard: `/`, `@`, `:`, percent-escapes. */
function password(rand: () => number): string {
  const parts = [pick(rand, LOWER, 1)];
  const n = 2 + Math.floor(rand() * 6);
  for (let i = 0; i < n; i++) {
    parts.push(
      one(rand, [
        pick(rand, ALNUM, 3),
        "/",
        "@",
        ":",
        "%40",
        "%2F",
        "!",
        "$",
        "*",
        "~",
        ".",
        "_",
        "-",
        "+",
        ",",
        ";",
      ]),
    );
  }
  return parts.join("");
}

test("redactSecrets() hides a URL's password and keeps its user and host, in every form", () => {
  const rand = rng(1);
  let n = 0;
  for (const scheme of SCHEMES) {
    for (const user of USERS) {
      for (const host of HOSTS) {
        for (let k = 0; k < 3; k++) {
          const tail = one(rand, TAILS);
          const [pre, post] = one(rand, AROUND);
          const pw = password(rand);
          check(
            `${pre}${scheme}://${user}:${pw}@${host}${tail}${post}`,
            `${pre}${scheme}://${user}:${U}@${host}${tail}${post}`,
          );
          n++;
        }
      }
    }
  }
  ok(n > 1000);
});

test("redactSecrets() hides the listed URL forms", () => {
  check("redis://:pw@h", `redis://:${U}@h`);
  check("https://u:a/b@h", `https://u:${U}@h`);
  check("postgres://u:p@ss@h", `postgres://u:${U}@h`);
  check("postgres://u:p%40ss@h/db", `postgres://u:${U}@h/db`);
  check("http://u:p@[::1]:5432/x", `http://u:${U}@[::1]:5432/x`);
  check(
    "git clone https://user:s3cr3tpass@example.com/x.git",
    `git clone https://user:${U}@example.com/x.git`,
  );
  check("a=https://u:x=y@h b", `a=https://u:${U}@h b`);
  // Two URLs on a line, apart.
  check(
    "from https://a:pw1@h1 to https://b:pw2@h2",
    `from https://a:${U}@h1 to https://b:${U}@h2`,
  );
  // A placeholder password stays.
  check("https://u:<password>@h", "https://u:<password>@h");
  check("https://u:${PASS}@h", "https://u:${PASS}@h");
  check("https://u:****@h", "https://u:****@h");
});

test("redactSecrets() hides a userinfo without `:` only when it looks like a token", () => {
  const rand = rng(2);
  for (let k = 0; k < 50; k++) {
    const hex = pick(rand, HEX, 40);
    check(
      `https://${hex}@github.com/o/r.git`,
      `https://${U}@github.com/o/r.git`,
    );
    const tok = pick(rand, LOWER, 4) + pick(rand, ALNUM, 12 + k % 20) +
      String(k % 10);
    check(`x https://${tok}@h.example/x y`, `x https://${U}@h.example/x y`);
    const ghp = "ghp_" + pick(rand, ALNUM, 36);
    const out = redactSecrets(`https://${ghp}@github.com`);
    ok(/^https:\/\/\[REDACTED:[a-z-]+\]@github\.com$/.test(out), out);
  }
  for (
    const kept of [
      "ssh://git@github.com/org/repo.git",
      "ssh://git@github.com:22/org/repo.git",
      "https://user@example.com/x",
      "https://deploy-bot@host/x",
      "https://firstname.lastname@host/x",
      "https://abcdefghijklmnopq@host/x", // no digit
      "https://a1b2c3@host/x", // too short
      "http://localhost:5173/@vite/client",
      "http://localhost:5173/@fs/home/u/x.ts",
      "https://www.npmjs.com/package/@types/node",
      "https://example.com:8443/a/@b",
      "https://h/x?email=a@b.c",
      "mailto:a@b.c",
      "git@github.com:org/repo.git",
      "http://[::1]:8080/@x",
      "see https://example.com/a:b@c for more",
    ]
  ) {
    check(kept, kept);
  }
});

// ---------------------------------------------------------------------------
// Assignments.

const SECRET_NAMES = [
  "AWS_SECRET_ACCESS_KEY",
  "DATABASE_PASSWORD",
  "MYSQL_PWD",
  "client_secret",
  "password",
  "Password",
  "GITHUB_TOKEN",
  "apiKey",
  "API_KEY",
  "x-api-key",
  "ACCESS_KEY",
  "SECRET_KEY",
  "PRIVATE_KEY",
  "PGPASSWORD",
  "db.password",
  "spring.datasource.password",
  "oauthToken",
  "refresh-token",
  "AUTH",
  "PASSPHRASE",
  "CREDENTIALS",
  "slackWebhookSecret",
  "TOKEN2",
  "npm_auth",
  "SECRET",
  "passwd",
  "APIKEY",
  "SECRET_KEY_BASE",
  "privateKey",
  "_authToken",
];

const NOT_SECRET_NAMES = [
  "PWD",
  "OLDPWD",
  "max_tokens",
  "MAX_TOKENS",
  "tokenizer",
  "key",
  "KEY",
  "KEYBOARD",
  "SSH_AUTH_SOCK",
  "PASSWORD_FILE",
  "TOKEN_PATH",
  "SECRETS_DIR",
  "DATABASE_URL",
  "AWS_ACCESS_KEY_ID",
  "clientId",
  "PUBLIC_KEY",
  "publishableKey",
  "passage",
  "monkey",
  "bypass",
  "author",
  "keys",
  "tokens",
  "SECRET_NAME",
  "token_type",
  "AUTH_TIMEOUT",
  "passwordLength",
  "hotkey",
  "path-key",
  "sortKey",
  "cache_key",
  "PRIMARY_KEY",
  "GIT_ASKPASS",
];

/** A value without spaces, quotes or trailing punctuation. */
function value(rand: () => number): string {
  return pick(rand, ALNUM, 1) +
    pick(rand, ALNUM + "/+_-.!%^*@~", 4 + Math.floor(rand() * 30)) +
    pick(rand, ALNUM, 1);
}

/** A value with spaces (quoted or YAML forms only). */
function phrase(rand: () => number): string {
  return `${pick(rand, LOWER, 5)} ${pick(rand, ALNUM, 6)} ${
    pick(rand, LOWER, 4)
  }`;
}

/** Forms of an assignment: the text, and the text with the value redacted. */
function forms(name: string, v: string, spaced: string): [string, string][] {
  return [
    [`${name}=${v}`, `${name}=${R}`],
    [`export ${name}=${v}`, `export ${name}=${R}`],
    [
      `HOME=/root\n${name}=${v}\nPATH=/bin`,
      `HOME=/root\n${name}=${R}\nPATH=/bin`,
    ],
    [`${name}="${spaced}"`, `${name}="${R}"`],
    [`${name}='${spaced}'`, `${name}='${R}'`],
    [`{"${name}": "${spaced}", "other": 1}`, `{"${name}": "${R}", "other": 1}`],
    [`{"${name}":"${v}"}`, `{"${name}":"${R}"}`],
    [`{'${name}': '${spaced}'}`, `{'${name}': '${R}'}`],
    [`${name}: ${spaced}`, `${name}: ${R}`],
    [`  ${name}: ${v}\n`, `  ${name}: ${R}\n`],
    [`- ${name}: ${v}`, `- ${name}: ${R}`],
    [`    ${name}: "${spaced}"`, `    ${name}: "${R}"`],
    [`${name}: ${v}  # the note`, `${name}: ${R}  # the note`],
    [`${name} = "${spaced}"`, `${name} = "${R}"`],
    [`const x = { ${name}: "${v}" };`, `const x = { ${name}: "${R}" };`],
    [`run --${name}=${v} now`, `run --${name}=${R} now`],
    [`curl -H '${name}: ${spaced}' x`, `curl -H '${name}: ${R}' x`],
    [`curl -H "${name}: ${v}" x`, `curl -H "${name}: ${R}" x`],
    [`GET /cb?a=1&${name}=${v}&next=1`, `GET /cb?a=1&${name}=${R}&next=1`],
    [`line one\r\n${name}=${v}\r\n`, `line one\r\n${name}=${R}\r\n`],
    [
      `cfg := "${spaced}"\n${name} := "${v}"`,
      `cfg := "${spaced}"\n${name} := "${R}"`,
    ],
  ];
}

test("redactSecrets() hides the value of every form of assignment whose name reads as a secret", () => {
  const rand = rng(3);
  let n = 0;
  for (const name of SECRET_NAMES) {
    for (let k = 0; k < 3; k++) {
      for (const [input, expected] of forms(name, value(rand), phrase(rand))) {
        check(input, expected);
        n++;
      }
    }
  }
  ok(n > 1500);
});

test("redactSecrets() hides the listed assignments", () => {
  check(
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    `AWS_SECRET_ACCESS_KEY=${R}`,
  );
  check("DATABASE_PASSWORD=hunter2", `DATABASE_PASSWORD=${R}`);
  check("MYSQL_PWD=s3cret", `MYSQL_PWD=${R}`);
  check('"client_secret": "abc123"', `"client_secret": "${R}"`);
  check("  password: hunter2", `  password: ${R}`);
  check('GITHUB_TOKEN="ghx-not-a-known-shape"', `GITHUB_TOKEN="${R}"`);
  check('"password": 123456,', `"password": ${R},`);
  check("Authorization: Bearer abc.def-ghi", `Authorization: Bearer ${R}`);
  check("> authorization: Basic dXNlcjpwdw==", `> authorization: Basic ${R}`);
  check('"Authorization": "Bearer xyz123"', `"Authorization": "Bearer ${R}"`);
  check("x-api-key: 0123abcd", `x-api-key: ${R}`);
  check(
    "12:00:01 GET /x Authorization: Bearer abc123 ok",
    `12:00:01 GET /x Authorization: Bearer ${R} ok`,
  );
  check(
    "headers: {Authorization: Basic dXNlcjpwdw==}",
    `headers: {Authorization: Basic ${R}}`,
  );
  check(
    "//registry.npmjs.org/:_authToken=npm_abcdef123",
    `//registry.npmjs.org/:_authToken=${R}`,
  );
  check("{PASSWORD=abc, USER=x}", `{PASSWORD=${R}, USER=x}`);
  check("f(password=pw1)", `f(password=${R})`);
  // A quoted value cut short (by a tool's cut) goes to the end of its line.
  check('"password": "hunter2…\nnext', `"password": "${R}\nnext`);
  // A known token shape keeps its own kind.
  check(
    "GITHUB_TOKEN=ghp_" + "a".repeat(36),
    "GITHUB_TOKEN=[REDACTED:github-token]",
  );
});

test("redactSecrets() leaves names that do not read as a secret, in every form", () => {
  const rand = rng(4);
  for (const name of NOT_SECRET_NAMES) {
    for (const [input] of forms(name, value(rand), phrase(rand))) {
      check(input, input);
    }
  }
});

test("redactSecrets() leaves placeholder values", () => {
  const placeholders = [
    "",
    "true",
    "False",
    "null",
    "None",
    "nil",
    "undefined",
    "***",
    "********",
    "xxx",
    "XXXXXXXX",
    "xxxx-xxxx",
    "<password>",
    "<YOUR_TOKEN>",
    "${DB_PASSWORD}",
    "$DB_PASSWORD",
    "$(cat",
    "[REDACTED]",
    "[REDACTED:secret-assignment]",
    "[REDACTED:env:TOKEN]",
  ];
  for (const name of ["DATABASE_PASSWORD", "apiKey", "client_secret"]) {
    for (const p of placeholders) {
      for (
        const input of [
          `${name}=${p}`,
          `${name}="${p}"`,
          `"${name}": "${p}"`,
          `${name}: ${p}`,
        ]
      ) {
        check(input, input);
      }
    }
    check(`${name}: "{{ .Values.secret }}"`, `${name}: "{{ .Values.secret }}"`);
    check(`${name}: {{ .Values.secret }}`, `${name}: {{ .Values.secret }}`);
  }
  check(
    "TOKEN=$(cat /run/secrets/token) ./run",
    "TOKEN=$(cat /run/secrets/token) ./run",
  );
});

test("redactSecrets() leaves prose and code alone", () => {
  for (
    const kept of [
      "PWD=/home/u",
      "OLDPWD=/tmp",
      "max_tokens: 1000",
      "tokenizer=x",
      "- key: app",
      "selector:\n  matchLabels:\n    key: app\n",
      "KEYBOARD=us",
      "SSH_AUTH_SOCK=/tmp/x",
      "if (password == null) return;",
      "if password != expected:",
      "const token = getToken();",
      "token = os.environ['TOKEN']",
      "let apiKey = await vault.read(path);",
      "password := os.Getenv(name)",
      "The password is wrong, please retry.",
      "Enter your password:",
      "  password: string;",
      "  token?: string;",
      "  apiKey: string,",
      "  secret: getSecret(),",
      "  credentials: {",
      "  password: |",
      "auth.login(user, password)",
      "const f = (secret) => secret.trim();",
      "map[token]=1",
      "PASSWORD=$PASSWORD ./run.sh",
      "kubectl get secret my-secret -o yaml",
      "Token: ",
      "password:",
      "the key: a value", // not at the start of a line, a bare key
      "12:34:56 INFO key=value ok",
      "a == b && password === c",
      "std::string password::get()",
      'await expectOutput(p, "Password: ");',
      'read -s -p "Password: " pw',
      'ok(out.indexOf("✓ PASS:") > 0);',
      'const args = ["--token=" + token];',
      "a prompt such as `Password:` or `>>>` is shown at once",
      '"path-key": "^3.1.0",',
      "ssh -o StrictHostKeyChecking=no host",
      "npm_config_always_auth=false",
      "Authorization: Bearer <token>",
      "expected an Authorization: Bearer <token> header",
    ]
  ) {
    check(kept, kept);
  }
});

// ---------------------------------------------------------------------------
// Environment values, idempotence.

test("redactSecrets() hides sensitive environment values, multi-line ones too", () => {
  const rand = rng(5);
  for (let k = 0; k < 40; k++) {
    const lines = Array.from(
      { length: 1 + (k % 4) },
      () => pick(rand, ALNUM, 8 + Math.floor(rand() * 20)),
    );
    const v = lines.join(k % 2 ? "\r\n" : "\n");
    const env = {
      TLS_CERT_PRIVATE: v,
      MYSQL_PWD: pick(rand, ALNUM, 9),
      HOME: "/home/someone",
    };
    const redact = redactor(env);
    const text = `start ${v} mid ${env.MYSQL_PWD}\n${v}\nhome ${env.HOME}\n`;
    check(
      text,
      "start [REDACTED:env:TLS_CERT_PRIVATE] mid [REDACTED:env:MYSQL_PWD]\n" +
        "[REDACTED:env:TLS_CERT_PRIVATE]\nhome /home/someone\n",
      redact,
    );
    equal(redactSecrets(text, { env }), redact(text));
  }
  // A multi-line value escaped in JSON or a command, or one line of it.
  const multi = redactor({ TLS_KEY_PRIVATE: "abcdefgh1234\nijklmnop5678" });
  check(
    'echo "abcdefgh1234\\nijklmnop5678" | tail -1: ijklmnop5678\n',
    'echo "[REDACTED:env:TLS_KEY_PRIVATE]" | tail -1: [REDACTED:env:TLS_KEY_PRIVATE]\n',
    multi,
  );
  // Names: PWD is a directory; short values are not looked for.
  check(
    "in /home/u/project with abc",
    "in /home/u/project with abc",
    redactor({ PWD: "/home/u/project", API_KEY: "abc" }),
  );
  // A value inside a longer one: the longer one names the marker.
  check(
    "x abcdefgh12345678 y abcdefgh",
    "x [REDACTED:env:LONG_TOKEN] y [REDACTED:env:SHORT_TOKEN]",
    redactor({ SHORT_TOKEN: "abcdefgh", LONG_TOKEN: "abcdefgh12345678" }),
  );
});

test("redactSecrets() is idempotent on everything it redacts", () => {
  const rand = rng(6);
  const env = {
    SERVICE_TOKEN: pick(rand, ALNUM, 20),
    OTHER_SECRET: "s3cr3t-value",
    MULTI_SECRET: `${pick(rand, ALNUM, 10)}\n${pick(rand, ALNUM, 10)}`,
  };
  const redact = redactor(env);
  const pieces = [
    () => env.MULTI_SECRET,
    () => env.SERVICE_TOKEN,
    () => "sk-proj-" + pick(rand, ALNUM, 30),
    () => "eyJ" + pick(rand, ALNUM, 8) + ".eyJ" + pick(rand, ALNUM, 8) + ".x",
    () => "[REDACTED:x]",
    () => one(rand, ["=", ":", '"', "word", "password", ": ", "https://"]),
    () => `TOKEN=${env.SERVICE_TOKEN}`,
    () => `postgres://u:${password(rand)}@db/x`,
    () => `API_KEY=${value(rand)}`,
    () => `  password: ${phrase(rand)}`,
    () => `"client_secret": "${env.OTHER_SECRET}"`,
    () => "AKIA" + pick(rand, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
    () => "ghp_" + pick(rand, ALNUM, 36),
    () => `https://${pick(rand, HEX, 40)}@github.com`,
    () =>
      "-----BEGIN RSA PRIVATE KEY-----\n" + pick(rand, B64, 64) +
      "\n-----END RSA PRIVATE KEY-----",
    () => "Authorization: Bearer " + value(rand),
    () => "TOKEN=[REDACTED:env:TOKEN]",
    () => "plain words here",
  ];
  for (let k = 0; k < 1000; k++) {
    let text = "";
    for (let n = 1 + Math.floor(rand() * 10); n > 0; n--) {
      text += one(rand, pieces)() + one(rand, ["\n", " ", "\r\n", ", ", ""]);
    }
    const once = redact(text);
    equal(redact(once), once, JSON.stringify(text));
    equal(redactSecrets(once, { env }), once);
  }
  check("TOKEN=[REDACTED:env:TOKEN]", "TOKEN=[REDACTED:env:TOKEN]");
  // A secret that spans lines joins them once it is a marker; a name or a
  // token glued to a secret is taken as the marker will leave it.
  for (
    const text of [
      `Authorization: Bearer x [REDACTED:x], "client_secret": "d7" ${env.MULTI_SECRET}, w, `,
      `password : ", eyJ ${env.MULTI_SECRET} ", `,
      `${env.MULTI_SECRET}Authorization: Bearer abc`,
      `${env.SERVICE_TOKEN}sk-proj-${
        "a".repeat(30)
      } ${env.SERVICE_TOKEN}eyJaaaaaa.eyJbbbbbb.c`,
      `ghp_${"a".repeat(36)}${"b".repeat(80)}TOKEN=x`,
      "sk-proj-aaaaaaaaaaaaaaaaaaaawhttps://u:p@h[REDACTED:x]https://0123456789abcdef0123@h",
    ]
  ) {
    const once = redact(text);
    equal(redact(once), once, JSON.stringify(text));
  }
});

test("redactSecrets() finds JWTs exactly where the JWT pattern does", () => {
  const jwt =
    /\beyJ[A-Za-z0-9_-]{5,4000}\.eyJ[A-Za-z0-9_-]{5,4000}\.[A-Za-z0-9_-]{0,4000}/g;
  const rand = rng(12);
  const parts = [
    "eyJ",
    ".",
    "-",
    "a",
    "b",
    " ",
    "_",
    "eyJa",
    "aaaaa",
    "Z9",
    "é",
  ];
  for (let k = 0; k < 3000; k++) {
    let t = "";
    const n = 1 + Math.floor(rand() * 30);
    for (let i = 0; i < n; i++) {
      t += rand() < 0.02
        ? "a".repeat(3990 + Math.floor(rand() * 20))
        : one(rand, parts);
    }
    equal(
      redactSecrets(t),
      t.replace(jwt, "[REDACTED:jwt]"),
      JSON.stringify(t),
    );
  }
});

// ---------------------------------------------------------------------------
// Linear time.

/** The fastest of `runs` runs of `fn`, in ms. */
function fastest(fn: () => void, runs = 3): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/**
 * Checks that `fn` on `factor` times the input takes less than `ratio` times
 * as long. Quadratic work takes `factor` squared times as long (400 by
 * default); linear work `factor` times, up to some 90 on this machine when
 * the small input fits in the caches and the large one does not (and the
 * machine is shared). Without a `size`, the small input doubles from 25 000
 * characters up to 50 000 until it takes 5 ms (the large one is then 1 MB).
 * A failed measure is taken again, twice at most.
 */
function assertLinear(
  name: string,
  make: (size: number) => string,
  fn: (text: string) => void,
  options: { size?: number; factor?: number; ratio?: number } = {},
): void {
  const { factor = 20, ratio = 200 } = options;
  let size = options.size ?? 25_000;
  let small = make(size);
  fn(small);
  while (options.size === undefined && size < 50_000) {
    if (fastest(() => fn(small)) >= 5) break;
    size *= 2;
    small = make(size);
  }
  const large = make(size * factor);
  // Warm up, so the compiler has settled before anything is timed.
  fn(small);
  fn(large);
  let report = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    const a = Math.max(fastest(() => fn(small)), 0.5);
    const b = fastest(() => fn(large), 2);
    if (b < a * ratio) return;
    report += ` ${size} characters ${
      a.toFixed(1)
    } ms, ${factor} times as many ${b.toFixed(1)} ms;`;
  }
  ok(false, `${name}:${report}`);
}

const ADVERSARIAL: [string, string][] = [
  ["://", "://"],
  [":", ":"],
  ["@", "@"],
  ["x://:@", "x://:@"],
  ["u:p@", "https://u:p@"],
  ["=", "="],
  ["password: ", "password: "],
  ['"password": "', '"password": "'],
  ['"token":', '"token":'],
  ["Password", "Password"],
  ["sk-", "sk-"],
  ["xoxb-", "xoxb-"],
  ["eyJa.", "eyJaaaaa."],
  ["-eyJ", "-eyJ"],
  ["AKIA", "AKIA"],
  ["github_pat_", "github_pat_"],
  ["AIza", "AIza"],
  ["BEGIN", "-----BEGIN RSA PRIVATE KEY-----\n"],
  ["END", "-----END RSA PRIVATE KEY-----\n"],
  ["[REDACTED", "[REDACTED:x]"],
  [")", "TOKEN=a)))))"],
];

test("redactSecrets() stays linear on adversarial input", () => {
  const env = { API_TOKEN: "aaaaaaaab", DB_PASSWORD: "a://u:a://u:" };
  const redact = redactor(env);
  for (const [name, unit] of ADVERSARIAL) {
    assertLinear(
      name,
      (size) => unit.repeat(Math.ceil(size / unit.length)),
      redact,
    );
  }
  // Inside a userinfo, 1 MB of each finishes (a catastrophic backtrack would
  // not; the large inputs above are 1 MB or more too).
  for (const unit of ["://", ":", "@", "x://:@", "=", "-eyJ"]) {
    redact(
      "https://u:" + unit.repeat(Math.ceil(1_000_000 / unit.length)) + "@h",
    );
  }
  assertLinear(
    "long user",
    (size) => "https://" + "u".repeat(size) + ":p@h",
    redact,
  );
  assertLinear("a run", (size) => "a".repeat(size), redact);
});

// ---------------------------------------------------------------------------
// Streams.

/** The concatenated output of a stream fed `chunks`. */
function streamed(
  redact: (text: string) => string,
  chunks: readonly string[],
): string {
  const stream = redactStream(redact);
  let out = "";
  for (const c of chunks) out += stream.push(c);
  return out + stream.flush();
}

/** `text` cut at the ascending positions `cuts`. */
function cutAt(text: string, cuts: readonly number[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const c of cuts) {
    out.push(text.slice(at, c));
    at = c;
  }
  out.push(text.slice(at));
  return out;
}

/** Lines that share no 8-character run with a generated secret. */
function filler(n: number, from = 0): string {
  let s = "";
  for (let i = from; i < from + n; i++) s += `~~ log ~~ ${i % 10} ~~\n`;
  return s;
}

interface Planted {
  name: string;
  /** The text that holds the secret. */
  text: string;
  /** The part that must never be shown. */
  secret: string;
}

const srand = rng(7);
const STREAM_ENV = {
  SERVICE_PASSWORD: pick(srand, ALNUM, 24),
  TLS_PRIVATE_PEM: [
    pick(srand, ALNUM, 30),
    pick(srand, ALNUM, 30),
    pick(srand, ALNUM, 12),
  ].join("\n"),
};
const streamRedact = redactor(STREAM_ENV);

function planted(rand: () => number): Planted[] {
  const list: Planted[] = [];
  const add = (name: string, before: string, secret: string, after = "") =>
    list.push({ name, text: before + secret + after, secret });
  add(
    "aws",
    "key AKIA",
    pick(rand, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
    " x",
  );
  add("github", "t=ghp_", pick(rand, ALNUM, 36));
  add("anthropic", "sk-ant-api03-", pick(rand, ALNUM, 60));
  add(
    "jwt",
    "auth eyJ",
    `${pick(rand, ALNUM, 20)}.eyJ${pick(rand, ALNUM, 30)}.${
      pick(rand, ALNUM, 30)
    }`,
    " ok",
  );
  add(
    "url",
    "git clone https://deploy:",
    pick(rand, ALNUM, 12) + "/" + pick(rand, ALNUM, 8),
    "@example.com/x.git",
  );
  add("url token", "https://", pick(rand, HEX, 40), "@github.com/o/r");
  add("env form", "DATABASE_PASSWORD=", pick(rand, ALNUM, 20));
  add(
    "yaml",
    "  password: ",
    `${pick(rand, ALNUM, 10)} ${pick(rand, ALNUM, 10)} ${pick(rand, ALNUM, 9)}`,
  );
  add("json", '{"client_secret": "', pick(rand, ALNUM, 24), '", "n": 1}');
  add("header", "> Authorization: Bearer ", pick(rand, ALNUM, 32));
  add("curl", "curl -H 'x-api-key: ", pick(rand, ALNUM, 28), "' https://api/x");
  add("env value", "pw is ", STREAM_ENV.SERVICE_PASSWORD, " here");
  add("multi-line env value", "cert:\n", STREAM_ENV.TLS_PRIVATE_PEM, "\nend");
  const pem = Array.from({ length: 6 }, () => pick(rand, B64, 64)).join("\n");
  add(
    "private key",
    "-----BEGIN RSA PRIVATE KEY-----\n",
    pem,
    "\n-----END RSA PRIVATE KEY-----",
  );
  return list;
}

const PLANTED = planted(srand);

test("redactStream() never shows part of a secret split at any position, alone or between newlines", () => {
  for (const p of PLANTED) {
    for (
      const text of [
        filler(3) + p.text + "\n" + filler(3),
        p.text,
        "\n" + p.text + "\n",
        filler(2) + "\n" + p.text + "\n\n" + filler(2, 2),
      ]
    ) {
      const whole = streamRedact(text);
      assertNoFragment(whole, p.secret, `${p.name} whole`);
      const start = Math.max(0, text.indexOf(p.text) - 3);
      const end = Math.min(
        text.length,
        text.indexOf(p.text) + p.text.length + 3,
      );
      for (let cut = start; cut <= end; cut++) {
        const out = streamed(streamRedact, cutAt(text, [cut]));
        assertNoFragment(out, p.secret, `${p.name} cut at ${cut}`);
        equal(out, whole, `${p.name} cut at ${cut}`);
      }
    }
  }
});

test("redactStream() hides a private key and a multi-line value cut in three, and one character at a time", () => {
  const rand = rng(8);
  for (const p of PLANTED) {
    const text = filler(2) + p.text + "\n" + filler(2, 2);
    const whole = streamRedact(text);
    const from = text.indexOf(p.text);
    for (let k = 0; k < 150; k++) {
      const a = from + Math.floor(rand() * p.text.length);
      const b = a + Math.floor(rand() * (text.length - a));
      const out = streamed(streamRedact, cutAt(text, [a, b]));
      assertNoFragment(out, p.secret, `${p.name} cut at ${a}, ${b}`);
      equal(out, whole, `${p.name} cut at ${a}, ${b}`);
    }
    equal(streamed(streamRedact, [...text]), whole, `${p.name} by characters`);
  }
});

test("redactStream() hides a multi-line environment value that arrives in two chunks, at every split", () => {
  const v = STREAM_ENV.TLS_PRIVATE_PEM;
  for (const text of [`${v}\n`, `x\n${v}\ny\n`, `${v}`, `a ${v} b ${v}\n`]) {
    for (let cut = 0; cut <= text.length; cut++) {
      const out = streamed(streamRedact, cutAt(text, [cut]));
      assertNoFragment(out, v, `cut at ${cut}`);
      equal(out, streamRedact(text));
    }
  }
});

test("redactStream() holds lines that look like a key's body, so an END line after them hides them", () => {
  const rand = rng(13);
  const body = Array.from({ length: 5 }, () => pick(rand, B64, 64)).join("\n") +
    "\n" + pick(rand, B64, 20) + "==";
  // What `tail -n 7 key.pem` shows: no BEGIN line.
  const text = "$ tail -n 7 key.pem\n" + body +
    "\n-----END RSA PRIVATE KEY-----\ndone\n";
  const whole = streamRedact(text);
  equal(whole, "$ tail -n 7 key.pem\n[REDACTED:private-key]\ndone\n");
  for (let cut = 0; cut <= text.length; cut++) {
    const out = streamed(streamRedact, cutAt(text, [cut]));
    assertNoFragment(out, body, `cut at ${cut}`);
    equal(out, whole, `cut at ${cut}`);
  }
  const lines = text.split(/(?<=\n)/);
  equal(streamed(streamRedact, lines), whole);
  // A base64 dump is held some hundred lines at most (twice as many as a
  // key has, so that looking again costs no more than the text), and ends
  // whole.
  const dump =
    Array.from({ length: 2000 }, () => pick(rand, B64, 76)).join("\n") + "\n";
  const stream = redactStream(streamRedact);
  let shown = "";
  for (const line of dump.split(/(?<=\n)/)) shown += stream.push(line);
  ok(shown.length > dump.length - 1000 * 77, `${shown.length}`);
  equal(shown + stream.flush(), dump);
});

test("redactStream() decides a name after a secret it emitted as the whole text does", () => {
  const v = STREAM_ENV.TLS_PRIVATE_PEM;
  for (
    const text of [
      `${v}Authorization: x1\n`,
      `${v}password: x2\n`,
      `${STREAM_ENV.SERVICE_PASSWORD}TOKEN=x3 ok\n`,
      `${STREAM_ENV.SERVICE_PASSWORD}sk-proj-${"a".repeat(30)} ok\n`,
    ]
  ) {
    const whole = streamRedact(text);
    equal(streamRedact(whole), whole);
    equal(streamed(streamRedact, [...text]), whole, JSON.stringify(text));
    for (let cut = 0; cut <= text.length; cut++) {
      equal(streamed(streamRedact, cutAt(text, [cut])), whole, `cut at ${cut}`);
    }
  }
});

test("redactStream() emits a complete line on the push that completes it", () => {
  const stream = redactStream(streamRedact);
  equal(stream.push("hello\n"), "hello\n");
  equal(stream.push("a partial"), "");
  equal(stream.push(" line\nnext"), "a partial line\n");
  equal(stream.push(" one\r"), "next one\r");
  equal(stream.push("password: hun"), "");
  equal(stream.push("ter2\n"), `password: ${R}\n`);
  equal(stream.push("key AKIA"), "");
  equal(
    stream.push("ABCDEFGHIJKLMNOP ok\n"),
    "key [REDACTED:aws-access-key] ok\n",
  );
  // A sensitive value that spans lines holds only while it may be coming
  // (and a line of it alone is a secret too).
  const first = STREAM_ENV.TLS_PRIVATE_PEM.split("\n")[0];
  equal(stream.push(`${first}\n`), "");
  equal(
    stream.push("not the rest\n"),
    "[REDACTED:env:TLS_PRIVATE_PEM]\nnot the rest\n",
  );
  // A private key: held until its END line, then all of it at once.
  equal(stream.push("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n"), "");
  equal(
    stream.push("-----END EC PRIVATE KEY-----\ndone\n"),
    "[REDACTED:private-key]\ndone\n",
  );
  equal(stream.flush(), "");
  // A long line with spaces is emitted as it comes, not held whole.
  const s2 = redactStream(streamRedact);
  let shown = 0;
  for (let i = 0; i < 100; i++) shown += s2.push("word ".repeat(1000)).length;
  ok(shown > 100 * 5000 - 20_000, `${shown}`);
  equal(shown + s2.flush().length, 100 * 5000);
});

test("redactStream() gives up holding a value longer than it can hold: its marker, then the line after it", () => {
  const text = "password: " + "a b ".repeat(300_000) + "c\nnext line\n";
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += 65536) {
    chunks.push(text.slice(at, at + 65536));
  }
  const out = streamed(streamRedact, chunks);
  equal(out, `password: ${R}\nnext line\n`);
  equal(out, streamRedact(text));
  const env = "TOKEN=" + "x1".repeat(200_000) + " after\n";
  equal(
    streamed(streamRedact, cutAt(env, [70_000, 140_000, 300_000])),
    `TOKEN=${R} after\n`,
  );
});

test("redactStream() equals redacting the whole text, for random texts cut at random", () => {
  const rand = rng(9);
  const pieces = [
    ...PLANTED.map((p) => p.text),
    "plain words and more words",
    "x".repeat(3000),
    "word ".repeat(700),
    B64.repeat(300),
    "12:34:56 INFO a=b c: d",
    "",
    "Authorization: Bearer " + pick(rand, ALNUM, 30),
    "https://u:" + password(rand) + "@h/x",
  ];
  for (let k = 0; k < 150; k++) {
    const parts = Array.from(
      { length: 2 + Math.floor(rand() * 8) },
      () => one(rand, pieces),
    );
    const text = parts.join(one(rand, ["\n", "\r\n", " ", "\n\n"])) +
      (rand() < 0.5 ? "\n" : "");
    const cuts: number[] = [];
    for (let at = 0; at < text.length;) {
      at += 1 + Math.floor(rand() * one(rand, [3, 50, 700, 5000]));
      if (at < text.length) cuts.push(at);
    }
    const whole = streamRedact(text);
    equal(
      streamed(streamRedact, cutAt(text, cuts)),
      whole,
      JSON.stringify(text.slice(0, 200)),
    );
  }
});

test("redactStream() with a function it does not know holds lines, and long lines where the function agrees", () => {
  const secret = "Zq9-SECRET-VALUE-77";
  const redact = (t: string) => t.replaceAll(secret, "[REDACTED]");
  const text = `a\n${secret}\nb ${secret} c\n`;
  for (let cut = 0; cut <= text.length; cut++) {
    const out = streamed(redact, cutAt(text, [cut]));
    equal(out, redact(text), `cut at ${cut}`);
  }
  // A long line: the secret at any place near a 4 KiB chunk boundary.
  const line = "w".repeat(50_000);
  for (let at = 4096 * 5 - 25; at < 4096 * 5 + 5; at++) {
    const long = line.slice(0, at) + secret + line.slice(at) + "\n";
    const chunks: string[] = [];
    for (let i = 0; i < long.length; i += 4096) {
      chunks.push(long.slice(i, i + 4096));
    }
    const out = streamed(redact, chunks);
    ok(
      !out.includes(secret.slice(0, 10)) && !out.includes(secret.slice(-10)),
      `at ${at}`,
    );
    equal(out, redact(long));
  }
  // A wrapped redactor loses what `redactor` tells the stream, not its
  // secrets (but those of one line only: it cannot know that a secret spans
  // lines).
  const wrapped = (t: string) => streamRedact(t);
  for (const p of PLANTED) {
    if (p.secret.includes("\n")) continue;
    const t = filler(2) + p.text + "\n" + filler(2);
    for (let cut = 0; cut <= t.length; cut += 3) {
      assertNoFragment(
        streamed(wrapped, cutAt(t, [cut])),
        p.secret,
        `${p.name} wrapped, cut at ${cut}`,
      );
    }
  }
});

/** 30 MB-like single-line base64, `size` characters. */
function base64Line(size: number): string {
  const rand = rng(10);
  const block = Array.from(
    { length: 1 << 16 },
    () => B64[Math.floor(rand() * 64)],
  ).join("");
  return block.repeat(Math.ceil(size / block.length)).slice(0, size);
}

function chunked(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) {
    out.push(text.slice(at, at + size));
  }
  return out;
}

test("redactStream() is linear: one long base64 line, many lines, small chunks", () => {
  const line = base64Line(10_000_000);
  const rand = rng(11);
  const words = [
    "GET",
    "/api/v1",
    "200",
    "ok",
    "key",
    "token",
    "12:34:56",
    "a=b",
    "url=https://h/x",
    "pass",
  ];
  const logLines: string[] = [];
  for (let n = 0; n < 10_000_000;) {
    const l = Array.from(
      { length: 4 + Math.floor(rand() * 10) },
      () => one(rand, words),
    ).join(" ");
    logLines.push(l);
    n += l.length + 1;
  }
  const log = logLines.join("\n") + "\n";
  for (
    const [name, text, chunk] of [
      ["base64 line, 64 KiB chunks", line, 65536],
      ["log, 64 KiB chunks", log, 65536],
      ["log, 1 KiB chunks", log, 1024],
      ["base64 line, 1 KiB chunks", line, 1024],
    ] as const
  ) {
    assertLinear(
      name,
      (size) => text.slice(0, size),
      (t) => {
        streamed(streamRedact, chunked(t, chunk));
      },
      { size: 1_000_000, factor: 10, ratio: 20 },
    );
    equal(
      streamed(streamRedact, chunked(text, chunk)),
      streamRedact(text),
      name,
    );
  }
});

test("redactStream() is linear with a function it does not know", () => {
  const line = base64Line(10_000_000);
  const redact = (t: string) => t.replaceAll("Zq9-SECRET", "[REDACTED]");
  assertLinear(
    "foreign",
    (size) => line.slice(0, size),
    (t) => {
      equal(streamed(redact, chunked(t, 65536)), t);
    },
    { size: 1_000_000, factor: 10, ratio: 20 },
  );
});

test("redactQuoted() still hides fragments of a quoted assignment", () => {
  const command = "deploy --token=abcdefghijklmnop1234 now";
  const reason = "deploy is denied: deploy --token=abcdefghij…";
  const out = redactQuoted(reason, [command], redactor());
  ok(!out.includes("abcdefghij"), out);
});
