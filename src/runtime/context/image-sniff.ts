// The image type bytes announce (magic numbers). No imports: the webview's
// composer uses the same check as read_file, --image and the host.
export type SniffedImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** Undefined for anything but PNG, JPEG, GIF and WebP (SVG is text, not an image here). */
export function sniffImageType(bytes: Uint8Array): SniffedImageType | undefined {
  const at = (i: number, ...values: number[]) => values.every((v, k) => bytes[i + k] === v);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (at(4, 0x37, 0x61) || at(4, 0x39, 0x61))) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return undefined;
}
