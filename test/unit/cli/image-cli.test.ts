// contracts.md "Images": `--image <file>` (repeatable) attaches images to the
// prompt; read_file of a PNG reaches the model as an image in the tool result.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makePng } from '../../fixtures/images';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';

type Block = { type: string; source?: { type: string; media_type: string; data: string }; content?: unknown; text?: string };
const messagesOf = (body: unknown) => (body as { messages: Array<{ role: string; content: Block[] }> }).messages;

describe('CLI: images (node dist/cli.js against the mock API)', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let tmp: string;
  let ws: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    server = await MockAnthropicServer.start();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cli-img-'));
    ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli', HOME: tmp };
  });
  afterEach(async () => {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('--image (repeatable) puts base64 image blocks after the prompt text; the session stores them beside it and a resume sends them again', async () => {
    writeFileSync(path.join(tmp, 'a.png'), makePng(40, 30, 1));
    writeFileSync(path.join(tmp, 'b.png'), makePng(8, 6, 2));
    const session = path.join(tmp, 's', 'run.jsonl');
    server.enqueue(textReply('I see a gradient.'));
    const run = await runCli(['-p', 'what is on these?', '--cwd', ws, '--image', path.join(tmp, 'a.png'), '--image', path.join(tmp, 'b.png'), '--session', session], { env });
    assert.equal(run.code, 0, run.stderr);
    const content = messagesOf(server.bodies[0])[0]!.content;
    assert.equal(content[0]!.type, 'text');
    assert.equal(content[0]!.text, 'what is on these?');
    assert.deepEqual(content[1]!.source, { type: 'base64', media_type: 'image/png', data: makePng(40, 30, 1).toString('base64') });
    assert.deepEqual(content[2]!.source, { type: 'base64', media_type: 'image/png', data: makePng(8, 6, 2).toString('base64') });

    assert.equal(readFileSync(session, 'utf8').includes(makePng(40, 30, 1).toString('base64').slice(0, 60)), false);
    assert.equal(readdirSync(path.join(tmp, 's', 'run.images')).length, 2);
    server.enqueue(textReply('Still a gradient.'));
    const resumed = await runCli(['-p', 'and now?', '--cwd', ws, '--session', session], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(messagesOf(server.bodies[1])[0]!.content[1]!.source, content[1]!.source);
  });

  it('refuses a file that is not an image, and a missing one, with exit 2 and one clear line, before any request', async () => {
    writeFileSync(path.join(tmp, 'fake.png'), '<html>nope</html>');
    const fake = await runCli(['-p', 'look', '--cwd', ws, '--image', path.join(tmp, 'fake.png')], { env });
    assert.equal(fake.code, 2);
    assert.match(fake.stderr, /--image .*fake\.png is not a PNG, JPEG, GIF or WebP image/);
    const missing = await runCli(['-p', 'look', '--cwd', ws, '--image', path.join(tmp, 'nope.png')], { env });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--image .*nope\.png cannot be read \(ENOENT\)/);
    assert.equal(server.bodies.length, 0);
    assert.ok(!existsSync(path.join(ws, '.turnstone')));
  });

  it('read_file of a PNG: the tool result carries the image block after its text line', async () => {
    writeFileSync(path.join(ws, 'ui.png'), makePng(120, 80, 3));
    server.enqueue(toolUseReply([{ id: 'toolu_1', name: 'read_file', input: { path: 'ui.png' } }]));
    server.enqueue(textReply('The button is misaligned.'));
    const run = await runCli(['-p', 'read ui.png', '--cwd', ws, '--allow', 'read_file'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = messagesOf(server.bodies[1])[2]!.content[0]!;
    assert.equal(result.type, 'tool_result');
    const parts = result.content as Block[];
    assert.match(String(parts[0]!.text), /^ui\.png: PNG 120×80/);
    assert.deepEqual(parts[1]!.source, { type: 'base64', media_type: 'image/png', data: makePng(120, 80, 3).toString('base64') });
  });

  it('--help lists --image', async () => {
    const help = await runCli(['--help']);
    assert.match(help.stdout, /--image <file>\s+attach a PNG, JPEG, GIF or WebP image/);
  });
});
