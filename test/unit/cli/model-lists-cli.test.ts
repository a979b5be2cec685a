// Issue 31 in the CLI: a preset's server without its key says which variable
// to set (before any request); a saved list's window and price are used
// offline, and only a preset that reports them is asked for a fresh one.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import manifest from '../../../package.json';
import { parseSettingsObject, type SettingSchema } from '../../../src/agent/settings';
import { cliLiveModel } from '../../../src/cli/model-lists';
import { CATALOG_FILE, fileCatalogStore, ModelCatalog } from '../../../src/runtime/providers/model-catalog';
import { runCli } from '../../support/run-cli';

const schema = manifest.contributes.configuration.properties as Record<string, SettingSchema>;

describe('CLI: presets and model lists (issue 31)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cli-lists-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("OpenRouter's base URL without OPENROUTER_API_KEY exits 1 naming the variable", async () => {
    const run = await runCli(['-p', 'hi', '--cwd', dir], { env: { TURNSTONE_PROVIDER: 'openai-compatible', OPENAI_BASE_URL: 'https://openrouter.ai/api/v1/', XDG_CACHE_HOME: dir } });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no API key for OpenRouter: set OPENROUTER_API_KEY/);
  });

  it("a saved list's entry reaches the run with no request; a server that is no preset is not asked", async () => {
    const baseURL = 'http://127.0.0.1:9/v1';
    // Saved by an earlier run (or session) whose server answered.
    const earlier = new ModelCatalog(fileCatalogStore(path.join(dir, CATALOG_FILE)), async () => [{ id: 'local-coder', contextWindow: 48_000, price: { inputPerMTok: 0.5, outputPerMTok: 1 } }]);
    await earlier.list({ shape: 'openai', baseUrl: baseURL });
    const s = parseSettingsObject({ 'turnstone.model': 'local-coder' }, schema, 'test');
    const live = await cliLiveModel({ provider: 'openai-compatible', baseURL, apiKey: 'not-needed' }, s, {}, dir);
    assert.deepEqual(live, { id: 'local-coder', contextWindow: 48_000, price: { inputPerMTok: 0.5, outputPerMTok: 1 } });
    // Nothing saved and nothing listens on port 9: nothing known, and no error either.
    assert.equal(await cliLiveModel({ provider: 'openai-compatible', baseURL: 'http://127.0.0.1:9/other/v1', apiKey: 'not-needed' }, s, {}, dir), undefined);
  });

  it("issue 42 item 17: with provider openai, the saved list of its server (OpenAI's own when no base URL is set) reaches the run, with no request", async () => {
    const proxy = 'http://127.0.0.1:9/v1';
    const earlier = new ModelCatalog(fileCatalogStore(path.join(dir, CATALOG_FILE)), async (source) =>
      source.baseUrl === proxy ? [{ id: 'team-gpt', contextWindow: 272_000 }] : [{ id: 'gpt-5-custom', contextWindow: 400_000, price: { inputPerMTok: 1.25, outputPerMTok: 10 } }],
    );
    await earlier.list({ shape: 'openai', baseUrl: 'https://api.openai.com/v1' });
    await earlier.list({ shape: 'openai', baseUrl: proxy });
    const settings = (model: string) => parseSettingsObject({ 'turnstone.provider': 'openai', 'turnstone.model': model }, schema, 'test');
    assert.deepEqual(await cliLiveModel({ provider: 'openai', apiKey: 'sk-openai' }, settings('gpt-5-custom'), {}, dir), { id: 'gpt-5-custom', contextWindow: 400_000, price: { inputPerMTok: 1.25, outputPerMTok: 10 } });
    // Nothing listens on port 9: the saved list answers, and no request was tried.
    assert.deepEqual(await cliLiveModel({ provider: 'openai', baseURL: proxy, apiKey: 'sk-openai' }, settings('team-gpt'), {}, dir), { id: 'team-gpt', contextWindow: 272_000 });
  });
});
