// Session images live once beside the session file, content-addressed
// (`<session>.images/<sha256>.<ext>`), and the JSONL holds only a reference:
// fifty screenshots keep the JSONL small, the same screenshot sent twice is
// stored once, and a fork or resume reads them back by name.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type ImageBlock, type ImageMediaType, type Message, type UserContentBlock } from '../types';

const EXTENSIONS: Record<ImageMediaType, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** How an image is written in a session file. */
export interface ImageRef {
  type: 'image';
  mediaType: ImageMediaType;
  width: number;
  height: number;
  ref: string;
}

export function imagesDirFor(sessionPath: string): string {
  return `${sessionPath.replace(/\.jsonl$/, '')}.images`;
}

/** Content-addressed file name for an image's bytes. */
export function imageFileName(image: Pick<ImageBlock, 'mediaType' | 'data'>): string {
  const hash = createHash('sha256').update(Buffer.from(image.data, 'base64')).digest('hex');
  return `${hash}.${EXTENSIONS[image.mediaType]}`;
}

/** Whether `bytes` are what the content-addressed `name` says: a file a crash or a hand left short is not trusted. */
export function imageFileIntact(name: string, bytes: Uint8Array): boolean {
  const hash = name.slice(0, name.indexOf('.'));
  return createHash('sha256').update(bytes).digest('hex') === hash;
}

/**
 * Replaces every image's bytes by a reference; `store` is called once per image
 * with its file name and bytes (the caller writes it unless it exists).
 */
export function externaliseImages(messages: readonly Message[], store: (name: string, bytes: Buffer) => void): Message[] {
  const toRef = (image: ImageBlock): ImageRef => {
    const name = imageFileName(image);
    store(name, Buffer.from(image.data, 'base64'));
    return { type: 'image', mediaType: image.mediaType, width: image.width, height: image.height, ref: name };
  };
  return messages.map((m) => {
    if (m.role !== 'user' || !m.content.some((b) => b.type === 'image' || (b.type === 'tool_result' && b.images?.length))) return m;
    const content = m.content.map((b) => {
      if (b.type === 'image') return toRef(b);
      if (b.type === 'tool_result' && b.images?.length) return { ...b, images: b.images.map(toRef) };
      return b;
    });
    return { role: 'user', content: content as unknown as UserContentBlock[] };
  });
}

const isRef = (b: unknown): b is ImageRef => typeof (b as ImageRef).ref === 'string' && typeof (b as { data?: unknown }).data !== 'string';

/**
 * Reads referenced images back. A missing or unreadable file becomes a text
 * note (in a tool result: a line of its content) plus a warning: the session
 * still loads and the history stays valid.
 */
export async function resolveImages(messages: Message[], imagesDir: string, warnings: string[]): Promise<Message[]> {
  const cache = new Map<string, Promise<string | undefined>>();
  const load = (ref: string): Promise<string | undefined> => {
    let p = cache.get(ref);
    if (!p) {
      // basename: a ref is a file name; a crafted "../x" must not read outside the folder.
      const name = basename(ref);
      p = readFile(join(imagesDir, name)).then(
        (bytes) => {
          if (imageFileIntact(name, bytes)) return bytes.toString('base64');
          warnings.push(`image ${ref} in ${basename(imagesDir)} is damaged (its bytes do not match its name); replaced by a note`);
          return undefined;
        },
        () => {
          warnings.push(`image ${ref} is missing from ${basename(imagesDir)}; replaced by a note`);
          return undefined;
        },
      );
      cache.set(ref, p);
    }
    return p;
  };
  const missing = (ref: ImageRef) => `[image ${ref.width}×${ref.height} no longer available]`;
  const out: Message[] = [];
  for (const m of messages) {
    if (m.role !== 'user') {
      out.push(m);
      continue;
    }
    const content: UserContentBlock[] = [];
    for (const b of m.content) {
      if (isRef(b)) {
        const data = await load(b.ref);
        content.push(data === undefined ? { type: 'text', text: missing(b) } : { type: 'image', mediaType: b.mediaType, width: b.width, height: b.height, data });
      } else if (b.type === 'tool_result' && b.images?.some(isRef)) {
        const images: ImageBlock[] = [];
        const notes: string[] = [];
        for (const image of b.images) {
          if (!isRef(image)) {
            images.push(image);
            continue;
          }
          const data = await load(image.ref);
          if (data === undefined) notes.push(missing(image));
          else images.push({ type: 'image', mediaType: image.mediaType, width: image.width, height: image.height, data });
        }
        const { images: _old, ...rest } = b;
        content.push({ ...rest, content: [b.content, ...notes].filter((s) => s !== '').join('\n'), ...(images.length > 0 ? { images } : {}) });
      } else content.push(b);
    }
    out.push({ role: 'user', content });
  }
  return out;
}
