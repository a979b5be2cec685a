// API keys live in SecretStorage (never in settings, logs or session files);
// the environment variable is the fallback so `npm start` and CI work unattended.
// A preset of the OpenAI-compatible provider (OpenRouter, Groq, …) has a slot and
// a variable of its own, so one server's key is not sent to another; the
// provider's general key still works for it, as it did before presets.
import * as vscode from 'vscode';
import { SECRET_ANTHROPIC_KEY, SECRET_OPENAI_KEY } from './contract';
import { type ProviderName } from './settings';
import { type ProviderPreset } from '../runtime/providers/presets';

const secretKey = (provider: ProviderName) => (provider === 'anthropic' ? SECRET_ANTHROPIC_KEY : SECRET_OPENAI_KEY);
const envKey = (provider: ProviderName) => (provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY');
const PRESET_SECRET_PREFIX = 'turnstone.apiKey.';
/** The preset's own slot; a preset of a local server (no key variable) has none. */
const presetSecret = (preset: ProviderPreset | undefined) => (preset?.keyVariable ? `${PRESET_SECRET_PREFIX}${preset.id}` : undefined);
const fromEnv = (name: string | undefined) => (name ? process.env[name]?.trim() || undefined : undefined);

/** Providers nothing can be sent to without a key (local OpenAI-compatible servers take any). */
export const needsApiKey = (provider: ProviderName): boolean => provider === 'anthropic' || provider === 'openai';

/** The provider as the panel's messages name it ("{0} did not accept the API key"). */
export function providerLabel(provider: ProviderName): string {
  switch (provider) {
    case 'anthropic':
      return 'Anthropic';
    case 'openai':
      return 'OpenAI';
    case 'bedrock':
      return 'Amazon Bedrock';
    case 'vertex':
      return 'Google Vertex AI';
    case 'vscode-lm':
      return vscode.l10n.t("VS Code's language model");
    default:
      return vscode.l10n.t('the API server');
  }
}

function keyTitle(provider: ProviderName): string {
  switch (provider) {
    case 'anthropic':
      return vscode.l10n.t('Anthropic API key');
    case 'openai':
      return vscode.l10n.t('OpenAI API key');
    default:
      return vscode.l10n.t('API key for the OpenAI-compatible server');
  }
}

export class ApiKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  /** The key for the provider, or for the preset its base URL matches: the preset's slot and variable first. */
  async get(provider: ProviderName, preset?: ProviderPreset): Promise<string | undefined> {
    const slot = provider === 'openai-compatible' ? presetSecret(preset) : undefined;
    if (slot) {
      const own = (await this.secrets.get(slot)) ?? fromEnv(preset?.keyVariable);
      if (own) return own;
    }
    const stored = await this.secrets.get(secretKey(provider));
    if (stored) return stored;
    return fromEnv(envKey(provider));
  }

  async set(provider: ProviderName, key: string, preset?: ProviderPreset): Promise<void> {
    await this.secrets.store((provider === 'openai-compatible' ? presetSecret(preset) : undefined) ?? secretKey(provider), key);
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key === SECRET_ANTHROPIC_KEY || e.key === SECRET_OPENAI_KEY || e.key.startsWith(PRESET_SECRET_PREFIX)) listener();
    });
  }

  /** Password-style input box; resolves the stored key or undefined when dismissed. */
  async prompt(provider: ProviderName, reason?: string, preset?: ProviderPreset): Promise<string | undefined> {
    const own = provider === 'openai-compatible' && preset?.keyVariable ? preset : undefined;
    const title = own ? vscode.l10n.t('{0} API key', own.label) : provider === 'anthropic' ? vscode.l10n.t('Anthropic API key') : vscode.l10n.t('API key for the OpenAI-compatible server');
    const key = await vscode.window.showInputBox({
      title: own ? title : keyTitle(provider),
      prompt: reason ?? vscode.l10n.t("Stored in VS Code's secret storage, never in settings. ({0} in the environment also works.)", own?.keyVariable ?? envKey(provider)),
      password: true,
      ignoreFocusOut: true,
      placeHolder: provider === 'anthropic' ? 'sk-ant-…' : 'sk-…',
      validateInput: (v) => (v.trim().length < 8 ? vscode.l10n.t('That is too short to be an API key.') : undefined),
    });
    if (!key) return undefined;
    await this.set(provider, key.trim(), preset);
    return key.trim();
  }
}
