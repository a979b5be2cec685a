// What an MCP tool result becomes for the model: text as is, embedded
// resources as text under their URI, structuredContent as JSON. Tool results
// here carry text only, so an image or audio block becomes a note saying what
// was returned (images in tool results are another issue's work).
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Block = CallToolResult['content'][number];

function blockText(block: Block): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image returned by the tool: ${block.mimeType}, ${base64Bytes(block.data)} bytes; images from MCP tools are not passed to the model yet]`;
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

export function resultText(result: CallToolResult | { toolResult: unknown }): { text: string; isError: boolean } {
  if (!('content' in result)) return { text: JSON.stringify(result.toolResult, null, 2), isError: false };
  const parts = (result.content ?? []).map(blockText);
  const structured = result.structuredContent;
  if (structured !== undefined) {
    const json = JSON.stringify(structured);
    // Servers are asked to mirror structuredContent as a JSON text block: do not say it twice.
    const mirrored = (result.content ?? []).some((b) => b.type === 'text' && sameJson(b.text, json));
    if (!mirrored) parts.push(JSON.stringify(structured, null, 2));
  }
  return { text: parts.join('\n'), isError: result.isError === true };
}

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}
