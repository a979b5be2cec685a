// A-SBX-CLI-*: the command sandbox through the product's own path, the headless
// CLI (`--sandbox auto`, the default) in bypassPermissions, so no rule stands in
// the way and only the sandbox can refuse: a model that tries to write outside
// the workspace, read a planted private key or another process's environment;
// and the ordinary work a user approves (npm test, git, a build) still running.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { runCli } from '../support/run-cli';
import { recordScenario } from './report';

describe('reliability: the command sandbox through the CLI (A-SBX-CLI)', function () {
  this.timeout(120_000);
  let server: MockAnthropicServer;
  let base: string;
  let ws: string;
  let home: string;

  before(async () => {
    server = await MockAnthropicServer.start();
    // Not under the temp folder (which the sandbox leaves writable), so "outside" really is outside.
    base = realpathSync(mkdtempSync('/var/tmp/turnstone-sbx-cli-'));
    ws = path.join(base, 'ws');
    home = path.join(base, 'home');
    mkdirSync(ws);
    mkdirSync(path.join(home, '.ssh'), { recursive: true });
    writeFileSync(path.join(home, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY----- planted-sbx\n');
  });
  after(async () => {
    await server?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  /** One bash tool use per command, then a final reply; the tool results the model got, in order. */
  async function turn(commands: string[], extraArgs: string[] = []): Promise<{ code: number | null; results: string[]; stderr: string }> {
    server.reset();
    server.enqueue(...commands.map((command, i) => toolUseReply([{ id: `tu_${i}`, name: 'bash', input: { command, timeout: 60_000 } }])), textReply('done'));
    const run = await runCli(['-p', 'go', '--cwd', ws, '--permission-mode', 'bypassPermissions', '--output-format', 'json', ...extraArgs], {
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-sbx-cli-test', HOME: home },
    });
    const results = commands.map((_, i) => {
      const body = server.bodies[i + 1]?.messages as { content: unknown }[] | undefined;
      const last = body?.[body.length - 1];
      return JSON.stringify(last?.content ?? '');
    });
    return { code: run.code, results, stderr: run.stderr };
  }

  it('A-SBX-CLI-01: writes outside the workspace, ~/.ssh/id_rsa and /proc/<launcher>/environ are out of reach; --sandbox off is the control', async () => {
    const outside = path.join(home, 'escaped.txt');
    const attacks = [
      `echo pwned > ${outside}`,
      'cat ~/.ssh/id_rsa',
      // The CLI's launcher is the bash's grandparent; in the sandbox there is no such process to read.
      `gp=$(awk '{print $4}' /proc/$PPID/stat); cat /proc/$gp/environ | tr '\\0' '\\n' | grep -c '^ANTHROPIC_BASE_URL='`,
    ];
    const on = await turn(attacks);
    const onWritten = existsSync(outside);
    rmSync(outside, { force: true });
    const off = await turn(attacks, ['--sandbox', 'off']);
    const offWritten = existsSync(outside);
    rmSync(outside, { force: true });
    const checks = {
      'sandboxed: write refused': !onWritten && /Read-only file system/.test(on.results[0]!) && /sandbox: false/.test(on.results[0]!),
      'sandboxed: key unreadable': !on.results[1]!.includes('planted-sbx'),
      'sandboxed: launcher environ unreadable': !/\\n1\\n|^"1/.test(on.results[2]!) && /Exit code: [1-9]/.test(on.results[2]!),
      'off: write happens': offWritten,
      'off: key readable': off.results[1]!.includes('planted-sbx'),
      'off: launcher environ readable': /Exit code: 0/.test(off.results[2]!),
    };
    recordScenario({
      id: 'A-SBX-CLI-01',
      area: 'commands',
      scenario: 'CLI, bypassPermissions, --sandbox auto: the model writes to ~/escaped.txt, cats a planted ~/.ssh/id_rsa, reads the CLI launcher\'s /proc/<pid>/environ (then the same with --sandbox off as the control)',
      expected: 'sandboxed: all three fail (the write with the sandbox:false hint); with --sandbox off all three succeed, so the checks can fail',
      observed: Object.entries(checks).map(([k, v]) => `${k}: ${v}`).join('; ') + `; exit codes ${on.code}/${off.code}`,
      passed: Object.values(checks).every(Boolean) && on.code === 0 && off.code === 0,
    });
    assert.deepEqual(Object.entries(checks).filter(([, ok]) => !ok), [], JSON.stringify({ on: on.results, off: off.results }));
  });

  it('A-SBX-CLI-02: ordinary work runs in the sandbox: npm test in a small package, git init/commit/status, a node build writing dist/', async () => {
    writeFileSync(path.join(ws, 'package.json'), JSON.stringify({ name: 'fixture', version: '1.0.0', scripts: { test: 'node test.js' } }));
    writeFileSync(path.join(ws, 'test.js'), "require('assert').equal(2 * 21, 42); console.log('fixture tests passed');\n");
    const work = [
      'npm test',
      'git init -q . && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m init && git status --short',
      `node -e "require('fs').mkdirSync('dist',{recursive:true}); require('fs').writeFileSync('dist/app.js','built')"`,
    ];
    const r = await turn(work);
    const checks = {
      'npm test': /fixture tests passed/.test(r.results[0]!) && /Exit code: 0/.test(r.results[0]!),
      'git status': /package\.json/.test(r.results[1]!) && /Exit code: 0/.test(r.results[1]!),
      build: existsSync(path.join(ws, 'dist', 'app.js')) && /Exit code: 0/.test(r.results[2]!),
    };
    recordScenario({
      id: 'A-SBX-CLI-02',
      area: 'commands',
      scenario: 'CLI, --sandbox auto: npm test in a fixture package, git init + commit + status, a node build writing dist/ in the workspace',
      expected: 'all three succeed inside the sandbox',
      observed: Object.entries(checks).map(([k, v]) => `${k}: ${v ? 'ok' : 'FAILED'}`).join('; '),
      passed: Object.values(checks).every(Boolean),
    });
    assert.deepEqual(Object.entries(checks).filter(([, ok]) => !ok), [], r.results.join('\n'));
  });
});
