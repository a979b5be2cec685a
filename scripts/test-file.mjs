// `npm run test:file -- <test file> [more files] [--grep text] [--today] [--no-build]`: runs only
// the named test files, each with its own part's settings (timeout, reporter, loader), against
// an already prepared VS Code for integration and e2e files (`npm run prepare:vscode` once).
// Plain `npx mocha --config .mocharc.json <file>` would run the whole part: mocha adds the
// config's `spec` to the files named.
//   --today     e2e files on today's VS Code (1.139.1) with the packaged VSIX (`npm run package` first)
//   --grep      only the tests whose title contains the text (integration: TURNSTONE_TEST_GREP)
//   --no-build  skip the development build (dist/) that CLI, integration and e2e tests load
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TODAY_CODE_SERVER } from './test-graph.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { today: { type: 'boolean' }, grep: { type: 'string' }, 'no-build': { type: 'boolean' } },
});
if (positionals.length === 0) {
  console.error('usage: npm run test:file -- <test file> [more files] [--grep text] [--today] [--no-build]');
  process.exit(2);
}

/** The part a test file belongs to, from where it lives. */
const PARTS = [
  { dir: 'test/unit/', config: '.mocharc.json' },
  { dir: 'test/reliability/', config: '.mocharc.reliability.json' },
  { dir: 'test/e2e/', config: '.mocharc.e2e.json', vscode: true },
  { dir: 'test/integration/', integration: true },
  { dir: 'test/integration-restricted/', integration: true },
];
const files = positionals.map((f) => relative(process.cwd(), resolve(f)));
const groups = new Map();
for (const file of files) {
  if (!existsSync(file)) fail(`${file} does not exist`);
  const part = PARTS.find((p) => file.startsWith(p.dir));
  if (!part) fail(`${file} is in no test part (${PARTS.map((p) => p.dir).join(', ')})`);
  groups.set(part, [...(groups.get(part) ?? []), file]);
}

function fail(message) {
  console.error(message);
  process.exit(2);
}

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

if (!values['no-build'] && run('node', ['esbuild.mjs']) !== 0) process.exit(1);
const today = values.today ? { CODE_SERVER_VERSION: TODAY_CODE_SERVER, TURNSTONE_E2E_VSIX: resolve('turnstone.vsix') } : {};
if (values.today && !existsSync('turnstone.vsix')) fail('--today installs turnstone.vsix: run `npm run package` first');

let code = 0;
for (const [part, partFiles] of groups) {
  if (part.integration) {
    // The extension host bundles only these files (test/run-integration.ts).
    const env = { TURNSTONE_TEST_FILES: partFiles.map((f) => basename(f)).join(','), ...(values.grep ? { TURNSTONE_TEST_GREP: values.grep } : {}) };
    const partCode = run('npx', ['tsx', 'test/run-integration.ts'], env);
    code ||= partCode;
    continue;
  }
  // The part's own settings, without its `spec`.
  const { spec: _spec, require = [], extension = [], timeout, reporter } = JSON.parse(readFileSync(part.config, 'utf8'));
  const args = ['mocha', '--no-config', ...require.flatMap((r) => ['--require', r]), ...extension.flatMap((e) => ['--extension', e]), '--timeout', String(timeout)];
  if (reporter) args.push('--reporter', reporter);
  if (values.grep) args.push('--grep', values.grep);
  // Every group runs even after one failed, as npm test does.
  const partCode = run('npx', [...args, ...partFiles], part.vscode ? today : {});
  code ||= partCode;
}
process.exit(code);
