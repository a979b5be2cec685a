// Issue 10, A-WEB-*: a compromised chat webview, in the real workbench. The
// webview can post anything VS Code's webview channel carries, so these tests
// post forged messages from the panel's own content frame, through the same
// function its acquireVsCodeApi().postMessage is bound to:
// `__vscode_post_message__('onmessage', { message })` on the webview host frame
// (VS Code's webview pre/index.html). The API can be acquired only once (the
// panel holds it) and index.html deletes the content frame's window.parent, so
// the tests call that function in the host frame, which is exactly what the
// panel's postMessage does. Expected: nothing happens that
// the user could not do, the host keeps working and logs a warning, and a real
// pending permission waits for a real answer.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { count, turnstoneLog, waitForLog } from './turnstone-log';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { errorReply, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { recordScenario } from '../reliability/report';
import { chatFrame, quickInputTitled, runCommand, useChatWorkbench } from './workbench';

type PostFn = (channel: string, data: unknown) => void;

/** The webview host frame (VS Code's pre/index.html) around the panel's content frame. */
function hostFrame(frame: Frame): Frame {
  const parent = frame.parentFrame();
  if (!parent) throw new Error('the chat frame has no host frame');
  return parent;
}

/** Posts `message` exactly as the panel's postMessage would, from the panel's content frame. */
async function forge(frame: Frame, message: unknown): Promise<void> {
  await hostFrame(frame).evaluate((m) => {
    (window as unknown as Record<string, PostFn>)['__vscode_post_message__']!('onmessage', { message: m, transfer: undefined });
  }, message);
}

/** Like `forge`, for messages Playwright cannot carry as arguments (own `__proto__` keys, huge strings): built in the frame. */
async function forgeBuilt(frame: Frame, build: string): Promise<void> {
  await hostFrame(frame).evaluate((src) => {
    const host = window as unknown as Record<string, PostFn>;
    host['__vscode_post_message__']!('onmessage', { message: new Function(`return (${src});`)(), transfer: undefined });
  }, build);
}

const tabTitles = async (page: Page) => (await page.locator('.tabs-container .tab .label-name').allInnerTexts()).map((t) => t.trim());

