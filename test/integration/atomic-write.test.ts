// The VS Code adapter's writes must be atomic too (VsCodeWorkspace.writeFile: a
// temp file through workspace.fs, then a rename). As in the unit test
// (test/unit/tools/atomic-write.test.ts), the write is split half-way by
// construction instead of raced: the folder is served by a file system
// provider over the real disk whose writeFile stops after the first half and
// lets the test look at the target, then writes the rest.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { VsCodeWorkspace } from '../../src/host/vscode-workspace';

const SCHEME = 'turnstone-halfway';

/** `turnstone-halfway:/abs/path` is `/abs/path` on disk. */
class HalfwayDisk implements vscode.FileSystemProvider {
  private readonly changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changes.event;
  halfway: ((file: string) => void) | undefined;

  private fsCall<T>(uri: vscode.Uri, call: () => T): T {
    try {
      return call();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw vscode.FileSystemError.FileNotFound(uri);
      if (code === 'EEXIST') throw vscode.FileSystemError.FileExists(uri);
      throw error;
    }
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }
  stat(uri: vscode.Uri): vscode.FileStat {
    const s = this.fsCall(uri, () => fs.statSync(uri.path));
    return { type: s.isDirectory() ? vscode.FileType.Directory : vscode.FileType.File, ctime: s.ctimeMs, mtime: s.mtimeMs, size: s.size };
  }
  readDirectory(uri: vscode.Uri): [string, vscode.FileType][] {
    return this.fsCall(uri, () => fs.readdirSync(uri.path, { withFileTypes: true }).map((d) => [d.name, d.isDirectory() ? vscode.FileType.Directory : vscode.FileType.File]));
  }
  createDirectory(uri: vscode.Uri): void {
    this.fsCall(uri, () => fs.mkdirSync(uri.path));
  }
  readFile(uri: vscode.Uri): Uint8Array {
    return this.fsCall(uri, () => fs.readFileSync(uri.path));
  }
  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    this.fsCall(uri, () => {
      const mid = Math.floor(content.length / 2);
      fs.writeFileSync(uri.path, content.subarray(0, mid));
      this.halfway?.(uri.path);
      fs.appendFileSync(uri.path, content.subarray(mid));
    });
  }
  delete(uri: vscode.Uri): void {
    this.fsCall(uri, () => fs.rmSync(uri.path, { recursive: true }));
  }
  rename(from: vscode.Uri, to: vscode.Uri): void {
    this.fsCall(from, () => fs.renameSync(from.path, to.path));
  }
}

describe('atomic writes on the VS Code adapter (VsCodeWorkspace.writeFile)', function () {
  const disk = new HalfwayDisk();
  let registration: vscode.Disposable;
  let root: string;

  before(() => {
    registration = vscode.workspace.registerFileSystemProvider(SCHEME, disk, { isCaseSensitive: true });
  });
  after(() => registration.dispose());
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-vscode-atomic-')));
  });
  afterEach(() => {
    disk.halfway = undefined;
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('a reader looking at the target while the write is half done sees the complete old content', async () => {
    const target = path.join(root, 'big.txt');
    const before = Buffer.alloc(2 * 1024 * 1024, 'o');
    const after = Buffer.alloc(2 * 1024 * 1024, 'n');
    fs.writeFileSync(target, before);
    const seen: string[] = [];
    disk.halfway = () => {
      const now = fs.existsSync(target) ? fs.readFileSync(target) : undefined;
      seen.push(now === undefined ? 'missing' : now.equals(before) ? 'old' : now.equals(after) ? 'new' : `${now.length} bytes of neither`);
    };
    const workspace = new VsCodeWorkspace([vscode.Uri.from({ scheme: SCHEME, path: root })]);
    await workspace.writeFile(target, after);
    assert.ok(seen.length >= 1, 'the write went through no split point: nothing was observed');
    assert.deepEqual(seen, seen.map(() => 'old'), 'mid-write the target was not the complete old file');
    assert.ok(fs.readFileSync(target).equals(after));
    assert.deepEqual(fs.readdirSync(root), ['big.txt'], 'no temp file left');
  });
});
