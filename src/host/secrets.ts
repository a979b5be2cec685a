// API keys live in SecretStorage (never in settings, logs or session files);
// the environment variable is the fallback so `npm start` and CI work unattended.
import * as vscode from 'vscode';
import { SECRET_ANTHROPIC_KEY, SECRET_OPENAI_KEY } from './contract';
import { type ProviderName } from './settings';

const secretKey = (provider: ProviderName) => (provider === 'anthropic' ? SECRET_ANTHROPIC_KEY : SECRET_OPENAI_KEY);
const envKey = (provider: ProviderName) => (provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY');

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

  async get(provider: ProviderName): Promise<string | undefined> {
    const stored = await this.secrets.get(secretKey(provider));
    if (stored) return stored;
    const fromEnv = process.env[envKey(provider)]?.trim();
    return fromEnv || undefined;
  }

  async set(provider: ProviderName, key: string): Promise<void> {
    await this.secrets.store(secretKey(provider), key);
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key === SECRET_ANTHROPIC_KEY || e.key === SECRET_OPENAI_KEY) listener();
    });
  }

  /** Password-style input box; resolves the stored key or undefined when dismissed. */
  async prompt(provider: ProviderName, reason?: string): Promise<string | undefined> {
    const key = await vscode.window.showInputBox({
      title: keyTitle(provider),
      prompt: reason ?? vscode.l10n.t("Stored in VS Code's secret storage, never in settings. ({0} in the environment also works.)", envKey(provider)),
      password: true,
      ignoreFocusOut: true,
      placeHolder: provider === 'anthropic' ? 'sk-ant-…' : 'sk-…',
      validateInput: (v) => (v.trim().length < 8 ? vscode.l10n.t('That is too short to be an API key.') : undefined),
    });
    if (!key) return undefined;
    await this.set(provider, key.trim());
    return key.trim();
  }
}
