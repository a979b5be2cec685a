// The CLI's options for Claude on Amazon Bedrock and Google Vertex AI: no key of
// ours (the cloud's credential chain signs, found at the first request); region and
// project are checked before the turn, so a missing one is exit 1 naming the setting.
import { type TurnstoneSettings } from '../agent/settings';
import { type ModelClientOptions, resolveBedrockConfig, resolveVertexConfig } from '../runtime/providers';
import { ModelError } from '../runtime/types';

export function cloudModelOptions(provider: 'bedrock' | 'vertex', env: NodeJS.ProcessEnv, settings: TurnstoneSettings): ModelClientOptions | { error: string } {
  const baseURL = settings.baseUrl ? { baseURL: settings.baseUrl } : {};
  try {
    if (provider === 'bedrock') {
      const { region } = resolveBedrockConfig({ region: settings.bedrockRegion, ...baseURL }, env);
      return { provider, region, ...baseURL };
    }
    const { region, projectId } = resolveVertexConfig({ region: settings.vertexRegion, projectId: settings.vertexProjectId, ...baseURL }, env);
    return { provider, region, ...(projectId ? { projectId } : {}), ...baseURL };
  } catch (error) {
    if (error instanceof ModelError) return { error: error.message };
    throw error;
  }
}
