// Issue 31: live model lists from scripted local servers in each provider's
// shape (OpenAI's /v1/models, OpenRouter's with windows and prices, Ollama's
// /api/tags + /api/show, Anthropic's paged list), the session cache and its
// saved copy that keeps the picker working offline, and the presets.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileCatalogStore, ModelCatalog } from '../../../src/runtime/providers/model-catalog';
import { fetchModelList } from '../../../src/runtime/providers/model-lists';
import { keyVariableFor, missingKeyMessage } from '../../../src/runtime/providers/key-hints';
import { listSourceFor, normalizeBaseUrl, presetById, presetForBaseUrl, PROVIDER_PRESETS } from '../../../src/runtime/providers/presets';
import { ModelError } from '../../../src/runtime/types';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Route = (req: Seen) => { status?: number; json: unknown } | undefined;

/** A local server answering each request from its route by "METHOD /path" (query included when the route names one). */
class ListServer {
  readonly seen: Seen[] = [];
  private server: Server | undefined;
  constructor(private readonly routes: Record<string, Route>) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        this.seen.push(seen);
        const route = this.routes[`${seen.method} ${seen.url}`] ?? this.routes[`${seen.method} ${seen.url.split('?')[0]}`];
        const reply = route?.(seen) ?? { status: 404, json: { error: 'no route' } };
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.json));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
    this.server?.closeAllConnections();
  }
}

const servers: ListServer[] = [];
async function serve(routes: Record<string, Route>): Promise<{ server: ListServer; url: string }> {
  const server = new ListServer(routes);
  servers.push(server);
  return { server, url: await server.start() };
}

async function rejection(p: Promise<unknown>): Promise<ModelError> {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof ModelError, `a ModelError, not ${String(error)}`);
    return error;
  }
  assert.fail('expected a failure');
}

