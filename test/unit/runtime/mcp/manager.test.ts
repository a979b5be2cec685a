// The MCP manager and the MCP tool source against real servers: the official
// everything and filesystem servers (stdio, streamable HTTP, legacy SSE) and a
// small SDK server whose tool list changes. No MCP mocks.
import * as assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseServerMap, type McpServerConfig } from '../../../../src/runtime/mcp/config';
import { McpManager, SKIPPED_UNTRUSTED } from '../../../../src/runtime/mcp/manager';
import { ToolInputError, type ToolExecutor } from '../../../../src/runtime/types';
import { withMcpTools } from '../../../../src/tools/mcp-tools';
import { createToolExecutor } from '../../../../src/tools/registry';
import { NodeWorkspace } from '../../../../src/tools/node-adapter';
import { DYNAMIC_BIN, EVERYTHING_BIN, FILESYSTEM_BIN, isAlive, startEverythingHttp, waitFor } from '../../../fixtures/mcp-servers';

const ctx = { workspaceFolder: undefined, env: {} };
const layer = (servers: Record<string, unknown>, origin: McpServerConfig['origin'] = 'user') => parseServerMap(servers, origin, 'test', ctx);
const everything = { command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] };

describe('MCP: manager and tool source against real servers', function () {
  this.timeout(60_000);
  const managers: McpManager[] = [];
  let ws: string;
  const make = (servers: Record<string, unknown>, opts: ConstructorParameters<typeof McpManager>[1] = {}, origin: McpServerConfig['origin'] = 'user') => {
    const m = new McpManager(layer(servers, origin), { startTimeoutMs: 20_000, ...opts });
    managers.push(m);
    return m;
  };
  const toolsOf = (m: McpManager): ToolExecutor => withMcpTools(createToolExecutor({ workspace: new NodeWorkspace(ws) }), m, { maxOutputChars: 2000 });
  const signal = () => new AbortController().signal;

  beforeEach(() => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-mcp-'));
  });
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.dispose()));
    rmSync(ws, { recursive: true, force: true });
  });

  it('starts nothing until the first step, then lists the tools as mcp__<server>__<tool> with their schemas unchanged', async () => {
    const m = make({ everything });
    const tools = toolsOf(m);
    assert.equal(m.pids().length, 0);
    assert.ok(!tools.definitions().some((d) => d.name.startsWith('mcp__')));
    await tools.prepareStep!(signal());
    const echo = tools.definitions().find((d) => d.name === 'mcp__everything__echo');
    assert.ok(echo, 'echo is listed');
    assert.equal(echo.description, 'Echoes back the input string');
    assert.deepEqual((echo.input_schema as { required?: string[] }).required, ['message']);
    assert.ok(tools.definitions().some((d) => d.name === 'mcp__everything__get-tiny-image'));
    assert.ok(tools.definitions().some((d) => d.name === 'read_file'), 'built-in tools stay');
    assert.equal(m.status()[0]!.status, 'running');
  });

  it('calls a tool: text as is; an image becomes an image block with a note in its place; structuredContent is JSON; bad input is refused before the call', async () => {
    const m = make({ everything });
    const tools = toolsOf(m);
    await tools.prepareStep!(signal());
    assert.equal(tools.isReadOnly('mcp__everything__echo'), false, 'readOnlyHint does not make it a read');
    assert.deepEqual(await tools.assess('mcp__everything__echo', { message: 'hi' }), { need: 'command', subject: '', mcpServer: 'everything' });
    const text = await tools.execute('mcp__everything__echo', { message: 'hello mcp' }, { signal: signal() });
    assert.deepEqual(text, { content: 'Echo: hello mcp', isError: false });
    const image = await tools.execute('mcp__everything__get-tiny-image', {}, { signal: signal() });
    assert.equal(image.isError, false);
    assert.match(image.content, /Here's the image you requested:\n\[image 1: PNG \d+×\d+, \d+ KB\]\nThe image above is the MCP logo\./);
    assert.equal(image.images?.length, 1);
    assert.equal(image.images![0]!.mediaType, 'image/png');
    assert.ok(image.images![0]!.width > 0 && image.images![0]!.height > 0);
    const structured = await tools.execute('mcp__everything__get-structured-content', { location: 'New York' }, { signal: signal() });
    assert.equal(structured.isError, false);
    assert.match(structured.content, /"temperature"/);
    await assert.rejects(tools.assess('mcp__everything__echo', { message: 42 }), (e: unknown) => e instanceof ToolInputError && /must be string/.test(e.message));
  });

  it('embedded resources come back as text under their URI; long output is cut with a note', async () => {
    const m = make({ everything });
    const tools = toolsOf(m);
    await tools.prepareStep!(signal());
    const res = await tools.execute('mcp__everything__get-resource-reference', { resourceType: 'Text', resourceId: 1 }, { signal: signal() });
    assert.equal(res.isError, false, res.content);
    assert.match(res.content, /\[resource demo:\/\/resource\/static\/document\/|\[resource [a-z]+:\/\//);
    const long = await tools.execute('mcp__everything__echo', { message: 'x'.repeat(5000) }, { signal: signal() });
    assert.match(long.content, /characters of the MCP tool's output omitted/);
    assert.ok(long.content.length < 2200);
  });

  it('honours tools/list_changed: a tool added mid-session is in the next step, a removed one is gone', async () => {
    const m = make({ dyn: { command: process.execPath, args: [DYNAMIC_BIN] } });
    const tools = toolsOf(m);
    await tools.prepareStep!(signal());
    assert.ok(!tools.definitions().some((d) => d.name === 'mcp__dyn__fresh'));
    const r = await tools.execute('mcp__dyn__add_tool', { name: 'fresh' }, { signal: signal() });
    assert.equal(r.content, 'added fresh');
    await tools.prepareStep!(signal());
    assert.ok(tools.definitions().some((d) => d.name === 'mcp__dyn__fresh'), 'the new tool is offered');
    assert.equal((await tools.execute('mcp__dyn__fresh', {}, { signal: signal() })).content, 'fresh ran');
    await tools.execute('mcp__dyn__remove_tool', { name: 'fresh' }, { signal: signal() });
    await tools.prepareStep!(signal());
    assert.ok(!tools.definitions().some((d) => d.name === 'mcp__dyn__fresh'), 'the removed tool is gone');
  });

  it('a server killed mid-call gives an is_error result naming it, drops its tools, and is restarted on a later step', async () => {
    const m = make({ everything });
    const tools = toolsOf(m);
    await tools.prepareStep!(signal());
    const pid = m.pidOf('everything')!;
    let progressed = false;
    const call = tools.execute('mcp__everything__trigger-long-running-operation', { duration: 30, steps: 300 }, { signal: signal(), onProgress: () => (progressed = true) });
    await waitFor(() => progressed, 'the first progress notification');
    process.kill(pid, 'SIGKILL');
    const result = await call;
    assert.equal(result.isError, true);
    assert.match(result.content, /MCP server everything stopped during the call to trigger-long-running-operation/);
    assert.ok(!tools.definitions().some((d) => d.name.startsWith('mcp__everything__')), 'a dead server offers no tools');
    assert.equal(m.status()[0]!.status, 'crashed');
    await waitFor(async () => {
      await tools.prepareStep!(signal());
      return m.status()[0]!.status === 'running';
    }, 'the restart after the backoff');
    assert.notEqual(m.pidOf('everything'), pid);
    assert.equal((await tools.execute('mcp__everything__echo', { message: 'back' }, { signal: signal() })).content, 'Echo: back');
  });

  it('a server that never answers fails after the start timeout with its stderr tail; its process is gone; the others start', async () => {
    const hang = { command: process.execPath, args: ['-e', "console.error('still booting, please wait'); setInterval(() => {}, 1000)"] };
    // One limit for all servers: long enough for the real `everything` server to start on a busy machine.
    const m = make({ hang, everything }, { startTimeoutMs: 10_000 });
    const tools = toolsOf(m);
    const started = Date.now();
    await tools.prepareStep!(signal());
    assert.ok(Date.now() - started < 40_000);
    const hangInfo = m.status().find((s) => s.name === 'hang')!;
    assert.equal(hangInfo.status, 'failed');
    assert.match(hangInfo.lastError!, /did not start within 10000 ms; its last output:\nstill booting, please wait/);
    assert.equal(m.status().find((s) => s.name === 'everything')!.status, 'running');
    const hangPid = m.pidOf('hang');
    if (hangPid) await waitFor(() => !isAlive(hangPid), 'the hung server to be stopped');
    // Not retried on its own: each try would cost the start timeout again.
    await tools.prepareStep!(signal());
    assert.equal(m.status().find((s) => s.name === 'hang')!.status, 'failed');
    const missing = make({ nope: { command: '/nonexistent/mcp-server' } });
    await missing.prepareStep();
    assert.equal(missing.status()[0]!.status, 'failed');
    assert.match(missing.status()[0]!.lastError!, /could not be started: .*ENOENT/);
  });

  it('Stop cancels a slow call at once and the server keeps serving; the per-call timeout gives an is_error result', async () => {
    const m = make({ everything });
    const tools = toolsOf(m);
    await tools.prepareStep!(signal());
    const ac = new AbortController();
    let progressed = false;
    const call = tools.execute('mcp__everything__trigger-long-running-operation', { duration: 30, steps: 300 }, { signal: ac.signal, onProgress: () => (progressed = true) });
    await waitFor(() => progressed, 'the call to be running');
    const stopped = Date.now();
    ac.abort();
    await assert.rejects(call);
    assert.ok(Date.now() - stopped < 1000);
    assert.equal((await tools.execute('mcp__everything__echo', { message: 'still here' }, { signal: signal() })).content, 'Echo: still here');
    m.callTimeoutMs = 300;
    const timedOut = await tools.execute('mcp__everything__trigger-long-running-operation', { duration: 30, steps: 3 }, { signal: signal() });
    assert.equal(timedOut.isError, true);
    assert.match(timedOut.content, /timed out after 300 ms/);
  });

  it('streamable HTTP and legacy SSE servers work the same way', async () => {
    const http = await startEverythingHttp('streamableHttp');
    const sse = await startEverythingHttp('sse');
    try {
      const m = make({ web: { type: 'http', url: http.url, headers: { Authorization: 'Bearer not-a-real-token' } }, old: { type: 'sse', url: sse.url } });
      const tools = toolsOf(m);
      await tools.prepareStep!(signal());
      assert.deepEqual(m.status().map((s) => [s.name, s.status]), [['web', 'running'], ['old', 'running']]);
      assert.equal((await tools.execute('mcp__web__echo', { message: 'over http' }, { signal: signal() })).content, 'Echo: over http');
      assert.equal((await tools.execute('mcp__old__echo', { message: 'over sse' }, { signal: signal() })).content, 'Echo: over sse');
      assert.ok(!JSON.stringify(m.status()).includes('not-a-real-token'), 'headers are never shown');
    } finally {
      await http.close();
      await sse.close();
    }
  });

  it('the filesystem server reads a file in the folder it was given', async () => {
    writeFileSync(path.join(ws, 'note.txt'), 'from the filesystem server\n');
    const m = make({ fs: { command: process.execPath, args: [FILESYSTEM_BIN, ws] } });
    const tools = toolsOf(m);
    await tools.prepareStep!(signal());
    const r = await tools.execute('mcp__fs__read_text_file', { path: path.join(ws, 'note.txt') }, { signal: signal() });
    assert.equal(r.isError, false, r.content);
    assert.match(r.content, /from the filesystem server/);
  });

  it('Restricted Mode: workspace-defined servers are skipped with the reason, user servers start; trust starts them', async () => {
    const m = new McpManager(
      { servers: [...layer({ mine: everything }, 'user').servers, ...layer({ theirs: everything }, 'workspace').servers], problems: [] },
      { workspaceTrusted: false, startTimeoutMs: 20_000 },
    );
    managers.push(m);
    await m.prepareStep();
    const theirs = m.status().find((s) => s.name === 'theirs')!;
    assert.equal(theirs.status, 'skipped');
    assert.equal(theirs.lastError, SKIPPED_UNTRUSTED);
    assert.equal(m.pidOf('theirs'), undefined, 'never spawned');
    assert.equal(m.status().find((s) => s.name === 'mine')!.status, 'running');
    m.configure({ servers: [...layer({ mine: everything }, 'user').servers, ...layer({ theirs: everything }, 'workspace').servers], problems: [] }, true);
    await m.prepareStep();
    assert.equal(m.status().find((s) => s.name === 'theirs')!.status, 'running');
  });

  it('secrets in a server env never reach results, status or errors', async () => {
    const m = make({ everything: { ...everything, env: { API_TOKEN: 'tok-very-secret-123' } } });
    const tools = toolsOf(m);
    await tools.prepareStep!(signal());
    const r = await tools.execute('mcp__everything__get-env', {}, { signal: signal() });
    assert.equal(r.isError, false);
    assert.match(r.content, /API_TOKEN/);
    assert.ok(!r.content.includes('tok-very-secret-123'));
    assert.ok(!JSON.stringify(m.status()).includes('tok-very-secret-123'));
  });

  it('many calls under one signal leave at most two listeners on it (the SDK never removes its own) and trigger no leak warning', async () => {
    const m = make({ everything });
    const tools = toolsOf(m);
    await tools.prepareStep!(signal());
    const turn = new AbortController();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 15; i++) assert.equal((await tools.execute('mcp__everything__echo', { message: `${i}` }, { signal: turn.signal })).isError, false);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    assert.ok(!warnings.includes('MaxListenersExceededWarning'), warnings.join(', '));
    // The first call's own (a tool use's signal is used as is) and the one that feeds the derived signal.
    assert.ok(getEventListeners(turn.signal, 'abort').length <= 2, `${getEventListeners(turn.signal, 'abort').length} listeners`);
  });

  it('dispose stops every stdio server process', async () => {
    const m = make({ a: everything, b: { command: process.execPath, args: [DYNAMIC_BIN] } });
    await m.prepareStep();
    const pids = m.pids();
    assert.equal(pids.length, 2);
    await m.dispose();
    await waitFor(() => pids.every((p) => !isAlive(p)), 'the servers to exit');
  });
});