describe('A-WEB: forged messages from a compromised chat webview (real workbench)', function () {
  this.timeout(240_000);
  let outsideSecret: string;
  const dialogs: string[] = [];
  const chat = useChatWorkbench({
    prepare: (wb) => {
      wb.page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      // Outside the workspace: a secret, reachable from inside through two symlinks.
      const outside = path.join(path.dirname(wb.server.workspace), 'outside');
      mkdirSync(outside, { recursive: true });
      outsideSecret = `OUTSIDE-SECRET-${Date.now().toString(36)}`;
      writeFileSync(path.join(outside, 'secret.txt'), `${outsideSecret}\n`);
      symlinkSync(outside, path.join(wb.server.workspace, 'escape'));
      symlinkSync(path.join(outside, 'secret.txt'), path.join(wb.server.workspace, 'escape-file.txt'));
    },
  });
  beforeEach(() => chat.server.reset());

  it('A-WEB-01: malformed messages are dropped with a warning and the host keeps working', async () => {
    const before = count(turnstoneLog(chat.wb.server.userDataDir), 'dropped a malformed message from the webview');
    const plain: unknown[] = [
      42,
      null,
      'send',
      [],
      [{ type: 'send', text: 'hi' }],
      {},
      { type: 'no_such_type' },
      { type: 'send' },
      { type: 'send', text: 12345 },
      { type: 'send', text: '' },
      { type: 'send', text: 'x', attachments: 'all' },
      { type: 'send', text: 'x', attachments: [{ kind: 'directory', path: '/', label: '/' }] },
      { type: 'permission_decision', requestId: 'perm:x', decision: 'always' },
      { type: 'permission_decision', requestId: '', decision: 'allow' },
      { type: 'open_file', path: 7 },
      { type: 'open_diff' },
      { type: 'unqueue', id: { toString: 'x' } },
      { type: 'log', level: 'fatal', message: 'x' },
      { type: 'notice_action', noticeId: 'no_api_key' },
    ];
    const built = [
      `JSON.parse('{"__proto__": {"type": "send", "text": "polluted"}}')`,
      `JSON.parse('{"type": "new_session", "__proto__": {"polluted": true}}')`,
      `JSON.parse('{"type": "attach", "query": "", "__proto__": {"type": "send", "text": "polluted"}}')`,
      `({ type: 'send', text: 'x'.repeat(1_000_001) })`,
      `({ type: 'log', level: 'warn', message: 'y'.repeat(6_000_000) })`,
      `({ type: 'open_file', path: 'z'.repeat(3_000) })`,
    ];
    for (const m of plain) await forge(chat.frame, m);
    for (const b of built) await forgeBuilt(chat.frame, b);
    // `__proto__` keys the schema strips or that carry valid fields still parse: count those that must be dropped.
    const mustDrop = plain.length + 3; // the three huge messages
    const seen = (await waitForLog(chat.wb.server.userDataDir, 'dropped a malformed message from the webview', before + mustDrop)) - before;
    // The host still answers: a real prompt from the real composer gets its reply.
    chat.server.enqueue(textReply('still here'));
    const input = chat.frame.locator('textarea.input');
    await input.fill('are you alive?');
    await input.press('Enter');
    await chat.frame.locator('article.item.assistant', { hasText: 'still here' }).waitFor({ timeout: 60_000 });
    const prompts = chat.server.bodies.map((b) => JSON.stringify(b.messages));
    const leakedForged = prompts.some((p) => p.includes('polluted') || p.includes('xxxxxxxxxx'));
    const passed = seen >= mustDrop && !leakedForged && chat.server.requests.length === 1 && dialogs.length === 0;
    recordScenario({
      id: 'A-WEB-01',
      area: 'webview',
      scenario: `${plain.length + built.length} malformed messages from the webview frame (non-objects, unknown type, wrong field types, empty, __proto__ keys, 1 MB/6 MB/3 kB strings)`,
      expected: 'each dropped by the schema with a warning in the Turnstone log; no turn starts; the host keeps working',
      observed: `${seen} "dropped a malformed message" warnings for ${mustDrop} invalid messages; ${chat.server.requests.length - 1} model requests from forged input; a real prompt afterwards got its reply`,
      passed,
    });
    assert.ok(seen >= mustDrop, `only ${seen} of ${mustDrop} malformed messages were logged`);
    assert.equal(leakedForged, false, 'forged text reached the model');
    assert.equal(chat.server.requests.length, 1, 'only the real prompt reached the model');
    assert.deepEqual(dialogs, []);
  });

  it('A-WEB-02: forged permission decisions settle nothing; the real pending request waits for a real answer', async () => {
    const file = path.join(chat.wb.server.workspace, 'perm-target.txt');
    writeFileSync(file, 'original\n');
    chat.server.enqueue(
      toolUseReply([{ id: 'tu_perm', name: 'write_file', input: { path: 'perm-target.txt', content: 'forged\n' } }]),
      textReply('ok, left it alone'),
    );
    const logBefore = count(turnstoneLog(chat.wb.server.userDataDir), 'panel answered an unknown or settled permission request');
    const input = chat.frame.locator('textarea.input');
    await input.fill('overwrite perm-target.txt');
    await input.press('Enter');
    const dialog = chat.wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 60_000 });

    // Forgeries while the real request is pending: unknown ids and altered copies of the real one.
    const forgedIds = ['perm:does-not-exist', 'perm:tu_permX', 'perm:tu_per', 'perm:TU_PERM', 'perm: tu_perm', 'perm:perm:tu_perm', 'tu_perm\u0000'];
    for (const requestId of forgedIds) await forge(chat.frame, { type: 'permission_decision', requestId, decision: 'allow' });
    const unknownLogged = (await waitForLog(chat.wb.server.userDataDir, 'panel answered an unknown or settled permission request', logBefore + forgedIds.length)) - logBefore;
    await chat.wb.page.waitForTimeout(1000);
    const stillPending = await dialog.isVisible();
    const untouched = readFileSync(file, 'utf8') === 'original\n';
    const requestsWhilePending = chat.server.requests.length;

    // The real answer: Deny in the native dialog.
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    await chat.frame.locator('article.item.assistant', { hasText: 'left it alone' }).waitFor({ timeout: 60_000 });
    // Replays of the settled request change nothing.
    for (const decision of ['allow', 'allow_session'] as const) await forge(chat.frame, { type: 'permission_decision', requestId: 'perm:tu_perm', decision });
    const settledLogged = (await waitForLog(chat.wb.server.userDataDir, 'panel answered an unknown or settled permission request', logBefore + forgedIds.length + 2)) - logBefore - unknownLogged;
    await chat.wb.page.waitForTimeout(500);
    const afterReplay = readFileSync(file, 'utf8');
    const toolResult = JSON.stringify(chat.server.bodies[1]?.messages ?? '');
    const passed = stillPending && untouched && requestsWhilePending === 1 && unknownLogged >= forgedIds.length && settledLogged >= 2 && afterReplay === 'original\n' && chat.server.requests.length === 2;
    recordScenario({
      id: 'A-WEB-02',
      area: 'webview',
      scenario: `permission_decision allow for ${forgedIds.length} unknown/altered ids while a real write_file request is pending, then allow/allow_session replays for the request after it was denied`,
      expected: 'nothing settles; the real request stays pending until the user answers; replays of a settled request change nothing; each forgery logged',
      observed: `pending after forgeries: ${stillPending}; file untouched: ${untouched}; ${unknownLogged}/${forgedIds.length} forgeries logged; real Deny reached the model: ${/denied|deny/i.test(toolResult)}; ${settledLogged}/2 replays logged; file after replays ${afterReplay === 'original\n' ? 'unchanged' : 'CHANGED'}`,
      passed,
    });
    assert.ok(stillPending, 'a forged id settled the pending request');
    assert.ok(untouched);
    assert.equal(requestsWhilePending, 1);
    assert.ok(unknownLogged >= forgedIds.length);
    assert.ok(settledLogged >= 2);
    assert.equal(afterReplay, 'original\n');
    assert.equal(chat.server.requests.length, 2);
  });

  it('A-WEB-03: open_file outside the workspace (.., absolute, through symlinks) opens nothing', async () => {
    const logBefore = count(turnstoneLog(chat.wb.server.userDataDir), 'panel asked to open a path outside the workspace');
    const paths = ['../../etc/passwd', '../outside/secret.txt', '/etc/passwd', '/etc/hostname', 'escape/secret.txt', 'escape-file.txt', 'src/../../outside/secret.txt'];
    for (const p of paths) await forge(chat.frame, { type: 'open_file', path: p, line: 1 });
    const logged = (await waitForLog(chat.wb.server.userDataDir, 'panel asked to open a path outside the workspace', logBefore + paths.length)) - logBefore;
    await chat.wb.page.waitForTimeout(1500);
    const opened = (await tabTitles(chat.wb.page)).filter((t) => /passwd|hostname|secret\.txt|escape-file/.test(t));
    // Control: a path inside the workspace does open.
    await forge(chat.frame, { type: 'open_file', path: 'src/hello.ts', line: 1 });
    await chat.wb.page.locator('.tabs-container .tab', { hasText: 'hello.ts' }).first().waitFor({ timeout: 20_000 });
    const passed = opened.length === 0 && logged >= paths.length;
    recordScenario({
      id: 'A-WEB-03',
      area: 'webview',
      scenario: `open_file for ${paths.length} paths outside the workspace: ../../etc/passwd, absolute paths, a symlinked directory and a symlinked file inside the workspace pointing outside`,
      expected: 'no editor opens; each refused with a warning; a workspace path still opens',
      observed: `editors opened outside: ${opened.length ? opened.join(', ') : 'none'}; ${logged}/${paths.length} refusals logged; src/hello.ts opened`,
      passed,
    });
    assert.deepEqual(opened, [], 'an editor opened on a file outside the workspace');
    assert.ok(logged >= paths.length, `${logged} of ${paths.length} refusals logged`);
  });

  it('A-WEB-04: file attachments outside the workspace (.., absolute, through symlinks) never reach the model', async () => {
    chat.server.enqueue(textReply('read what you attached'));
    const outsidePaths = ['../outside/secret.txt', '/etc/hostname', 'escape/secret.txt', 'escape-file.txt', 'src/../escape/secret.txt'];
    const hostname = readFileSync('/etc/hostname', 'utf8').trim();
    const logBefore = count(turnstoneLog(chat.wb.server.userDataDir), 'attachment outside the workspace');
    await forge(chat.frame, {
      type: 'send',
      text: 'summarize the attachments',
      attachments: [...outsidePaths.map((p) => ({ kind: 'file', path: p, label: path.basename(p) })), { kind: 'file', path: 'src/hello.ts', label: 'hello.ts' }],
    });
    await chat.frame.locator('article.item.assistant', { hasText: 'read what you attached' }).waitFor({ timeout: 60_000 });
    const prompt = JSON.stringify(chat.server.bodies[0]?.messages ?? '');
    const leaked = prompt.includes(outsideSecret);
    const leakedHost = hostname.length > 3 && prompt.includes(`File: /etc/hostname`);
    const control = prompt.includes('File: src/hello.ts');
    const logged = (await waitForLog(chat.wb.server.userDataDir, 'attachment outside the workspace', logBefore + outsidePaths.length)) - logBefore;
    const passed = !leaked && !leakedHost && control && logged >= outsidePaths.length;
    recordScenario({
      id: 'A-WEB-04',
      area: 'webview',
      scenario: `send with ${outsidePaths.length} file attachments outside the workspace (.., absolute, a symlinked dir and file inside the workspace pointing outside) plus one inside`,
      expected: 'only the workspace file reaches the model; the others are left out with a warning',
      observed: `outside content in the prompt: ${leaked || leakedHost ? 'YES' : 'no'}; workspace attachment present: ${control}; ${logged}/${outsidePaths.length} refusals logged`,
      passed,
    });
    assert.equal(leaked, false, 'the content of a file outside the workspace reached the model');
    assert.equal(leakedHost, false, '/etc/hostname reached the model');
    assert.ok(control, 'the workspace attachment is missing (the check is not seeing the prompt)');
    assert.ok(logged >= outsidePaths.length, `${logged} of ${outsidePaths.length} refusals logged`);
  });

  it('A-WEB-05: open_link with javascript:, command:, file:, vscode: and data: URIs opens nothing', async () => {
    const before = count(turnstoneLog(chat.wb.server.userDataDir), 'dropped a malformed message from the webview');
    const pagesBefore = chat.wb.browser.contexts().flatMap((c) => c.pages()).length;
    const hrefs = [
      'javascript:alert(document.domain)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'command:workbench.action.terminal.new',
      'command:turnstone.setApiKey',
      'file:///etc/passwd',
      'vscode://file/etc/passwd',
      'vscode-remote://127.0.0.1/etc/passwd',
      'data:text/html,<script>alert(1)</script>',
    ];
    for (const href of hrefs) await forge(chat.frame, { type: 'open_link', href });
    const seen = (await waitForLog(chat.wb.server.userDataDir, 'dropped a malformed message from the webview', before + hrefs.length)) - before;
    await chat.wb.page.waitForTimeout(1500);
    const pagesAfter = chat.wb.browser.contexts().flatMap((c) => c.pages()).length;
    const tabs = (await tabTitles(chat.wb.page)).filter((t) => /passwd/.test(t));
    const terminals = await chat.wb.page.locator('.terminal-wrapper').count();
    const quickInput = await chat.wb.page.locator('.quick-input-widget').isVisible();
    const passed = seen >= hrefs.length && pagesAfter === pagesBefore && tabs.length === 0 && terminals === 0 && !quickInput && dialogs.length === 0;
    recordScenario({
      id: 'A-WEB-05',
      area: 'webview',
      scenario: `open_link with ${hrefs.length} non-web URIs (javascript: in three spellings, command:, file:, vscode:, vscode-remote:, data:)`,
      expected: 'refused by the schema (only http(s)/mailto pass) with a warning; nothing opens or runs',
      observed: `${seen}/${hrefs.length} refused and logged; new pages: ${pagesAfter - pagesBefore}; passwd editors: ${tabs.length}; terminals: ${terminals}; key prompt shown: ${quickInput}; alerts: ${dialogs.length}`,
      passed,
    });
    assert.ok(seen >= hrefs.length);
    assert.equal(pagesAfter, pagesBefore);
    assert.deepEqual(tabs, []);
    assert.equal(terminals, 0);
    assert.equal(quickInput, false);
    assert.deepEqual(dialogs, []);
  });

  it('A-WEB-06: select_model with a garbage string does not write it to the settings', async () => {
    const settingsFile = path.join(chat.wb.server.userDataDir, 'User', 'settings.json');
    const before = readFileSync(settingsFile, 'utf8');
    const garbage = ['claude\n"turnstone.baseUrl": "https://evil.example"', '\u0000\u001b[31m', `${'A'.repeat(1999)}`, '../../../etc/passwd', '<img src=x onerror=alert(1)>'];
    const logBefore = count(turnstoneLog(chat.wb.server.userDataDir), 'panel asked for an invalid model id');
    for (const model of garbage) await forge(chat.frame, { type: 'select_model', model });
    const logged = (await waitForLog(chat.wb.server.userDataDir, 'panel asked for an invalid model id', logBefore + garbage.length)) - logBefore;
    await chat.wb.page.waitForTimeout(1000);
    const after = readFileSync(settingsFile, 'utf8');
    const parsed = JSON.parse(after) as Record<string, unknown>;
    const written = typeof parsed['turnstone.model'] === 'string' ? (parsed['turnstone.model'] as string) : undefined;
    const passed = written === undefined && !('turnstone.baseUrl' in parsed) && logged >= garbage.length && after === before;
    recordScenario({
      id: 'A-WEB-06',
      area: 'webview',
      scenario: `select_model with ${garbage.length} garbage model ids (newline + JSON, control characters, 1999 chars, a path, HTML)`,
      expected: 'refused with a warning; settings.json unchanged; no baseUrl injected',
      observed: `settings.json ${after === before ? 'unchanged' : `changed (turnstone.model = ${JSON.stringify(written?.slice(0, 60))})`}; baseUrl injected: ${'turnstone.baseUrl' in parsed}; ${logged}/${garbage.length} refusals logged`,
      passed,
    });
    assert.equal(written, undefined, 'a garbage model id was written to the settings');
    assert.ok(!('turnstone.baseUrl' in parsed));
    assert.ok(logged >= garbage.length);
    assert.equal(after, before);
  });

  it('A-WEB-07 (25.1, 25.4, 25.6): forged "always allow", "continue", "open setting" and "edit proposal" do nothing a user could not', async () => {
    const workspaceSettings = path.join(chat.wb.server.workspace, '.vscode', 'settings.json');
    const settingsBefore = existsSync(workspaceSettings) ? readFileSync(workspaceSettings, 'utf8') : '';
    const log = () => turnstoneLog(chat.wb.server.userDataDir);
    const before = {
      decisions: count(log(), 'panel answered an unknown or settled permission request'),
      continues: count(log(), 'panel asked to continue after an item that is not an open paused card'),
      edits: count(log(), 'panel asked to edit a proposal that is not waiting'),
      dropped: count(log(), 'dropped a malformed message from the webview'),
    };
    // No request waits: "always" names no rule of its own, it can only answer a real request.
    await forge(chat.frame, { type: 'permission_decision', requestId: 'perm:tu_none', decision: 'allow_always' });
    // Continue only after a spend-cap card the host posted, with the host's own amount.
    const userItem = await chat.frame.locator('article.item.user').first().getAttribute('data-id');
    for (const itemId of ['e999-nothing', userItem ?? 'u1']) await forge(chat.frame, { type: 'continue_turn', itemId });
    await forge(chat.frame, { type: 'edit_proposal', requestId: 'perm:tu_none' });
    // Only the two spend-cap settings can be opened; a typing report carries a boolean.
    await forge(chat.frame, { type: 'open_setting', setting: 'turnstone.permissionMode' });
    await forge(chat.frame, { type: 'continue_turn', itemId: 'x', usd: 1000 });
    await forge(chat.frame, { type: 'typing', active: 'yes' });
    const decisions = (await waitForLog(chat.wb.server.userDataDir, 'panel answered an unknown or settled permission request', before.decisions + 1)) - before.decisions;
    const continues = (await waitForLog(chat.wb.server.userDataDir, 'panel asked to continue after an item that is not an open paused card', before.continues + 3)) - before.continues;
    const edits = (await waitForLog(chat.wb.server.userDataDir, 'panel asked to edit a proposal that is not waiting', before.edits + 1)) - before.edits;
    const dropped = (await waitForLog(chat.wb.server.userDataDir, 'dropped a malformed message from the webview', before.dropped + 2)) - before.dropped;
    const settingsAfter = existsSync(workspaceSettings) ? readFileSync(workspaceSettings, 'utf8') : '';
    const settingsTabs = (await tabTitles(chat.wb.page)).filter((t) => /settings/i.test(t));
    const passed = decisions >= 1 && continues >= 3 && edits >= 1 && dropped >= 2 && settingsAfter === settingsBefore && chat.server.requests.length === 0 && settingsTabs.length === 0;
    recordScenario({
      id: 'A-WEB-07',
      area: 'webview',
      scenario: 'allow_always for no pending request, continue_turn for unknown and non-spend-cap items (one with an amount of its own), edit_proposal for no request, open_setting for turnstone.permissionMode, typing with a non-boolean',
      expected: 'nothing is allowed, saved, sent or opened; each refusal logged, the malformed ones dropped by the schema',
      observed: `${decisions}/1 decisions, ${continues}/3 continues, ${edits}/1 edits refused; ${dropped}/2 dropped; workspace settings ${settingsAfter === settingsBefore ? 'unchanged' : 'CHANGED'}; ${chat.server.requests.length} model requests; settings tabs opened: ${settingsTabs.length}`,
      passed,
    });
    assert.ok(decisions >= 1 && continues >= 3 && edits >= 1 && dropped >= 2, `refusals logged: ${decisions} ${continues} ${edits} ${dropped}`);
    assert.equal(settingsAfter, settingsBefore, 'no rule was saved');
    assert.equal(chat.server.requests.length, 0, 'no turn started');
    assert.deepEqual(settingsTabs, [], 'no settings editor opened');
  });
});