describe('providers: live model lists (issue 31)', () => {
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  it('OpenRouter: context_length and per-token pricing become the window and dollars per million tokens; a router without a fixed price has none', async () => {
    const { server, url } = await serve({
      'GET /api/v1/models': () => ({
        json: {
          data: [
            { id: 'anthropic/claude-sonnet-4.5', name: 'Anthropic: Claude Sonnet 4.5', context_length: 1_000_000, pricing: { prompt: '0.000003', completion: '0.000015', input_cache_read: '0.0000003', input_cache_write: '0.00000375' } },
            { id: 'deepseek/deepseek-chat', context_length: 163_840, pricing: { prompt: '0.00000027', completion: '0.0000011' } },
            { id: 'openrouter/auto', context_length: 2_000_000, pricing: { prompt: '-1', completion: '-1' } },
          ],
        },
      }),
    });
    const models = await fetchModelList({ shape: 'openrouter', baseUrl: `${url}/api/v1` }, { apiKey: 'sk-or-test-key' });
    assert.deepEqual(models[0], { id: 'anthropic/claude-sonnet-4.5', name: 'Anthropic: Claude Sonnet 4.5', contextWindow: 1_000_000, price: { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 } });
    assert.deepEqual(models[1], { id: 'deepseek/deepseek-chat', contextWindow: 163_840, price: { inputPerMTok: 0.27, outputPerMTok: 1.1 } });
    assert.deepEqual(models[2], { id: 'openrouter/auto', contextWindow: 2_000_000 });
    assert.equal(server.seen[0]!.headers.authorization, 'Bearer sk-or-test-key');
  });

  it('OpenAI-compatible /v1/models: the ids, and the window where the server reports one (vLLM max_model_len, Groq context_window, Mistral max_context_length)', async () => {
    const { server, url } = await serve({
      'GET /v1/models': () => ({ json: { object: 'list', data: [{ id: 'qwen3-coder', object: 'model', max_model_len: 65_536 }, { id: 'llama-3.3-70b', context_window: 131_072 }, { id: 'codestral', max_context_length: 256_000 }, { id: 'plain' }] } }),
    });
    const models = await fetchModelList({ shape: 'openai', baseUrl: `${url}/v1/` });
    assert.deepEqual(models, [
      { id: 'qwen3-coder', contextWindow: 65_536 },
      { id: 'llama-3.3-70b', contextWindow: 131_072 },
      { id: 'codestral', contextWindow: 256_000 },
      { id: 'plain' },
    ]);
    assert.equal(server.seen[0]!.headers.authorization, undefined, 'no key, no header');
  });

  it("issue 42 item 17: the openai provider's list is live from {baseUrl}/models with its key, OpenAI's own server when no base URL is set", async () => {
    assert.deepEqual(listSourceFor('openai', undefined), { shape: 'openai', baseUrl: 'https://api.openai.com/v1' });
    assert.deepEqual(listSourceFor('openai', '  '), { shape: 'openai', baseUrl: 'https://api.openai.com/v1' });
    const { server, url } = await serve({ 'GET /v1/models': () => ({ json: { object: 'list', data: [{ id: 'gpt-5', object: 'model', owned_by: 'openai' }, { id: 'gpt-4.1-mini' }] } }) });
    const source = listSourceFor('openai', `${url}/v1`);
    assert.deepEqual(source, { shape: 'openai', baseUrl: `${url}/v1` });
    assert.deepEqual(await fetchModelList(source!, { apiKey: 'sk-openai-list' }), [{ id: 'gpt-5' }, { id: 'gpt-4.1-mini' }]);
    assert.equal(server.seen[0]!.headers.authorization, 'Bearer sk-openai-list');
  });

  it("Ollama: /api/tags names the models, /api/show gives each one's window (num_ctx when its parameters set one); a model whose details fail is still listed", async () => {
    const { server, url } = await serve({
      'GET /api/tags': () => ({ json: { models: [{ name: 'qwen3:8b', size: 1 }, { name: 'llama3.2:latest' }, { name: 'broken:1b' }] } }),
      'POST /api/show': (req) => {
        const model = (JSON.parse(req.body) as { model: string }).model;
        if (model === 'qwen3:8b') return { json: { model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40_960 } } };
        if (model === 'llama3.2:latest') return { json: { parameters: 'stop "<|eot_id|>"\nnum_ctx 16384', model_info: { 'llama.context_length': 131_072 } } };
        return { status: 500, json: { error: 'boom' } };
      },
    });
    const models = await fetchModelList({ shape: 'ollama', baseUrl: `${url}/v1` });
    assert.deepEqual(models, [{ id: 'qwen3:8b', contextWindow: 40_960 }, { id: 'llama3.2:latest', contextWindow: 16_384 }, { id: 'broken:1b' }]);
    assert.equal(server.seen.filter((s) => s.url === '/api/show').length, 3);
  });

  it("Anthropic: GET /v1/models with the key and version headers, every page followed by after_id", async () => {
    const { server, url } = await serve({
      'GET /v1/models?limit=1000': () => ({ json: { data: [{ id: 'claude-opus-5-5', display_name: 'Claude Opus 5.5', type: 'model' }], has_more: true, first_id: 'claude-opus-5-5', last_id: 'claude-opus-5-5' } }),
      'GET /v1/models?limit=1000&after_id=claude-opus-5-5': () => ({ json: { data: [{ id: 'claude-sonnet-5-5', display_name: 'Claude Sonnet 5.5', max_input_tokens: 1_000_000 }], has_more: false, last_id: 'claude-sonnet-5-5' } }),
    });
    const models = await fetchModelList({ shape: 'anthropic', baseUrl: url }, { apiKey: 'sk-ant-test-key' });
    assert.deepEqual(models, [
      { id: 'claude-opus-5-5', name: 'Claude Opus 5.5' },
      { id: 'claude-sonnet-5-5', name: 'Claude Sonnet 5.5', contextWindow: 1_000_000 },
    ]);
    assert.equal(server.seen[0]!.headers['x-api-key'], 'sk-ant-test-key');
    assert.equal(server.seen[0]!.headers['anthropic-version'], '2023-06-01');
    assert.equal(server.seen.length, 2);
  });

  it('a refused key is an auth error, a server error retryable, a strange body a protocol error; none repeats the key', async () => {
    const { url } = await serve({
      'GET /v1/models': () => ({ status: 401, json: { error: 'bad key' } }),
      'GET /broken/models': () => ({ status: 503, json: {} }),
      'GET /odd/models': () => ({ json: { models: 'nope' } }),
    });
    const auth = await rejection(fetchModelList({ shape: 'openai', baseUrl: `${url}/v1` }, { apiKey: 'sk-secret-123456' }));
    assert.equal(auth.kind, 'auth');
    assert.doesNotMatch(auth.message, /sk-secret/);
    assert.equal((await rejection(fetchModelList({ shape: 'openai', baseUrl: `${url}/broken` }))).kind, 'retryable');
    assert.equal((await rejection(fetchModelList({ shape: 'openai', baseUrl: `${url}/odd` }))).kind, 'protocol');
    // Nothing listens on a closed server's port.
    const closed = await serve({});
    await closed.server.stop();
    const unreachable = await rejection(fetchModelList({ shape: 'openai', baseUrl: `${closed.url}/v1` }));
    assert.equal(unreachable.kind, 'retryable');
    assert.match(unreachable.message, /cannot reach/);
  });
});

