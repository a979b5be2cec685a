import { z } from 'zod';
import { formatImageSize, ImageError, imageFromBytes, sniffImageType } from '../../runtime/context/images';
import { cutHead } from '../../runtime/text-cut';
import { ToolError } from '../errors';
import { assessPath } from './file-common';
import { ENCODING_LABELS, decodeText, formatBytes, looksBinary } from './text';
import { defineTool } from '../tool';

const schema = z.object({
  path: z.string().min(1).describe('File to read: relative to the workspace root, or absolute.'),
  offset: z.number().int().min(0).optional().describe('0-based line to start from (default 0).'),
  limit: z.number().int().min(1).optional().describe('Number of lines to return (default 2000).'),
});

export const readFileTool = defineTool({
  name: 'read_file',
  description: [
    'Reads a text file and returns its lines numbered like `cat -n` (line numbers start at 1; the number and a tab are not part of the file).',
    'Returns up to 2000 lines by default; use `offset` (0-based line) and `limit` to read other parts of large files. When output stops early, the result says which offset to read next.',
    'Read a file before changing it: write_file refuses to overwrite a file you have not read, or one that changed on disk since you read it.',
    'PNG, JPEG, GIF and WebP images are returned as images you can see (with their pixel size); SVG is read as text.',
    'Other binary files and very large files return a message instead of content; use grep_search to find lines in large files. For directories use glob_search.',
  ].join('\n'),
  schema,
  readOnly: true,
  need: 'read',
  async assess(input, env) {
    return assessPath(await env.paths.resolve(input.path), 'read', env);
  },
  async execute(input, env) {
    const resolved = await env.paths.resolve(input.path);
    env.paths.assertUnchanged(resolved, 'read');
    const stat = await env.workspace.stat(resolved.real);
    if (!stat) throw new ToolError('not_found', `File does not exist: ${resolved.display}`);
    if (stat.type === 'directory') {
      throw new ToolError('is_directory', `${resolved.display} is a directory. Use glob_search (e.g. pattern "${resolved.display === '.' ? '' : `${resolved.display}/`}*") to list its files.`);
    }
    const limits = env.limits;
    if (stat.size > limits.readMaxFileBytes) {
      throw new ToolError(
        'too_large',
        `${resolved.display} is ${formatBytes(stat.size)}, over the ${formatBytes(limits.readMaxFileBytes)} limit for read_file. Use grep_search to find the lines you need, or bash (e.g. \`sed -n '100,200p' ${resolved.display}\`) to view a slice.`,
      );
    }
    const bytes = await env.workspace.readFile(resolved.real);
    // By content, not extension: a screenshot saved as .txt is still shown, an SVG (text) stays text.
    if (sniffImageType(bytes)) {
      let image;
      try {
        image = imageFromBytes(bytes, resolved.display);
      } catch (error) {
        if (error instanceof ImageError) throw new ToolError('binary', error.message);
        throw error;
      }
      return { content: `${resolved.display}: ${formatImageSize(image)} (shown as an image)`, images: [image], isError: false };
    }
    const decoded = decodeText(bytes);
    if (looksBinary(bytes, decoded.encoding)) {
      throw new ToolError('binary', `${resolved.display} is a binary file (${formatBytes(bytes.length)}); its bytes are not shown.`);
    }
    env.reads.record(resolved.real, stat, bytes);
    if (decoded.text.length === 0) return { content: `(${resolved.display} is empty)`, isError: false, counts: { lines: 0 } };

    const lines = decoded.text.split('\n');
    if (decoded.text.endsWith('\n')) lines.pop();
    const total = lines.length;
    const offset = input.offset ?? 0;
    if (offset >= total) {
      throw new ToolError('out_of_range', `offset ${offset} is past the end of ${resolved.display}, which has ${total} line${total === 1 ? '' : 's'}.`);
    }
    const end = Math.min(total, offset + (input.limit ?? limits.readDefaultLines));
    const out: string[] = [];
    let bytesOut = 0;
    let next = offset;
    let cutLines = 0;
    for (; next < end; next++) {
      let line = lines[next]!;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.length > limits.readMaxLineChars) {
        const kept = cutHead(line, limits.readMaxLineChars);
        line = `${kept}… [line cut: ${line.length - kept.length} more characters]`;
        cutLines++;
      }
      const formatted = `${String(next + 1).padStart(6)}\t${line}`;
      const size = Buffer.byteLength(formatted) + 1;
      if (bytesOut + size > limits.readMaxOutputBytes && out.length > 0) break;
      out.push(formatted);
      bytesOut += size;
    }
    const notes: string[] = [];
    if (next < total) {
      const why = next < end ? ` (stopped at the ${formatBytes(limits.readMaxOutputBytes)} output limit)` : '';
      notes.push(`[Showing lines ${offset + 1}-${next} of ${total}${why}. To read more, call read_file with offset=${next}.]`);
    }
    if (cutLines) notes.push(`[${cutLines} long line${cutLines === 1 ? ' was' : 's were'} cut at ${limits.readMaxLineChars} characters.]`);
    if (decoded.lossy) {
      const expected = decoded.encoding.startsWith('utf16') ? ENCODING_LABELS[decoded.encoding] : 'UTF-8';
      notes.push(`[The file is not valid ${expected}; undecodable bytes are shown as \uFFFD and it cannot be edited safely.]`);
    } else if (decoded.encoding !== 'utf8') notes.push(`[Encoding: ${ENCODING_LABELS[decoded.encoding]}; edits keep it.]`);
    return { content: notes.length ? `${out.join('\n')}\n\n${notes.join('\n')}` : out.join('\n'), isError: false, counts: { lines: out.length } };
  },
});
