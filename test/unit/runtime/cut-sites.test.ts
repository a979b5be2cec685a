// Issue 26.1 at every place that shortens model-bound text: each is fed text
// whose cut point falls inside an emoji ZWJ sequence (11 UTF-16 code units,
// surrogate pairs joined by U+200D) and must keep it whole or leave it out.
// Also: a session file that already holds a lone surrogate loads repaired, and
// nothing with one enters the live history.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { localSummary, transcript } from '../../../src/runtime/context/compaction';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { loadProjectInstructions } from '../../../src/runtime/context/instructions';
import { nodeInstructionReader } from '../../../src/runtime/context/instructions-node';
import { McpManager } from '../../../src/runtime/mcp/manager';
import { parseServerMap } from '../../../src/runtime/mcp/config';
import { shrinkText } from '../../../src/runtime/context/overflow';
import { loadSession } from '../../../src/runtime/session/session';
import { wellFormed } from '../../../src/runtime/text-cut';
import { type Message } from '../../../src/runtime/types';
import { withMcpTools } from '../../../src/tools/mcp-tools';
import { BoundedOutput, NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';
import { EVERYTHING_BIN } from '../../fixtures/mcp-servers';
import { ctx, makeNodeEnv } from '../tools/helpers';
import { baseConfig, FakeTools, ScriptedModel, step } from './fakes';
import { sensitiveFileMatcher } from '../../../src/runtime/policy/sensitive-files';

const FAMILY = '👩‍👩‍👧‍👦';
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** No lone surrogate, and every cluster that is not ASCII is the whole family emoji (or a known note character). */
function assertIntact(out: string, where: string): void {
  assert.equal(wellFormed(out), out, `${where}: a lone surrogate`);
  for (const { segment } of segmenter.segment(out)) {
    if (/^[\t\n\r\x20-\x7e]+$/.test(segment) || segment === '…' || segment === '×') continue;
    assert.equal(segment, FAMILY, `${where}: a split cluster ${JSON.stringify(segment)}`);
  }
}

/** `n` family emoji separated by one ASCII letter: cut points fall inside an emoji 11 times in 12. */
const emojiText = (n: number) => Array.from({ length: n }, () => FAMILY).join('x');

describe('runtime: every cut of model-bound text keeps emoji whole (issue 26.1)', function () {
  this.timeout(60_000);
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cut-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('26.1: the cap on a project instruction file cuts between emoji', async () => {
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    writeFileSync(path.join(ws, 'AGENTS.md'), emojiText(400));
    for (let cap = 90; cap < 102; cap++) {
      const found = await loadProjectInstructions(nodeInstructionReader, { workspaceRoot: ws, sensitive: sensitiveFileMatcher() }, { perFile: cap, total: 10_000 });
      assertIntact(found.text, `cap ${cap}`);
      assert.ok(found.files[0]!.included <= cap);
      assert.match(found.text, /was cut to its first \d+ of 4,799 characters \(the \d+-character cap per file\)/);
    }
  });

  it('26.1: read_file cuts a long line between emoji', async () => {
    for (const max of [20, 21, 25, 30]) {
      const env = await makeNodeEnv({ limits: { readMaxLineChars: max } });
      try {
        writeFileSync(path.join(env.root, 'long.txt'), `${emojiText(50)}\nshort\n`);
        const out = await env.executor.execute('read_file', { path: 'long.txt' }, ctx());
        assert.equal(out.isError, false);
        assertIntact(out.content, `max ${max}`);
        assert.match(out.content, /… \[line cut: \d+ more characters\]/);
      } finally {
        await env.cleanup();
      }
    }
  });

  it('26.1: grep_search cuts a long matching line between emoji (ripgrep and the JS engine)', async () => {
    for (const ripgrepPath of ['rg', undefined]) {
      const env = await makeNodeEnv({ ripgrepPath });
      try {
        // The 500-character line cut lands inside the 46th emoji.
        writeFileSync(path.join(env.root, 'a.txt'), `MATCH ${emojiText(200)}\n`);
        const out = await env.executor.execute('grep_search', { pattern: 'MATCH', output_mode: 'content' }, ctx());
        assert.match(out.content, /\[line cut\]/, String(ripgrepPath));
        assertIntact(out.content, `grep (${ripgrepPath ?? 'js'})`);
      } finally {
        await env.cleanup();
      }
    }
  });

  it('26.1: shrinking an oversized tool result to fit the window keeps emoji whole at both ends of the cut', () => {
    const text = emojiText(2000);
    for (let keep = 2000; keep < 2012; keep++) {
      const out = shrinkText(text, keep);
      assertIntact(out, `keep ${keep}`);
      assert.match(out, /characters of this tool result were cut/);
    }
  });

  it('26.1: the compaction transcript and the local summary cut between emoji', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: emojiText(100) }] },
      { role: 'assistant', content: [{ type: 'text', text: emojiText(100) }] },
    ];
    for (let limit = 30; limit < 42; limit++) assertIntact(transcript(messages, limit), `transcript ${limit}`);
    assertIntact(localSummary(messages), 'local summary');
  });

  it('26.1: command output kept in a bounded buffer (head and rolling tail) keeps emoji whole', () => {
    for (let max = 100; max < 112; max++) {
      const buffer = new BoundedOutput(max);
      for (let i = 0; i < 40; i++) buffer.push(`${emojiText(3)}x`);
      assertIntact(buffer.toString(), `max ${max}`);
    }
  });

  it('26.1: an MCP result over the output cap is cut between emoji (the everything server\'s echo)', async () => {
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    const manager = new McpManager(parseServerMap({ everything: { command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] } }, 'user', 'test', { workspaceFolder: undefined, env: {} }), { startTimeoutMs: 20_000 });
    try {
      for (const max of [300, 305]) {
        const tools = withMcpTools(createToolExecutor({ workspace: new NodeWorkspace(ws) }), manager, { maxOutputChars: max });
        await tools.prepareStep!(new AbortController().signal);
        const out = await tools.execute('mcp__everything__echo', { message: emojiText(100) }, ctx());
        assert.match(out.content, /characters of the MCP tool's output omitted/);
        assertIntact(out.content, `max ${max}`);
      }
    } finally {
      await manager.dispose();
    }
  });

  it('26.1: a session that already holds a lone surrogate loads repaired (U+FFFD) with a warning, instead of failing every request', async () => {
    const file = path.join(tmp, 's.jsonl');
    const record = (message: Message) => JSON.stringify({ type: 'message', ts: 1, message });
    // What an older cut saved: the first half of an emoji pair, in a prompt and in a tool result.
    writeFileSync(
      file,
      [
        JSON.stringify({ type: 'meta', version: 1, id: 's', createdAt: '2026-01-01T00:00:00Z' }),
        record({ role: 'user', content: [{ type: 'text', text: 'cut \ud83d' }] }),
        record({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a\udc00' } }] }),
        record({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x\ud83d' }] }),
      ].join('\n') + '\n',
    );
    assert.match(JSON.stringify(JSON.parse(readFileSync(file, 'utf8').split('\n')[1]!)), /\\ud83d/, 'the file holds the escape');
    const loaded = await loadSession(file);
    assert.equal(JSON.stringify(loaded.messages).includes('\\ud83d'), false);
    assert.deepEqual(
      loaded.messages.map((m) => m.content[0]),
      [
        { type: 'text', text: 'cut \ufffd' },
        { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a\ufffd' } },
        { type: 'tool_result', tool_use_id: 't1', content: 'x\ufffd' },
      ],
    );
    assert.equal(loaded.warnings.filter((w) => /lone UTF-16 surrogate/.test(w)).length, 3);
  });

  it('26.1: a tool result with a lone surrogate (a server\'s \\ud83d escape) never reaches the next request', async () => {
    const model = new ScriptedModel([step('', [{ id: 't1', name: 'probe', input: {} }]), step('done')]);
    const tools = new FakeTools({ probe: { readOnly: true, run: () => ({ content: `half an emoji: ${FAMILY.slice(0, 1)}`, isError: false }) } });
    const rt = new ConversationRuntime({ model, tools }, { ...baseConfig, permissionMode: 'bypassPermissions' });
    await rt.runTurn('go');
    const sent = JSON.stringify(model.requests[1]!.messages);
    assert.equal(sent.includes('\\ud83d'), false);
    assert.match(sent, /half an emoji: \ufffd/);
  });
});
