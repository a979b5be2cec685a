// Images in the composer: pasted (Ctrl/Cmd+V) or dropped files become
// thumbnails with their size and a remove button, at most 20 a message. Each
// is checked by its bytes (not its name or claimed type), downscaled on a
// canvas to ≤ 1568 px and large PNGs re-encoded (image-plan.ts) before it is
// kept, so what is shown is exactly what is sent.
import { sniffImageType } from '../../runtime/context/image-sniff';
import { type ImageData, MAX_COMPOSER_IMAGES } from '../protocol';
import { button, el } from './dom';
import { claimedType, formatKb, JPEG_QUALITY, LARGE_PNG_BYTES, MAX_SEND_BYTES, planImage } from './image-plan';
import { t } from './l10n';

interface Pending {
  image: ImageData;
  /** blob: URL of the thumbnail, revoked when the image leaves the composer. */
  url: string;
  bytes: number;
}

function toBlob(canvas: HTMLCanvasElement, type: string, quality?: number): Promise<Blob> {
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error(`the canvas could not encode ${type}`))), type, quality));
}

function base64Of(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.readAsDataURL(blob);
  });
}

/** Reads, checks and (when needed) downscales one file; a string is the reason it was refused. */
export async function prepareImage(file: Blob, name: string): Promise<{ image: ImageData; blob: Blob } | string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const type = sniffImageType(bytes);
  if (!type) return t('{0} is not a PNG, JPEG, GIF or WebP image.', name);
  const claimed = claimedType(file.type);
  if (claimed !== '' && claimed !== type) return t('{0} claims to be {1} but its bytes are {2}; it was not attached.', name, claimed, type);
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return t('{0} could not be decoded as {1}; it may be damaged.', name, type);
  }
  try {
    const plan = planImage(type, bitmap.width, bitmap.height, bytes.length);
    let blob: Blob = file;
    let mediaType: ImageData['mediaType'] = type;
    if (plan.encodeAs) {
      const canvas = el('canvas', { width: String(plan.width), height: String(plan.height) });
      const ctx = canvas.getContext('2d');
      if (!ctx) return t('{0} could not be downscaled (no canvas).', name);
      ctx.imageSmoothingQuality = 'high';
      ctx.drawImage(bitmap, 0, 0, plan.width, plan.height);
      blob = await toBlob(canvas, plan.encodeAs, plan.encodeAs === 'image/png' ? undefined : JPEG_QUALITY);
      mediaType = plan.encodeAs;
      if (mediaType === 'image/png' && blob.size > LARGE_PNG_BYTES) {
        // Photos and gradients compress far better as JPEG; screenshots of text usually stay PNG.
        const jpeg = await toBlob(canvas, 'image/jpeg', JPEG_QUALITY);
        if (jpeg.size < blob.size) {
          blob = jpeg;
          mediaType = 'image/jpeg';
        }
      }
    }
    if (blob.size > MAX_SEND_BYTES) return t('{0} is {1} even after downscaling; images over {2} cannot be sent.', name, formatKb(blob.size), formatKb(MAX_SEND_BYTES));
    return { image: { mediaType, data: await base64Of(blob), width: plan.width, height: plan.height }, blob: blob.type === mediaType ? blob : new Blob([blob], { type: mediaType }) };
  } finally {
    bitmap.close();
  }
}

/** A draft's images while its session is not shown (session-drafts.ts). */
export type HeldImages = readonly Pending[];

export class ImageAttach {
  readonly root = el('div', { class: 'image-attachments', role: 'group', 'aria-label': t('Attached images') });
  private readonly list = el('div', { class: 'image-thumbs' });
  private readonly notice = el('div', { class: 'image-notice', role: 'alert' });
  private items: Pending[] = [];
  /** Files still being read: counted against the limit so a fast double paste cannot pass it. */
  private inFlight = 0;

  constructor(private readonly onChange: () => void) {
    this.root.append(this.list, this.notice);
    this.render();
  }

  get count(): number {
    return this.items.length;
  }

