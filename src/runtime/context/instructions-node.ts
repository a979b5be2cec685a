// The CLI's reader for project instructions: node:fs, real paths through
// realpath so a link leading out of the workspace is seen for what it is.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { type InstructionEntry, type InstructionReader } from './instructions';

export const nodeInstructionReader: InstructionReader = {
  async stat(p: string): Promise<InstructionEntry | undefined> {
    let realPath: string;
    try {
      realPath = await fs.realpath(p);
    } catch {
      return undefined;
    }
    const st = await fs.stat(realPath);
    return { type: st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other', realPath };
  },
  readFile: (p) => fs.readFile(p),
  readDir: (p) => fs.readdir(p),
  join: (...parts) => path.join(...parts),
  isWithin(root, p) {
    const rel = path.relative(root, p);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
  },
};