describe('providers: the model-list cache (issue 31)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'turnstone-lists-'))));
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('fetched once per session; saved without the key; a later session that cannot reach the server gets the saved list, marked, and lookups still answer', async () => {
    const { server, url } = await serve({ 'GET /api/v1/models': () => ({ json: { data: [{ id: 'x/model', context_length: 64_000, pricing: { prompt: '0.000001', completion: '0.000002' } }] } }) });
    const source = { shape: 'openrouter' as const, baseUrl: `${url}/api/v1` };
    const file = path.join(dir, 'model-lists.json');
    const first = new ModelCatalog(fileCatalogStore(file));
    const a = await first.list(source, { apiKey: 'sk-or-secret-key' });
    const b = await first.list(source, { apiKey: 'sk-or-secret-key' });
    assert.equal(a.fromCache, false);
    assert.deepEqual(b.models, a.models);
    assert.equal(server.seen.length, 1, 'the second list came from this session');
    await first.list(source, { apiKey: 'sk-or-secret-key', refresh: true });
    assert.equal(server.seen.length, 2, 'refresh asks again');
    assert.doesNotMatch(readFileSync(file, 'utf8'), /sk-or-secret/);

    await server.stop();
    const offline = new ModelCatalog(fileCatalogStore(file));
    const saved = await offline.list(source, { apiKey: 'sk-or-secret-key', timeoutMs: 5_000 });
    assert.equal(saved.fromCache, true);
    assert.equal(saved.error?.kind, 'retryable');
    assert.deepEqual(saved.models, [{ id: 'x/model', contextWindow: 64_000, price: { inputPerMTok: 1, outputPerMTok: 2 } }]);
    assert.deepEqual(await new ModelCatalog(fileCatalogStore(file)).lookup(source, 'x/model'), saved.models[0]);
    // Another server's list was never saved: its failure is the answer.
    const other = await rejection(offline.list({ shape: 'openai', baseUrl: `${url}/other/v1` }));
    assert.equal(other.kind, 'retryable');
  });

  it('a malformed saved file is an empty cache, not an error', async () => {
    const store = { read: async () => '{"version": 9', write: async () => undefined };
    assert.equal(await new ModelCatalog(store).lookup({ shape: 'openai', baseUrl: 'http://localhost:1/v1' }, 'm'), undefined);
  });
});

describe('providers: presets of the OpenAI-compatible provider (issue 31)', () => {
  it('a base URL that is a preset picks up its key variable and listing, however it is written', () => {
    assert.equal(presetForBaseUrl('https://openrouter.ai/api/v1/')?.id, 'openrouter');
    assert.equal(presetForBaseUrl('http://127.0.0.1:11434/v1')?.id, 'ollama');
    assert.equal(presetForBaseUrl('https://example.com/v1'), undefined);
    assert.deepEqual(listSourceFor('openai-compatible', 'http://localhost:11434/v1'), { shape: 'ollama', baseUrl: 'http://localhost:11434/v1' });
    assert.deepEqual(listSourceFor('openai-compatible', 'https://example.com/v1'), { shape: 'openai', baseUrl: 'https://example.com/v1' });
    assert.equal(listSourceFor('openai-compatible', ''), undefined, 'no server, nothing to list');
    assert.deepEqual(listSourceFor('anthropic', undefined), { shape: 'anthropic', baseUrl: undefined });
    assert.equal(keyVariableFor('openai-compatible', presetById('groq')), 'GROQ_API_KEY');
    assert.equal(keyVariableFor('openai-compatible', presetById('lmstudio')), undefined, 'a local server needs none');
    assert.equal(normalizeBaseUrl('HTTP://LocalHost:1234/v1//'), 'http://localhost:1234/v1');
  });

  it('every preset the issue names is there once, each with a listing, a key variable only for hosted ones', () => {
    const ids = PROVIDER_PRESETS.map((p) => p.id);
    assert.deepEqual([...ids].sort(), ['deepseek', 'gemini', 'groq', 'lmstudio', 'mistral', 'ollama', 'openrouter', 'vllm', 'xai']);
    for (const p of PROVIDER_PRESETS) {
      const local = new URL(p.baseUrl).hostname === 'localhost';
      assert.equal(p.keyVariable === undefined, local, `${p.id}: a key variable exactly when hosted`);
    }
  });

  it("a missing key says which variable to set, per provider and per preset, and names the command", () => {
    assert.match(missingKeyMessage('openai-compatible', presetById('openrouter')), /no API key for OpenRouter: set OPENROUTER_API_KEY .*Turnstone: Set API Key/);
    assert.match(missingKeyMessage('openai-compatible', presetById('gemini')), /GEMINI_API_KEY/);
    assert.match(missingKeyMessage('anthropic'), /set ANTHROPIC_API_KEY/);
    assert.match(missingKeyMessage('openai-compatible'), /set OPENAI_API_KEY/);
  });
});
