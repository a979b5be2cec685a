// Claude on Amazon Bedrock through Anthropic's @anthropic-ai/bedrock-sdk: the same
// Messages requests, events and step runner as anthropic.ts; the SDK signs each
// request with the AWS credential chain (environment, AWS_PROFILE, ~/.aws files,
// SSO, instance roles) and turns Bedrock's binary event stream back into SSE frames.
// Loaded lazily by index.ts.
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { AnthropicModelClient, type ClaudeHost } from './anthropic';
import { AWS_CREDENTIALS_HINT, BEDROCK_REGION_HINT, resolveBedrockConfig } from './cloud-config';
import { cloudClaudeHost } from './cloud-host';
import { type BedrockClientOptions } from './options';

const PROVIDER = 'bedrock';

function bedrockHost(options: BedrockClientOptions): ClaudeHost {
  return cloudClaudeHost(PROVIDER, { credentialsHint: AWS_CREDENTIALS_HINT, regionHint: BEDROCK_REGION_HINT }, async () => {
    // Read at the first request, not at construction: a missing region is then the turn's error, named like any other.
    const config = resolveBedrockConfig(options);
    const sdk = new AnthropicBedrock({
      awsRegion: config.region,
      ...(config.baseURL ? { baseURL: config.baseURL } : {}),
      // S6: we own retries, so each one is reported and a partial step is reset.
      maxRetries: 0,
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
    });
    return { sdk, defaultEndpoint: config.baseURL === undefined };
  });
}

export class BedrockModelClient extends AnthropicModelClient {
  constructor(options: BedrockClientOptions = {}) {
    super(options, bedrockHost(options));
  }
}
