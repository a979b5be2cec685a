// A model without vision (or a local server without a multimodal projector)
// answers a request with images by a 400 whose wording differs per server.
// The user should read which model refused and what to do, not the raw body.
import { type Message, ModelError } from '../types';

export function requestHasImages(messages: readonly Message[]): boolean {
  return messages.some((m) => m.role === 'user' && m.content.some((b) => b.type === 'image' || (b.type === 'tool_result' && (b.images?.length ?? 0) > 0)));
}

// Wordings seen from Anthropic, OpenAI, Ollama, LM Studio, vLLM and llama.cpp.
const IMAGE_WORDS = /image|vision|multimodal|multi-modal|image_url|mmproj/i;

/** Rewrites a non-retryable rejection of a request with images into a clear one; anything else passes through. */
export function explainImageRejection(error: unknown, model: string, hasImages: boolean): unknown {
  if (!hasImages || !(error instanceof ModelError) || error.kind !== 'invalid_request') return error;
  if (!IMAGE_WORDS.test(error.message)) return error;
  return new ModelError(
    'invalid_request',
    `The model "${model}" did not accept the images in this conversation; choose a model with image (vision) support or remove the images. (${error.message})`,
    error.details,
  );
}
