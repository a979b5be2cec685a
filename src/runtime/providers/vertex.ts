// Claude on Google Vertex AI through Anthropic's @anthropic-ai/vertex-sdk: the same
// Messages requests, events and step runner as anthropic.ts, authorised with
// Google's application default credentials (GOOGLE_APPLICATION_CREDENTIALS,
// `gcloud auth application-default login`, the metadata server). Loaded lazily by index.ts.
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { GoogleAuth } from 'google-auth-library';
import { ModelError } from '../types';
import { AnthropicModelClient, type ClaudeHost } from './anthropic';
import { GOOGLE_CREDENTIALS_HINT, resolveVertexConfig, VERTEX_PROJECT_HINT, VERTEX_REGION_HINT } from './cloud-config';
import { cloudClaudeHost } from './cloud-host';
import { type VertexClientOptions } from './options';

const PROVIDER = 'vertex';
const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

function vertexHost(options: VertexClientOptions): ClaudeHost {
  return cloudClaudeHost(PROVIDER, { credentialsHint: GOOGLE_CREDENTIALS_HINT, regionHint: VERTEX_REGION_HINT, projectHint: VERTEX_PROJECT_HINT }, async () => {
    const config = resolveVertexConfig(options);
    // The SDK would start looking for credentials in its constructor and leave a failure unobserved until
    // the first request; found here, a missing credential is this request's error, naming what to set.
    // A project given is final; without one the library looks it up from the credentials (as the SDK would).
    const googleAuth = new GoogleAuth({ scopes: CLOUD_PLATFORM_SCOPE, ...(config.projectId ? { projectId: config.projectId } : {}) });
    let authClient: Awaited<ReturnType<GoogleAuth['getClient']>>;
    try {
      authClient = await googleAuth.getClient();
    } catch (err) {
      const why = err instanceof Error ? err.message.split(/\r?\n/, 1)[0] : '';
      throw new ModelError('config', `${PROVIDER}: no Google credentials${why ? ` (${why})` : ''}: ${GOOGLE_CREDENTIALS_HINT}.`, { cause: err });
    }
    const sdk = new AnthropicVertex({
      region: config.region,
      // null, not undefined: the SDK would read ANTHROPIC_VERTEX_PROJECT_ID itself, which config has already weighed.
      projectId: config.projectId ?? null,
      authClient,
      ...(config.baseURL ? { baseURL: config.baseURL } : {}),
      maxRetries: 0,
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
    });
    return { sdk, defaultEndpoint: config.baseURL === undefined };
  });
}

export class VertexModelClient extends AnthropicModelClient {
  constructor(options: VertexClientOptions = {}) {
    super(options, vertexHost(options));
  }
}
