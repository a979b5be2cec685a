// What the composer does to an image before it is sent, as pure decisions
// (unit-tested without a DOM): downscale to the long edge Anthropic recommends
// and re-encode large PNGs, so no request carries more bytes than it needs.
export type ComposerImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export const MAX_EDGE = 1568;
/** A PNG larger than this (after any downscale) is also tried as JPEG; the smaller one is sent. */
export const LARGE_PNG_BYTES = 1024 * 1024;
/** Anthropic's per-image limit: what is still larger after downscaling is refused. */
export const MAX_SEND_BYTES = 5 * 1024 * 1024;
export const JPEG_QUALITY = 0.9;

export interface ImagePlan {
  width: number;
  height: number;
  /** Undefined: send the original bytes untouched (a small GIF keeps its animation). */
  encodeAs: 'image/png' | 'image/jpeg' | 'image/webp' | undefined;
}

/** Scales (w, h) so the long edge is at most `max`, keeping the aspect ratio; never upscales, never below 1 px. */
export function fitWithin(width: number, height: number, max = MAX_EDGE): { width: number; height: number } {
  const long = Math.max(width, height);
  if (long <= max) return { width, height };
  const scale = max / long;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

export function planImage(type: ComposerImageType, width: number, height: number, bytes: number): ImagePlan {
  const size = fitWithin(width, height);
  const resize = size.width !== width || size.height !== height;
  if (!resize && !(type === 'image/png' && bytes > LARGE_PNG_BYTES)) return { ...size, encodeAs: undefined };
  // A canvas cannot write GIF: a downscaled GIF becomes a PNG of its first frame.
  return { ...size, encodeAs: type === 'image/gif' ? 'image/png' : type };
}

/** The MIME type a file claims, normalised ("image/jpg" is common); '' when it claims nothing. */
export function claimedType(mime: string): string {
  const t = mime.toLowerCase();
  return t === 'image/jpg' || t === 'image/pjpeg' ? 'image/jpeg' : t;
}

export function formatKb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}
