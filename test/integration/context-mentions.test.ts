// @-mentions and slash commands in the real extension host: the picker's list
// comes from vscode.workspace.findFiles with the user's exclusions and
// .gitignore, follows files that come and go, @problems reads the editor's
// diagnostics, @git the working-tree diff, a folder attaches its listing, and
// a custom slash command expands into the request at the mock API.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { gitDiff, mentionCandidates, problemsText, resolveAttachment } from '../../src/host/context/mentions';
import { TerminalRecorder } from '../../src/host/terminal/terminal-context';
import { runSlashInput, slashCommandList } from '../../src/host/context/slash';
import { WorkspaceIndex } from '../../src/host/context/workspace-index';
import { MockAnthropicServer, textReply } from '../fixtures/mock-anthropic';

const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('@-mentions and slash commands in the extension host', function () {
  this.timeout(60_000);
  const made: string[] = [];
  let index: WorkspaceIndex;
  let terminals: TerminalRecorder;
  const put = (rel: string, text: string) => {
    const file = path.join(root(), rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    made.push(file);
  };

  before(() => {
    index = new WorkspaceIndex();
    terminals = new TerminalRecorder();
  });
  after(async () => {
    index.dispose();
    terminals.dispose();
    for (const f of made.reverse()) fs.rmSync(f, { recursive: true, force: true });
    await vscode.workspace.getConfiguration('search').update('exclude', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('files').update('exclude', undefined, vscode.ConfigurationTarget.Global);
  });

  it('lists files that are not open and folders, without files.exclude, search.exclude or .gitignore matches', async () => {
    put('deep/nested/never-opened-notes.md', '# notes');
    put('build-output/bundle.js', 'x');
    put('.gitignore', 'build-output/\n*.secret\n');
    put('deep/key.secret', 'k');
    put('generated/types.d.ts', 'x');
    put('hidden-by-files-exclude/a.txt', 'x');
    await vscode.workspace.getConfiguration('search').update('exclude', { '**/generated': true }, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('files').update('exclude', { '**/hidden-by-files-exclude': true }, vscode.ConfigurationTarget.Global);
    const fresh = new WorkspaceIndex();
    try {
      const list = await fresh.list();
      const paths = new Set(list.map((e) => `${e.kind}:${e.path}`));
      assert.ok(paths.has('file:deep/nested/never-opened-notes.md'), [...paths].join('\n'));
      assert.ok(paths.has('folder:deep/nested'));
      assert.ok(paths.has('file:src/hello.ts'));
      for (const gone of ['file:build-output/bundle.js', 'file:deep/key.secret', 'file:generated/types.d.ts', 'file:hidden-by-files-exclude/a.txt']) assert.ok(!paths.has(gone), gone);
      const candidates = await mentionCandidates('neveropen', fresh);
      assert.deepEqual(candidates[0], { kind: 'file', path: 'deep/nested/never-opened-notes.md', label: 'never-opened-notes.md' });
      const specials = await mentionCandidates('', fresh);
      assert.deepEqual(specials.slice(0, 3).map((c) => c.kind), ['problems', 'terminal', 'git']);
      assert.deepEqual((await mentionCandidates('pro', fresh))[0]!.kind, 'problems');
    } finally {
      fresh.dispose();
    }
  });

  it('a created file shows up and a deleted one goes away (file system watcher)', async () => {
    await index.list();
    assert.ok(!(await index.list()).some((e) => e.path.startsWith('watch-me')));
    put('watch-me/arrived-later.txt', 'hi');
    await until('the new file in the index', async () => (await index.list()).some((e) => e.path === 'watch-me/arrived-later.txt'));
    fs.rmSync(path.join(root(), 'watch-me'), { recursive: true, force: true });
    await until('the deleted file gone', async () => !(await index.list()).some((e) => e.path.startsWith('watch-me')));
  });

  it('@problems lists planted diagnostics with file, line, severity and message', async () => {
    const collection = vscode.languages.createDiagnosticCollection('turnstone-test');
    try {
      const uri = vscode.Uri.file(path.join(root(), 'src', 'hello.ts'));
      collection.set(uri, [
        Object.assign(new vscode.Diagnostic(new vscode.Range(2, 4, 2, 9), 'planted warning here', vscode.DiagnosticSeverity.Warning), { source: 'plant' }),
        Object.assign(new vscode.Diagnostic(new vscode.Range(0, 0, 0, 5), 'planted error here', vscode.DiagnosticSeverity.Error), { source: 'plant', code: 'P1' }),
      ]);
      const text = problemsText();
      const errorAt = text.indexOf('src/hello.ts:1:1 error: planted error here (plant P1)');
      const warningAt = text.indexOf('src/hello.ts:3:5 warning: planted warning here (plant)');
      assert.ok(errorAt >= 0 && warningAt > errorAt, text);
      const block = await resolveAttachment({ kind: 'problems', label: 'problems', path: 'x' }, { index, terminals });
      assert.ok(block?.text.includes('planted error here'));
    } finally {
      collection.dispose();
    }
  });

  it('a folder attaches its listing, not its contents; a file linked from outside is not read', async () => {
    put('listing/a.ts', 'export const secretContent = 1;');
    put('listing/sub/b.ts', 'x');
    await until('the folder in the index', async () => (await index.list()).some((e) => e.path === 'listing/sub/b.ts'));
    const block = await resolveAttachment({ kind: 'folder', label: 'listing/', path: 'listing' }, { index, terminals });
    assert.ok(block);
    assert.ok(block.text.includes('listing/a.ts') && block.text.includes('listing/sub/') && block.text.includes('listing/sub/b.ts'), block.text);
    assert.ok(!block.text.includes('secretContent'));
    const outside = path.join(path.dirname(root()), `outside-${Date.now()}.txt`);
    fs.writeFileSync(outside, 'outside text');
    try {
      fs.symlinkSync(outside, path.join(root(), 'link-out.txt'));
      made.push(path.join(root(), 'link-out.txt'));
      assert.equal(await resolveAttachment({ kind: 'file', label: 'link-out.txt', path: 'link-out.txt' }, { index, terminals }), undefined);
    } finally {
      fs.rmSync(outside, { force: true });
    }
  });

  it('@git attaches the working-tree diff', async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root(), env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } });
    const hadRepo = fs.existsSync(path.join(root(), '.git'));
    if (!hadRepo) {
      git('init', '-q');
      made.unshift(path.join(root(), '.git'));
      git('add', 'src/hello.ts');
      git('commit', '-qm', 'base');
    }
    const file = path.join(root(), 'src', 'hello.ts');
    const before = fs.readFileSync(file, 'utf8');
    try {
      fs.writeFileSync(file, `${before}// changed for the @git test\n`);
      const text = await gitDiff();
      assert.match(text, /^Working-tree diff/);
      assert.match(text, /\+\/\/ changed for the @git test/);
    } finally {
      fs.writeFileSync(file, before);
    }
  });

  it('a custom slash command expands into the request; the / list offers it; /mcp opens the MCP server list', async () => {
    put('.turnstone/commands/explain.md', '---\ndescription: Explain a file simply\n---\nExplain $ARGUMENTS to a new teammate.');
    const list = await slashCommandList();
    assert.ok(list.some((c) => c.name === 'explain' && c.source === 'custom' && c.description === 'Explain a file simply'));
    assert.deepEqual(list.filter((c) => c.source === 'builtin').map((c) => c.name), ['compact', 'new', 'model', 'undo', 'resume', 'mcp', 'skills', 'memory']);
    const server = await MockAnthropicServer.start();
    try {
      await vscode.workspace.getConfiguration('turnstone').update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
      const turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
      await vscode.commands.executeCommand('turnstone.newSession');
      server.enqueue(textReply('ok'));
      await vscode.commands.executeCommand('turnstone.sendPrompt', '/explain src/hello.ts');
      const messages = JSON.stringify(server.bodies[0]?.messages);
      assert.ok(messages.includes('Explain src/hello.ts to a new teammate.'), messages);
      assert.ok(turnstone.panelSnapshot().items.some((i) => i.kind === 'user'));
    } finally {
      await vscode.workspace.getConfiguration('turnstone').update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
      await server.close();
    }
    assert.ok((await vscode.commands.getCommands(true)).includes('turnstone.mcp.showServers'));
    // /mcp opens the MCP server list (a quick pick, or a notice when none is configured): close it as a user would.
    let settled = false;
    const pending = runSlashInput('/mcp').finally(() => (settled = true));
    for (const deadline = Date.now() + 30_000; !settled && Date.now() < deadline; ) {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await vscode.commands.executeCommand('notifications.clearAll');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await pending).kind, 'ran');
    // A path is a prompt, not a command.
    assert.deepEqual(await runSlashInput('/etc/hosts looks odd'), { kind: 'prompt', text: '/etc/hosts looks odd' });
  });
});

