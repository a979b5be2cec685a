// Issue 25, languages: every string a user reads goes through vscode.l10n
// (host), the panel's t() or package.nls.json, and zh-cn has all of them.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { JSDOM } from 'jsdom';
import {
  compareWithBundle,
  extractKeys,
  hardCodedPanelStrings,
  L10N_SOURCES,
  PANEL_SOURCES,
  readBundle,
  ROOT,
  tsFiles,
} from '../../scripts/l10n-keys';
import { formatMessage, translator } from '../../src/webview/l10n-format';
import { panelHtml } from '../../src/webview/panel-html';

const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>;
const placeholders = (s: string) => (s.match(/\{\d+\}/g) ?? []).sort();

describe('languages (issue 25)', () => {
  it('25.l10n: every l10n key of the host and panel is in the zh-cn bundle', () => {
    const scan = extractKeys(tsFiles(...L10N_SOURCES));
    // The sources really are scanned: the host's and the panel's strings are both there.
    assert.ok(scan.keys.has('Turnstone: nothing to compact yet.'), 'a host message (vscode.l10n.t) is found');
    assert.ok(scan.keys.has('Ask Turnstone to read, change or run something in this workspace.'), "a panel string (t) is found");
    assert.ok(scan.keys.size > 300, `${scan.keys.size} keys`);
    assert.deepEqual(scan.dynamic, [], 'a translated message must be a literal, or no bundle can hold it');
    const bundle = readBundle();
    const { missing, stale } = compareWithBundle(scan, bundle);
    assert.deepEqual(missing, [], 'keys missing from l10n/bundle.l10n.zh-cn.json (npx tsx scripts/l10n-keys.ts lists them)');
    assert.deepEqual(stale, [], 'keys in l10n/bundle.l10n.zh-cn.json that no source uses');
    for (const [key, value] of Object.entries(bundle)) {
      assert.equal(typeof value, 'string', key);
      assert.ok(value.trim() && value !== key, `"${key}" has a translation`);
      assert.match(value, /[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]/, `"${key}" is translated into Chinese`);
      assert.deepEqual(placeholders(value), placeholders(key), `"${key}" keeps its placeholders`);
    }
  });

  it('25.l10n: package.nls.zh-cn.json has every key of package.nls.json, and package.json uses only defined %keys%', () => {
    const en = readJson('package.nls.json');
    const zh = readJson('package.nls.zh-cn.json');
    assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
    for (const [key, value] of Object.entries(zh)) {
      assert.ok(typeof value === 'string' && /[\u4e00-\u9fff]/.test(value), `${key} is translated`);
      // Setting ids and code stay as they are: every `code` span of the English is in the translation.
      for (const code of String(en[key]).match(/`[^`]+`/g) ?? []) assert.ok(value.includes(code), `${key} keeps ${code}`);
    }
    const manifestText = readFileSync(path.join(ROOT, 'package.json'), 'utf8');
    const used = [...manifestText.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]!);
    assert.deepEqual(used.filter((k) => !(k in en)), [], '%keys% without an entry in package.nls.json');
    assert.deepEqual(Object.keys(en).filter((k) => !used.includes(k)), [], 'package.nls.json entries package.json no longer uses');
    // Nothing a user reads is left in English in the manifest's contributions.
    const manifest = JSON.parse(manifestText);
    const contributes = manifest.contributes;
    const isKey = (s: unknown) => typeof s === 'string' && /^%[^%]+%$/.test(s);
    for (const c of contributes.commands) for (const f of ['title', 'shortTitle'] as const) if (c[f] !== undefined) assert.ok(isKey(c[f]), `${c.command}.${f}`);
    for (const v of contributes.views.turnstone) assert.ok(isKey(v.name), v.id);
    const settingTexts = (prefix: string, schema: Record<string, unknown>): void => {
      for (const f of ['description', 'markdownDescription']) if (schema[f] !== undefined) assert.ok(isKey(schema[f]), `${prefix}.${f}`);
      for (const d of (schema.enumDescriptions as unknown[] | undefined) ?? []) assert.ok(isKey(d), `${prefix}.enumDescriptions`);
      for (const [k, sub] of Object.entries((schema.properties as Record<string, Record<string, unknown>> | undefined) ?? {})) settingTexts(`${prefix}.${k}`, sub);
      for (const f of ['additionalProperties', 'items']) if (schema[f] && typeof schema[f] === 'object') settingTexts(prefix, schema[f] as Record<string, unknown>);
    };
    for (const [id, schema] of Object.entries<Record<string, unknown>>(contributes.configuration.properties)) settingTexts(id, schema);
    assert.equal(manifest.l10n, './l10n');
  });

  it('25.l10n: the panel has no hard-coded user-facing strings', () => {
    const files = tsFiles(...PANEL_SOURCES);
    assert.ok(files.includes('src/webview/ui/composer.ts') && files.includes('src/webview/ui/items.ts'), files.join(', '));
    assert.deepEqual(hardCodedPanelStrings(files), [], 'wrap these in t(…) (src/webview/ui/l10n.ts) and add them to the zh-cn bundle');
  });

  it('25.l10n: the hard-coded string check catches text in every place the panel shows it, and lets t(…) and non-words through', () => {
    const source = `
      el('p', {}, 'Hello there');
      el('span', { title: \`Open \${path}\`, class: 'link path' }, icon('file'));
      button('Send', go, { title: 'Send now', cls: 'send' });
      article('tool', 'Tool');
      node.textContent = ok ? 'Saved.' : t('Failed');
      node.setAttribute('aria-label', \`\${n} lines\`);
      root.append(icon('x'), 'Interrupted');
      const MODES = [{ mode: 'plan', label: 'Plan' }];
      el('p', {}, t('Fine'), '›', \`\${percent}%\`, 'text');
      node.title = t('Open {0}', path);
      el('div', { class: 'hint key-note', role: 'status', 'aria-hidden': 'true' });`;
    const found = hardCodedPanelStrings(['fixture.ts'], { 'fixture.ts': source }).map((f) => f.replace(/^fixture\.ts:\d+: /, ''));
    assert.deepEqual(found, ['"Hello there"', '"Open ${…}"', '"Send"', '"Send now"', '"Tool"', '"Saved."', '"${…} lines"', '"Interrupted"', '"Plan"']);
    const keys = extractKeys(['fixture.ts'], { 'fixture.ts': "t('A {0}', x); vscode.l10n.t('B'); l10n.t(`C`); t(name); other('D');" });
    assert.deepEqual([...keys.keys.keys()], ['A {0}', 'B', 'C']);
    assert.equal(keys.dynamic.length, 1);
  });

  it("25.l10n: the panel's t() formats as vscode.l10n.t does: {n} replaced, unknown ones kept, English when the bundle lacks the key", () => {
    const t = translator({ 'Show {0} earlier ({1} hidden)': '显示较早的 {0} 条（已隐藏 {1} 条）' });
    assert.equal(t('Show {0} earlier ({1} hidden)', 50, 120), '显示较早的 50 条（已隐藏 120 条）');
    assert.equal(t('Not in the bundle: {0}', 'x'), 'Not in the bundle: x');
    assert.equal(formatMessage('{0} and {2}', ['a']), 'a and {2}');
    // Without arguments the text stays as it is (the key-field hint splits on its {0}).
    assert.equal(formatMessage('Get a key at {0}.', []), 'Get a key at {0}.');
    // An argument is never itself formatted.
    assert.equal(formatMessage('{0}{1}', ['{1}', 'b']), '{1}b');
  });

  it('25.l10n: the panel page carries the bundle and the language in attributes (no inline script), markup in translations escaped', () => {
    const bundle = { 'Send': '发送', 'Quote " <b>&amp;</b>': '引号 " <script>alert(1)</script> &' };
    const html = panelHtml({ cspSource: 'vscode-resource:', nonce: 'abc', asset: (n) => n, l10n: { language: 'zh-cn', bundle } });
    const doc = new JSDOM(html).window.document;
    assert.equal(doc.documentElement.lang, 'zh-cn');
    assert.deepEqual(JSON.parse(doc.documentElement.dataset.l10n ?? ''), bundle);
    assert.equal(doc.querySelectorAll('script').length, 1, 'only the bundle script');
    assert.equal(doc.querySelector('script')?.textContent, '');
    // English: no bundle, no attribute; an odd language tag falls back to en.
    const english = new JSDOM(panelHtml({ cspSource: 'x', nonce: 'n', asset: (n) => n, l10n: { language: 'en" onload="x', bundle: undefined } })).window.document;
    assert.equal(english.documentElement.lang, 'en');
    assert.equal(english.documentElement.dataset.l10n, undefined);
    assert.equal(english.querySelector('main#app.turnstone-chat')?.getAttribute('aria-label'), 'Turnstone chat');
  });
});
