// The browser tool against a small local web app (test/fixtures/browser/app-server.ts) in the
// installed Chromium: what each action returns, the console, permissions per origin, the request
// guard, errors, and that close and Stop-with-kill leave no browser process. Skipped where no
// browser is installed.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAbortedError } from '../../../src/runtime/cancellation';
import { imageDimensions } from '../../../src/runtime/context/images';
import { PermissionPolicy } from '../../../src/runtime/policy/permissions';
import { ToolInputError, type ToolOutput } from '../../../src/runtime/types';
import { existingPageSession } from '../../../src/tools/browser/page-session';
import { findBrowser } from '../../../src/tools/browser/find-browser';
import { BackgroundCommands } from '../../../src/tools/shell/background';
import { type ToolExecutorOptions } from '../../../src/tools/registry';
import { processTree, startAppServer, type AppServer } from '../../fixtures/browser/app-server';
import { waitFor } from '../../fixtures/mcp-servers';
import { ctx, isAlive, makeNodeEnv, type NodeToolEnv, tempDir } from './helpers';

const browserPath = findBrowser(undefined);

function profiles(): string[] {
  return readdirSync(os.tmpdir()).filter((n) => n.startsWith('turnstone-browser-'));
}

(browserPath ? describe : describe.skip)('browser tool (Chromium)', function () {
  this.timeout(120_000);
  let app: AppServer;
  let other: AppServer;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    other = await startAppServer();
    app = await startAppServer(other.origin);
  });
  after(async () => {
    await app.close();
    await other.close();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(browser: ToolExecutorOptions['browser'] = {}) {
    const base = tempDir('turnstone-bt-');
    const background = new BackgroundCommands({ maxRunning: () => 4, maxUnreadChars: 2000, dir: async () => base });
    const env: NodeToolEnv = await makeNodeEnv({ background, browser });
    cleanups.push(async () => {
      await background.dispose();
      await env.cleanup();
      rmSync(base, { recursive: true, force: true });
    });
    const run = async (input: Record<string, unknown>, signal = ctx().signal): Promise<ToolOutput> => {
      await env.executor.assess('browser', input);
      return env.executor.execute('browser', input, { signal });
    };
    return { env, background, run, session: () => existingPageSession(background) };
  }

  const png = (out: ToolOutput) => {
    assert.equal(out.images?.length, 1, `one screenshot: ${out.content}`);
    const image = out.images![0]!;
    assert.equal(image.mediaType, 'image/png');
    const bytes = Buffer.from(image.data, 'base64');
    assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
    return imageDimensions(bytes);
  };

  it('open returns a screenshot of the page with its title and URL; click changes the text; the console shows a thrown error', async () => {
    const { run, env } = await setup();
    assert.ok(env.executor.definitions().some((d) => d.name === 'browser'), 'offered where a browser is installed');

    let started = Date.now();
    const opened = await run({ action: 'open', url: app.url('/') });
    const openMs = Date.now() - started;
    assert.equal(opened.isError, false, opened.content);
    assert.deepEqual(png(opened), { width: 1280, height: 800 });
    assert.match(opened.content, /^Title: Test app\nURL: http:\/\/127\.0\.0\.1:\d+\/$/m);
    assert.doesNotMatch(opened.content, /Console errors/);

    started = Date.now();
    const clicked = await run({ action: 'click', selector: '#change' });
    const clickMs = Date.now() - started;
    assert.equal(clicked.isError, false, clicked.content);
    png(clicked);
    assert.match(clicked.content, /^Title: Clicked$/m, 'the button ran: the title it sets is read back');

    const boom = await run({ action: 'click', selector: '#boom' });
    assert.match(boom.content, /Console errors since the last action \(1\):\n- \[pageerror\] .*boom from the button/);
    const again = await run({ action: 'screenshot' });
    assert.doesNotMatch(again.content, /Console errors/, 'errors are reported once, with the action after them');

    const consoleOut = await run({ action: 'console' });
    assert.equal(consoleOut.images, undefined);
    assert.match(consoleOut.content, /\[log\] app ready/);
    assert.match(consoleOut.content, /\[pageerror\] .*boom from the button/);

    // Typing into an input and pressing Enter (the page sets the title from it); clicking at coordinates.
    const typed = await run({ action: 'type', selector: '#name', text: 'Ada' });
    assert.equal(typed.isError, false, typed.content);
    const pressed = await run({ action: 'press', key: 'Enter' });
    assert.match(pressed.content, /^Title: Entered Ada$/m);
    const scrolled = await run({ action: 'scroll', y: 200 });
    assert.equal(scrolled.isError, false, scrolled.content);
    const atPoint = await run({ action: 'click', x: 5, y: 5 });
    assert.equal(atPoint.isError, false, atPoint.content);
    console.log(`      first open to first screenshot ${openMs} ms (browser launch included); a click ${clickMs} ms`);
  });

  it('a script error while loading shows with the open, and a missing element or key is said plainly', async () => {
    const { run } = await setup({ actionTimeoutMs: 300 });
    const opened = await run({ action: 'open', url: app.url('/throws') });
    assert.match(opened.content, /^Title: Broken$/m);
    assert.match(opened.content, /Console errors since the last action \(1\):\n- \[pageerror\] .*kaboom while loading/);
    const missing = await run({ action: 'click', selector: '#nothing-here' });
    assert.equal(missing.isError, true);
    assert.match(missing.content, /no element matches #nothing-here \(waited 0\.3 s\)/);
    await assert.rejects(run({ action: 'press', key: 'NotAKey' }), (e: unknown) => e instanceof ToolInputError && /not a key name/.test(e.message));
    await assert.rejects(run({ action: 'click' }), ToolInputError);
  });

  it('asks per origin: open names the URL, actions on the approved page do not ask again, a second origin asks', async () => {
    const { env, run } = await setup();
    const policy = new PermissionPolicy('ask', { allow: [`browser(origin:${app.origin})`] });
    const decide = async (input: Record<string, unknown>) => policy.decide({ toolName: 'browser', readOnly: false, assessment: await env.executor.assess('browser', input) });

    const first = await env.executor.assess('browser', { action: 'open', url: app.url('/') });
    assert.deepEqual(first, { need: 'browser', subject: app.url('/') });
    assert.equal((await decide({ action: 'open', url: app.url('/') })).kind, 'allow');
    const second = await decide({ action: 'open', url: other.url('/') });
    assert.equal(second.kind, 'ask');
    assert.equal(second.kind === 'ask' && second.suggestedRule, `browser(origin:${other.origin})`);
    assert.equal((await new PermissionPolicy('ask').decide({ toolName: 'browser', readOnly: false, assessment: first })).kind, 'ask', 'no rule: even localhost asks');
    assert.equal((await new PermissionPolicy('plan').decide({ toolName: 'browser', readOnly: false, assessment: first })).kind, 'deny', 'plan mode does not drive a browser');

    await run({ action: 'open', url: app.url('/') });
    assert.equal((await env.executor.assess('browser', { action: 'click', selector: '#change' })).need, 'read', 'the approved page: no second question');
    assert.equal((await decide({ action: 'screenshot' })).kind, 'allow');
  });

  it('refuses file: URLs and private or metadata addresses; the page cannot reach them or another local origin', async () => {
    const { run, env } = await setup();
    await assert.rejects(env.executor.assess('browser', { action: 'open', url: 'file:///etc/passwd' }), (e: unknown) => e instanceof ToolInputError && /not file:/.test(e.message));
    const metadata = await run({ action: 'open', url: 'http://169.254.169.254/latest/meta-data/' });
    assert.equal(metadata.isError, true);
    assert.match(metadata.content, /link-local address/);
    const privateNet = await run({ action: 'open', url: 'http://10.20.30.40:8080/' });
    assert.match(privateNet.content, /a private address/);

    const hitsBefore = other.hits.length;
    const probed = await run({ action: 'open', url: app.url('/probe') });
    await waitFor(async () => /^Title: Probed/m.test((await run({ action: 'screenshot' })).content), 'the probe page to finish');
    const shot = await run({ action: 'screenshot' });
    assert.match(shot.content, /^Title: Probed rejected,rejected,fulfilled$/m, 'metadata and the other port refused, the same origin reached');
    assert.equal(other.hits.length, hitsBefore, 'the other local origin never saw a request');
    assert.ok(app.hits.includes('/same-origin'));
    assert.match(probed.content + shot.content, /169\.254\.169\.254.*ERR_BLOCKED_BY_CLIENT/s);
  });

  it('a page that never loads and a closed port give clear errors', async () => {
    const { run } = await setup({ loadTimeoutMs: 1500 });
    const hang = await run({ action: 'open', url: app.url('/hang') });
    assert.equal(hang.isError, true);
    assert.match(hang.content, /did not finish loading within 1\.5 s/);
    const closedPort = await startAppServer();
    const url = closedPort.url('/');
    await closedPort.close();
    const refused = await run({ action: 'open', url });
    assert.equal(refused.isError, true);
    assert.match(refused.content, /could not be loaded \(ERR_CONNECTION_REFUSED\)\. Nothing listens there/);
    const noPage = await (await setup()).run({ action: 'screenshot' });
    assert.match(noPage.content, /No browser page is open; use action "open"/);
    // A program that is not a browser: said with its path, and nothing left running.
    const notBrowser = await (await setup({ executablePath: '/bin/true' })).run({ action: 'open', url: app.url('/') });
    assert.equal(notBrowser.isError, true);
    assert.match(notBrowser.content, /^browser: \/bin\/true did not start: .+ Set turnstone\.browser\.executablePath/);
  });

  it('close leaves no browser process and no profile behind', async () => {
    const { run, session } = await setup();
    const before = profiles();
    await run({ action: 'open', url: app.url('/') });
    const pid = session()!.pid!;
    const tree = processTree(pid);
    assert.ok(tree.length > 1, `the browser runs with children: ${tree.join(' ')}`);
    const profile = profiles().filter((p) => !before.includes(p));
    assert.equal(profile.length, 1, 'its own fresh profile');
    const closed = await run({ action: 'close' });
    assert.equal(closed.content, 'The browser is closed.');
    await waitFor(() => tree.every((p) => !isAlive(p)), 'every browser process to end');
    assert.ok(!existsSync(path.join(os.tmpdir(), profile[0]!)), 'the profile is removed');
    assert.equal((await run({ action: 'close' })).content, 'No browser page was open.');
  });

  it('Stop during a load, then Stop-with-kill (the session\'s background commands killed) leaves no browser process', async () => {
    const { run, background, session } = await setup();
    const profilesBefore = profiles();
    const controller = new AbortController();
    const pending = run({ action: 'open', url: app.url('/hang') }, controller.signal);
    await waitFor(() => app.hits.filter((h) => h === '/hang').length > 0 && session()?.pid !== undefined, 'the page to be asked for');
    const pid = session()!.pid!;
    const tree = processTree(pid);
    controller.abort();
    await assert.rejects(pending, (e: unknown) => isAbortedError(e));
    assert.ok(isAlive(pid), 'a plain Stop keeps the page');
    const profile = profiles().filter((p) => !profilesBefore.includes(p));
    assert.equal(profile.length, 1);
    // As AgentSession.close() does: Stop-with-kill (not awaited), then a wait for the commands to end.
    void background.killAll();
    await background.killAll();
    await waitFor(() => tree.every((p) => !isAlive(p)), 'every browser process to end');
    assert.equal(session()!.open, false);
    assert.ok(!existsSync(path.join(os.tmpdir(), profile[0]!)), 'the profile is removed once the browser is gone, not while it still writes');
  });

  it('the CLI\'s screenshot folder gets each screenshot', async () => {
    const base = tempDir('turnstone-shots-');
    cleanups.push(async () => rmSync(base, { recursive: true, force: true }));
    const dir = path.join(base, 'shots');
    const { run } = await setup({ screenshotDir: dir });
    const out = await run({ action: 'open', url: app.url('/') });
    const saved = /^Screenshot saved: (.+)$/m.exec(out.content)?.[1];
    assert.ok(saved && existsSync(saved) && saved.startsWith(dir), out.content);
  });
});

describe('browser tool: no browser installed', () => {
  it('is not offered, and one line says what to install', async () => {
    const notes: string[] = [];
    const env = await makeNodeEnv({ browser: { executablePath: '/nonexistent/chromium', unavailable: (n) => notes.push(n) } });
    try {
      assert.ok(!env.executor.definitions().some((d) => d.name === 'browser'));
      assert.equal(notes.length, 1);
      assert.match(notes[0]!, /install one \(e\.g\. `apt install chromium`/);
      assert.doesNotMatch(notes[0]!, /\n/);
    } finally {
      await env.cleanup();
    }
  });

  it('is not offered where the host gives no browser settings', async () => {
    const env = await makeNodeEnv();
    try {
      assert.ok(!env.executor.definitions().some((d) => d.name === 'browser'));
    } finally {
      await env.cleanup();
    }
  });
});
