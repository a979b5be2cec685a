// The model client for the editor: provider, base URL and key are read at each
// request, so a changed setting or a key stored after an auth error (T6) applies
// to the very next step; the provider client is rebuilt only when they change.
import { type ProviderName } from '../../agent/settings';
import { createModelClient, type ModelClientOptions } from '../../runtime/providers';
import { type ModelClient } from '../../runtime/types';
import { VsCodeLmModelClient } from '../language-model/lm-client';

export interface ClientSettings {
  provider: ProviderName;
  baseURL: string | undefined;
}

export function createSettingsAwareModelClient(read: () => Promise<ClientSettings & { apiKey: string | undefined }>): ModelClient {
  let cached: { key: string; client: ModelClient } | undefined;
  const current = async (): Promise<ModelClient> => {
    const s = await read();
    const key = JSON.stringify([s.provider, s.baseURL ?? '', s.apiKey ?? '']);
    if (cached?.key !== key) {
      // The editor's own models need neither URL nor key: VS Code asks the user's consent instead.
      if (s.provider === 'vscode-lm') cached = { key, client: new VsCodeLmModelClient() };
      else {
        const options: ModelClientOptions = { provider: s.provider, ...(s.baseURL ? { baseURL: s.baseURL } : {}), ...(s.apiKey ? { apiKey: s.apiKey } : {}) };
        cached = { key, client: createModelClient(options) };
      }
    }
    return cached.client;
  };
  return {
    async *stream(request, signal) {
      yield* (await current()).stream(request, signal);
    },
    async complete(request, signal, options) {
      return (await current()).complete(request, signal, options);
    },
  };
}
