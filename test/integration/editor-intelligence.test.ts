// Issue 30: problems after edits and the lsp tool, in the real extension host
// with VS Code's built-in TypeScript features on a small TypeScript project.
// Turns go through turnstone.sendPrompt against the mock Messages API; what the
// model would read is the tool result in the next request.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { HostEditDiagnostics } from '../../src/host/language/edit-diagnostics';
import { LanguageCoverage } from '../../src/host/language/language-coverage';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';

const root = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
const config = () => vscode.workspace.getConfiguration('turnstone');
const project = () => path.join(root(), 'tsp');
const MAIN = 'export const legacy: number = "old";\n';
const OLD_ERROR = "Type 'string' is not assignable to type 'number'.";
const NEW_ERROR = "Type 'number' is not assignable to type 'string'.";

function waitUntil(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (check()) return resolve();
    const timer = setTimeout(() => (sub.dispose(), reject(new Error(`timed out waiting for ${what}`))), timeoutMs);
    const sub = vscode.languages.onDidChangeDiagnostics(() => {
      if (!check()) return;
      clearTimeout(timer);
      sub.dispose();
      resolve();
    });
  });
}

interface ToolResult {
  type: string;
  tool_use_id: string;
  content: string | Array<{ type: string; text?: string }>;
  is_error?: boolean;
}

