// Issue 44, bringing a worktree's work home, in the real extension host: a worktree session's afterTurn turn
// edits three files; two are kept in the review, one is not; the user changes one kept file meanwhile where
// one of its hunks is. Apply brings the kept, non-conflicting hunks into the working tree, lists the
// conflicting one, and leaves the unreviewed file and every other byte as they were. Merge Branch is refused
// while a file has changes left to review and while the working tree has uncommitted changes, then merges (--no-ff).
// Show Conflicts, answered as the user would (the notification's button, then the quick pick), opens VS Code's
// merge editor on the user's file.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { type MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { useMockApi } from './mock-api';
import { until } from '../support/process-tree';

const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
const config = () => vscode.workspace.getConfiguration('turnstone');
const lines = (tag: string) => Array.from({ length: 10 }, (_, i) => `${tag} ${i + 1}\n`).join('');
const replaceLine = (text: string, at: number, by: string) => text.replace(new RegExp(`^.* ${at}\\n`, 'm'), `${by}\n`);
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], { cwd: root(), stdio: 'pipe' }).toString();
const startWorktreeSession = async () =>
  (await vscode.commands.executeCommand('turnstone.newSessionInWorktree', `apply-${Math.random().toString(36).slice(2, 8)}`)) as { key: string; path: string; branch: string };
/**
 * A merge editor's tab input. The extension host puts the class on the `vscode` namespace; its type is in a proposed
 * API (tabInputTextMerge), not in @types/vscode.
 */
interface TabInputTextMerge {
  readonly base: vscode.Uri;
  readonly input1: vscode.Uri;
  readonly input2: vscode.Uri;
  readonly result: vscode.Uri;
}
const TabInputTextMerge = (vscode as unknown as { TabInputTextMerge: abstract new (...args: never[]) => TabInputTextMerge }).TabInputTextMerge;
type ApplyResult = {
  applied: { path: string; hunks: number }[];
  conflicts: { path: string; reason: string; hunks: { baseStart: number }[] }[];
  skipped: { path: string; reason: string }[];
};

/** The workspace's files committed as the repository worktree sessions start from; their worktrees go under `dir`. */
async function commitFixture(dir: string): Promise<void> {
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'fixture');
  await config().update('worktrees.dir', dir, vscode.ConfigurationTarget.Global);
}

/** What a test's worktree session leaves: the session and its worktree, the setting, the repository, the files, the folder. */
async function cleanUp(key: string | undefined, dir: string, files: string[]): Promise<void> {
  if (key) await vscode.commands.executeCommand('turnstone.sessions.remove', key, { confirm: false, worktree: 'force' });
  await config().update('worktrees.dir', undefined, vscode.ConfigurationTarget.Global);
  for (const line of git('worktree', 'list', '--porcelain').split('\n')) {
    if (line.startsWith('worktree ') && line.slice(9) !== fs.realpathSync(root())) git('worktree', 'remove', '--force', line.slice(9));
  }
  fs.rmSync(path.join(root(), '.git'), { recursive: true, force: true });
  for (const f of files) fs.rmSync(f, { force: true });
  fs.rmSync(dir, { recursive: true, force: true });
}

