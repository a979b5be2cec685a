// The session file is uploaded as an artifact that anyone who can read the run can download. The secrets the
// action was given (its key inputs, the job token, and every credential-looking variable of the job's
// environment, e.g. a secret passed with `env:`) may have reached it through a command's output or the
// model's words: each is replaced by *** before the upload, as the runner masks them in the log.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

export const MASK = '***';

/** The secret in every form it takes in a JSON line: as is, and JSON-escaped (a quote, a backslash, a newline). */
function spellings(secret: string): string[] {
  const escaped = JSON.stringify(secret).slice(1, -1);
  return escaped === secret ? [secret] : [secret, escaped];
}

/** `text` with every secret replaced by ***; the count of replacements. */
function masked(text: string, secrets: readonly string[]): { text: string; count: number } {
  let out = text;
  let count = 0;
  // Longest first: a secret that contains another must be replaced whole.
  for (const form of secrets.flatMap(spellings).sort((a, b) => b.length - a.length)) {
    const parts = out.split(form);
    count += parts.length - 1;
    out = parts.join(MASK);
  }
  return { text: out, count };
}

export function maskSecrets(text: string, secrets: readonly string[]): string {
  return masked(text, secrets).text;
}

/** How many were replaced; the file is rewritten (0600) only when some were. */
export function maskSecretsInFile(file: string, secrets: readonly string[]): number {
  const { text: result, count } = masked(readFileSync(file, 'utf8'), secrets);
  if (count === 0) return 0;
  const temp = `${file}.masking`;
  writeFileSync(temp, result, { mode: 0o600 });
  renameSync(temp, file);
  return count;
}
