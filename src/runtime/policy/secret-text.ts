// Whether a text holds a credential by its shape: a private key block, a provider's key or token format, a URL
// with a password, or an assignment to a credential-named variable (secret-env's naming rule) of a value that
// looks real. Used where Turnstone would keep text the model wrote beyond the session (the memory tool's notes),
// so a key pasted into a chat never lands in a plain file that every later session reads back.
// Errs towards naming a placeholder as harmless: `API_KEY=<your key>`, `TOKEN=${TOKEN}` and `password: ***` pass.
import { looksLikeCredential } from './secret-env';

/** Formats whose shape alone says "credential" (what they are, for the message). */
const SHAPES: ReadonlyArray<readonly [string, RegExp]> = [
  ['a private key', /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/],
  ['an Anthropic API key', /\bsk-ant-[A-Za-z0-9_-]{20,}/],
  ['an OpenAI-style API key', /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}/],
  ['a GitHub token', /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/],
  ['a GitLab token', /\bglpat-[A-Za-z0-9_-]{20,}/],
  ['an AWS access key id', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/],
  ['a Slack token', /\bxox[abeprs]-[A-Za-z0-9-]{10,}/],
  ['a Google API key', /\bAIza[0-9A-Za-z_-]{35}/],
  ['a Stripe key', /\b[rs]k_live_[0-9A-Za-z]{20,}/],
  ['an npm token', /\bnpm_[A-Za-z0-9]{36}\b/],
  ['a JSON Web Token', /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/],
  ['a URL with a password', /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]{3,}@[^\s]/i],
];

/** `NAME=value`, `NAME: value`, `"name": "value"`: the name and the value as written. */
const ASSIGNMENT = /(?:^|[\s{,;(])["']?([A-Za-z_][A-Za-z0-9_.-]*)["']?\s*[:=]\s*["']?([^\s"',;)}]+)/gm;

/** A value that stands for a secret rather than being one. */
function placeholder(value: string): boolean {
  return /^(?:<.*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{.*\}\}|%[A-Za-z_]+%|\*+|x+|\.{3}|…|null|none|undefined|true|false|changeme|redacted|example|your[-_a-z]*)$/i.test(value);
}

/** A value that could be a real secret: long enough, and not only letters (a word) or only digits (a port). */
function realistic(value: string): boolean {
  if (value.length < 8 || placeholder(value)) return false;
  if (/^[A-Za-z_-]+$/.test(value) && value.length < 24) return false;
  if (/^\d+$/.test(value)) return false;
  return true;
}

/** What kind of credential the text appears to hold, or undefined when none. */
export function findSecret(text: string): string | undefined {
  for (const [what, shape] of SHAPES) if (shape.test(text)) return what;
  for (const match of text.matchAll(ASSIGNMENT)) {
    const name = match[1]!.replace(/[.-]/g, '_');
    if (looksLikeCredential(name) && realistic(match[2]!)) return `a value for ${match[1]}`;
  }
  return undefined;
}
