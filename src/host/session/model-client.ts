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
  /** bedrock / vertex: the region setting (empty: the provider falls back to the environment). */
  region?: string;
  /** vertex: the project setting (empty: the environment, then the credentials' project). */
  projectId?: string;
}

type ReadSettings = ClientSettings & { apiKey: string | undefined };

/** The cloud providers take no key of ours: they sign with the AWS or Google credential chain. */
function clientOptions(s: ReadSettings & { provider: ModelClientOptions['provider'] }): ModelClientOptions {
  const baseURL = s.baseURL ? { baseURL: s.baseURL } : {};
  const region = s.region ? { region: s.region } : {};
  switch (s.provider) {
    case 'bedrock':
      return { provider: 'bedrock', ...baseURL, ...region };
    case 'vertex':
      return { provider: 'vertex', ...baseURL, ...region, ...(s.projectId ? { projectId: s.projectId } : {}) };
    default:
      return { provider: s.provider, ...baseURL, ...(s.apiKey ? { apiKey: s.apiKey } : {}) };
  }
}

export function createSettingsAwareModelClient(read: () => Promise<ReadSettings>): ModelClient {
  let cached: { key: string; client: ModelClient } | undefined;
  const current = async (): Promise<ModelClient> => {
    const s = await read();
    const key = JSON.stringify([s.provider, s.baseURL ?? '', s.apiKey ?? '', s.region ?? '', s.projectId ?? '']);
    if (cached?.key !== key) {
      // The editor's own models need neither URL nor key: VS Code asks the user's consent instead.
      const { provider } = s;
      cached = { key, client: provider === 'vscode-lm' ? new VsCodeLmModelClient() : createModelClient(clientOptions({ ...s, provider })) };
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
