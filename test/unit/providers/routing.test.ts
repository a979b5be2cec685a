import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createModelClient, resolveAnthropicEnv, resolveOpenAIEnv } from '../../../src/runtime/providers';
import { type ModelClientOptions } from '../../../src/runtime/providers/options';
import { MockAnthropicServer, textReply } from '../../fixtures/mock-anthropic';
import { MockOpenAIServer, openaiTextReply } from '../../fixtures/mock-openai';
import { assemble, collect, collectError, request, signal } from './helpers';

describe('providers/index: routing and the mock CLI', () => {
  it('S8: createModelClient routes anthropic and openai-compatible to their APIs, with the same events', async () => {
    const anthropic = await MockAnthropicServer.start();
    const openai = await MockOpenAIServer.start();
    try {
      anthropic.enqueue(textReply('same words'));
      openai.enqueue(openaiTextReply('same words'));
      const a = createModelClient({ provider: 'anthropic', apiKey: 'k', baseURL: anthropic.url });
      const o = createModelClient({ provider: 'openai-compatible', apiKey: 'k', baseURL: openai.baseURL });
      const [ea, eo] = [await collect(a.stream(request(), signal())), await collect(o.stream(request(), signal()))];
      assert.deepEqual(assemble(ea), assemble(eo));
      assert.equal(anthropic.requests.length, 1);
      assert.equal(openai.requests.length, 1);
    } finally {
      await anthropic.close();
      await openai.close();
    }
  });

  it('S8: an unknown provider fails with a ModelError on first use', async () => {
    const client = createModelClient({ provider: 'nope' } as unknown as ModelClientOptions);
    const { error } = await collectError(client.stream(request(), signal()));
    assert.equal(error.kind, 'invalid_request');
  });

  it('S8: environment defaults: ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY and OPENAI_BASE_URL / OPENAI_API_KEY, blanks ignored', () => {
    assert.deepEqual(resolveAnthropicEnv({ ANTHROPIC_BASE_URL: 'http://proxy:8080', ANTHROPIC_API_KEY: 'sk-ant' }), { baseURL: 'http://proxy:8080', apiKey: 'sk-ant' });
    assert.deepEqual(resolveAnthropicEnv({ ANTHROPIC_BASE_URL: '  ', ANTHROPIC_API_KEY: '' }), {});
    assert.deepEqual(resolveOpenAIEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_API_KEY: 'x' }), { baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'x' });
  });

  it('S8: an API key function is asked before each request (host key refresh)', async () => {
    const mock = await MockAnthropicServer.start();
    try {
      mock.enqueue(textReply('one'), textReply('two'));
      let n = 0;
      const client = createModelClient({ provider: 'anthropic', baseURL: mock.url, apiKey: async () => `key-${++n}` });
      await collect(client.stream(request(), signal()));
      await collect(client.stream(request(), signal()));
      assert.deepEqual(
        mock.requests.map((r) => r.headers['authorization']),
        ['Bearer key-1', 'Bearer key-2'],
      );
    } finally {
      await mock.close();
    }
  });

  it('S8: mock-anthropic-main (for end-to-end tests) prints {"port":N}, serves the script, records requests, stops on SIGTERM', async function () {
    this.timeout(30_000);
    const dir = mkdtempSync(path.join(tmpdir(), 'mock-main-'));
    const script = path.join(dir, 'script.json');
    const record = path.join(dir, 'requests.jsonl');
    writeFileSync(script, JSON.stringify({ replies: [{ kind: 'text', text: 'from the CLI mock' }], fallback: { kind: 'text', text: 'fallback' } }));
    const main = path.join(__dirname, '../../fixtures/mock-anthropic-main.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', main, script, '--record', record], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`mock exited early (${code})`)));
      });
      const { port } = JSON.parse(first) as { port: number };
      assert.ok(port > 0);
      const client = createModelClient({ provider: 'anthropic', apiKey: 'k', baseURL: `http://127.0.0.1:${port}` });
      assert.deepEqual(assemble(await collect(client.stream(request(), signal()))).content, [{ type: 'text', text: 'from the CLI mock' }]);
      assert.deepEqual(assemble(await collect(client.stream(request(), signal()))).content, [{ type: 'text', text: 'fallback' }]);
      const recorded = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { path: string; body: { model: string } });
      assert.equal(recorded.length, 2);
      assert.equal(recorded[0]!.path, '/v1/messages');
      assert.equal(recorded[0]!.body.model, 'claude-sonnet-5-5');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
