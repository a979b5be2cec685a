// Issue 43, several sessions at once in one window, in the real extension host: a session keeps running,
// asking and editing while the panel shows another; each keeps its own transcript; a request of the hidden
// one is answered from the API as the notification's Show would lead to it; a session may not write a file
// another running session changed; Stop in one leaves the other running; removing one closes it.
// Replies are held at exact requests (beforeReply), so which session is where never depends on timing.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { type MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { closeOtherSessions, useMockApi } from './mock-api';
import { until } from '../support/process-tree';

const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
const config = () => vscode.workspace.getConfiguration('turnstone');

/** A promise and what settles it: a reply held until the test lets it go. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** The id of the next permission request Turnstone raises, in any session. */
function nextAsk(turnstone: TurnstoneApi): Promise<string> {
  return new Promise<string>((resolve) => {
    const sub = turnstone.onDidRequestPermission((id) => {
      sub.dispose();
      resolve(id);
    });
  });
}

function userTexts(items: readonly { kind: string; text?: string }[]): string[] {
  return items.flatMap((i) => (i.kind === 'user' && i.text ? [i.text] : []));
}

describe('43.sessions: several sessions at once in one window', function () {
  this.timeout(90_000);
  let server: MockAnthropicServer;
  let turnstone: TurnstoneApi;

  // Other files' sessions are closed: this test counts the window's sessions.
  const rig = useMockApi({ permissionMode: 'ask' });
  before(() => ({ server, turnstone } = rig));
  after(async () => {
    server.beforeReply = undefined;
    await closeOtherSessions(turnstone);
    await vscode.commands.executeCommand('turnstone.newSession');
    await server.close();
  });

  it('43.sessions: the hidden session asks and edits while the shown one runs a turn; a file the running one changed is refused to the other; Stop in one leaves the other running', async () => {
    const shared = path.join(root(), 'sessions-shared.txt');
    fs.writeFileSync(shared, 'one\n');
    const first = server.requests.length;
    const held = new Map<number, ReturnType<typeof gate>>([0, 2, 4].map((i) => [first + i, gate()]));
    server.beforeReply = (i) => held.get(i)?.wait;
    server.enqueue(
      // A's first step (held until B is shown): an edit that asks.
      toolUseReply([{ id: 'tu_a_edit', name: 'edit_file', input: { path: 'sessions-shared.txt', old_string: 'one', new_string: 'ONE by A' } }]),
      // B's turn, while A waits for its answer.
      textReply('hello from B'),
    );

    // A, shown: its request is held.
    const a = turnstone.sessions()[0]!;
    const aTurn = turnstone.sendPrompt('A: edit the shared file');
    await server.waitForRequests(first + 1);

    // A second session: the panel shows it; A goes on.
    await vscode.commands.executeCommand('turnstone.newSession');
    const rows = turnstone.sessions();
    assert.equal(rows.length, 2, 'two sessions are open');
    const b = rows.find((s) => s.key !== a.key)!;
    assert.ok(b.shown, 'the new session is shown');
    assert.equal(rows.find((s) => s.key === a.key)!.state, 'running');

    // A's edit asks while it is hidden: its row waits, its card is in its own transcript and not in the panel.
    const asked = nextAsk(turnstone);
    held.get(first)!.open();
    const askId = await asked;
    await until('A to wait for the user', () => turnstone.sessions().find((s) => s.key === a.key)?.state === 'waiting');
    assert.deepEqual(turnstone.sessions().find((s) => s.key === a.key)!.waiting, [askId]);
    assert.ok(turnstone.sessionSnapshot(a.key)!.items.some((i) => i.kind === 'permission'), "A's card is in A's transcript");
    assert.ok(!turnstone.panelSnapshot().items.some((i) => i.kind === 'permission'), "the panel (B) shows no card of A's");

    // B runs a whole turn while A waits: they do not take turns.
    const bFirst = await turnstone.sendPrompt('B: say hello');
    assert.equal(bFirst.outcome, 'completed');
    assert.equal(bFirst.finalText, 'hello from B');
    assert.equal(turnstone.sessions().find((s) => s.key === a.key)!.state, 'waiting', 'A still waits');

    // A's request answered (what Show in the notification leads to): its edit lands, its next step is held.
    server.enqueue(textReply('A edited it'));
    assert.equal(turnstone.decide(askId, { kind: 'allow', scope: 'once' }), true);
    await server.waitForRequests(first + 3);
    assert.equal(fs.readFileSync(shared, 'utf8'), 'ONE by A\n');
    await until('A to count its changed file', () => turnstone.sessions().find((s) => s.key === a.key)?.filesChanged === 1);

    // B may not change the file A (still running) changed: refused, the file byte-identical.
    server.enqueue(toolUseReply([{ id: 'tu_b_edit', name: 'edit_file', input: { path: 'sessions-shared.txt', old_string: 'ONE by A', new_string: 'B was here' } }]), textReply('B stops here'));
    const bAsked = nextAsk(turnstone);
    const bTurn = turnstone.sendPrompt('B: edit the shared file too');
    turnstone.decide(await bAsked, { kind: 'allow', scope: 'once' });
    // B's step after the refusal is held: B is running when A is stopped.
    await server.waitForRequests(first + 5);
    const refused = JSON.stringify(server.bodies[first + 4]!.messages);
    assert.match(refused, /changed by another Turnstone session that is still running/);
    assert.equal(fs.readFileSync(shared, 'utf8'), 'ONE by A\n');

    // Stop A from its row: A ends, B runs on.
    await vscode.commands.executeCommand('turnstone.sessions.stop', a.key);
    const aSummary = await aTurn;
    assert.equal(aSummary.outcome, 'aborted');
    assert.equal(turnstone.sessions().find((s) => s.key === a.key)!.state, 'stopped');
    assert.equal(turnstone.sessions().find((s) => s.key === b.key)!.state, 'running', 'Stop in A leaves B running');
    held.get(first + 2)!.open();
    held.get(first + 4)!.open();
    assert.equal((await bTurn).outcome, 'completed');

    // Each keeps its own history: showing A puts A's transcript in the panel.
    assert.deepEqual(userTexts(turnstone.panelSnapshot().items), ['B: say hello', 'B: edit the shared file too']);
    await vscode.commands.executeCommand('turnstone.sessions.show', a.key);
    assert.ok(turnstone.sessions().find((s) => s.key === a.key)!.shown);
    await until('the panel to show A', () => userTexts(turnstone.panelSnapshot().items).join('|') === 'A: edit the shared file');
    assert.notEqual(turnstone.sessions().find((s) => s.key === a.key)!.sessionFile, turnstone.sessions().find((s) => s.key === b.key)!.sessionFile);

    // Removing B closes it; A stays shown.
    await vscode.commands.executeCommand('turnstone.sessions.remove', b.key, { confirm: false });
    assert.deepEqual(
      turnstone.sessions().map((s) => s.key),
      [a.key],
    );
  });

  it('43.sessions: a file a running session changed by a command is refused to the other session beside it, as an edited one is', async () => {
    await closeOtherSessions(turnstone);
    const file = path.join(root(), 'sessions-by-command.txt');
    fs.writeFileSync(file, 'before\n');
    const other = turnstone.sessions()[0]!;
    await vscode.commands.executeCommand('turnstone.newSession');
    const runner = turnstone.sessions().find((s) => s.shown)!;
    assert.notEqual(runner.key, other.key);
    const first = server.requests.length;
    // The command's session is held after its command: it is still running when the other one edits.
    const held = new Map<number, ReturnType<typeof gate>>([1, 3].map((i) => [first + i, gate()]));
    server.beforeReply = (i) => held.get(i)?.wait;

    try {
      server.enqueue(toolUseReply([{ id: 'tu_cmd', name: 'bash', input: { command: "printf 'by the command\\n' > sessions-by-command.txt" } }]), textReply('wrote it'));
      let asked = nextAsk(turnstone);
      const runnerTurn = turnstone.sendPrompt('write the file with a command');
      turnstone.decide(await asked, { kind: 'allow', scope: 'once' });
      await server.waitForRequests(first + 2);
      assert.equal(fs.readFileSync(file, 'utf8'), 'by the command\n');
      await until('the command\'s session to count the file', () => turnstone.sessions().find((s) => s.key === runner.key)?.filesChanged === 1);

      // The other session, shown, edits the same file while the first runs: refused, the file as the command left it.
      await vscode.commands.executeCommand('turnstone.sessions.show', other.key);
      server.enqueue(toolUseReply([{ id: 'tu_other_edit', name: 'edit_file', input: { path: 'sessions-by-command.txt', old_string: 'by the command', new_string: 'by the other' } }]), textReply('refused, then'));
      asked = nextAsk(turnstone);
      const otherTurn = turnstone.sendPrompt('edit the same file');
      turnstone.decide(await asked, { kind: 'allow', scope: 'once' });
      await server.waitForRequests(first + 4);
      assert.match(JSON.stringify(server.bodies[first + 3]!.messages), /changed by another Turnstone session that is still running/);
      assert.equal(fs.readFileSync(file, 'utf8'), 'by the command\n');
      held.get(first + 1)!.open();
      held.get(first + 3)!.open();
      assert.equal((await runnerTurn).outcome, 'completed');
      assert.equal((await otherTurn).outcome, 'completed');
    } finally {
      // A failure above leaves no reply held for the next test.
      for (const g of held.values()) g.open();
      server.beforeReply = undefined;
    }
  });

  it('43.sessions: a file another session edited while a command ran is not the command\'s: that session may go on editing it', async () => {
    await closeOtherSessions(turnstone);
    for (const name of ['sessions-theirs.txt', 'sessions-mine.txt']) fs.writeFileSync(path.join(root(), name), 'before\n');
    // Edits go through without asking (commands still ask): only the command's approval is answered here.
    await config().update('permissionMode', 'acceptEdits', vscode.ConfigurationTarget.Global);
    const other = turnstone.sessions()[0]!;
    await vscode.commands.executeCommand('turnstone.newSession');
    const runner = turnstone.sessions().find((s) => s.shown)!;
    const first = server.requests.length;
    const held = new Map<number, ReturnType<typeof gate>>([[first + 3, gate()]]);
    server.beforeReply = (i) => held.get(i)?.wait;
    const flag = (name: string) => path.join(root(), name);
    try {
      // The runner's command says it started, then waits for the test before writing its own file.
      const command = "touch sessions-started.flag; while [ ! -f sessions-go.flag ]; do sleep 0.05; done; printf 'mine\\n' > sessions-mine.txt";
      server.enqueue(toolUseReply([{ id: 'tu_wait_cmd', name: 'bash', input: { command } }]));
      const asked = nextAsk(turnstone);
      const runnerTurn = turnstone.sendPrompt('run the slow command');
      turnstone.decide(await asked, { kind: 'allow', scope: 'once' });
      await until('the command to start', () => fs.existsSync(flag('sessions-started.flag')));

      // Meanwhile the other session edits its file, and its turn ends.
      await vscode.commands.executeCommand('turnstone.sessions.show', other.key);
      server.enqueue(toolUseReply([{ id: 'tu_theirs', name: 'edit_file', input: { path: 'sessions-theirs.txt', old_string: 'before', new_string: 'theirs' } }]), textReply('edited theirs'));
      assert.equal((await turnstone.sendPrompt('edit your file')).outcome, 'completed');
      assert.equal(fs.readFileSync(path.join(root(), 'sessions-theirs.txt'), 'utf8'), 'theirs\n');

      // The command ends; its session runs on (its next request is held).
      server.enqueue(textReply('command done'));
      fs.writeFileSync(flag('sessions-go.flag'), '');
      await server.waitForRequests(first + 4);
      assert.equal(fs.readFileSync(path.join(root(), 'sessions-mine.txt'), 'utf8'), 'mine\n');

      // The other session edits its own file again (allowed) and the command's file (refused).
      server.enqueue(
        toolUseReply([
          { id: 'tu_theirs_again', name: 'edit_file', input: { path: 'sessions-theirs.txt', old_string: 'theirs', new_string: 'theirs again' } },
          { id: 'tu_mine', name: 'edit_file', input: { path: 'sessions-mine.txt', old_string: 'mine', new_string: 'not mine' } },
        ]),
        textReply('one of two'),
      );
      assert.equal((await turnstone.sendPrompt('edit both')).outcome, 'completed');
      assert.equal(fs.readFileSync(path.join(root(), 'sessions-theirs.txt'), 'utf8'), 'theirs again\n', 'its own file: not claimed by the command');
      assert.equal(fs.readFileSync(path.join(root(), 'sessions-mine.txt'), 'utf8'), 'mine\n', "the command's file: refused");
      assert.match(JSON.stringify(server.bodies[server.bodies.length - 1]!.messages), /sessions-mine\.txt was changed by another Turnstone session that is still running/);
      held.get(first + 3)!.open();
      assert.equal((await runnerTurn).outcome, 'completed');
      assert.equal(runner.key !== other.key, true);
    } finally {
      for (const g of held.values()) g.open();
      server.beforeReply = undefined;
      await config().update('permissionMode', 'ask', vscode.ConfigurationTarget.Global);
      for (const name of ['sessions-started.flag', 'sessions-go.flag']) fs.rmSync(flag(name), { force: true });
    }
  });

  it('43.worktree: New Session in Worktree edits only the worktree (the working tree byte-identical; git lists it); removing the session keeps a worktree holding uncommitted work', async () => {
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root(), stdio: 'pipe' }).toString();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-wt-'));
    const readme = fs.readFileSync(path.join(root(), 'README.md'));
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'fixture');
    await config().update('worktrees.dir', dir, vscode.ConfigurationTarget.Global);
    await config().update('permissionMode', 'bypassPermissions', vscode.ConfigurationTarget.Global);
    try {
      const name = `it-${Math.random().toString(36).slice(2, 8)}`;
      const started = (await vscode.commands.executeCommand('turnstone.newSessionInWorktree', name)) as { key: string; path: string; branch: string };
      assert.equal(started.branch, `turnstone/${name}`);
      assert.ok(started.path.startsWith(fs.realpathSync(dir)), `made under turnstone.worktrees.dir (${started.path})`);
      const row = () => turnstone.sessions().find((s) => s.key === started.key);
      assert.ok(row()?.shown, 'the worktree session is shown');

      server.enqueue(
        toolUseReply([
          { id: 'tu_wt_write', name: 'write_file', input: { path: 'from-worktree.txt', content: 'made in the worktree\n' } },
          { id: 'tu_wt_edit', name: 'edit_file', input: { path: 'README.md', old_string: readme.toString('utf8').split('\n')[0]!, new_string: '# changed in the worktree' } },
          { id: 'tu_wt_pwd', name: 'bash', input: { command: 'pwd' } },
        ]),
        textReply('Done in the worktree.'),
      );
      const summary = await turnstone.sendPrompt('work in the worktree');
      assert.equal(summary.outcome, 'completed');
      assert.equal(fs.readFileSync(path.join(started.path, 'from-worktree.txt'), 'utf8'), 'made in the worktree\n');
      assert.match(fs.readFileSync(path.join(started.path, 'README.md'), 'utf8'), /^# changed in the worktree/);
      assert.ok(!fs.existsSync(path.join(root(), 'from-worktree.txt')), 'nothing written in the working tree');
      assert.deepEqual(fs.readFileSync(path.join(root(), 'README.md')), readme, 'the working tree README byte-identical');
      assert.match(JSON.stringify(server.bodies.at(-1)!.messages), new RegExp(fs.realpathSync(started.path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), `commands run in the worktree: ${JSON.stringify(server.bodies.at(-1)!.messages).slice(-1500)}`);
      assert.match(git('worktree', 'list'), new RegExp(`\\[turnstone/${name}\\]`));
      assert.match(row()!.description, new RegExp(`turnstone/${name}`), 'the row names the branch');

      // Its work is not committed: removing the session keeps the worktree (and says why).
      await vscode.commands.executeCommand('turnstone.sessions.remove', started.key, { confirm: false, worktree: 'remove' });
      assert.equal(row(), undefined, 'the session is closed');
      assert.ok(fs.existsSync(path.join(started.path, 'from-worktree.txt')), 'the worktree with its uncommitted work is kept');
    } finally {
      await config().update('worktrees.dir', undefined, vscode.ConfigurationTarget.Global);
      await config().update('permissionMode', 'ask', vscode.ConfigurationTarget.Global);
      for (const line of git('worktree', 'list', '--porcelain').split('\n')) {
        if (line.startsWith('worktree ') && line.slice(9) !== fs.realpathSync(root())) git('worktree', 'remove', '--force', line.slice(9));
      }
      fs.rmSync(path.join(root(), '.git'), { recursive: true, force: true });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