describe('@terminal in the extension host', function () {
  this.timeout(90_000);
  it('attaches the active terminal\'s last command and its output (shell integration)', async () => {
    const recorder = new TerminalRecorder();
    const terminal = vscode.window.createTerminal({ name: 'turnstone-at-terminal', shellPath: 'bash', isTransient: true });
    try {
      terminal.show(false);
      const integration =
        terminal.shellIntegration ??
        (await new Promise<vscode.TerminalShellIntegration>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('shell integration did not activate in 60 s')), 60_000);
          const sub = vscode.window.onDidChangeTerminalShellIntegration((e) => {
            if (e.terminal !== terminal) return;
            clearTimeout(timer);
            sub.dispose();
            resolve(e.shellIntegration);
          });
        }));
      const ended = new Promise<void>((resolve) => {
        const sub = vscode.window.onDidEndTerminalShellExecution((e) => {
          if (e.terminal !== terminal) return;
          sub.dispose();
          resolve();
        });
      });
      // VS Code hands output to extensions only from when its start event reaches them: the first
      // milliseconds of a fast command can be missed (seen here 1 run in 3), so the output comes a little later.
      integration.executeCommand('sleep 0.5; echo turnstone-terminal-$((40+2))');
      await ended;
      await until('the active terminal', () => vscode.window.activeTerminal === terminal || undefined);
      let last = '';
      const text = await until('the output recorded', async () => {
        const described = recorder.describeActive();
        last = described.text;
        return last.includes('turnstone-terminal-42') && described.note === undefined ? last : undefined;
      }).catch((e: unknown) => {
        throw new Error(`${String(e)}; last seen: ${JSON.stringify(last)}`);
      });
      assert.match(text, /^Last command in terminal "turnstone-at-terminal" \(exit code 0\):\n\$ sleep 0\.5; echo turnstone-terminal-\$\(\(40\+2\)\)\n/);
      assert.ok(!text.includes('\u001b['), 'escape sequences are stripped');
    } finally {
      terminal.dispose();
      recorder.dispose();
    }
  });

  // 25.7: what @terminal cannot see, it says (and it never goes through the clipboard).
  it('25.7: a terminal without shell integration: says it cannot read it', async () => {
    const recorder = new TerminalRecorder();
    const written = new vscode.EventEmitter<string>();
    // An extension pseudoterminal never has shell integration.
    const terminal = vscode.window.createTerminal({ name: 'turnstone-no-integration', pty: { onDidWrite: written.event, open: () => written.fire('plain $ '), close: () => undefined } });
    try {
      terminal.show(false);
      await until('the active terminal', () => vscode.window.activeTerminal === terminal || undefined);
      const { text, note } = recorder.describeActive();
      assert.match(note ?? '', /^Shell integration is not active in terminal "turnstone-no-integration", so its commands and output cannot be read/);
      assert.equal(text, `Terminal "turnstone-no-integration": ${note}`);
    } finally {
      terminal.dispose();
      written.dispose();
      recorder.dispose();
    }
  });

  it('25.7: a command run before Turnstone started watching: says it cannot be read', async () => {
    const terminal = vscode.window.createTerminal({ name: 'turnstone-before', shellPath: 'bash', isTransient: true });
    let recorder: TerminalRecorder | undefined;
    try {
      terminal.show(false);
      const integration = terminal.shellIntegration ?? (await until('shell integration', () => terminal.shellIntegration, 60_000));
      const ended = new Promise<void>((resolve) => {
        const sub = vscode.window.onDidEndTerminalShellExecution((e) => {
          if (e.terminal !== terminal) return;
          sub.dispose();
          resolve();
        });
      });
      integration.executeCommand('echo ran-before-watching');
      await ended;
      recorder = new TerminalRecorder();
      await until('the active terminal', () => vscode.window.activeTerminal === terminal || undefined);
      const { text, note } = recorder.describeActive();
      assert.match(note ?? '', /^No command has run in terminal "turnstone-before" since Turnstone started at \d\d:\d\d; commands run before then cannot be read\./);
      assert.ok(!text.includes('ran-before-watching'), text);
    } finally {
      terminal.dispose();
      recorder?.dispose();
    }
  });
});
