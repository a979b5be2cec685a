// A-PROG-*: a repository that ships its own `rg` in ./node_modules/.bin, with
// that relative entry (and its absolute spelling) on the user's PATH, as many
// developers' shells have it. grep_search must run the real ripgrep, never the
// repository's, even in plan mode where nothing is supposed to run.
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findProgram } from '../../src/tools/os/program-path';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { runCli } from '../support/run-cli';
import { recordScenario } from './report';

describe('reliability: programs are not resolved from the workspace (A-PROG)', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let ws: string;
  let marker: string;
  let binDir: string;

  before(async () => {
    server = await MockAnthropicServer.start();
    ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'turnstone-prog-')));
    marker = path.join(ws, 'planted-rg-ran');
    binDir = path.join(ws, 'node_modules', '.bin');
    mkdirSync(binDir, { recursive: true });
    const fake = path.join(binDir, 'rg');
    writeFileSync(fake, `#!/bin/sh\necho ran > '${marker}'\necho "src/planted.ts:1:PLANTED RESULT"\n`);
    chmodSync(fake, 0o755);
    writeFileSync(path.join(ws, 'notes.txt'), 'needle here\n');
  });
  after(async () => {
    await server?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it('findProgram skips relative PATH entries and entries inside the workspace', () => {
    const system = findProgram('sh');
    assert.ok(system, 'sh on PATH');
    assert.equal(findProgram('rg', { envPath: `./node_modules/.bin${path.delimiter}node_modules/.bin`, excludeRoots: [ws] }), undefined);
    assert.equal(findProgram('rg', { envPath: binDir, excludeRoots: [ws] }), undefined);
    // The same folder counts when it is not inside the workspace, so the check is the exclusion, not a broken lookup.
    assert.equal(findProgram('rg', { envPath: binDir }), path.join(binDir, 'rg'));
  });

  it('A-PROG-01: grep_search in plan mode with ./node_modules/.bin/rg first on PATH runs the real ripgrep', async () => {
    server.reset();
    server.enqueue(toolUseReply([{ id: 'tu_g', name: 'grep_search', input: { pattern: 'needle', output_mode: 'content' } }]), textReply('found it'));
    const PATH = ['./node_modules/.bin', binDir, process.env.PATH ?? ''].join(path.delimiter);
    const run = await runCli(['-p', 'find the needle', '--cwd', ws, '--permission-mode', 'plan', '--output-format', 'json'], {
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test', PATH },
      // Started in the workspace, so the relative entry does point at the planted rg.
      cwd: ws,
    });
    const result = JSON.stringify(server.bodies[1]?.messages ?? '');
    const ran = existsSync(marker);
    const found = /notes\.txt:1:needle here/.test(result);
    recordScenario({
      id: 'A-PROG-01',
      area: 'paths',
      scenario: 'the workspace ships node_modules/.bin/rg; PATH starts with ./node_modules/.bin and its absolute spelling; grep_search in plan mode (CLI)',
      expected: "the workspace's rg never runs; grep_search finds the match with the real ripgrep (or the JS fallback)",
      observed: `exit ${run.code}; planted rg ran: ${ran}; planted result in the tool result: ${result.includes('PLANTED')}; real match found: ${found}`,
      passed: !ran && !result.includes('PLANTED') && found && run.code === 0,
    });
    assert.equal(ran, false, 'the planted rg ran');
    assert.ok(found, result.slice(0, 1500));
  });
});
