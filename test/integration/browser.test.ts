// Issue 45, the browser tool in the real extension host: a scripted model opens a small local web app
// (started here), clicks its button and reads its console. The approval names the URL (kind browser);
// the tool results the model gets hold the screenshot and the changed text; the console has the thrown
// error; a second origin asks again; and removing the session (after a new one is shown) leaves no browser
// process below the extension host. Skipped when no Chromium, Chrome or Edge is installed.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { findBrowser } from '../../src/tools/browser/find-browser';
import { processTree, startAppServer, type AppServer } from '../fixtures/browser/app-server';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { until } from '../support/process-tree';

const config = () => vscode.workspace.getConfiguration('turnstone');

/** The next permission request's id. */
function nextRequest(turnstone: TurnstoneApi, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error('timed out waiting for a permission request'));
    }, timeoutMs);
    const sub = turnstone.onDidRequestPermission((id) => {
      clearTimeout(timer);
      sub.dispose();
      resolve(id);
    });
  });
}

type Block = { type: string; text?: string; source?: { type: string; media_type?: string; data?: string } };

/** The tool_result the model got back in the request after the tool use. */
function toolResult(server: MockAnthropicServer, id: string): { content: string | Block[]; is_error?: boolean } {
  for (const body of server.bodies) {
    for (const m of body.messages as { role: string; content: unknown }[]) {
      if (!Array.isArray(m.content)) continue;
      const r = (m.content as { type: string; tool_use_id?: string }[]).find((b) => b.type === 'tool_result' && b.tool_use_id === id);
      if (r) return r as never;
    }
  }
  throw new Error(`no tool_result for ${id}`);
}
const text = (content: string | Block[]) => (typeof content === 'string' ? content : content.map((b) => b.text ?? '').join('\n'));
const images = (content: string | Block[]) => (typeof content === 'string' ? [] : content.filter((b) => b.type === 'image'));

/** Browser processes below this extension host (their profile is a turnstone-browser-* folder). */
function browserProcesses(): number[] {
  return processTree(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('turnstone-browser-');
    } catch {
      return false;
    }
  });
}

