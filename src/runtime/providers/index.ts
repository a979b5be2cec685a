// Provider routing (S8, seed 001's ApiProviderClient). The SDKs are loaded on
// first use, not at module load, so the extension's activation stays cheap.
import { type AssistantEvent, type CompleteOptions, type ModelClient, ModelError, type ModelRequest, type ModelResponse } from '../types';
import type * as AnthropicModule from './anthropic';
import type * as BedrockModule from './bedrock';
import type * as VertexModule from './vertex';
import type * as OpenAICompatibleModule from './openai-compatible';
import type * as OpenAIResponsesModule from './openai-responses';
import { type ModelClientOptions } from './options';
import { explainImageRejection, requestHasImages } from './image-rejection';

export {
  type AnthropicClientOptions,
  type ApiKeySource,
  type BedrockClientOptions,
  type VertexClientOptions,
  type ModelClientOptions,
  type OpenAICompatibleOptions,
  type OpenAIResponsesOptions,
  type ProviderName,
  resolveAnthropicEnv,
  resolveOpenAIEnv,
} from './options';
export { type RetryOptions } from './retry';
export { cloudModelId, resolveBedrockConfig, resolveVertexConfig } from './cloud-config';

// `require` inside the function, not a top-level import: the bundle (esbuild, cjs)
// then evaluates a provider and its SDK only when it is first used, and it also
// resolves .ts sources under the tests' tsx/cjs hook, which a dynamic import() does not.
function loadAnthropic(): typeof AnthropicModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./anthropic') as typeof AnthropicModule;
}

function loadOpenAICompatible(): typeof OpenAICompatibleModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./openai-compatible') as typeof OpenAICompatibleModule;
}

function loadOpenAIResponses(): typeof OpenAIResponsesModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./openai-responses') as typeof OpenAIResponsesModule;
}

// The cloud SDKs (AWS's and Google's libraries) are the heaviest: each loads only when its provider is chosen.
function loadBedrock(): typeof BedrockModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./bedrock') as typeof BedrockModule;
}

function loadVertex(): typeof VertexModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./vertex') as typeof VertexModule;
}

async function load(options: ModelClientOptions): Promise<ModelClient> {
  switch (options.provider) {
    case 'anthropic': {
      const { provider: _provider, ...rest } = options;
      return new (loadAnthropic().AnthropicModelClient)(rest);
    }
    case 'openai-compatible': {
      const { provider: _provider, ...rest } = options;
      return new (loadOpenAICompatible().OpenAICompatibleModelClient)(rest);
    }
    case 'openai': {
      const { provider: _provider, ...rest } = options;
      return new (loadOpenAIResponses().OpenAIResponsesModelClient)(rest);
    }
    case 'bedrock': {
      const { provider: _provider, ...rest } = options;
      return new (loadBedrock().BedrockModelClient)(rest);
    }
    case 'vertex': {
      const { provider: _provider, ...rest } = options;
      return new (loadVertex().VertexModelClient)(rest);
    }
    default: {
      const unknown: never = options;
      throw new ModelError('invalid_request', `Unknown model provider: ${(unknown as { provider: string }).provider}`);
    }
  }
}

/** A ModelClient for the configured provider; its SDK loads on the first request. */
export function createModelClient(options: ModelClientOptions): ModelClient {
  let client: Promise<ModelClient> | undefined;
  const get = () => (client ??= load(options));
  return {
    stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<AssistantEvent> {
      return {
        [Symbol.asyncIterator](): AsyncIterator<AssistantEvent> {
          // Forwards to the provider's iterator without a generator of its own: one more
          // async layer per event would cost more than the whole normalisation (bench/stream).
          let inner: AsyncIterator<AssistantEvent> | undefined;
          const open = async () => (inner ??= (await get()).stream(request, signal)[Symbol.asyncIterator]());
          const next = () => (inner ? inner.next() : open().then((it) => it.next()));
          // Only a request with images pays for the extra hop that explains a refusal of them.
          const images = requestHasImages(request.messages);
          return {
            next: images
              ? () =>
                  next().catch((err: unknown) => {
                    throw explainImageRejection(err, request.model, true);
                  })
              : next,
            return: async (value?: unknown) => (inner?.return ? inner.return(value) : { done: true as const, value: undefined }),
            throw: async (err?: unknown) => {
              if (inner?.throw) return inner.throw(err);
              throw err;
            },
          };
        },
      };
    },
    async complete(request: ModelRequest, signal: AbortSignal, options?: CompleteOptions): Promise<ModelResponse> {
      try {
        return await (await get()).complete(request, signal, options);
      } catch (err) {
        throw explainImageRejection(err, request.model, requestHasImages(request.messages));
      }
    },
  };
}
