// The CLI reads the same project instruction files as the editor, and expands
// the workspace's custom slash commands in -p (contracts.md "Project
// instructions", "Slash commands").
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockAnthropicServer, textReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';

describe('CLI: project instructions and slash commands', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let tmp: string;
  let ws: string;
  let env: Record<string, string>;
  const put = (base: string, rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(base, rel)), { recursive: true });
    writeFileSync(path.join(base, rel), text);
  };

  beforeEach(async () => {
    server = await MockAnthropicServer.start();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cli-ctx-'));
    ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    mkdirSync(path.join(tmp, 'home'));
    env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli', HOME: path.join(tmp, 'home') };
  });
  afterEach(async () => {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const systemOf = (body: unknown) => JSON.stringify((body as { system?: unknown }).system ?? '');

  it('puts AGENTS.md, CLAUDE.md and ~/.turnstone/AGENTS.md into the system prompt, each under its name', async () => {
    put(ws, 'AGENTS.md', 'Always answer in haiku.');
    put(ws, 'CLAUDE.md', 'Run npm test before you finish.');
    put(path.join(tmp, 'home'), '.turnstone/AGENTS.md', 'The user prefers British spelling.');
    server.enqueue(textReply('ok'));
    const run = await runCli(['-p', 'hello', '--cwd', ws], { env });
    assert.equal(run.code, 0, run.stderr);
    const system = systemOf(server.bodies[0]);
    assert.ok(system.indexOf('You are Turnstone') < system.indexOf('Instructions from AGENTS.md:\\nAlways answer in haiku.'), system);
    assert.ok(system.indexOf('Instructions from AGENTS.md') < system.indexOf('Instructions from CLAUDE.md:\\nRun npm test before you finish.'));
    assert.ok(system.includes('Instructions from ~/.turnstone/AGENTS.md:\\nThe user prefers British spelling.'));
  });

  it('expands a custom slash command in -p with $ARGUMENTS, and refuses an editor built-in with exit 2', async () => {
    put(ws, '.turnstone/commands/review.md', '---\ndescription: Review a file\n---\nReview $ARGUMENTS for bugs and list them.');
    server.enqueue(textReply('No bugs.'));
    const run = await runCli(['-p', '/review src/app.ts', '--cwd', ws, '--output-format', 'json'], { env });
    assert.equal(run.code, 0, run.stderr);
    const messages = JSON.stringify((server.bodies[0] as { messages: unknown }).messages);
    assert.ok(messages.includes('Review src/app.ts for bugs and list them.'), messages);
    assert.ok(!messages.includes('/review'));
    const builtin = await runCli(['-p', '/compact', '--cwd', ws], { env });
    assert.equal(builtin.code, 2);
    assert.match(builtin.stderr, /\/compact is a command of the editor's chat panel/);
    assert.equal(server.bodies.length, 1);
  });

  it('says on stderr what it cut from an oversized instruction file', async () => {
    put(ws, 'AGENTS.md', 'x'.repeat(40_000));
    server.enqueue(textReply('ok'));
    const run = await runCli(['-p', 'hello', '--cwd', ws], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /AGENTS\.md was cut to its first 32,000 of 40,000 characters/);
  });
});
