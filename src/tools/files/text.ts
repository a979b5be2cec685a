// Bytes ⇄ text with the file's own encoding and line endings kept, so an edit
// never silently converts a UTF-16 or CRLF file into something else.

export type TextEncodingName = 'utf8' | 'utf8bom' | 'utf16le' | 'utf16be';

export interface DecodedText {
  text: string;
  encoding: TextEncodingName;
  /** True when the bytes were not valid in the encoding: re-encoding would change them. */
  lossy: boolean;
}

export const ENCODING_LABELS: Record<TextEncodingName, string> = {
  utf8: 'UTF-8',
  utf8bom: 'UTF-8 with BOM',
  utf16le: 'UTF-16LE with BOM',
  utf16be: 'UTF-16BE with BOM',
};

export function detectEncoding(bytes: Uint8Array): TextEncodingName {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf8bom';
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf16le';
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf16be';
  return 'utf8';
}

/** Git's heuristic: a NUL byte near the start means binary. UTF-16 is exempt (it is full of NULs). */
export function looksBinary(bytes: Uint8Array, encoding: TextEncodingName): boolean {
  if (encoding === 'utf16le' || encoding === 'utf16be') return false;
  const end = Math.min(bytes.length, 8000);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

const BOM_LENGTH: Record<TextEncodingName, number> = { utf8: 0, utf8bom: 3, utf16le: 2, utf16be: 2 };
const DECODER_LABEL: Record<TextEncodingName, string> = { utf8: 'utf-8', utf8bom: 'utf-8', utf16le: 'utf-16le', utf16be: 'utf-16be' };

export function decodeText(bytes: Uint8Array): DecodedText {
  const encoding = detectEncoding(bytes);
  const body = bytes.subarray(BOM_LENGTH[encoding]);
  const label = DECODER_LABEL[encoding];
  try {
    return { text: new TextDecoder(label, { fatal: true, ignoreBOM: true }).decode(body), encoding, lossy: false };
  } catch {
    // FF FE / FE FF followed by bytes that are not UTF-16 and hold no NUL (UTF-16 of Latin text is full of them):
    // not UTF-16 at all, but text with stray bytes up front. Shown as UTF-8 its words stay readable.
    if ((encoding === 'utf16le' || encoding === 'utf16be') && !bytes.subarray(0, 8000).includes(0)) {
      return { text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes), encoding: 'utf8', lossy: true };
    }
    return { text: new TextDecoder(label, { ignoreBOM: true }).decode(body), encoding, lossy: true };
  }
}

export function encodeText(text: string, encoding: TextEncodingName): Uint8Array {
  switch (encoding) {
    case 'utf8':
      return Buffer.from(text, 'utf8');
    case 'utf8bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'utf16le':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    case 'utf16be': {
      const le = Buffer.from(text, 'utf16le');
      return Buffer.concat([Buffer.from([0xfe, 0xff]), le.swap16()]);
    }
  }
}

export type Eol = '\r\n' | '\n';

/** The file's dominant line ending; undefined when it has no line break to go by. */
export function detectEol(text: string): Eol | undefined {
  let crlf = 0;
  let lf = 0;
  let i = text.indexOf('\n');
  // Sampling the first lines is enough to know a file's convention.
  while (i !== -1 && crlf + lf < 1000) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
    i = text.indexOf('\n', i + 1);
  }
  if (crlf + lf === 0) return undefined;
  return crlf > lf ? '\r\n' : '\n';
}

export function withEol(text: string, eol: Eol | undefined): string {
  if (eol === '\r\n') return text.replace(/\r?\n/g, '\r\n');
  if (eol === '\n') return text.replace(/\r\n/g, '\n');
  return text;
}

export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  let i = text.indexOf('\n');
  while (i !== -1) {
    n++;
    i = text.indexOf('\n', i + 1);
  }
  return text.endsWith('\n') ? n : n + 1;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
