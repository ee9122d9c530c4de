/**
 * Names of the Linux signals the library reports, by number. Pure data: used
 * by the process layer (Bun reports numbers) and by `format.ts` (exit codes
 * 128 + n).
 *
 * @module
 */

/** Signal names by number (Linux x86_64 and arm64). */
export const SIGNAL_NAMES: Readonly<Record<number, string>> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  4: "SIGILL",
  6: "SIGABRT",
  8: "SIGFPE",
  9: "SIGKILL",
  11: "SIGSEGV",
  13: "SIGPIPE",
  14: "SIGALRM",
  15: "SIGTERM",
  24: "SIGXCPU",
  25: "SIGXFSZ",
};
