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

/**
 * Provider credentials a session does not inherit from the host: every
 * variable with one of these prefixes (the official SDK's BashSession drops
 * `ANTHROPIC_*` the same way)...
 */
export const CREDENTIAL_PREFIXES: readonly string[] = [
  "ANTHROPIC_",
  "OPENAI_",
  "AZURE_OPENAI_",
  "CLAUDE_API_",
];

/** ...and these names (the API keys of other model providers). */
export const CREDENTIAL_NAMES: readonly string[] = [
  "AI21_API_KEY",
  "AWS_BEARER_TOKEN_BEDROCK",
  "CEREBRAS_API_KEY",
  "CO_API_KEY",
  "COHERE_API_KEY",
  "DEEPSEEK_API_KEY",
  "FIREWORKS_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "GROQ_API_KEY",
  "HF_TOKEN",
  "HUGGING_FACE_HUB_TOKEN",
  "HUGGINGFACEHUB_API_TOKEN",
  "MISTRAL_API_KEY",
  "OPENROUTER_API_KEY",
  "PERPLEXITY_API_KEY",
  "PPLX_API_KEY",
  "REPLICATE_API_TOKEN",
  "TOGETHER_API_KEY",
  "VOYAGE_API_KEY",
  "XAI_API_KEY",
];

/**
 * bash that unsets the provider credentials a shell inherited, except the
 * names in `keep` (those the caller passed on purpose). No fork: the names
 * come from bash's own `${!prefix@}` expansion.
 */
export function unsetCredentials(keep: readonly string[]): string {
  const names = [
    ...CREDENTIAL_PREFIXES.map((p) => `\${!${p}@}`),
    ...CREDENTIAL_NAMES,
  ].join(" ");
  const kept = keep.filter((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k));
  const body = kept.length
    ? `case $__bbv in ${kept.join("|")}) ;; *) builtin unset -v "$__bbv";; esac`
    : `builtin unset -v "$__bbv"`;
  return `for __bbv in ${names};do ${body};done;builtin unset -v __bbv`;
}
