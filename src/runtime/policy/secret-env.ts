// Which environment variables a child process Turnstone starts (a command the model runs, a hook) must not
// inherit: credentials, judged by the shape of the name rather than a list of known ones. A list missed the
// cloud keys (AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN reached every command with --provider bedrock) and
// a CI runner's tokens; a command or an injected `curl … -d "$(env)"` hands whatever it sees to the model.
// The patterns follow Codex's shell environment policy (*KEY*, *SECRET*, *TOKEN*) and add passwords and
// credentials; a name the user lists in turnstone.bash.env.passthrough is kept.

/**
 * Words that mark a credential when they stand as a word of the name (`AWS_SECRET_ACCESS_KEY`, `GITHUB_TOKEN`,
 * `DB_PASSWORD`) or end it (`SLACKTOKEN`, `MYAPIKEY`). Matched as words, not anywhere: `TOKENIZERS_PARALLELISM`,
 * `PYTHON_KEYRING_BACKEND` and `GNOME_KEYRING_CONTROL` are settings that tools need, not secrets.
 */
const CREDENTIAL_WORDS = /(^|_)(KEYS?|APIKEY|SECRETS?|TOKENS?|PASSWORDS?|PASSWD|PASS|CREDENTIALS?|PAT)(_|$)|(KEY|TOKEN|SECRET|PASSWORD|PASSWD)$/;

/**
 * Names that point at where something lives rather than hold it (`PASSWORD_STORE_DIR`,
 * `AWS_SHARED_CREDENTIALS_FILE`, `SSH_KEY_PATH`): removing the path protects nothing (the file stays readable
 * where the sandbox does not hide it) and breaks the tool that reads it.
 */
const LOCATION_SUFFIX = /_(FILE|PATH|DIR|HOME)$/;

/** git's environment config (GIT_CONFIG_COUNT, _KEY_n, _VALUE_n): one set, kept whole or dropped whole by its values. */
const GIT_CONFIG_KEY = /^GIT_CONFIG_KEY_\d+$/;

/**
 * Credential variables whose names carry none of those words: Google's service-account file (a path, but the
 * one every Google client reads its key from) and the Action's inputs (INPUT_* hold what the workflow passed in,
 * keys included).
 */
const CREDENTIAL_NAMES = ['GOOGLE_APPLICATION_CREDENTIALS'];
const CREDENTIAL_PREFIXES = ['INPUT_'];

/** Whether a variable of this name looks like it holds a credential. */
export function looksLikeCredential(name: string): boolean {
  const upper = name.toUpperCase();
  if (CREDENTIAL_NAMES.includes(upper) || CREDENTIAL_PREFIXES.some((p) => upper.startsWith(p))) return true;
  if (GIT_CONFIG_KEY.test(upper) || LOCATION_SUFFIX.test(upper)) return false;
  return CREDENTIAL_WORDS.test(upper);
}

/** The names of `env` a child must not get: every credential-looking one not in `passthrough`. */
export function credentialNames(env: NodeJS.ProcessEnv, passthrough: readonly string[] = []): string[] {
  const keep = new Set(passthrough.map((n) => n.trim()).filter(Boolean));
  return Object.keys(env).filter((name) => looksLikeCredential(name) && !keep.has(name));
}

/** `env` without its credentials (a copy). */
export function withoutCredentials(env: NodeJS.ProcessEnv, passthrough: readonly string[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of credentialNames(env, passthrough)) delete out[name];
  return out;
}
