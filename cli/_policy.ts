/**
 * What `cli.ts` and `_mcp_cli.ts` share: the usage error of a command line and
 * the loading of a `--policy` (a built-in name or a JSON file of
 * {@linkcode PolicyOptions}), with the same error texts in both.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { Policy, type PolicyOptions } from "../policy/mod.ts";

/** A mistake in the words of a command line: reported with a pointer to `--help`. */
export class UsageError extends Error {}

/**
 * Reads the JSON policy file `path` given to `--policy`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readPolicyFile, UsageError } from "./_policy.ts";
 *
 * assert.throws(() => readPolicyFile("/nonexistent/policy.json"), UsageError);
 * ```
 */
export function readPolicyFile(path: string): PolicyOptions {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(
      `Expected --policy to be readonly, allow-all or a JSON file, got "${path}" (${
        (error as Error).message
      })`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `The policy file ${path} is not JSON: ${(error as Error).message}`,
    );
  }
}

/**
 * The {@linkcode Policy} of `options`; a usage error that starts with `what`
 * (default "The policy") when they are not valid.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { policyOf } from "./_policy.ts";
 *
 * assert.equal(policyOf({ allow: ["ls"] }).check("ls -l").decision, "allow");
 * ```
 */
export function policyOf(options: PolicyOptions, what = "The policy"): Policy {
  try {
    return new Policy(options);
  } catch (error) {
    throw new UsageError(`${what} is not valid: ${(error as Error).message}`);
  }
}

/**
 * The policy `spec` names: `readonly` (or `read-only`), `allow-all`, or a
 * JSON file of `{ allow, ask, deny, default }`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadPolicy } from "./_policy.ts";
 *
 * assert.equal(loadPolicy("readonly").check("ls -l").decision, "allow");
 * assert.equal(loadPolicy("allow-all").check("rm -rf /").decision, "allow");
 * ```
 */
export function loadPolicy(spec: string): Policy {
  if (spec === "readonly" || spec === "read-only") return Policy.readOnly();
  if (spec === "allow-all") return Policy.allowAll();
  return policyOf(readPolicyFile(spec), `The policy file ${spec}`);
}
