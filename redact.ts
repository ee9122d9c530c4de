/**
 * Secret redaction: known token shapes and the values of sensitive
 * environment variables become `[REDACTED:kind]`. Every pattern is linear
 * (no nested quantifiers), so adversarial input cannot make it backtrack.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

/** Options of {@linkcode redactSecrets}. */
export interface RedactOptions {
  /**
   * Environment whose sensitive values are redacted wherever they appear:
   * names containing KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH or
   * PRIVATE, with values of 8 characters or more.
   */
  env?: Record<string, string | undefined>;
}

/** Token shapes, each with its kind. Order matters: specific before general. */
const PATTERNS: [string, RegExp][] = [
  [
    "private-key",
    /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----[\s\S]{0,10000}?-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----/g,
  ],
  ["anthropic-key", /\bsk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_-]{20,200}/g],
  ["openai-key", /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,200}/g],
  ["github-token", /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b/g],
  ["github-token", /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g],
  ["aws-access-key", /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g],
  ["slack-token", /\bxox[baprs]-[A-Za-z0-9-]{10,200}/g],
  ["google-api-key", /\bAIza[0-9A-Za-z_-]{35}\b/g],
  [
    "jwt",
    /\beyJ[A-Za-z0-9_-]{5,4000}\.eyJ[A-Za-z0-9_-]{5,4000}\.[A-Za-z0-9_-]{0,4000}/g,
  ],
];

/** user:password@ in URLs: the password goes, the rest stays. */
const URL_CREDENTIALS =
  /\b([a-zA-Z][a-zA-Z0-9+.-]{0,20}:\/\/[^\s:/@]{1,200}:)[^\s@/]{1,200}@/g;

const SENSITIVE_NAME =
  /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|PRIVATE/i;

/**
 * Replaces secrets in `text` with `[REDACTED:kind]`.
 *
 * @example
 * ```ts
 * import { redactSecrets } from "./redact.ts";
 *
 * const out = redactSecrets("key=AKIAABCDEFGHIJKLMNOP and pw=hunter2hunter2", {
 *   env: { DB_PASSWORD: "hunter2hunter2" },
 * });
 * console.assert(out === "key=[REDACTED:aws-access-key] and pw=[REDACTED:env:DB_PASSWORD]");
 * ```
 */
export function redactSecrets(
  text: string,
  options: RedactOptions = {},
): string {
  if (typeof text !== "string") {
    throw new TypeError(`Expected text to be a string, got ${typeof text}`);
  }
  let out = text;
  const values = Object.entries(options.env ?? {})
    .filter(([name, value]) =>
      SENSITIVE_NAME.test(name) && typeof value === "string" &&
      value.length >= 8
    )
    .sort((a, b) => b[1]!.length - a[1]!.length);
  for (const [name, value] of values) {
    if (out.includes(value!)) {
      out = out.split(value!).join(`[REDACTED:env:${name}]`);
    }
  }
  for (const [kind, pattern] of PATTERNS) {
    out = out.replace(pattern, `[REDACTED:${kind}]`);
  }
  return out.replace(URL_CREDENTIALS, "$1[REDACTED:url-credentials]@");
}

/**
 * A redactor bound to an environment, for `BashTool`'s `redact` option.
 *
 * @example
 * ```ts
 * import { redactor } from "./redact.ts";
 *
 * const redact = redactor({ API_TOKEN: "abcdefgh12345678" });
 * console.assert(redact("t=abcdefgh12345678") === "t=[REDACTED:env:API_TOKEN]");
 * ```
 */
export function redactor(
  env: Record<string, string | undefined> = {},
): (text: string) => string {
  return (text) => redactSecrets(text, { env });
}
