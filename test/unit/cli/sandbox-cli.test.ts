// The CLI and the command sandbox: `--sandbox auto` runs bash under bubblewrap;
// on a machine without one it says so once on stderr and runs with the rules only.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findProgram } from '../../../src/tools/os/program-path';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';

describe('CLI: the command sandbox', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let base: string;
  let ws: string;
  let outside: string;

  beforeEach(async () => {
    server = await MockAnthropicServer.start();
    base = realpathSync(mkdtempSync(path.join(os.homedir(), '.turnstone-cli-sandbox-')));
    ws = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    mkdirSync(ws);
    mkdirSync(outside);
  });
  afterEach(async () => {
    await server.close();
    rmSync(base, { recursive: true, force: true });
  });

  const writeOutside = () => toolUseReply([{ id: `tu_${Math.random().toString(36).slice(2, 8)}`, name: 'bash', input: { command: `echo x > ${outside}/out.txt` } }]);

  it('--sandbox auto: a write outside the workspace (and outside the temp folder) fails; --sandbox off: it works', async () => {
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli' };
    server.enqueue(writeOutside(), textReply('ok'));
    const on = await runCli(['-p', 'write', '--cwd', ws, '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { env });
    assert.equal(on.code, 0, on.stderr);
    assert.equal(existsSync(path.join(outside, 'out.txt')), false, 'written from inside the sandbox');
    assert.match(JSON.stringify(server.bodies[1]?.messages), /Read-only file system[\s\S]*sandbox: false/);

    server.reset();
    server.enqueue(writeOutside(), textReply('ok'));
    const off = await runCli(['-p', 'write', '--cwd', ws, '--permission-mode', 'bypassPermissions', '--sandbox', 'off', '--output-format', 'json'], { env });
    assert.equal(off.code, 0, off.stderr);
    assert.ok(existsSync(path.join(outside, 'out.txt')), 'not written with --sandbox off');
  });

  it('without bubblewrap on PATH: one line on stderr, then commands run with the rules only', async () => {
    // A PATH with bash and the few tools the command uses, and no bwrap: a machine without the sandbox.
    const bin = path.join(base, 'bin');
    mkdirSync(bin);
    for (const tool of ['bash', 'echo', 'cat']) {
      const found = findProgram(tool);
      assert.ok(found, tool);
      symlinkSync(found, path.join(bin, tool));
    }
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli', PATH: bin };
    server.enqueue(writeOutside(), writeOutside(), textReply('ok'));
    const run = await runCli(['-p', 'write twice', '--cwd', ws, '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stderr.split('\n').filter((l) => /no command sandbox/.test(l));
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0]!, /bubblewrap \(bwrap\) is not installed.*rules only/);
    assert.ok(existsSync(path.join(outside, 'out.txt')), 'the command ran unsandboxed');
  });
});