describe('issue 44: a worktree session’s kept changes applied to the working tree', function () {
  this.timeout(90_000);
  let server: MockAnthropicServer;
  let turnstone: TurnstoneApi;

  // The worktree is outside the workspace folder: edits there would ask in the other modes. diagnostics.afterEdit
  // stays on (the default): it opens each edited file, and an open document of a file outside the workspace is not
  // reloaded when a tool writes it; the review reads such a file from the disk.
  const rig = useMockApi({ permissionMode: 'bypassPermissions', 'edits.review': 'afterTurn' }, ['worktrees.dir']);
  before(() => ({ server, turnstone } = rig));

  it('issue 44 worktree: Apply brings the kept hunks home, lists the one the user changed meanwhile, touches nothing else; Merge Branch only when all is reviewed and the tree is clean', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-wta-'));
    const home = { a: path.join(root(), 'apply-a.txt'), b: path.join(root(), 'apply-b.txt'), c: path.join(root(), 'apply-c.txt') };
    fs.writeFileSync(home.a, lines('a'));
    fs.writeFileSync(home.b, lines('b'));
    fs.writeFileSync(home.c, lines('c'));
    await commitFixture(dir);
    let key: string | undefined;
    try {
      const started = await startWorktreeSession();
      key = started.key;
      server.enqueue(
        toolUseReply([
          { id: 'tu_a1', name: 'edit_file', input: { path: 'apply-a.txt', old_string: 'a 2\n', new_string: 'a TWO\n' } },
          { id: 'tu_a2', name: 'edit_file', input: { path: 'apply-a.txt', old_string: 'a 8\n', new_string: 'a EIGHT\n' } },
          { id: 'tu_b', name: 'edit_file', input: { path: 'apply-b.txt', old_string: 'b 5\n', new_string: 'b FIVE\n' } },
          { id: 'tu_c', name: 'edit_file', input: { path: 'apply-c.txt', old_string: 'c 3\n', new_string: 'c THREE\n' } },
        ]),
        textReply('Edited three files.'),
      );
      const summary = await turnstone.sendPrompt('edit them in the worktree');
      assert.equal(summary.outcome, 'completed', summary.error?.message);
      assert.deepEqual(summary.toolResults.map((r) => `${r.name} ${r.isError ? r.content : 'ok'}`), ['edit_file ok', 'edit_file ok', 'edit_file ok', 'edit_file ok']);
      const listed = await until('the review to list the three worktree files', async () => {
        const found = await turnstone.reviewFiles();
        return found.length === 3 ? found : undefined;
      });
      const reviewed = (name: string) => listed.find((f) => path.basename(f.path) === name)!.path;
      assert.ok(reviewed('apply-a.txt').startsWith(fs.realpathSync(started.path)), 'the review is of the worktree’s files');
      // a and b are kept; c stays under review.
      await vscode.commands.executeCommand('turnstone.review.keepFile', { resourceUri: vscode.Uri.file(reviewed('apply-a.txt')) }, { resourceUri: vscode.Uri.file(reviewed('apply-b.txt')) });
      await until('a and b to leave the review', async () => ((await turnstone.reviewFiles()).length === 1 ? true : undefined));

      // Meanwhile the user changed line 8 of a in the working tree (the agent's second hunk there).
      const userA = replaceLine(lines('a'), 8, 'a 8 (mine)');
      fs.writeFileSync(home.a, userA);
      const report = (await vscode.commands.executeCommand('turnstone.review.applyWorktree', started.key)) as ApplyResult;
      assert.deepEqual(report.applied, [
        { path: 'apply-a.txt', hunks: 1 },
        { path: 'apply-b.txt', hunks: 1 },
      ]);
      assert.deepEqual(
        report.conflicts.map((c) => `${c.path} ${c.reason} ${c.hunks.map((h) => h.baseStart).join()}`),
        ['apply-a.txt changed-meanwhile 7'],
      );
      assert.deepEqual(report.skipped, [{ path: 'apply-c.txt', reason: 'nothing-kept' }]);
      assert.deepEqual(fs.readFileSync(home.a), Buffer.from(replaceLine(userA, 2, 'a TWO')));
      assert.deepEqual(fs.readFileSync(home.b), Buffer.from(replaceLine(lines('b'), 5, 'b FIVE')));
      assert.deepEqual(fs.readFileSync(home.c), Buffer.from(lines('c')));
      assert.equal(git('rev-list', '--count', 'HEAD').trim(), '1', 'no commit');
      assert.equal(git('diff', '--cached', '--name-only').trim(), '', 'the index untouched');

      // Merge Branch: not while c has changes left to review; then not into a working tree with uncommitted changes.
      assert.equal(await vscode.commands.executeCommand('turnstone.review.mergeWorktree', started.key, { confirm: false }), undefined);
      await vscode.commands.executeCommand('turnstone.review.keepFile', { resourceUri: vscode.Uri.file(reviewed('apply-c.txt')) });
      await until('c to leave the review', async () => ((await turnstone.reviewFiles()).length === 0 ? true : undefined));
      const refused = (await vscode.commands.executeCommand('turnstone.review.mergeWorktree', started.key, { confirm: false })) as { merged: boolean; reason?: string };
      assert.equal(refused.merged, false);
      assert.match(refused.reason ?? '', /uncommitted changes/);
      assert.equal(git('rev-list', '--count', 'HEAD').trim(), '1', 'no commit');
      // A clean working tree: the worktree's work is committed on its branch and merged with --no-ff.
      git('checkout', '--', '.');
      git('config', 'user.name', 't');
      git('config', 'user.email', 't@t');
      const merged = (await vscode.commands.executeCommand('turnstone.review.mergeWorktree', started.key, { confirm: false })) as { merged: boolean; reason?: string };
      assert.ok(merged.merged, merged.reason);
      assert.equal(git('rev-list', '--parents', '-n', '1', 'HEAD').trim().split(' ').length, 3, 'a merge commit');
      assert.deepEqual(fs.readFileSync(home.c), Buffer.from(replaceLine(lines('c'), 3, 'c THREE')));
    } finally {
      await cleanUp(key, dir, Object.values(home));
    }
  });

  it('issue 44 worktree: Show Conflicts, then the conflict picked, opens the merge editor on your file with the base, your file after Apply and the kept version', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-wta-'));
    const home = path.join(root(), 'merge-a.txt');
    fs.writeFileSync(home, lines('a'));
    await commitFixture(dir);
    const mergeTabs = () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter((t): t is vscode.Tab & { input: TabInputTextMerge } => t.input instanceof TabInputTextMerge && t.input.result.fsPath === home);
    let key: string | undefined;
    try {
      const started = await startWorktreeSession();
      key = started.key;
      server.enqueue(
        toolUseReply([
          { id: 'tu_m1', name: 'edit_file', input: { path: 'merge-a.txt', old_string: 'a 2\n', new_string: 'a TWO\n' } },
          { id: 'tu_m2', name: 'edit_file', input: { path: 'merge-a.txt', old_string: 'a 8\n', new_string: 'a EIGHT\n' } },
        ]),
        textReply('Edited it.'),
      );
      const summary = await turnstone.sendPrompt('edit it in the worktree');
      assert.equal(summary.outcome, 'completed', summary.error?.message);
      const [listed] = await until('the review to list the worktree file', async () => {
        const found = await turnstone.reviewFiles();
        return found.length === 1 ? found : undefined;
      });
      await vscode.commands.executeCommand('turnstone.review.keepFile', { resourceUri: vscode.Uri.file(listed!.path) });
      await until('the file to leave the review', async () => ((await turnstone.reviewFiles()).length === 0 ? true : undefined));
      const userA = replaceLine(lines('a'), 8, 'a 8 (mine)');
      fs.writeFileSync(home, userA);

      // The toasts other tests left are let go: the newest notification is Apply's.
      await vscode.commands.executeCommand('notifications.clearAll');
      const report = (await vscode.commands.executeCommand('turnstone.review.applyWorktree', started.key)) as ApplyResult;
      assert.deepEqual(report.applied, [{ path: 'merge-a.txt', hunks: 1 }]);
      assert.deepEqual(
        report.conflicts.map((c) => `${c.path} ${c.reason}`),
        ['merge-a.txt changed-meanwhile'],
      );
      // The user presses Show Conflicts (the message's first button), then takes the only conflict listed. Both
      // are pressed until the merge editor opens: the message may reach the workbench after the command returned,
      // and the quick pick comes once the button's answer has reached the extension (accepting before does nothing).
      const [tab] = await until('the merge editor on your file', async () => {
        await vscode.commands.executeCommand('notification.acceptPrimaryAction');
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        const tabs = mergeTabs();
        return tabs.length > 0 ? tabs : undefined;
      });
      const text = async (uri: vscode.Uri) => (await vscode.workspace.openTextDocument(uri)).getText();
      assert.equal(await text(tab!.input.base), lines('a'), 'the base: the commit the worktree started from');
      assert.equal(await text(tab!.input.input1), replaceLine(userA, 2, 'a TWO'), 'input 1: your file after Apply');
      assert.equal(await text(tab!.input.input2), replaceLine(replaceLine(lines('a'), 2, 'a TWO'), 8, 'a EIGHT'), 'input 2: kept in the worktree');
      assert.deepEqual(fs.readFileSync(home), Buffer.from(replaceLine(userA, 2, 'a TWO')), 'opening the view changes no file');
    } finally {
      for (const t of mergeTabs()) await vscode.window.tabGroups.close(t);
      await until('the merge editor to close', () => mergeTabs().length === 0);
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await vscode.commands.executeCommand('notifications.clearAll');
      await cleanUp(key, dir, [home]);
    }
  });
});