describe('30: editor intelligence in the real extension host', function () {
  // The TypeScript server's first start took 25 s on a loaded 2-core machine.
  this.timeout(240_000);
  let server: MockAnthropicServer;
  let seq = 0;

  async function runTool(name: string, input: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
    const id = `tu_${++seq}`;
    server.enqueue(toolUseReply([{ id, name, input }]), textReply('Done.'));
    const summary = (await vscode.commands.executeCommand('turnstone.sendPrompt', `run ${name}`)) as { outcome: string };
    assert.equal(summary.outcome, 'completed');
    const messages = (server.bodies.at(-1)!.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'user');
    const result = messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as ToolResult[]) : [])).find((b) => b.type === 'tool_result' && b.tool_use_id === id);
    assert.ok(result, `a tool result for ${id}`);
    const text = typeof result.content === 'string' ? result.content : result.content.map((c) => c.text ?? '').join('');
    return { text, isError: result.is_error === true };
  }

  before(async function () {
    this.timeout(300_000);
    server = await MockAnthropicServer.start();
    await vscode.extensions.getExtension('turnstone.turnstone')!.activate();
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    await config().update('permissionMode', 'bypassPermissions', vscode.ConfigurationTarget.Global);
    // Generous: a busy machine must not turn a slow TypeScript check into a missing error.
    await config().update('diagnostics.waitMs', 60_000, vscode.ConfigurationTarget.Global);
    fs.mkdirSync(project(), { recursive: true });
    fs.writeFileSync(path.join(project(), 'tsconfig.json'), '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["*.ts"] }\n');
    fs.writeFileSync(path.join(project(), 'lib.ts'), 'export function area(w: number, h: number): number {\n  return w * h;\n}\n');
    fs.writeFileSync(path.join(project(), 'use.ts'), "import { area } from './lib';\nexport const size = area(2, 3);\n");
    fs.writeFileSync(path.join(project(), 'main.ts'), MAIN);
    fs.writeFileSync(path.join(root(), 'notes-30.txt'), 'plain words\n');
    // Start the TypeScript server and wait for its first report: the pre-existing error of main.ts.
    const main = vscode.Uri.file(path.join(project(), 'main.ts'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(main), { preview: false, preserveFocus: true });
    await waitUntil(() => vscode.languages.getDiagnostics(main).some((d) => d.message === OLD_ERROR), 'the TypeScript server to report main.ts', 240_000);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(project(), { recursive: true, force: true });
    fs.rmSync(path.join(root(), 'notes-30.txt'), { force: true });
    for (const key of ['baseUrl', 'permissionMode', 'diagnostics.waitMs', 'diagnostics.afterEdit']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  beforeEach(async () => {
    server.reset();
    await vscode.commands.executeCommand('turnstone.newSession');
  });

  it('30.diag: an edit that introduces a type error gets it in its tool result, and the error that was there before is not repeated', async () => {
    const r = await runTool('edit_file', { path: 'tsp/main.ts', old_string: MAIN, new_string: `${MAIN}export const broken: string = 42;\n` });
    assert.equal(r.isError, false);
    assert.match(r.text, /New problems in tsp\/main\.ts after this change \(1 error/);
    assert.ok(r.text.includes(`tsp/main.ts:2: error: ${NEW_ERROR} (ts 2322)`), r.text);
    assert.ok(!r.text.includes(OLD_ERROR), `the old error is not repeated:\n${r.text}`);
  });

  it('30.diag: an edit that fixes the error gets no problems in its result', async () => {
    const r = await runTool('edit_file', { path: 'tsp/main.ts', old_string: 'export const broken: string = 42;', new_string: 'export const broken: string = String(42);' });
    assert.equal(r.isError, false);
    assert.ok(!r.text.includes('New problems'), r.text);
    await waitUntil(() => vscode.languages.getDiagnostics(vscode.Uri.file(path.join(project(), 'main.ts'))).length === 1, 'only the old error', 60_000);
  });

  it('30.diag: a pre-existing error that moved down with the lines above it is not reported as new', async () => {
    const r = await runTool('edit_file', { path: 'tsp/main.ts', old_string: 'export const legacy', new_string: '// header\n// another header line\nexport const legacy' });
    assert.equal(r.isError, false);
    assert.ok(!r.text.includes('New problems'), r.text);
    // The error did move: it is there, two lines further down.
    const lines = vscode.languages.getDiagnostics(vscode.Uri.file(path.join(project(), 'main.ts'))).map((d) => d.range.start.line + 1);
    assert.deepEqual(lines, [3]);
  });

  it('30.diag: a report that only repeats the problems from before, landing right after the change, does not end the wait', async () => {
    // What a loaded machine showed: a report about the previous text (same problems) arrives ~80 ms after the change,
    // and TypeScript's real one ~400 ms later. Injected here deterministically: a hint (not a problem) set on the file
    // as the document takes the new text fires a diagnostics change that leaves the problems as they were.
    const uri = vscode.Uri.file(path.join(project(), 'main.ts'));
    const document = await vscode.workspace.openTextDocument(uri);
    const original = document.getText();
    const coverage = new LanguageCoverage();
    const stale = vscode.languages.createDiagnosticCollection('turnstone-test-stale');
    const inject = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.toString() !== uri.toString() || e.contentChanges.length === 0) return;
      stale.set(uri, [new vscode.Diagnostic(new vscode.Range(0, 0, 0, 1), 'stale', vscode.DiagnosticSeverity.Hint)]);
    });
    const replaceAll = async (text: string) => {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), text);
      assert.ok(await vscode.workspace.applyEdit(edit));
      await document.save();
    };
    try {
      const diagnostics = new HostEditDiagnostics((p) => vscode.Uri.file(p), { afterEdit: true, waitMs: 60_000 }, coverage);
      const signal = new AbortController().signal;
      const watch = await diagnostics.watch(uri.fsPath, signal);
      assert.ok(watch && watch.before.length === 1, `main.ts has its one old error: ${JSON.stringify(watch?.before)}`);
      await replaceAll(`${original}export const late: string = 7;\n`);
      const after = await watch.settle(signal);
      const line = original.split('\n').length;
      assert.ok(after.some((p) => p.line === line && p.message === NEW_ERROR), `the new error on line ${line}: ${JSON.stringify(after)}`);
    } finally {
      inject.dispose();
      stale.dispose();
      coverage.dispose();
      await replaceAll(original);
      await waitUntil(() => vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error).length === 1, 'main.ts back to its old error', 60_000);
    }
  });

  it('30.diag: write_file of a new file with a type error reports it', async () => {
    const r = await runTool('write_file', { path: 'tsp/fresh.ts', content: 'export const fresh: boolean = "yes";\n' });
    assert.equal(r.isError, false);
    assert.ok(r.text.includes("tsp/fresh.ts:1: error: Type 'string' is not assignable to type 'boolean'. (ts 2322)"), r.text);
  });

  it('30.diag: a plain-text file is not waited for, a TypeScript file is', async () => {
    const coverage = new LanguageCoverage();
    try {
      const diagnostics = new HostEditDiagnostics((p) => vscode.Uri.file(p), { afterEdit: true, waitMs: 60_000 }, coverage);
      const signal = new AbortController().signal;
      assert.equal(await diagnostics.watch(path.join(root(), 'notes-30.txt'), signal), undefined, 'no watch, so no wait, for plaintext');
      // lib.ts is clean and in no tab: the watch opens it and waits out its (short) bound for a report that never comes.
      const quick = new HostEditDiagnostics((p) => vscode.Uri.file(p), { afterEdit: true, waitMs: 500 }, coverage);
      const ts = await quick.watch(path.join(project(), 'lib.ts'), signal);
      assert.ok(ts, 'a TypeScript file is watched');
      ts.dispose();
      const off = new HostEditDiagnostics((p) => vscode.Uri.file(p), { afterEdit: false, waitMs: 60_000 }, coverage);
      assert.equal(await off.watch(path.join(project(), 'lib.ts'), signal), undefined, 'afterEdit false watches nothing');
    } finally {
      coverage.dispose();
    }
    const r = await runTool('edit_file', { path: 'notes-30.txt', old_string: 'plain', new_string: 'simple' });
    assert.equal(r.isError, false);
    assert.ok(!r.text.includes('New problems'), r.text);
  });

  it('30.diag: with turnstone.diagnostics.afterEdit false an edit that breaks the types reports nothing', async () => {
    await config().update('diagnostics.afterEdit', false, vscode.ConfigurationTarget.Global);
    try {
      const r = await runTool('edit_file', { path: 'tsp/use.ts', old_string: 'area(2, 3)', new_string: 'area("2", 3)' });
      assert.equal(r.isError, false);
      assert.ok(!r.text.includes('New problems'), r.text);
    } finally {
      await config().update('diagnostics.afterEdit', undefined, vscode.ConfigurationTarget.Global);
      fs.writeFileSync(path.join(project(), 'use.ts'), "import { area } from './lib';\nexport const size = area(2, 3);\n");
    }
  });

  it('30.diag: a file in no tab is opened in a background tab: the user\'s preview tab and active editor stay; a clean edit ends its wait on silence', async () => {
    // The user is looking at use.ts in a preview tab.
    const use = vscode.Uri.file(path.join(project(), 'use.ts'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(use), { preview: true });
    const previewOf = () => vscode.window.tabGroups.activeTabGroup.tabs.find((t) => t.isPreview && t.input instanceof vscode.TabInputText)?.input as vscode.TabInputText | undefined;
    assert.equal(previewOf()?.uri.fsPath, use.fsPath);
    fs.writeFileSync(path.join(project(), 'clean.ts'), 'export const clean = 1;\n');
    const started = Date.now();
    // waitMs is 60 s here; TypeScript has reported in this window already, so silence a few times its delay means clean.
    const r = await runTool('edit_file', { path: 'tsp/clean.ts', old_string: '= 1;', new_string: '= 2;' });
    const took = Date.now() - started;
    assert.equal(r.isError, false);
    assert.ok(!r.text.includes('New problems'), r.text);
    assert.ok(took < 40_000, `a clean edit waited ${took} ms (waitMs 60 000)`);
    assert.equal(previewOf()?.uri.fsPath, use.fsPath, "the user's preview tab is still there");
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, use.fsPath, 'the user still sees use.ts');
    const cleanTab = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath.endsWith('clean.ts'));
    assert.ok(cleanTab && !cleanTab.isPreview && !cleanTab.isActive, 'clean.ts is in a pinned background tab');
    fs.rmSync(path.join(project(), 'clean.ts'), { force: true });
  });

  it('30.lsp: the tool is offered in VS Code; definition finds the function in the other file with its line', async () => {
    const r = await runTool('lsp', { operation: 'definition', path: 'tsp/use.ts', line: 2, symbol: 'area' });
    const tools = (server.bodies[0]!.tools as Array<{ name: string }>).map((t) => t.name);
    assert.ok(tools.includes('lsp'), `lsp is offered: ${tools.join(', ')}`);
    assert.equal(r.isError, false, r.text);
    assert.match(r.text, /^Definition of area \(tsp\/use\.ts:2\): 1 location/);
    assert.ok(r.text.includes('tsp/lib.ts:1:17: export function area(w: number, h: number): number {'), r.text);
  });

  it('30.lsp: references list every use, workspace-relative, with their lines', async () => {
    const r = await runTool('lsp', { operation: 'references', path: 'tsp/lib.ts', line: 1, symbol: 'area' });
    assert.equal(r.isError, false, r.text);
    for (const want of ['tsp/lib.ts:1:17: export function area', "tsp/use.ts:1:10: import { area } from './lib';", 'tsp/use.ts:2:21: export const size = area(2, 3);']) {
      assert.ok(r.text.includes(want), `${want}\nin\n${r.text}`);
    }
  });

  it('30.lsp: workspace_symbols finds the function by name', async () => {
    const r = await runTool('lsp', { operation: 'workspace_symbols', query: 'area' });
    assert.equal(r.isError, false, r.text);
    assert.match(r.text, /Function area\S* — tsp\/lib\.ts:1: export function area/);
  });

  it('30.lsp: a name that is not on the line is an error that shows the names that are', async () => {
    const r = await runTool('lsp', { operation: 'hover', path: 'tsp/use.ts', line: 2, symbol: 'volume' });
    assert.equal(r.isError, true);
    assert.match(r.text, /"volume" is not on line 2 of tsp\/use\.ts/);
    assert.match(r.text, /Names on it: export, const, size, area/);
  });
});
