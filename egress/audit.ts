/**
 * The audit trail: every command is recorded before it runs and again when it
 * ends, so a command that hangs or kills the session still leaves its first
 * record.
 *
 * @module
 */

import { closeSync, openSync, writeSync } from "node:fs";

/** The record written before a command runs. */
export interface AuditStart {
  /** Before the command runs. */
  event: "start";
  /** ISO 8601 time. */
  time: string;
  /** The session the command ran in. */
  sessionId: string;
  /** The `tool_use` id of the call. */
  toolUseId: string;
  /** The command as the model sent it, redacted. */
  command: string;
  /**
   * The policy decision: `allow`, `deny`, `ask:approved`, `ask:refused`,
   * `ask:failed` (the approval callback threw), or `none` without a policy.
   */
  decision: string;
  /** Why the policy decided so, when there is a policy (redacted, quoted fragments of secrets included). */
  reason?: string;
  /**
   * The session keeps the policy's promise (true), or the policy promises
   * and the session runs uncontained (false); absent without a promise.
   */
  contained?: boolean;
}

/** The record written when a command ends (or was refused). */
export interface AuditEnd {
  /** After the command ended or was refused. */
  event: "end";
  /** ISO 8601 time. */
  time: string;
  /** The session the command ran in. */
  sessionId: string;
  /** The `tool_use` id of the call. */
  toolUseId: string;
  /** The command, redacted. */
  command: string;
  /** The policy decision (see AuditStart). */
  decision: string;
  /** Exit code, or null when there was none (refused, killed). */
  exitCode: number | null;
  /** The deadline stopped the command. */
  timedOut: boolean;
  /** The shell died or was killed, and its state was lost. */
  restarted: boolean;
  /** Wall time of the call. */
  durationMs: number;
  /** Bytes the command printed (all streams). */
  outputBytes: number;
  /** The first characters of what the model was shown, redacted. */
  preview: string;
  /** The result went to the model with `is_error`. */
  isError: boolean;
  /** As in {@linkcode AuditStart}. */
  contained?: boolean;
}

/** One audit event. */
export type AuditRecord = AuditStart | AuditEnd;

/**
 * Where audit records go. `write` is awaited before the command runs; when
 * the `start` record cannot be written (it throws or rejects) the command is
 * not run, and a failed `end` record is named in the result.
 */
export interface AuditSink {
  /** Stores one record. */
  write(record: AuditRecord): void | Promise<void>;
  /** Releases the sink (optional). */
  close?(): void | Promise<void>;
}

/** An {@linkcode AuditSink} that appends JSON Lines to a file. */
export interface JsonlAudit extends AuditSink {
  /** The file written to. */
  readonly path: string;
  /** Closes the file. */
  close(): void;
}

/**
 * An audit sink that appends one JSON line per event to `path`, written with
 * a synchronous append so each record is in the file before the command runs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonlAudit } from "../mod.ts";
 *
 * const path = await Deno.makeTempFile({ suffix: ".jsonl" });
 * const audit = jsonlAudit(path);
 * audit.write({
 *   event: "start", time: new Date().toISOString(), sessionId: "s1",
 *   toolUseId: "toolu_1", command: "ls", decision: "none",
 * });
 * audit.close();
 * assert.ok(JSON.parse(await Deno.readTextFile(path)).command === "ls");
 * await Deno.remove(path);
 * ```
 */
export function jsonlAudit(path: string): JsonlAudit {
  if (typeof path !== "string" || path === "") {
    throw new TypeError(
      `Expected the audit path to be a non-empty string, got ${
        JSON.stringify(path)
      }`,
    );
  }
  let fd: number | null = openSync(path, "a", 0o600);
  const encoder = new TextEncoder();
  return {
    path,
    write(record: AuditRecord): void {
      if (fd === null) throw new Error(`The audit file ${path} is closed`);
      const bytes = encoder.encode(JSON.stringify(record) + "\n");
      let offset = 0;
      while (offset < bytes.length) {
        offset += writeSync(fd, bytes, offset, bytes.length - offset);
      }
    },
    close(): void {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

/**
 * An audit sink that keeps records in memory (for tests and small tools).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoryAudit } from "../mod.ts";
 *
 * const audit = memoryAudit();
 * audit.write({ event: "start", time: "", sessionId: "s", toolUseId: "t", command: "ls", decision: "none" });
 * assert.ok(audit.records.length === 1);
 * ```
 */
export function memoryAudit(): AuditSink & { records: AuditRecord[] } {
  const records: AuditRecord[] = [];
  return {
    records,
    write(record: AuditRecord): void {
      records.push(record);
    },
  };
}
