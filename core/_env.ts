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
  // Nobody can use an editor here: programs that open one (git commit without
  // -m, git rebase -i, crontab -e, visudo) fail at once with their own message
  // instead of waiting for a terminal until the deadline.
  EDITOR: "false",
  VISUAL: "false",
  GIT_EDITOR: "false",
  GIT_SEQUENCE_EDITOR: "false",
  SYSTEMD_PAGER: "cat",
  SYSTEMD_EDITOR: "false",
  SSH_ASKPASS_REQUIRE: "never",
};
