// Images enter the conversation from files (read_file, --image), the panel and
// MCP tools. Whatever the source, the type is decided by the bytes (a `.png`
// that is really HTML is refused), and the pixel size is read from the header
// so context estimates need no decoding.
import { imageSize } from 'image-size';
import { sniffImageType } from './image-sniff';
import { type ImageBlock, type ImageMediaType } from '../types';

export { sniffImageType };

/** Anthropic's per-image limit (of the decoded bytes); larger images are refused rather than sent to fail. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Anthropic's per-request image limit for the API, and the composer's per-message cap. */
export const MAX_IMAGES_PER_MESSAGE = 20;
/** Long edge Anthropic recommends; larger images are downscaled by the API anyway, at the cost of latency. */
export const MAX_IMAGE_EDGE = 1568;

export class ImageError extends Error {
  override readonly name = 'ImageError';
}

const EXTENSION_TYPES: Record<string, ImageMediaType> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

/** The type a file name claims, for a clearer message when the bytes disagree. */
export function imageTypeOfName(name: string): ImageMediaType | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return ext ? EXTENSION_TYPES[ext] : undefined;
}

/** Pixel size from the header (image-size handles the formats' many header variants: JPEG SOF markers, WebP VP8/VP8L/VP8X). */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  try {
    const { width, height } = imageSize(bytes);
    return width > 0 && height > 0 ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An image block from raw bytes. `label` names the source in messages; a
 * `declared` type (a pasted file's MIME type, a file's extension) must match
 * the bytes.
 */
export function imageFromBytes(bytes: Uint8Array, label: string, declared?: ImageMediaType): ImageBlock {
  const mediaType = sniffImageType(bytes);
  if (!mediaType) throw new ImageError(`${label} is not a PNG, JPEG, GIF or WebP image`);
  if (declared && declared !== mediaType) throw new ImageError(`${label} claims to be ${declared} but its bytes are ${mediaType}`);
  if (bytes.length > MAX_IMAGE_BYTES) {
    throw new ImageError(`${label} is ${(bytes.length / 1048576).toFixed(1)} MB; images larger than ${MAX_IMAGE_BYTES / 1048576} MB cannot be sent (downscale it first)`);
  }
  const size = imageDimensions(bytes);
  if (!size) throw new ImageError(`${label}: the ${mediaType} header is damaged (no width and height)`);
  return { type: 'image', mediaType, data: Buffer.from(bytes).toString('base64'), ...size };
}

export function formatImageSize(image: Pick<ImageBlock, 'width' | 'height' | 'mediaType' | 'data'>): string {
  const kb = Math.round((image.data.length * 3) / 4 / 1024);
  return `${image.mediaType.slice(6).toUpperCase()} ${image.width}×${image.height}, ${kb} KB`;
}
