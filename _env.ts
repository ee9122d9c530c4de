/**
 * Environment defaults for commands that nobody can answer interactively.
 *
 * @module
 */

/** Variables set for every command, so that nothing waits for a person. */
export const NONINTERACTIVE_ENV: Readonly<Record<string, string>> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  TERM: "dumb",
  NO_COLOR: "1",
  GIT_TERMINAL_PROMPT: "0",
  DEBIAN_FRONTEND: "noninteractive",
};
