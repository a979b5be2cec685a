// Issue 28: web_fetch of a 1 MB HTML page from a local server, end to end
// (request, address checks, Readability/main-content extraction, Turndown,
// the first page of Markdown), through the executor as the CLI builds it.
// Baseline, interleaved run by run: a bare http.get of the same page (the
// transfer alone). Target: median < 200 ms.
import * as fs from 'node:fs';
import * as http from 'node:http';
import { type AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeWorkspace } from '../src/tools/node-adapter';
import { createToolExecutor } from '../src/tools/registry';
import { round, type BenchResult, type Sampled } from './lib';

function stats(times: number[]): Sampled {
  const t = [...times].sort((x, y) => x - y);
  return { median: t[Math.floor(t.length / 2)]!, min: t[0]!, max: t[t.length - 1]! };
}

/** The docs fixture with its article repeated until the page is 1 MB: chrome around a long article, as a big docs page is. */
function bigPage(): string {
  const page = fs.readFileSync(path.join(__dirname, '../test/fixtures/web/docs-page.html'), 'utf8');
  const start = page.indexOf('<article id="apicontent">') + '<article id="apicontent">'.length;
  const end = page.indexOf('</article>');
  const section = page.slice(start, end);
  let body = '';
  for (let i = 0; page.length + body.length < 1024 * 1024; i++) body += section.replace(/id="/g, `id="s${i}-`);
  return page.slice(0, start) + body + page.slice(end);
}

function bareGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: false }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => (n += c.length));
      res.on('end', () => resolve(n));
      res.on('error', reject);
    }).on('error', reject);
  });
}

export default async function (): Promise<BenchResult[]> {
  const html = bigPage();
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-bench-fetch-'));
  const executor = createToolExecutor({ workspace: new NodeWorkspace(dir) }, { outputDir: dir, webFetch: { allowPrivateNetwork: true } });
  const ours: number[] = [];
  const base: number[] = [];
  let firstMs = 0;
  try {
    for (let i = 0; i < 26; i++) {
      let t = performance.now();
      const out = await executor.execute('web_fetch', { url }, { signal: new AbortController().signal });
      const oursMs = performance.now() - t;
      if (out.isError || !out.content.includes('A stream is an abstract interface')) throw new Error(`web_fetch failed: ${out.content.slice(0, 300)}`);
      t = performance.now();
      if ((await bareGet(url)) !== Buffer.byteLength(html)) throw new Error('short read');
      const baseMs = performance.now() - t;
      // The first run loads the converters (reported apart); the next warm the JIT.
      if (i === 0) firstMs = oursMs;
      if (i >= 6) {
        ours.push(oursMs);
        base.push(baseMs);
      }
    }
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const o = stats(ours);
  const b = stats(base);
  return [
    {
      name: 'web_fetch: fetch + convert a 1 MB HTML page',
      measured: `web_fetch through the executor on a ${(Buffer.byteLength(html) / 1048576).toFixed(2)} MB docs page from a local server: request, address checks, main content, Markdown, first page (baseline: a bare http.get of the same page)`,
      unit: 'ms',
      ours: round(o.median),
      baseline: round(b.median),
      ratio: round(o.median / Math.max(b.median, 1e-6)),
      target: '< 200 ms',
      pass: o.median < 200,
      min: round(o.min),
      max: round(o.max),
      extra: { first_call_ms_with_library_load: round(firstMs) },
    },
  ];
}