  /** Images from a paste or drop; anything not a file of an image type is left to the default handling. */
  static filesOf(data: DataTransfer | null): File[] {
    if (!data) return [];
    return [...data.files];
  }

  async add(files: File[]): Promise<void> {
    const problems: string[] = [];
    for (const file of files) {
      if (this.items.length + this.inFlight >= MAX_COMPOSER_IMAGES) {
        problems.push(t('At most {0} images can be attached to one message.', MAX_COMPOSER_IMAGES));
        break;
      }
      this.inFlight++;
      try {
        const name = file.name || t('The pasted image');
        const prepared = await prepareImage(file, name);
        if (typeof prepared === 'string') problems.push(prepared);
        else this.items.push({ image: prepared.image, url: URL.createObjectURL(prepared.blob), bytes: prepared.blob.size });
      } finally {
        this.inFlight--;
      }
      this.render();
    }
    this.notice.textContent = problems.join(' ');
    this.notice.hidden = problems.length === 0;
    this.render();
    this.onChange();
  }

  say(message: string): void {
    this.notice.textContent = message;
    this.notice.hidden = false;
    this.render();
  }

  /** The images to send; the composer is emptied of them. */
  take(): ImageData[] {
    const out = this.items.map((p) => p.image);
    this.clear();
    return out;
  }

  /** Issue 47 item 9: the images leave with their session's draft (kept, not revoked) when the panel shows another session. */
  hold(): HeldImages {
    const held = this.items;
    this.items = [];
    this.notice.hidden = true;
    this.render();
    return held;
  }

  /** The images of the session shown now (none: an empty composer); any others here are let go. */
  put(held: HeldImages | undefined): void {
    this.clear();
    this.items = held ? [...held] : [];
    this.render();
  }

  clear(): void {
    for (const p of this.items) URL.revokeObjectURL(p.url);
    this.items = [];
    this.notice.hidden = true;
    this.render();
  }

  private render(): void {
    this.list.replaceChildren(
      ...this.items.map((p, i) => {
        const size = `${p.image.width}×${p.image.height} · ${formatKb(p.bytes)}`;
        return el('figure', { class: 'image-thumb', title: size },
          el('img', { src: p.url, alt: t('Attached image {0}, {1}', i + 1, size) }),
          el('figcaption', {}, size),
          button(t('Remove image {0}', i + 1), () => {
            URL.revokeObjectURL(p.url);
            this.items.splice(i, 1);
            this.render();
            this.onChange();
          }, { icon: 'close', iconOnly: true, cls: 'image-remove' }));
      }),
    );
    this.root.hidden = this.items.length === 0 && this.notice.hidden;
  }
}

/**
 * Thumbnails of images in the transcript (user messages, tool results). Built
 * only when their item is in the rendered window; `loading="lazy"` defers the
 * decode until it scrolls into view. A click shows the image full size.
 */
export function imageThumbs(images: readonly ImageData[]): HTMLElement {
  return el('div', { class: 'image-thumbs in-transcript' },
    ...images.map((image, i) => {
      const src = `data:${image.mediaType};base64,${image.data}`;
      const thumb = el('img', { src, alt: t('Image {0}, {1}×{2}', i + 1, image.width, image.height), loading: 'lazy', decoding: 'async', width: String(Math.min(image.width, 160)) });
      const open = el('button', { type: 'button', class: 'image-open', title: t('Show full size ({0}×{1})', image.width, image.height), 'aria-label': t('Show image {0} full size', i + 1) }, thumb);
      open.addEventListener('click', () => showFullSize(src, image));
      return open;
    }),
  );
}

function showFullSize(src: string, image: ImageData): void {
  const dialog = el('dialog', { class: 'image-full', 'aria-label': t('Image {0}×{1}', image.width, image.height) },
    el('img', { src, alt: t('Image {0}×{1}', image.width, image.height) }));
  const close = () => {
    dialog.close();
    dialog.remove();
  };
  dialog.append(button(t('Close'), close, { icon: 'close', iconOnly: true, cls: 'image-close' }));
  dialog.addEventListener('click', (e) => {
    if (e.target === dialog) close();
  });
  dialog.addEventListener('cancel', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}