// A-SEC-05 lives here because it needs the real workbench: a key typed into
// "Turnstone: Set API Key" (SecretStorage), then a session, then the browser's
// own storage (IndexedDB: workbench state, the webview's saved state, the web
// logs; localStorage) and every file of the run on disk are searched for it.
describe('A-SEC: a key set through "Turnstone: Set API Key" in the real workbench', function () {
  this.timeout(240_000);
  const CANARY = `sk-ant-e2ecanary-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}-END`;
  const marker = `markerPROMPT${Date.now().toString(36)}`;
  // No key in the environment: only the one typed below can be used.
  const chat = useChatWorkbench({ workbench: { env: { ANTHROPIC_API_KEY: '' } }, focusChat: false });

  it('A-SEC-05: the stored key is sent only as the auth header and is in no browser storage, webview state or file of the run', async () => {
    const { page } = chat.wb;
    await runCommand(page, 'Turnstone: Set API Key', 60_000, quickInputTitled(page, 'Anthropic API key'));
    const box = page.locator('.quick-input-widget input');
    await box.waitFor({ state: 'visible' });
    await box.fill(CANARY);
    await box.press('Enter');
    await box.waitFor({ state: 'hidden' });
    await runCommand(page, 'Turnstone: Focus Chat');
    const frame = await chatFrame(page);
    const input = frame.locator('textarea.input');
    const send = async (text: string) => {
      await input.fill(text);
      await input.press('Enter');
    };

    chat.server.enqueue(toolUseReply([{ id: 'tu_s5', name: 'read_file', input: { path: 'src/hello.ts' } }]), textReply('first reply'));
    await send(`read hello ${marker}`);
    await frame.locator('article.item.assistant', { hasText: 'first reply' }).waitFor({ timeout: 60_000 });
    // A 401: the turn ends with the key field in its card (25.2: no prompt over the window); it is left empty.
    chat.server.enqueue(errorReply(401, 'authentication_error', 'invalid x-api-key'));
    await send(`second ${marker}`);
    await frame.locator('article.item.error .key-input').first().waitFor({ timeout: 60_000 });
    await frame.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 60_000 });
    chat.server.enqueue(errorReply(500, 'api_error', 'Internal server error'), textReply('third reply'));
    await send(`third ${marker}`);
    await frame.locator('article.item.assistant', { hasText: 'third reply' }).waitFor({ timeout: 60_000 });
    // The webview saves its state at most once a second and the workbench flushes storage on its own schedule
    // (slower on a loaded machine): read until the saved state holds this session's prompt.
    const readStorage = () =>
      page.evaluate(async () => {
        const out: string[] = [];
        for (const info of await indexedDB.databases()) {
          if (!info.name) continue;
          const db: IDBDatabase = await new Promise((res, rej) => {
            const r = indexedDB.open(info.name!);
            r.onsuccess = () => res(r.result);
            r.onerror = () => rej(r.error as Error);
          });
          for (const store of [...db.objectStoreNames]) {
            // (No named functions in here: tsx would wrap them in a __name helper the page does not have.)
            const keys = await new Promise<IDBValidKey[]>((res) => (db.transaction(store, 'readonly').objectStore(store).getAllKeys().onsuccess = (e) => res((e.target as IDBRequest<IDBValidKey[]>).result)));
            const vals = await new Promise<unknown[]>((res) => (db.transaction(store, 'readonly').objectStore(store).getAll().onsuccess = (e) => res((e.target as IDBRequest<unknown[]>).result)));
            keys.forEach((k, i) => {
              const v = vals[i];
              out.push(`${info.name}/${store}/${String(k)}\t${v instanceof Uint8Array ? new TextDecoder().decode(v) : typeof v === 'string' ? v : JSON.stringify(v)}`);
            });
          }
          db.close();
        }
        for (const s of [localStorage, sessionStorage]) for (let i = 0; i < s.length; i++) out.push(`${s === localStorage ? 'local' : 'session'}Storage/${s.key(i)}\t${s.getItem(s.key(i)!)}`);
        return out;
      });
    let storage: string[] = [];
    let webviewState = '';
    for (const deadline = Date.now() + 30_000; ; ) {
      await page.waitForTimeout(1000);
      storage = await readStorage();
      webviewState = storage.find((e) => e.split('\t')[0]!.endsWith('/memento/webviewView.turnstone.chat')) ?? '';
      if (webviewState.includes(marker) || Date.now() > deadline) break;
    }
    const storageHits = storage.filter((e) => e.includes(CANARY)).map((e) => e.split('\t')[0]);
    const stateHasMarker = webviewState.includes(marker);

    const runDir = path.dirname(chat.wb.server.userDataDir);
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile()) files.push(p);
      }
    };
    walk(runDir);
    const diskHits = files.filter((f) => readFileSync(f).includes(Buffer.from(CANARY))).map((f) => path.relative(runDir, f));
    const sessionFiles = files.filter((f) => f.includes(`${path.sep}sessions${path.sep}`));
    const auth = chat.server.requests.map((r) => String(r.headers['x-api-key'] ?? r.headers['authorization'] ?? '').replace(/^Bearer /, ''));
    const bodies = chat.server.requests.filter((r) => r.rawBody.includes(CANARY)).length;
    const panelHtml = await frame.content();

    const passed = storageHits.length === 0 && diskHits.length === 0 && bodies === 0 && !panelHtml.includes(CANARY) && stateHasMarker && auth.length >= 4 && auth.every((k) => k === CANARY) && sessionFiles.length > 0;
    recordScenario({
      id: 'A-SEC-05',
      area: 'secrets',
      scenario: 'key typed into "Turnstone: Set API Key" (SecretStorage, no env key); a session with a tool use, a 401 (the key field of its card left empty) and a retried 500 in the real workbench',
      expected: 'the key is only in the requests\' auth header: not in browser storage (IndexedDB, local/sessionStorage), the webview\'s saved state, the panel, request bodies, or any file of the run',
      observed: `${auth.filter((k) => k === CANARY).length}/${auth.length} requests carried the stored key, ${bodies} bodies; ${storage.length} browser storage entries searched (webview state holds the prompt: ${stateHasMarker}), key in ${storageHits.length ? storageHits.join(', ') : 'none'}; ${files.length} files on disk (${sessionFiles.length} session files), key in ${diskHits.length ? diskHits.join(', ') : 'none'}; panel DOM: ${panelHtml.includes(CANARY) ? 'KEY' : 'clean'}`,
      passed,
    });
    assert.ok(auth.length >= 4 && auth.every((k) => k === CANARY), `the stored key was not what the API got: ${auth.length} requests`);
    assert.ok(stateHasMarker, `the webview state was not found in browser storage (the search would see nothing): ${webviewState.slice(0, 400)}`);
    assert.deepEqual(storageHits, []);
    assert.deepEqual(diskHits, []);
    assert.equal(bodies, 0);
    assert.ok(!panelHtml.includes(CANARY));
    assert.ok(sessionFiles.length > 0);
  });
});
