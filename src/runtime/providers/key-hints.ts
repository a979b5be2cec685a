// What to set when a provider has no key, said the same way by the CLI, the
// panel and the model picker. One line per provider: a provider added later
// (openai, bedrock, vertex) adds its entry to KEY_HINTS.
import { type ProviderPreset } from './presets';

export interface KeyHint {
  /** Who the key is for, as the user knows it. */
  label: string;
  /** The environment variable read when SecretStorage has no key. */
  variable: string;
  /** The rest of the sentence: other ways to give it. */
  alternatives: string;
}

export const KEY_HINTS: Readonly<Record<string, KeyHint>> = {
  anthropic: { label: 'Anthropic', variable: 'ANTHROPIC_API_KEY', alternatives: 'or run "Turnstone: Set API Key" in VS Code' },
  'openai-compatible': { label: 'the OpenAI-compatible server', variable: 'OPENAI_API_KEY', alternatives: 'or run "Turnstone: Set API Key" in VS Code (a local server such as Ollama needs none)' },
  openai: { label: 'OpenAI', variable: 'OPENAI_API_KEY', alternatives: 'or run "Turnstone: Set API Key" in VS Code' },
};

/** The key's variable for this provider, or for the preset its base URL matches. */
export function keyVariableFor(provider: string, preset?: ProviderPreset): string | undefined {
  if (preset) return preset.keyVariable;
  return KEY_HINTS[provider]?.variable;
}

/** "no API key for OpenRouter: set OPENROUTER_API_KEY in the environment, or run …". */
export function missingKeyMessage(provider: string, preset?: ProviderPreset): string {
  if (preset?.keyVariable) {
    return `no API key for ${preset.label}: set ${preset.keyVariable} in the environment, or run "Turnstone: Set API Key" in VS Code (turnstone.baseUrl is ${preset.baseUrl})`;
  }
  const hint = KEY_HINTS[provider];
  if (!hint) return `no API key for the ${provider} provider: see the README's provider table for the variable to set`;
  return `no API key for ${hint.label}: set ${hint.variable} in the environment, ${hint.alternatives}`;
}
