/**
 * Names whose value changes what a command runs or how it reads its words:
 * search paths, loaders, shell hooks, program configuration read from the
 * environment (`TAR_OPTIONS`, `RIPGREP_CONFIG_PATH`, `npm_config_*`), and the
 * shell's own tables (`BASH_ALIASES`, `BASH_CMDS`).
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

/**
 * Whether setting `name` changes how commands run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dangerousName } from "./env.ts";
 *
 * assert.equal(dangerousName("npm_config_script_shell"), true);
 * assert.equal(dangerousName("count"), false);
 * ```
 */
export function dangerousName(name: string): boolean {
  return DANGEROUS.test(name);
}

/**
 * Whether `name` is an environment variable known to change only how
 * programs format their output (locale, time zone, colours, widths, block
 * sizes): the read-only preset allows setting these before a command and
 * treats every other name it does not know as a value it cannot judge.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { harmlessName } from "./env.ts";
 *
 * assert.equal(harmlessName("LC_ALL"), true);
 * assert.equal(harmlessName("OPENSSL_CONF"), false);
 * ```
 */
export function harmlessName(name: string): boolean {
  return HARMLESS.test(name);
}

const HARMLESS = new RegExp(
  "^(" + [
    "LANG",
    "LANGUAGE",
    "LC_[A-Z]+",
    "TZ",
    "COLUMNS",
    "LINES",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "GREP_COLORS?",
    "LS_COLORS",
    "TIME_STYLE",
    "QUOTING_STYLE",
    "(DF_|DU_|LS_)?BLOCK_SIZE",
    "BLOCKSIZE",
    "SOURCE_DATE_EPOCH",
  ].join("|") + ")$",
);

const DANGEROUS = new RegExp(
  "^(" + [
    "PATH",
    "LD_\\w*",
    "DYLD_\\w*",
    "BASH_ENV",
    "ENV",
    "IFS",
    "PS[0-4]",
    "PROMPT_COMMAND",
    "SHELLOPTS",
    "BASHOPTS",
    "BASH_XTRACEFD",
    "BASH_FUNC_\\w*",
    "BASH_ALIASES",
    "BASH_CMDS",
    "BASH_COMPAT",
    "BASH_LOADABLES_PATH",
    "EXECIGNORE",
    "GLOBIGNORE",
    "POSIXLY_CORRECT",
    "SHELL",
    "CDPATH",
    "HISTFILE",
    "TMOUT",
    "INPUTRC",
    "GIT_\\w*",
    "PAGER",
    "MANPAGER",
    "MANOPT",
    "LESS\\w*",
    "EDITOR",
    "VISUAL",
    "BROWSER",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHON\\w*",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_CONFIG_DIRS",
    "GCONV_PATH",
    "LOCPATH",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "[Nn][Pp][Mm]_\\w*",
    "YARN_\\w*",
    "TAR_OPTIONS",
    "RIPGREP_CONFIG_PATH",
    "GREP_OPTIONS",
    "XZ_OPT",
    "XZ_DEFAULTS",
    "GZIP",
    "BZIP2?",
    "ZSTD_\\w*",
    "AWKPATH",
    "AWKLIBPATH",
    "MAGIC",
    "TMPDIR",
    "TERMINFO\\w*",
    "SYSTEMD_\\w*",
    "TAPE",
    "GLIBC_TUNABLES",
    "MALLOC_\\w*",
    "NLSPATH",
    "HOSTALIASES",
    "MAKE",
    "MAKEFLAGS",
    "MFLAGS",
    "GNUMAKEFLAGS",
    "CC",
    "CXX",
    "CPP",
    "LD",
    "AR",
    "AS",
    "FC",
    "CFLAGS",
    "CXXFLAGS",
    "CPPFLAGS",
    "LDFLAGS",
    "RUSTC\\w*",
    "RUSTDOC\\w*",
    "RUSTFLAGS",
    "CARGO_\\w*",
    "GOFLAGS",
    "GOROOT",
    "GOPATH",
    "GOTOOLDIR",
    "GOENV",
    "GOPROXY",
    "GOEXPERIMENT",
    "PIP_\\w*",
    "UV_\\w*",
    "PNPM_\\w*",
    "BUN_\\w*",
    "DENO_\\w*",
    "BUNDLE_\\w*",
    "GEM_\\w*",
    "COMPOSER_\\w*",
    "PHPRC",
    "COREPACK_\\w*",
    "MAVEN_OPTS",
    "GRADLE_OPTS",
    "JAVA_HOME",
  ].join("|") + ")$",
);
