// Issue 28, web_fetch: the fetch pipeline against a local HTTP server. Most
// tests set allowPrivateNetwork (the server is on 127.0.0.1); the address
// tests leave it off and check that nothing reaches the server.
import assert from 'node:assert/strict';
import { isAbortedError } from '../../../src/runtime/cancellation';
import { ToolInputError } from '../../../src/runtime/types';
import { type ToolExecutorOptions } from '../../../src/tools/registry';
import { refusedAddress } from '../../../src/tools/web-fetch/addresses';
import { startPageServer, type PageServer } from '../../fixtures/web/server';
import { makePng } from '../../fixtures/images';
import { ctx, makeNodeEnv, type NodeToolEnv } from './helpers';

describe('tools: web_fetch (issue 28)', () => {
  let server: PageServer;
  const envs: NodeToolEnv[] = [];
  before(async () => {
    server = await startPageServer();
  });
  after(() => server.close());
  afterEach(async () => {
    for (const e of envs.splice(0)) await e.cleanup();
  });

  async function fetchWith(input: Record<string, unknown>, webFetch: ToolExecutorOptions['webFetch'] = { allowPrivateNetwork: true }, signal = ctx().signal) {
    const env = await makeNodeEnv({ webFetch });
    envs.push(env);
    await env.executor.assess('web_fetch', input);
    return env.executor.execute('web_fetch', input, { signal });
  }
  const fetchUrl = (p: string, more: Record<string, unknown> = {}, webFetch?: ToolExecutorOptions['webFetch']) => fetchWith({ url: server.url(p), ...more }, webFetch);

  describe('content', () => {
    it('28.fetch: a docs page becomes Markdown of its article, without nav, sidebar, table of contents or footer', async () => {
      const out = await fetchUrl('/docs');
      assert.equal(out.isError, false, out.content);
      assert.match(out.content, /^URL: http:\/\/127\.0\.0\.1:\d+\/docs\nTitle: Streams \| Node\.js v20 Documentation\n\n# Stream/);
      assert.match(out.content, /A stream is an abstract interface for working with streaming data in Node\.js\./);
      assert.match(out.content, /```js\nconst \{ pipeline \} = require\('node:stream\/promises'\);/, 'code blocks fenced with their language');
      assert.match(out.content, /\| Parameter \| Type \| Description \|\n\| --- \| --- \| --- \|\n\| source \|/, 'tables as pipe tables');
      assert.match(out.content, /\[request to an HTTP server\]\(http:\/\/127\.0\.0\.1:\d+\/http\.html#class-httpincomingmessage\)/, 'relative links made absolute');
      for (const chrome of ['Skip to content', 'Download', 'Child processes', 'Table of contents', 'Trademark Policy', 'Accept all cookies', 'gtag', 'Search docs']) {
        assert.ok(!out.content.includes(chrome), `"${chrome}" (site chrome) is left out`);
      }
    });

    it('28.fetch: a GitHub-like issue keeps its title, every comment, code blocks and labels, and drops the site header and footer', async () => {
      const out = await fetchUrl('/issue');
      assert.equal(out.isError, false, out.content);
      assert.match(out.content, /# fs\.watch misses rename events on macOS when the folder is a symlink #51234/);
      assert.match(out.content, /```\nmkdir -p \/tmp\/real && ln -s \/tmp\/real \/tmp\/link\n/);
      assert.match(out.content, /fs\.watch\(process\.argv\[2\], \(event, name\) => console\.log\(event, name\)\);/, 'highlighted code as plain text');
      assert.match(out.content, /I can reproduce it on macOS 14/, 'the second comment');
      assert.match(out.content, /\[#51290\]\(http:\/\/127\.0\.0\.1:\d+\/nodejs\/node\/pull\/51290\)/, 'the third comment, its link absolute');
      assert.match(out.content, /confirmed-bug/);
      for (const chrome of ['Sign up', 'Search or jump to', 'Pull requests', 'Terms', '© 2024 GitHub']) assert.ok(!out.content.includes(chrome), `"${chrome}" is left out`);
    });

    it('28.fetch: raw: true returns the HTML source as it is', async () => {
      const out = await fetchUrl('/docs', { raw: true, max_length: 100_000 });
      assert.match(out.content, /<script>window\.dataLayer/);
      assert.match(out.content, /<nav class="top-nav"/);
    });

    it('28.fetch: JSON and text come back as they are; a declared charset is honoured; an untyped HTML body is sniffed', async () => {
      const json = await fetchUrl('/json');
      assert.match(json.content, /\n\n\{\n {2}"name": "turnstone",\n {2}"tags": \[/);
      assert.match((await fetchUrl('/text')).content, /\n\nplain words\nsecond line\n$/);
      assert.match((await fetchUrl('/latin1')).content, /café$/);
      const untyped = await fetchUrl('/untyped');
      assert.match(untyped.content, /Title: No type\n\nSniffed as HTML\.$/);
    });

    it('28.fetch: an image comes back as an image block through the image pipeline', async () => {
      const out = await fetchUrl('/image.png');
      assert.equal(out.isError, false);
      assert.match(out.content, /image\.png: PNG 40×30, \d+ KB \(shown as an image\)$/);
      assert.equal(out.images?.length, 1);
      assert.deepEqual([out.images![0]!.mediaType, out.images![0]!.width, out.images![0]!.height], ['image/png', 40, 30]);
      assert.ok(Buffer.from(out.images![0]!.data, 'base64').equals(makePng(40, 30)));
    });

    it('28.fetch: other content types (a PDF) are refused with a message naming the type and what to do', async () => {
      const out = await fetchUrl('/doc.pdf');
      assert.equal(out.isError, true);
      assert.match(out.content, /is application\/pdf \(\d+ B\), which web_fetch cannot read: it reads HTML \(as Markdown\), text, JSON and XML/);
      assert.match(out.content, /download it with bash/);
    });

    it('28.fetch: an HTTP error status is an error result that still shows the page', async () => {
      const out = await fetchUrl('/missing');
      assert.equal(out.isError, true);
      assert.match(out.content, /HTTP 404 Not Found: the server answered with an error; its page follows\./);
      assert.match(out.content, /# Page not found\n\nNothing lives at this address\./);
    });

    it('28.fetch: bad URLs are input errors before anything is asked or fetched', async () => {
      const env = await makeNodeEnv({ webFetch: { allowPrivateNetwork: true } });
      envs.push(env);
      await assert.rejects(env.executor.assess('web_fetch', { url: 'not a url' }), (e: unknown) => e instanceof ToolInputError && /not a valid URL/.test(e.message));
      await assert.rejects(env.executor.assess('web_fetch', { url: 'file:///etc/passwd' }), /http:\/\/ and https:\/\/ URLs only, not file:/);
      await assert.rejects(env.executor.assess('web_fetch', { url: `http://user:pw@127.0.0.1:${server.port}/` }), /credentials are never sent/);
      // The subject rules and the approval see: normalised, without the fragment.
      assert.deepEqual(await env.executor.assess('web_fetch', { url: 'HTTPS://Example.COM/a b#frag' }), { need: 'fetch', subject: 'https://example.com/a%20b' });
    });
  });

  describe('paging', () => {
    it('28.fetch: max_length cuts the content and says which start_index reads on; the pages join to the whole', async () => {
      const whole = (await fetchUrl('/long', { max_length: 100_000 })).content.split('\n\n').slice(1).join('\n\n');
      assert.ok(!whole.includes('[Showing'), 'the whole text fits in one page');
      let start = 0;
      let joined = '';
      for (let i = 0; i < 20; i++) {
        const out = await fetchUrl('/long', { max_length: 1000, start_index: start });
        const m = /\n\n\[Showing characters (\d+)–(\d+) of (\d+)(?:\. To read more, call web_fetch with start_index=(\d+)\.|: the end of the content\.)\]$/.exec(out.content);
        assert.ok(m, out.content.slice(-200));
        const body = out.content.slice(out.content.indexOf('\n\n') + 2, m.index);
        assert.ok(body.length <= 1000);
        assert.ok(!/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(body), 'no page begins or ends inside a surrogate pair');
        joined += body;
        if (!m[4]) break;
        assert.equal(Number(m[4]), Number(m[2]));
        start = Number(m[4]);
      }
      assert.equal(joined, whole);
    });

    it('28.fetch: a long HTML page is read in parts that join to the whole; a part converted alone names no total', async () => {
      const whole = (await fetchUrl('/long-docs', { max_length: 100_000 })).content.split('\n\n').slice(1).join('\n\n');
      assert.ok(!whole.includes('[Showing') && whole.length > 20_000, `one page holds it all (${whole.length} characters)`);
      let start = 0;
      let joined = '';
      for (let i = 0; i < 40; i++) {
        const out = await fetchUrl('/long-docs', { max_length: 4000, start_index: start });
        const m = /\n\n\[Showing characters (\d+)–(\d+)( of \d+)?(?:\. To read more, call web_fetch with start_index=(\d+)\.|: the end of the content\.)\]$/.exec(out.content);
        assert.ok(m, out.content.slice(-200));
        if (i === 0) assert.equal(m[3], undefined, 'the first part is converted alone: no total is claimed');
        joined += out.content.slice(out.content.indexOf('\n\n', out.content.indexOf('Title:')) + 2, m.index);
        if (!m[4]) break;
        start = Number(m[4]);
      }
      assert.equal(joined, whole);
    });

    it('28.fetch: a start_index past the end is an error naming the length', async () => {
      const out = await fetchUrl('/text', { start_index: 5000 });
      assert.equal(out.isError, true);
      assert.match(out.content, /start_index 5000 is past the end of the content, which has 24 characters/);
    });
  });

  describe('redirects', () => {
    it('28.fetch: same-site redirects are followed (5 at most) and the result names where the content came from', async () => {
      const out = await fetchUrl('/hop/4');
      assert.equal(out.isError, false, out.content);
      assert.match(out.content, /^URL: http:\/\/127\.0\.0\.1:\d+\/text\n\(redirected from http:\/\/127\.0\.0\.1:\d+\/hop\/4\)/);
      const loop = await fetchUrl('/loop');
      assert.equal(loop.isError, true);
      assert.match(loop.content, /redirected more than 5 times/);
      assert.equal(server.hits.filter((h) => h === '/loop').length >= 6, true);
    });

    it('28.fetch: a redirect to another site is not followed: the model is told the URL to fetch (and is asked about it)', async () => {
      const out = await fetchUrl('/away');
      assert.equal(out.isError, false);
      assert.match(out.content, /redirects \(HTTP 301\) to http:\/\/other\.example\/page, on another site; not followed\. To read it, call web_fetch with url "http:\/\/other\.example\/page"/);
      const file = await fetchUrl('/to-file');
      assert.equal(file.isError, true);
      assert.match(file.content, /redirects to file:\/\/\/etc\/passwd, which is not an http\(s\) URL; not followed/);
    });

    it('28.fetch: a redirect whose next hop resolves to a private address is refused (each hop is checked)', async () => {
      // site.test is "public" (127.0.0.1, exempted by the test) on the first lookup and 127.0.0.2 (loopback) on the next.
      const answers = ['127.0.0.1', '127.0.0.2'];
      const out = await fetchWith(
        { url: `http://site.test:${server.port}/to-site` },
        { resolve: async () => [answers.shift() ?? '127.0.0.2'], refused: (ip) => (ip === '127.0.0.1' ? undefined : refusedAddress(ip)) },
      );
      assert.equal(out.isError, true);
      assert.match(out.content, /Refused to connect to site\.test \(127\.0\.0\.2\): it is a loopback address\./);
      assert.equal(answers.length, 0, 'the second hop was resolved');
    });
  });

  describe('network safety', () => {
    it('28.fetch: without allowPrivateNetwork, loopback is refused before anything is sent (by address and by name)', async () => {
      const before = server.hits.length;
      const out = await fetchWith({ url: server.url('/text') }, {});
      assert.equal(out.isError, true);
      assert.match(out.content, /Refused to connect to 127\.0\.0\.1: it is a loopback address\. web_fetch only reaches public internet addresses; the user can allow local and private ones with the setting turnstone\.webFetch\.allowPrivateNetwork\./);
      const byName = await fetchWith({ url: `http://localhost:${server.port}/text` }, {});
      assert.match(byName.content, /Refused to connect to localhost \((127\.0\.0\.1|::1)\): it is a loopback address/);
      const mapped = await fetchWith({ url: `http://[::ffff:127.0.0.1]:${server.port}/text` }, {});
      assert.match(mapped.content, /Refused to connect to ::ffff:7f00:1: it is a loopback address/);
      assert.equal(server.hits.length, before, 'the server never saw a request');
    });

    it('28.fetch: DNS rebinding: a public name that resolves to 127.0.0.1 is refused, and the check is on the address connected to', async () => {
      const before = server.hits.length;
      const lookups: string[] = [];
      const out = await fetchWith({ url: `http://docs.example.com:${server.port}/text` }, { resolve: async (host) => (lookups.push(host), ['127.0.0.1']) });
      assert.equal(out.isError, true);
      assert.match(out.content, /Refused to connect to docs\.example\.com \(127\.0\.0\.1\): it is a loopback address/);
      assert.deepEqual(lookups, ['docs.example.com'], 'resolved once, by the resolver the connection uses');
      // A name with one public and one private answer is refused too: the connection could take either.
      const mixed = await fetchWith({ url: `http://mixed.example:${server.port}/text` }, { resolve: async () => ['93.184.215.14', '169.254.169.254'] });
      assert.match(mixed.content, /Refused to connect to mixed\.example \(169\.254\.169\.254\): it is a link-local address/);
      assert.equal(server.hits.length, before);
    });

    it('28.fetch: the address classes: loopback, private, link-local, CGNAT, unique-local, IPv4-mapped and metadata are refused; public ones pass', () => {
      for (const ip of ['127.0.0.1', '127.255.0.9', '::1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.100.100.200', 'fd00:ec2::254', 'fc00::1', 'fe80::1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '0.0.0.0', '::', '224.0.0.1']) {
        assert.ok(refusedAddress(ip), `${ip} is refused`);
      }
      for (const ip of ['93.184.215.14', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(refusedAddress(ip), undefined, `${ip} is public`);
    });

    it('28.fetch: no cookies are kept or sent, and the User-Agent names Turnstone and its version', async () => {
      const out = await fetchUrl('/login', {}, { allowPrivateNetwork: true, userAgent: 'Turnstone/9.8.7 (coding agent; web_fetch)' });
      assert.match(out.content, /"userAgent":"Turnstone\/9\.8\.7 \(coding agent; web_fetch\)"/);
      assert.match(out.content, /"cookie":null/);
      assert.equal(server.headers.get('/echo')?.cookie, undefined);
    });
  });

  describe('limits and Stop', () => {
    it('28.fetch: a body that never ends is aborted at the size limit with a clear message', async () => {
      const out = await fetchUrl('/forever', {}, { allowPrivateNetwork: true, maxBytes: 256 * 1024 });
      assert.equal(out.isError, true);
      assert.match(out.content, /\/forever is larger than 256\.0 KB, over web_fetch's 256\.0 KB limit; stopped reading it\./);
      const declared = await fetchUrl('/declared-huge');
      assert.match(declared.content, /\/declared-huge is 11\.0 MB, over web_fetch's 10\.0 MB limit/);
    });

    it('28.fetch: a server that never answers is given up on at the time limit', async () => {
      const out = await fetchUrl('/never', {}, { allowPrivateNetwork: true, timeoutMs: 300 });
      assert.equal(out.isError, true);
      assert.match(out.content, /\/never did not finish within 0\.3 s; stopped waiting\./);
    });

    it('28.fetch: Stop cancels a fetch in flight (the turn sees the one interrupt error)', async () => {
      const controller = new AbortController();
      const hitsBefore = server.hits.filter((h) => h === '/never').length;
      const pending = fetchWith({ url: server.url('/never') }, { allowPrivateNetwork: true }, controller.signal);
      // Stop once the request has reached the server.
      while (server.hits.filter((h) => h === '/never').length === hitsBefore) await new Promise((r) => setImmediate(r));
      controller.abort();
      await assert.rejects(pending, (e: unknown) => isAbortedError(e));
    });
  });
});