(findBrowser(undefined) ? describe : describe.skip)('45.browser: the browser tool in the real extension host', function () {
  this.timeout(180_000);
  let server: MockAnthropicServer;
  let app: AppServer;
  let other: AppServer;
  let turnstone: TurnstoneApi;

  before(async () => {
    server = await MockAnthropicServer.start();
    other = await startAppServer();
    app = await startAppServer(other.origin);
    turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    await config().update('permissionMode', 'ask', vscode.ConfigurationTarget.Global);
    turnstone.setDialogsEnabled(false);
    await vscode.commands.executeCommand('turnstone.newSession');
  });
  after(async () => {
    for (const key of ['baseUrl', 'permissionMode']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    turnstone.setDialogsEnabled(true);
    for (const s of turnstone.sessions()) if (!s.shown) await vscode.commands.executeCommand('turnstone.sessions.remove', s.key, { confirm: false });
    await vscode.commands.executeCommand('turnstone.newSession');
    await server.close();
    await app.close();
    await other.close();
  });

  it('45.browser: open asks naming the URL; the screenshot and the changed text reach the model; the console has the thrown error; a second origin asks; removing the session leaves no browser process', async () => {
    const before = new Set(browserProcesses());
    server.enqueue(
      toolUseReply([{ id: 'tu_open', name: 'browser', input: { action: 'open', url: app.url('/') } }]),
      toolUseReply([{ id: 'tu_click', name: 'browser', input: { action: 'click', selector: '#change' } }]),
      toolUseReply([{ id: 'tu_boom', name: 'browser', input: { action: 'click', selector: '#boom' } }]),
      toolUseReply([{ id: 'tu_console', name: 'browser', input: { action: 'console' } }]),
      toolUseReply([{ id: 'tu_other', name: 'browser', input: { action: 'open', url: other.url('/') } }]),
      textReply('Looked at the app.'),
    );
    const session = turnstone.sessions().find((s) => s.shown)!;
    let asked = nextRequest(turnstone);
    const turn = turnstone.sendPrompt('look at the app');

    // open: asks, naming the URL; nothing is loaded before the answer.
    const openId = await asked;
    const open = turnstone.pendingPermissions().find((p) => p.id === openId)!;
    assert.deepEqual({ toolName: open.toolName, need: open.need, subject: open.subject }, { toolName: 'browser', need: 'browser', subject: app.url('/') });
    assert.deepEqual(app.hits, [], 'nothing is loaded before the decision');
    asked = nextRequest(turnstone);
    assert.equal(turnstone.decide(openId, { kind: 'allow', scope: 'once' }), true);

    // The second origin asks again (the clicks and the console on the approved page did not), naming its URL.
    const otherId = await asked;
    const second = turnstone.pendingPermissions().find((p) => p.id === otherId)!;
    assert.deepEqual({ toolName: second.toolName, need: second.need, subject: second.subject }, { toolName: 'browser', need: 'browser', subject: other.url('/') });
    assert.ok(browserProcesses().some((pid) => !before.has(pid)), 'a browser runs below the extension host');
    assert.equal(turnstone.decide(otherId, { kind: 'deny' }), true);
    const summary = await turn;
    assert.equal(summary.outcome, 'completed');
    assert.ok(!other.hits.includes('/'), 'the denied origin was never loaded');

    // open: the screenshot (an image block) and the page's title and URL.
    const opened = toolResult(server, 'tu_open');
    assert.notEqual(opened.is_error, true, text(opened.content));
    assert.match(text(opened.content), /^Title: Test app$/m);
    assert.match(text(opened.content), new RegExp(`^URL: ${app.url('/').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    const shot = images(opened.content);
    assert.equal(shot.length, 1, 'one screenshot');
    assert.equal(shot[0]!.source?.type, 'base64');
    assert.match(String(shot[0]!.source?.media_type), /^image\/(png|jpeg|webp)$/);
    assert.ok((shot[0]!.source?.data ?? '').length > 1000, 'the screenshot has content');

    // click: the text changed (the title with it), with a new screenshot.
    const clicked = toolResult(server, 'tu_click');
    assert.notEqual(clicked.is_error, true, text(clicked.content));
    assert.match(text(clicked.content), /^Title: Clicked$/m);
    assert.equal(images(clicked.content).length, 1);
    assert.notEqual(images(clicked.content)[0]!.source?.data, shot[0]!.source?.data, 'the page looks different after the click');

    // The button that throws: the error is reported with the action, and the console holds it.
    assert.match(text(toolResult(server, 'tu_boom').content), /Console errors since the last action \(1\):\n- \[pageerror\] .*boom from the button/);
    const consoleResult = toolResult(server, 'tu_console');
    assert.notEqual(consoleResult.is_error, true, text(consoleResult.content));
    assert.match(text(consoleResult.content), /\[log\] app ready/);
    assert.match(text(consoleResult.content), /\[pageerror\] .*boom from the button/);
    assert.equal(images(consoleResult.content).length, 0, 'console answers with text only');

    // The denied second origin: an error result, its page never asked.
    const denied = toolResult(server, 'tu_other');
    assert.equal(denied.is_error, true);

    // The panel's cards: one browser card per action, the open one with its URL and its screenshot.
    const cards = turnstone.panelSnapshot().items.filter((i) => i.kind === 'tool') as { id: string; view?: { kind: string; action?: string; url?: string; page?: string }; images?: unknown[] }[];
    const openCard = cards.find((c) => c.id === 'tu_open')!;
    assert.deepEqual(openCard.view, { kind: 'browser', action: 'open', url: app.url('/'), page: app.url('/') });
    assert.equal(openCard.images?.length, 1, 'the card holds the screenshot');
    // A later action's card says where the page is now (from its result), with its own screenshot.
    const clickCard = cards.find((c) => c.id === 'tu_click')!;
    assert.deepEqual(clickCard.view, { kind: 'browser', action: 'click', target: '#change', page: app.url('/') });
    assert.equal(clickCard.images?.length, 1);

    // A new session, then removing this one: its browser goes with it.
    await vscode.commands.executeCommand('turnstone.newSession');
    assert.ok(browserProcesses().some((pid) => !before.has(pid)), 'the hidden session keeps its browser');
    await vscode.commands.executeCommand('turnstone.sessions.remove', session.key, { confirm: false });
    assert.equal(
      turnstone.sessions().find((s) => s.key === session.key),
      undefined,
      'the session is closed',
    );
    await until('no browser process of the removed session', () => browserProcesses().every((pid) => before.has(pid)), 30_000);
  });
});
