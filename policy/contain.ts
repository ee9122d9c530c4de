/**
 * A policy's promise about effects (`contain`), read from options: where
 * commands may write and whether they may reach the network. The kernel
 * keeps it (`core/containment.ts`).
 *
 * @module
 */

import type { Containment } from "../core/containment.ts";

/**
 * Checks a containment promise given as options, naming what was expected.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkContainment } from "./contain.ts";
 *
 * assert.deepEqual(checkContainment({ writable: ["."] }), { writable: ["."], network: false });
 * assert.throws(() => checkContainment({ writable: "." }), /array of paths/);
 * ```
 */
export function checkContainment(value: unknown): Containment {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError(
      `Expected contain to be { writable?: string[], network?: boolean }, got ${
        JSON.stringify(value)
      }`,
    );
  }
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) {
    if (key !== "writable" && key !== "network") {
      throw new TypeError(
        `Unknown contain option "${key}": expected writable or network`,
      );
    }
  }
  const writable = v.writable ?? [];
  if (
    !Array.isArray(writable) ||
    writable.some((p) => typeof p !== "string" || p === "" || p.includes("\0"))
  ) {
    throw new TypeError(
      `Expected contain.writable to be an array of paths, got ${
        JSON.stringify(v.writable)
      }`,
    );
  }
  if (v.network !== undefined && typeof v.network !== "boolean") {
    throw new TypeError(
      `Expected contain.network to be true or false, got ${
        JSON.stringify(v.network)
      }`,
    );
  }
  return { writable: [...writable], network: v.network === true };
}
