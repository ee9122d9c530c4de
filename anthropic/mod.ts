/**
 * The Anthropic adapter: the `bash_20250124` and text editor tool definitions, runnable tools for the SDK's tool runner, and `runAgent`, the agent loop over the Messages API.
 *
 * @module
 */

export * from "./anthropic.ts";
