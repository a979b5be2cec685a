// Which environment variables a child process Turnstone starts (a command the model runs, a hook) must not
// inherit: credentials, judged by the shape of the name rather than a list of known ones. A list missed the
// cloud keys (AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN reached every command with --provider bedrock) and
// a CI runner's tokens; a command or an injected `curl … -d "$(env)"` hands whatever it sees to the model.
// The patterns follow Codex's shell environment policy (*KEY*, *SECRET*, *TOKEN*) and add passwords and
// credentials; a name the user lists in turnstone.bash.env.passthrough is kept.

/** Name fragments that mark a credential (matched case-insensitively anywhere in the name). */
const CREDENTIAL_FRAGMENTS = ['KEY', 'SECRET', 'TOKEN', 'PASSWORD', 'PASSWD', 'CREDENTIAL'];

/**
 * Credential variables whose names carry none of those fragments: Azure's service principal, Google's and
 * the runner's request URL for OIDC tokens, and the Action's inputs (INPUT_* hold what the workflow passed in,
 * keys included).
 */
const CREDENTIAL_NAMES = ['AZURE_CLIENT_CERTIFICATE_PATH', 'AZURE_FEDERATED_TOKEN_FILE', 'GOOGLE_GHA_CREDS_PATH', 'CLOUDSDK_AUTH_ACCESS_TOKEN_FILE'];
const CREDENTIAL_PREFIXES = ['INPUT_'];

/** Whether a variable of this name looks like it holds a credential. */
export function looksLikeCredential(name: string): boolean {
  const upper = name.toUpperCase();
  return CREDENTIAL_FRAGMENTS.some((f) => upper.includes(f)) || CREDENTIAL_NAMES.includes(upper) || CREDENTIAL_PREFIXES.some((p) => upper.startsWith(p));
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
