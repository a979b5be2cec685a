// How the CLI reaches each provider: the environment variable a --settings
// `turnstone.baseUrl` stands in for, and how the client's options (or the line
// saying what to set) come from the environment. One entry per provider.
import { PROVIDER_NAMES, type ProviderName, type TurnstoneSettings } from '../agent/settings';
import { cloudModelOptions } from './cloud-providers';
import { missingKeyMessage } from '../runtime/providers/key-hints';
import { presetForBaseUrl } from '../runtime/providers/presets';
import { type ModelClientOptions, resolveAnthropicEnv, resolveOpenAIEnv } from '../runtime/providers';

type Env = Record<string, string | undefined>;

interface CliProvider {
  /** Where `turnstone.baseUrl` from --settings goes (the environment's own value wins). */
  baseUrlVariable: string;
  resolve(env: Env, settings: TurnstoneSettings): ModelClientOptions | { error: string };
}

export const CLI_PROVIDERS: Record<ProviderName, CliProvider> = {
  anthropic: {
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
    resolve(env) {
      const resolved = resolveAnthropicEnv(env);
      if (!resolved.apiKey) return { error: 'no API key: set ANTHROPIC_API_KEY in the environment (e.g. export ANTHROPIC_API_KEY=sk-ant-…)' };
      return { provider: 'anthropic', ...resolved };
    },
  },
  openai: {
    baseUrlVariable: 'OPENAI_BASE_URL',
    resolve(env) {
      const resolved = resolveOpenAIEnv(env);
      if (!resolved.apiKey) return { error: 'no API key: set OPENAI_API_KEY in the environment for the openai provider (e.g. export OPENAI_API_KEY=sk-…)' };
      return { provider: 'openai', ...resolved };
    },
  },
  'openai-compatible': {
    baseUrlVariable: 'OPENAI_BASE_URL',
    resolve(env) {
      const resolved = resolveOpenAIEnv(env);
      if (!resolved.baseURL) return { error: 'no server: set OPENAI_BASE_URL for the openai-compatible provider (e.g. http://127.0.0.1:11434/v1)' };
      // A preset's server (OpenRouter, Groq, …) takes its own variable first; local servers (Ollama, LM Studio) accept any key, and the SDK insists on one.
      const preset = presetForBaseUrl(resolved.baseURL);
      const apiKey = (preset?.keyVariable ? env[preset.keyVariable]?.trim() || undefined : undefined) ?? resolved.apiKey;
      if (!apiKey && preset?.keyVariable) return { error: missingKeyMessage('openai-compatible', preset) };
      return { provider: 'openai-compatible', ...resolved, apiKey: apiKey ?? 'not-needed' };
    },
  },
  // The cloud's credential chain signs: no key; the endpoint is the settings' base URL or the region's.
  bedrock: { baseUrlVariable: 'ANTHROPIC_BEDROCK_BASE_URL', resolve: (env, settings) => cloudModelOptions('bedrock', env, settings) },
  vertex: { baseUrlVariable: 'ANTHROPIC_VERTEX_BASE_URL', resolve: (env, settings) => cloudModelOptions('vertex', env, settings) },
  // VS Code's Language Model API exists only inside the editor.
  'vscode-lm': { baseUrlVariable: 'OPENAI_BASE_URL', resolve: () => ({ error: "the vscode-lm provider uses the editor's language models and works only in VS Code: choose another --provider" }) },
};

export const isProviderName = (name: string): name is ProviderName => (PROVIDER_NAMES as readonly string[]).includes(name);

/**
 * `--provider` wins over TURNSTONE_PROVIDER, which wins over --settings' provider;
 * the environment's base URL over --settings' (the key only ever comes from the environment).
 */
export function cliModelOptions(flag: ProviderName | undefined, processEnv: Env, settings: TurnstoneSettings): ModelClientOptions | { error: string } {
  const fromEnv = processEnv['TURNSTONE_PROVIDER']?.trim();
  const name = flag ?? (fromEnv || settings.provider);
  if (!isProviderName(name)) return { error: `unknown TURNSTONE_PROVIDER '${name}': use ${PROVIDER_NAMES.join(', ')}` };
  const provider = CLI_PROVIDERS[name];
  const baseUrl = settings.baseUrl ? { [provider.baseUrlVariable]: settings.baseUrl } : {};
  return provider.resolve({ ...baseUrl, ...processEnv }, settings);
}
