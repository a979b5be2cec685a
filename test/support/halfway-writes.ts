// Deterministic fault injection for atomicity tests: while installed, every
// fs write of a whole buffer in this process stops after its first half and
// calls `halfway(file)` before writing the rest. Whatever the product writes
// to (a temp file, or the target in place), the test observes the moment a
// reader or a kill would meet a half-done write, by construction rather than
// by racing a fast write. The writes themselves are real.
import fs from 'node:fs';

type Halfway = (file: string) => void | Promise<void>;

const halves = (data: unknown): [Uint8Array, Uint8Array] | undefined => {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data instanceof Uint8Array ? data : undefined;
  if (!bytes || bytes.length < 2) return undefined;
  const mid = Math.floor(bytes.length / 2);
  return [bytes.subarray(0, mid), bytes.subarray(mid)];
};

const fileName = (file: unknown): string | undefined => (typeof file === 'string' ? file : file instanceof URL ? file.pathname : Buffer.isBuffer(file) ? file.toString() : undefined);

/** Installs the interception; returns the function that removes it. */
export function splitWritesHalfway(halfway: Halfway): () => void {
  const fsp = fs.promises;
  const writeFile = fsp.writeFile;
  const writeFileSync = fs.writeFileSync;
  fsp.writeFile = async function (file: Parameters<typeof writeFile>[0], data: Parameters<typeof writeFile>[1], options?: Parameters<typeof writeFile>[2]) {
    const parts = halves(data);
    const name = fileName(file);
    if (!parts || name === undefined) return writeFile(file, data, options);
    await writeFile(file, parts[0], options);
    await halfway(name);
    await fsp.appendFile(file, parts[1]);
  } as typeof writeFile;
  fs.writeFileSync = function (file: Parameters<typeof writeFileSync>[0], data: Parameters<typeof writeFileSync>[1], options?: Parameters<typeof writeFileSync>[2]) {
    const parts = halves(data);
    const name = fileName(file);
    if (!parts || name === undefined) return writeFileSync(file, data, options);
    writeFileSync(file, parts[0], options);
    const pending = halfway(name);
    if (pending instanceof Promise) throw new Error('a synchronous write cannot wait for an asynchronous halfway hook');
    fs.appendFileSync(file, parts[1]);
  } as typeof writeFileSync;
  return () => {
    fsp.writeFile = writeFile;
    fs.writeFileSync = writeFileSync;
  };
}
