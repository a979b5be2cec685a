// The browser tool without a browser: its rules (`browser(origin:…)`), the approval's words, the
// panel's card, where browsers are looked for, the request guard's verdicts and what the bundles hold.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Metafile } from 'esbuild';
import { matchContent, originRule, suggestRule } from '../../../src/runtime/policy/permission-rules';
import { PermissionPolicy } from '../../../src/runtime/policy/permissions';
import { browserCandidates } from '../../../src/tools/browser/find-browser';
import { parseBrowserUrl } from '../../../src/tools/browser';
import { BrowserPageSession, refusedHost } from '../../../src/tools/browser/page-session';
import { alwaysAllowLabel, approvalQuestion } from '../../../src/webview/approval-wording';
import { toolViewFromInput } from '../../../src/webview/tool-view';
import { ToolView, TranscriptItem } from '../../../src/webview/protocol';
import { itemsFromHistory } from '../../../src/host/panel/panel-bridge';
import { imageFromBytes } from '../../../src/runtime/context/images';
import { makePng } from '../../fixtures/images';

describe('browser tool: rules, words and wiring', () => {
  it('browser(origin:…) matches the whole origin: scheme, host and port', () => {
    const rule = 'origin:http://localhost:3000';
    assert.equal(matchContent(rule, 'http://localhost:3000/'), true);
    assert.equal(matchContent(rule, 'http://localhost:3000/a/b?c=1'), true);
    assert.equal(matchContent(rule, 'http://LOCALHOST:3000/x'), true);
    assert.equal(matchContent(rule, 'http://localhost:3001/'), false);
    assert.equal(matchContent(rule, 'https://localhost:3000/'), false);
    assert.equal(matchContent(rule, 'http://localhost:3000.evil.net/'), false);
    assert.equal(matchContent(rule, 'http://localhost/'), false);
    assert.equal(matchContent('origin:https://example.com', 'https://example.com:443/x'), true, 'the default port is the origin\'s');
    assert.equal(matchContent('origin:not a url', 'http://localhost:3000/'), false);
    assert.equal(matchContent(rule, ''), false, 'no page: no match');
  });

  it('"Always allow" saves the origin; the policy applies allow and deny rules by origin', () => {
    assert.equal(suggestRule('browser', 'http://localhost:3000/app?x=1', undefined, 'browser'), 'browser(origin:http://localhost:3000)');
    assert.equal(originRule('browser', 'file:///etc/passwd'), undefined);
    const assessment = { need: 'browser' as const, subject: 'http://localhost:3000/' };
    const allowed = new PermissionPolicy('ask', { allow: ['browser(origin:http://localhost:3000)'] });
    assert.equal(allowed.decide({ toolName: 'browser', readOnly: false, assessment }).kind, 'allow');
    const denied = new PermissionPolicy('bypassPermissions', { deny: ['browser(origin:http://localhost:3000)'] });
    assert.equal(denied.decide({ toolName: 'browser', readOnly: false, assessment }).kind, 'deny');
    const session = new PermissionPolicy('ask');
    session.remember('browser(origin:http://localhost:3000)');
    assert.equal(session.decide({ toolName: 'browser', readOnly: false, assessment: { need: 'browser', subject: 'http://localhost:3000/other' } }).kind, 'allow');
    assert.equal(session.decide({ toolName: 'browser', readOnly: false, assessment: { need: 'browser', subject: 'http://localhost:4000/' } }).kind, 'ask');
  });

  it('the approval names the URL; the button names the origin', () => {
    assert.equal(approvalQuestion({ need: 'browser', toolName: 'browser', subject: 'http://localhost:3000/' }), 'Open http://localhost:3000/ in the browser?');
    assert.equal(alwaysAllowLabel('browser(origin:http://localhost:3000)'), 'Always allow http://localhost:3000');
  });

  it('open takes http(s) URLs only, without credentials', () => {
    assert.equal(parseBrowserUrl(' http://localhost:3000/a#top ').href, 'http://localhost:3000/a');
    assert.throws(() => parseBrowserUrl('file:///etc/passwd'), /http:\/\/ and https:\/\/ URLs only, not file:/);
    assert.throws(() => parseBrowserUrl('javascript:alert(1)'), /not javascript:/);
    assert.throws(() => parseBrowserUrl('http://u:p@localhost/'), /user name or password/);
    assert.throws(() => parseBrowserUrl('localhost:3000'), /http:\/\/ and https:\/\/ URLs only|not a valid URL/);
    assert.throws(() => parseBrowserUrl(undefined), /open needs url/);
  });

  it('the panel\'s card: the action and its URL or target, a valid view', () => {
    const open = toolViewFromInput('browser', { action: 'open', url: 'http://localhost:3000/' });
    assert.deepEqual(open, { kind: 'browser', action: 'open', url: 'http://localhost:3000/' });
    assert.deepEqual(toolViewFromInput('browser', { action: 'click', selector: '#go' }), { kind: 'browser', action: 'click', target: '#go' });
    assert.deepEqual(toolViewFromInput('browser', { action: 'click', x: 10.4, y: 20 }), { kind: 'browser', action: 'click', target: '10, 20' });
    assert.deepEqual(toolViewFromInput('browser', { action: 'press', key: 'Enter' }), { kind: 'browser', action: 'press', target: 'Enter' });
    for (const v of [open, toolViewFromInput('browser', {})]) assert.ok(ToolView.safeParse(v).success);
  });

  it('the panel\'s browser card carries the screenshot (the tool card\'s image, click to enlarge) and the URL, also resumed', () => {
    const shot = imageFromBytes(makePng(16, 10), 'screenshot');
    const items = itemsFromHistory([
      { role: 'user', content: [{ type: 'text', text: 'look at it' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'b1', name: 'browser', input: { action: 'open', url: 'http://localhost:3000/' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b1', content: 'Title: App\nURL: http://localhost:3000/', images: [shot] }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'b2', name: 'browser', input: { action: 'click', selector: 'a.next' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b2', content: 'Title: Next\nURL: http://localhost:3000/next?page=2\nConsole errors since the last action (1):\n- [error] x', images: [shot] }] },
    ]);
    const [card, click] = items.filter((i) => i.kind === 'tool');
    assert.ok(TranscriptItem.safeParse(card).success);
    assert.equal(card!.kind === 'tool' && card!.view.kind === 'browser' && card!.view.url, 'http://localhost:3000/');
    assert.equal(card!.kind === 'tool' && card!.images?.[0]?.data, shot.data);
    // Each card says where the page was after its action (the result's URL line), a later action's too.
    assert.deepEqual(card!.kind === 'tool' && card!.view, { kind: 'browser', action: 'open', url: 'http://localhost:3000/', page: 'http://localhost:3000/' });
    assert.deepEqual(click!.kind === 'tool' && click!.view, { kind: 'browser', action: 'click', target: 'a.next', page: 'http://localhost:3000/next?page=2' });
    assert.ok(TranscriptItem.safeParse(click).success);
  });

  it('looks for Chromium, Chrome and Edge on the usual paths of each platform', () => {
    const linux = browserCandidates('linux', { PATH: '/usr/local/bin:relative/bin:/usr/bin' });
    assert.ok(linux.includes('/usr/local/bin/chromium') && linux.includes('/usr/bin/google-chrome-stable') && linux.includes('/usr/bin/microsoft-edge'));
    assert.ok(!linux.some((p) => p.startsWith('relative')), 'never a relative PATH entry');
    const mac = browserCandidates('darwin', { HOME: '/Users/a' });
    assert.ok(mac.includes('/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'));
    assert.ok(mac.includes('/Users/a/Applications/Chromium.app/Contents/MacOS/Chromium'));
    const win = browserCandidates('win32', { LOCALAPPDATA: 'C:\\Users\\a\\AppData\\Local', PROGRAMFILES: 'C:\\Program Files' });
    assert.ok(win.includes('C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe'));
    assert.ok(win.includes('C:\\Program Files\\Microsoft\\Edge\\Application\\msedge.exe'));
  });

  it('the request guard: file: and metadata never, a private or loopback origin only once approved, public names pass', async () => {
    const resolve = async (host: string) => (host === 'intranet.example' ? ['10.1.2.3'] : host === 'rebind.example' ? ['93.184.216.34', '127.0.0.1'] : ['93.184.216.34']);
    assert.equal(await refusedHost('localhost', resolve), 'a loopback address');
    assert.equal(await refusedHost('app.localhost', resolve), 'a loopback address');
    assert.equal(await refusedHost('[::1]', resolve), 'a loopback address');
    assert.equal(await refusedHost('intranet.example', resolve), 'a private address');
    assert.equal(await refusedHost('rebind.example', resolve), 'a loopback address', 'any non-public answer counts');
    assert.equal(await refusedHost('example.com', resolve), undefined);
    const s = new BrowserPageSession(resolve);
    s.approved.add('http://127.0.0.1:3000');
    assert.equal(await s.guard('http://127.0.0.1:3000/api'), undefined);
    assert.match((await s.guard('http://127.0.0.1:3001/'))!, /loopback address, not an approved origin/);
    assert.match((await s.guard('http://169.254.169.254/latest/meta-data/'))!, /link-local/);
    assert.match((await s.guard('http://[fd00:ec2::254]/'))!, /metadata/);
    assert.match((await s.guard('file:///etc/passwd'))!, /file: URLs are not reachable/);
    assert.equal(await s.guard('https://example.com/lib.js'), undefined);
    assert.equal(await s.guard('data:text/plain,hi'), undefined);
  });

  it('the automation library is its own bundle: neither activation nor the core bundle holds it', function () {
    const root = path.resolve(__dirname, '..', '..', '..');
    const metaPath = path.join(root, 'dist', 'extension.meta.json');
    const browserMeta = path.join(root, 'dist', 'browser.meta.json');
    assert.ok(existsSync(metaPath) && existsSync(browserMeta), `${metaPath} or ${browserMeta} is missing: build first (node esbuild.mjs; npm test does)`);
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Metafile;
    for (const out of ['dist/extension.js', 'dist/core.js', 'dist/panel-support.js']) {
      const held = Object.keys(meta.outputs[out]?.inputs ?? {}).filter((i) => /node_modules\/(puppeteer-core|@puppeteer|chromium-bidi|devtools-protocol)\//.test(i) || i === 'src/tools/browser/driver.ts');
      assert.deepEqual(held, [], `${out} holds the browser library`);
    }
    const lib = JSON.parse(readFileSync(browserMeta, 'utf8')) as Metafile;
    const inputs = Object.keys(lib.outputs['dist/browser.js']?.inputs ?? {});
    assert.ok(inputs.some((i) => i.includes('node_modules/puppeteer-core/')), 'dist/browser.js holds puppeteer-core');
    assert.ok(!inputs.some((i) => /node_modules\/(proxy-agent|yargs|chromium-bidi)\//.test(i)), 'what only downloads browsers or speaks BiDi is left out');
    assert.ok(readFileSync(path.join(root, '.vscodeignore'), 'utf8').includes('!dist/browser.js'), 'the VSIX ships it');
  });
});
