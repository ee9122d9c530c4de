/**
 * The way out: what leaves the process (tool results, spill files, audit records) is formatted, sanitised and redacted here.
 *
 * @module
 */

export * from "./format.ts";
export * from "./redact.ts";
export * from "./audit.ts";
