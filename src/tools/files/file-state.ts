// What the agent has read, so a write can tell whether it would clobber a
// change made on disk after the read (by the user, a formatter, a build).
import { createHash } from 'node:crypto';
import { type FileStat } from '../ports';

interface ReadRecord {
  mtimeMs: number;
  size: number;
  hash: string;
}

export type Freshness = 'unread' | 'fresh' | 'stale';

export function contentHash(bytes: Uint8Array): string {
  // Change detection only, not security: sha1 is the fastest node digest on large files.
  return createHash('sha1').update(bytes).digest('hex');
}

export class ReadRecords {
  private readonly records = new Map<string, ReadRecord>();

  record(realPath: string, stat: FileStat, bytes: Uint8Array, hash = contentHash(bytes)): void {
    this.records.set(realPath, { mtimeMs: stat.mtimeMs, size: stat.size, hash });
  }

  forget(realPath: string): void {
    this.records.delete(realPath);
  }

  /**
   * A size change is proof enough; otherwise the content decides. mtime alone is
   * not trusted either way: coarse clocks miss same-tick edits and `touch` is no change.
   */
  check(realPath: string, bytes: Uint8Array): Freshness {
    const r = this.records.get(realPath);
    if (!r) return 'unread';
    if (bytes.length !== r.size) return 'stale';
    return contentHash(bytes) === r.hash ? 'fresh' : 'stale';
  }

  has(realPath: string): boolean {
    return this.records.has(realPath);
  }
}
