// The tool contract suite against the VS Code adapters (workspace.fs and the
// Turnstone terminal), inside the real extension host.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { TerminalShell } from '../../src/host/terminal/terminal-shell';
import { VsCodeWorkspace, vscodeRipgrepPath } from '../../src/host/vscode-workspace';
import { createToolExecutor } from '../../src/tools/registry';
import { defineToolContractTests } from '../contract/tools.contract';

function tempRoot(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-vscode-tools-')));
}

describe('tools on the VS Code adapters', function () {
  // Shell integration comes up in 1.5–5 s in this headless test host (measured: bash's prompt reports it
  // about 1.2 s after the pty starts, the first terminal also waits for the pty host): a loaded machine
  // gets a minute, and the integrated tests require it; the pseudoterminal has its own tests by name.
  this.timeout(180_000);
  const shell = new TerminalShell({ shellIntegrationTimeoutMs: 60_000, log: (m) => console.log(`[terminal] ${m}`) });
  after(() => shell.dispose());

  defineToolContractTests(async () => {
    const root = tempRoot();
    const executor = createToolExecutor(
      { workspace: new VsCodeWorkspace([vscode.Uri.file(root)]), shell },
      { ripgrepPath: vscodeRipgrepPath(), outputDir: path.join(root, '.out') },
    );
    return { executor, root, cleanup: async () => fs.rmSync(root, { recursive: true, force: true }) };
  });

  it('finds the ripgrep that VS Code ships', () => {
    const rg = vscodeRipgrepPath();
    assert.ok(rg && fs.existsSync(rg), `rg under ${vscode.env.appRoot}`);
  });

  it('runs `echo hi; exit 3` in the Turnstone terminal through shell integration, with its output and exit code', async () => {
    const root = tempRoot();
    try {
      const executor = createToolExecutor({ workspace: new VsCodeWorkspace([vscode.Uri.file(root)]), shell });
      const out = await executor.execute('bash', { command: 'echo hi; exit 3' }, { signal: new AbortController().signal });
      assert.equal(out.isError, true);
      assert.match(out.content, /^hi$/m);
      assert.match(out.content, /Exit code: 3/);
      assert.ok(vscode.window.terminals.some((t) => t.name === 'Turnstone'), 'a terminal named Turnstone exists');
      // This is the shell-integration path; the pseudoterminal fallback has its own test below.
      assert.equal(shell.lastMode, 'shell-integration');
      // The terminal's shell survived the `exit 3`: the next command runs too.
      const again = await executor.execute('bash', { command: 'echo still here' }, { signal: new AbortController().signal });
      assert.match(again.content, /still here/);
      assert.equal(shell.lastMode, 'shell-integration');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('captures output through the pseudoterminal when shell integration is not there in time', async () => {
    const fallback = new TerminalShell({ shellIntegrationTimeoutMs: 1 });
    const root = tempRoot();
    try {
      const executor = createToolExecutor({ workspace: new VsCodeWorkspace([vscode.Uri.file(root)]), shell: fallback });
      const signal = new AbortController().signal;
      const out = await executor.execute('bash', { command: 'echo hi; exit 3' }, { signal });
      assert.equal(fallback.lastMode, 'pseudoterminal');
      assert.equal(out.isError, true);
      assert.match(out.content, /^hi$/m);
      assert.match(out.content, /Exit code: 3/);
      const multi = await executor.execute('bash', { command: 'echo one\necho two # comment' }, { signal });
      assert.match(multi.content, /^one\ntwo\n\nExit code: 0$/);
      const timed = await executor.execute('bash', { command: 'sleep 30', timeout: 500 }, { signal });
      assert.match(timed.content, /Timed out after 500 ms/);
    } finally {
      fallback.dispose();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('times out a command in the integrated terminal and keeps working afterwards', async () => {
    const root = tempRoot();
    try {
      const executor = createToolExecutor({ workspace: new VsCodeWorkspace([vscode.Uri.file(root)]), shell });
      const signal = new AbortController().signal;
      const timed = await executor.execute('bash', { command: 'sleep 30', timeout: 1000 }, { signal });
      assert.equal(timed.isError, true);
      assert.match(timed.content, /Timed out after 1000 ms/);
      assert.equal(shell.lastMode, 'shell-integration');
      const next = await executor.execute('bash', { command: 'echo after' }, { signal });
      assert.match(next.content, /after/);
      assert.equal(shell.lastMode, 'shell-integration');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('lists a local folder with node:fs exactly as workspace.fs.readDirectory types it (links never followed)', async () => {
    const root = tempRoot();
    try {
      fs.writeFileSync(path.join(root, 'file.ts'), 'x');
      fs.mkdirSync(path.join(root, 'dir'));
      fs.symlinkSync(path.join(root, 'file.ts'), path.join(root, 'link-to-file'));
      fs.symlinkSync(path.join(root, 'dir'), path.join(root, 'link-to-dir'));
      fs.symlinkSync(path.join(root, 'gone'), path.join(root, 'dangling'));
      const ws = new VsCodeWorkspace([vscode.Uri.file(root)]);
      const ours = (await ws.readdir(root)).sort((a, b) => (a.name < b.name ? -1 : 1));
      const viaVsCode = (await vscode.workspace.fs.readDirectory(vscode.Uri.file(root)))
        .map(([name, type]) => ({ name, type: type & vscode.FileType.SymbolicLink ? 'symlink' : type & vscode.FileType.Directory ? 'directory' : type & vscode.FileType.File ? 'file' : 'other' }))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
      assert.deepEqual(ours, viaVsCode);
      assert.deepEqual(ours.map((e) => `${e.name}:${e.type}`), ['dangling:symlink', 'dir:directory', 'file.ts:file', 'link-to-dir:symlink', 'link-to-file:symlink']);
      await assert.rejects(ws.readdir(path.join(root, 'missing')), (e: Error & { kind?: string }) => e.kind === 'not_found');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
