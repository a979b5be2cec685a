// What an MCP tool result becomes for the model: text as is, images as image
// blocks (checked like any other image: type by the bytes, size from the
// header), embedded resources as text under their URI, structuredContent as
// JSON. Audio and binary resources become a note saying what was returned.
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { formatImageSize, ImageError, imageFromBytes } from '../context/images';
import { IMAGE_MEDIA_TYPES, type ImageBlock, type ImageMediaType } from '../types';

type Block = CallToolResult['content'][number];

function imageText(block: Extract<Block, { type: 'image' }>, images: ImageBlock[]): string {
  const declared = (IMAGE_MEDIA_TYPES as readonly string[]).includes(block.mimeType) ? (block.mimeType as ImageMediaType) : undefined;
  if (!declared) return `[image returned by the tool: ${block.mimeType}, ${base64Bytes(block.data)} bytes; only PNG, JPEG, GIF and WebP images are passed to the model]`;
  try {
    const image = imageFromBytes(Buffer.from(block.data, 'base64'), 'the image returned by the tool', declared);
    images.push(image);
    // The images follow the text in the result; the note keeps their place in it.
    return `[image ${images.length}: ${formatImageSize(image)}]`;
  } catch (error) {
    if (!(error instanceof ImageError)) throw error;
    return `[${error.message}; not passed to the model]`;
  }
}

function blockText(block: Block, images: ImageBlock[]): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return imageText(block, images);
    case 'audio':
      return `[audio returned by the tool: ${block.mimeType}, ${base64Bytes(block.data)} bytes; not passed to the model]`;
    case 'resource': {
      const r = block.resource;
      if ('text' in r && typeof r.text === 'string') return `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}]\n${r.text}`;
      const blob = 'blob' in r && typeof r.blob === 'string' ? r.blob : '';
      return `[binary resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}, ${base64Bytes(blob)} bytes; not passed to the model]`;
    }
    case 'resource_link':
      return `[resource link: ${block.name} ${block.uri}${block.description ? ` — ${block.description}` : ''}]`;
    default:
      return `[${(block as { type: string }).type} content not shown]`;
  }
}

const base64Bytes = (data: string): number => Math.floor((data.replace(/=+$/, '').length * 3) / 4);

export function resultText(result: CallToolResult | { toolResult: unknown }): { text: string; images: ImageBlock[]; isError: boolean } {
  const images: ImageBlock[] = [];
  if (!('content' in result)) return { text: JSON.stringify(result.toolResult, null, 2), images, isError: false };
  const parts = (result.content ?? []).map((b) => blockText(b, images));
  const structured = result.structuredContent;
  if (structured !== undefined) {
    const json = JSON.stringify(structured);
    // Servers are asked to mirror structuredContent as a JSON text block: do not say it twice.
    const mirrored = (result.content ?? []).some((b) => b.type === 'text' && sameJson(b.text, json));
    if (!mirrored) parts.push(JSON.stringify(structured, null, 2));
  }
  return { text: parts.join('\n'), images, isError: result.isError === true };
}

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}
