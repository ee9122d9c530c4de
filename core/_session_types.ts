/**
 * The session types the entry points' APIs name (`./anthropic`, `./editor`,
 * `./mcp`, `./pool`), gathered once: each entry point re-exports them with
 * `export type * from "./_session_types.ts"`, so its documentation stands on
 * its own.
 *
 * @module
 */

export type {
  BackgroundProcess,
  BashSession,
  BashSessionOptions,
  Limits,
  ProcessOutput,
  ProcessStatus,
  ReadOptions,
  RunOptions,
  Sandbox,
  SessionResult,
  SpawnProcessOptions,
  StopOptions,
  Transport,
} from "./session.ts";
export type { Capture } from "./_capture.ts";
export type { RestoredState, StateJournal } from "./_journal.ts";
