/**
 * The bash grammar: a parser for the command lines bash reads, used by the policy and the session's syntax check.
 *
 * @module
 */

export * from "./parse.ts";
export * from "./limits.ts";
export * from "./last_program.ts";
