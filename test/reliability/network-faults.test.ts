// Issue 10, area 'network': the real Anthropic client (real @anthropic-ai/sdk)
// against the local mock API, driving the real ConversationRuntime with real
// Node tools on a temporary workspace, and the real CLI process. Each scenario
// records what it observed (report.ts) before asserting.
import assert from 'node:assert/strict';
import { historyProblem, TURN_ABORTED_NOTE } from '../../src/runtime/session/history';
import { loadSession } from '../../src/runtime/session/session';
import type { AssistantMessage, ModelError } from '../../src/runtime/types';
import {
  encodeSse,
  errorFrame,
  errorReply,
  jsonMessageReply,
  MockAnthropicServer,
  replyFrames,
  textReply,
  toolUseReply,
  type MockReply,
  type SseFrame,
} from '../fixtures/mock-anthropic';
import { runCli } from '../support/run-cli';
import { makeRig, sessionProblems, shownTextPerStep, TempWorkspace, textOf } from './network-harness';
import { FINAL_STEP, PRE_STEP, REPLIES } from './network-replies';
import { FULL, recordScenario, RELIABILITY_SEED, sampled, seededRandom } from './report';

const sse = (bytes: Buffer, cut?: number): MockReply => ({ kind: 'sse', bytes, ...(cut !== undefined ? { cutAfterBytes: cut } : {}) });
const appendTool = (id: string, line: string) => ({ id, name: 'bash', input: { command: `printf '%s\\n' '${line}' >> log.txt` } });
const assistants = (messages: readonly { role: string }[]) => messages.filter((m): m is AssistantMessage => m.role === 'assistant');

describe('reliability: network faults (F-NET)', function () {
  this.timeout(120_000);
  let mock: MockAnthropicServer;
  let tmp: TempWorkspace;

  before(async () => {
    mock = await MockAnthropicServer.start();
  });
  after(() => mock.close());
  beforeEach(() => {
    mock.reset();
    tmp = new TempWorkspace();
  });
  afterEach(() => tmp.dispose());

  const CUTS = sampled(2400, 240);
  it(`F-NET-01: S6/T9 ${CUTS} connection drops at seeded byte offsets of ${REPLIES.length} recorded replies, through whole turns with real tools (seed ${RELIABILITY_SEED})`, async function () {
    this.timeout(FULL ? 1_800_000 : 120_000);
    const random = seededRandom(RELIABILITY_SEED + 1);
    const failures: string[] = [];
    let retried = 0;
    let completedUncut = 0;
    const started = Date.now();
    for (let i = 0; i < CUTS; i++) {
      const reply = REPLIES[i % REPLIES.length]!;
      const cut = Math.floor(random() * reply.bytes.length);
      const label = `cut #${i} '${reply.name}' at byte ${cut}/${reply.bytes.length} (seed ${RELIABILITY_SEED + 1})`;
      const hasTools = reply.toolLines.length > 0;
      mock.reset();
      tmp.reset('log.txt');
      if (hasTools) mock.enqueue(sse(reply.bytes, cut), sse(reply.bytes), sse(FINAL_STEP.bytes));
      else mock.enqueue(sse(PRE_STEP.bytes), sse(reply.bytes, cut), sse(reply.bytes));
      const rig = makeRig(mock, tmp);
      const problems: string[] = [];
      try {
        const summary = await rig.runtime.runTurn('go');
        if (summary.outcome !== 'completed') problems.push(`outcome ${summary.outcome}: ${summary.error?.message}`);
        const expectedSteps = hasTools ? [reply.expected, FINAL_STEP.expected] : [PRE_STEP.expected, reply.expected];
        const got = assistants(rig.runtime.messages).map((m) => m.content);
        if (JSON.stringify(got) !== JSON.stringify(expectedSteps)) problems.push(`assistant messages differ: ${JSON.stringify(got).slice(0, 300)}`);
        const finalText = (hasTools ? FINAL_STEP : reply).expected.map((b) => (b.type === 'text' ? b.text : '')).join('');
        if (summary.finalText !== finalText) problems.push('final text differs');
        // What a UI showed for each step, after withdrawals, equals the recorded text: nothing duplicated.
        const shown = shownTextPerStep(rig.events);
        const recordedTexts = assistants(rig.runtime.messages).map(textOf);
        if (JSON.stringify(shown) !== JSON.stringify(recordedTexts)) problems.push(`shown text differs from recorded text`);
        const lines = tmp.lines('log.txt');
        const expectedLines = hasTools ? reply.toolLines : PRE_STEP.toolLines;
        if (JSON.stringify(lines) !== JSON.stringify(expectedLines)) problems.push(`tool side effects ${JSON.stringify(lines)} != ${JSON.stringify(expectedLines)}`);
        const retries = rig.events.filter((e) => e.type === 'retrying').length;
        if (retries > 1) problems.push(`${retries} retries`);
        if (mock.requests.length !== 3 + retries - 1) problems.push(`${mock.requests.length} requests for ${retries} retries`);
        if (retries === 1) retried++;
        else completedUncut++;
        problems.push(...(await sessionProblems(rig)));
      } catch (error) {
        problems.push(`threw: ${String(error)}`);
      }
      if (problems.length > 0) failures.push(`${label}: ${problems.join('; ')}`);
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    recordScenario({
      id: 'F-NET-01',
      area: 'network',
      scenario: `Connection dropped at seeded random byte offsets of ${REPLIES.length} recorded replies (plain, unicode, thinking+signature, 3 tool uses, 24 KB text, pings), each inside a whole turn with real bash tools`,
      expected: 'Every turn completes with exactly the recorded messages and final text, shown text not duplicated, each tool ran once, history valid and the session file reloads to it',
      observed: `${CUTS - failures.length}/${CUTS} cut turns intact (${retried} retried after the drop, ${completedUncut} cut after message_stop), ${failures.length} corrupted; ${seconds} s`,
      passed: failures.length === 0,
    });
    assert.deepEqual(failures.slice(0, 10), []);
  });
  // ---------------------------------------------------------------------------
  // HTTP status faults (S6, T6)

  it('F-NET-02: S6 429 with retry-after is waited out as told; 429 without it backs off in the 200 ms–1 s band; nothing lost', async () => {
    tmp.reset('log.txt');
    mock.enqueue(
      toolUseReply([appendTool('t1', 'one')]),
      // First without retry-after (retry 1: the 200 ms–1 s band), then with it.
      errorReply(429, 'rate_limit_error', 'Rate limited'),
      errorReply(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit', { 'retry-after': '1' }),
      textReply('Rate limits survived.'),
    );
    // The default backoff (base 200 ms) so the no-header wait is the real one.
    const rig = makeRig(mock, tmp, { client: { retry: { baseDelayMs: 200, random: seededRandom(RELIABILITY_SEED + 2) } } });
    const started = Date.now();
    const summary = await rig.runtime.runTurn('go');
    const elapsed = Date.now() - started;
    const retries = rig.events.filter((e) => e.type === 'retrying');
    const delays = retries.map((e) => (e.type === 'retrying' ? e.delayMs : -1));
    const arrivals = mock.requests.length;
    const problems = await sessionProblems(rig);
    const ok =
      summary.outcome === 'completed' &&
      summary.finalText === 'Rate limits survived.' &&
      delays.length === 2 &&
      delays[0]! >= 200 &&
      delays[0]! <= 1000 &&
      delays[1] === 1000 &&
      elapsed >= delays[0]! + delays[1]! &&
      arrivals === 4 &&
      tmp.lines('log.txt').length === 1 &&
      problems.length === 0;
    recordScenario({
      id: 'F-NET-02',
      area: 'network',
      scenario: '429 rate limit mid-turn (after a tool ran): once without retry-after, then once with retry-after: 1',
      expected: 'A 200 ms–1 s backoff, then waits 1000 ms as told; the turn completes; the tool is not rerun; session valid',
      observed: `outcome ${summary.outcome}; waits ${delays.join(' ms, ')} ms (turn took ${elapsed} ms); ${arrivals} requests; tool ran ${tmp.lines('log.txt').length}×; ${problems.length ? problems.join('; ') : 'session valid'}`,
      passed: ok,
    });
    assert.equal(summary.outcome, 'completed', summary.error?.message);
    assert.deepEqual(delays.length, 2);
    assert.ok(delays[0]! >= 200 && delays[0]! <= 1000, `backoff ${delays[0]}`);
    assert.equal(delays[1], 1000);
    assert.ok(elapsed >= delays[0]! + delays[1]!, `the waits were not honoured: ${elapsed} ms`);
    assert.equal(arrivals, 4);
    assert.deepEqual(tmp.lines('log.txt'), ['one']);
    assert.deepEqual(problems, []);
  });

  it('F-NET-03: S6 a burst of three 529 overloaded and a 500 are retried; the reply is recorded once', async () => {
    tmp.reset('log.txt');
    mock.enqueue(
      toolUseReply([appendTool('t1', 'one')]),
      errorReply(529, 'overloaded_error', 'Overloaded'),
      errorReply(529, 'overloaded_error', 'Overloaded'),
      errorReply(529, 'overloaded_error', 'Overloaded'),
      errorReply(500, 'api_error', 'Internal server error'),
      textReply('Survived the burst.'),
    );
    const rig = makeRig(mock, tmp);
    const summary = await rig.runtime.runTurn('go');
    const attempts = rig.events.flatMap((e) => (e.type === 'retrying' ? [`${e.attempt}/${e.maxAttempts}`] : []));
    const problems = await sessionProblems(rig);
    const texts = assistants(rig.runtime.messages).map(textOf);
    const ok = summary.outcome === 'completed' && attempts.length === 4 && JSON.stringify(texts) === JSON.stringify(['', 'Survived the burst.']) && tmp.lines('log.txt').length === 1 && problems.length === 0;
    recordScenario({
      id: 'F-NET-03',
      area: 'network',
      scenario: 'Three 529 overloaded in a row, then a 500, on the step after a tool ran',
      expected: 'Each retried with a visible "retrying n/m"; the turn completes with the reply recorded once; the tool is not rerun',
      observed: `outcome ${summary.outcome}; retries ${attempts.join(', ')}; ${mock.requests.length} requests; tool ran ${tmp.lines('log.txt').length}×; ${problems.length ? problems.join('; ') : 'session valid'}`,
      passed: ok,
    });
    assert.equal(summary.outcome, 'completed', summary.error?.message);
    assert.deepEqual(attempts, ['1/5', '2/5', '3/5', '4/5']);
    assert.deepEqual(texts, ['', 'Survived the burst.']);
    assert.deepEqual(tmp.lines('log.txt'), ['one']);
    assert.deepEqual(problems, []);
  });

  it('F-NET-04: S6/T6 more 529s than the retry budget fail the turn clearly; nothing is lost and the session resumes', async () => {
    tmp.reset('log.txt');
    mock.enqueue(toolUseReply([appendTool('t1', 'one')]), ...Array.from({ length: 4 }, () => errorReply(529, 'overloaded_error', 'Overloaded')));
    const rig = makeRig(mock, tmp, { client: { retry: { maxRetries: 3 } } });
    const summary = await rig.runtime.runTurn('the first question');
    const problems = await sessionProblems(rig);
    // Resume from the file with a fresh runtime, as after a restart.
    const loaded = await loadSession(rig.sessionFile);
    const keptInput = JSON.stringify(loaded.messages).includes('the first question');
    mock.reset();
    mock.enqueue(textReply('Back again.'));
    const resumed = makeRig(mock, tmp, { sessionFile: rig.sessionFile, resume: loaded.messages });
    const next = await resumed.runtime.runTurn('try again');
    const resumedProblems = await sessionProblems(resumed);
    // The resumed request carried the tool result of the failed turn.
    const carried = JSON.stringify(mock.bodies[0]).includes('"tool_use_id":"t1"');
    const message = summary.error?.message ?? '';
    const ok =
      summary.outcome === 'failed' &&
      summary.error?.kind === 'retryable' &&
      /gave up after 3 retries/.test(message) &&
      /overloaded/i.test(message) &&
      keptInput &&
      carried &&
      tmp.lines('log.txt').length === 1 &&
      problems.length === 0 &&
      next.outcome === 'completed' &&
      resumedProblems.length === 0;
    recordScenario({
      id: 'F-NET-04',
      area: 'network',
      scenario: '4 × 529 overloaded with a budget of 3 retries, after a tool ran; then the session is resumed from its file',
      expected: 'The turn fails with a clear error naming the cause and the retries; input and tool result kept; the resumed session completes its next turn',
      observed: `outcome ${summary.outcome} (${summary.error?.kind}: "${message}"); input kept ${keptInput}, tool result carried ${carried}, tool ran ${tmp.lines('log.txt').length}×; resumed turn ${next.outcome}; ${[...problems, ...resumedProblems].join('; ') || 'session valid'}`,
      passed: ok,
    });
    assert.equal(summary.outcome, 'failed');
    assert.equal(summary.error?.kind, 'retryable');
    assert.match(message, /gave up after 3 retries/);
    assert.match(message, /overloaded/i);
    assert.ok(keptInput && carried);
    assert.deepEqual(tmp.lines('log.txt'), ['one']);
    assert.deepEqual(problems, []);
    assert.equal(next.outcome, 'completed', next.error?.message);
    assert.deepEqual(resumedProblems, []);
  });

  it('F-NET-05: T6 401 on the second step fails the turn with kind auth; with an onAuthError hook the step is resubmitted once', async () => {
    tmp.reset('log.txt');
    mock.enqueue(toolUseReply([appendTool('t1', 'one')]), errorReply(401, 'authentication_error', 'invalid x-api-key'));
    const rig = makeRig(mock, tmp);
    const failed = await rig.runtime.runTurn('go');
    const problems = await sessionProblems(rig);
    const linesAfterFailure = tmp.lines('log.txt').length;

    // The host path: the hook is asked for a new key and the same step is resubmitted.
    mock.reset();
    tmp.reset('log.txt');
    let asked = 0;
    mock.enqueue(toolUseReply([appendTool('t2', 'two')]), errorReply(401, 'authentication_error', 'invalid x-api-key'), textReply('Authenticated now.'));
    const hooked = makeRig(mock, tmp, {
      ports: {
        onAuthError: (error: ModelError) => {
          asked += error.kind === 'auth' ? 1 : 100;
          return Promise.resolve(true);
        },
      },
    });
    const recovered = await hooked.runtime.runTurn('go');
    const hookedProblems = await sessionProblems(hooked);
    const ok =
      failed.outcome === 'failed' &&
      failed.error?.kind === 'auth' &&
      mock.requests.length === 3 &&
      linesAfterFailure === 1 &&
      problems.length === 0 &&
      recovered.outcome === 'completed' &&
      recovered.finalText === 'Authenticated now.' &&
      asked === 1 &&
      tmp.lines('log.txt').length === 1 &&
      hookedProblems.length === 0;
    recordScenario({
      id: 'F-NET-05',
      area: 'network',
      scenario: '401 on the second step of a turn (after a tool ran), without and with the host onAuthError hook',
      expected: 'Without a hook: the turn fails with kind auth, not retried, history valid. With the hook: asked once, the step is resubmitted and the turn completes; the tool is not rerun',
      observed: `no hook: ${failed.outcome} (${failed.error?.kind}: "${failed.error?.message}"), tool ran ${linesAfterFailure}×; hook: asked ${asked}×, ${recovered.outcome} "${recovered.finalText}", tool ran ${tmp.lines('log.txt').length}×; ${[...problems, ...hookedProblems].join('; ') || 'sessions valid'}`,
      passed: ok,
    });
    assert.equal(failed.outcome, 'failed');
    assert.equal(failed.error?.kind, 'auth');
    assert.equal(linesAfterFailure, 1);
    assert.deepEqual(problems, []);
    assert.equal(recovered.outcome, 'completed', recovered.error?.message);
    assert.equal(asked, 1);
    assert.equal(mock.requests.length, 3);
    assert.deepEqual(tmp.lines('log.txt'), ['two']);
    assert.deepEqual(hookedProblems, []);
  });

  it('F-NET-06: T6 401 mid-session through the CLI: exit 1, the message says how to set a key, the session file resumes in a later run', async () => {
    tmp.reset('log.txt');
    const session = tmp.sessionPath();
    const env = { ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: 'sk-revoked' };
    const args = ['--cwd', tmp.ws, '--permission-mode', 'bypassPermissions', '--session', session];
    mock.enqueue(toolUseReply([appendTool('t1', 'one')]), errorReply(401, 'authentication_error', 'invalid x-api-key'));
    const first = await runCli(['-p', 'first', ...args], { env });
    const loaded = await loadSession(session);
    const problem = historyProblem(loaded.messages);
    mock.reset();
    mock.enqueue(textReply('Resumed fine.'));
    const second = await runCli(['-p', 'second', ...args], { env: { ...env, ANTHROPIC_API_KEY: 'sk-fresh' } });
    const after = await loadSession(session);
    const resumedCarried = JSON.stringify(mock.bodies[0]).includes('"tool_use_id":"t1"') && JSON.stringify(mock.bodies[0]).includes('first');
    const saysHow = /ANTHROPIC_API_KEY/.test(first.stderr);
    const ok =
      first.code === 1 &&
      saysHow &&
      problem === undefined &&
      second.code === 0 &&
      second.stdout.includes('Resumed fine.') &&
      resumedCarried &&
      historyProblem(after.messages) === undefined &&
      tmp.lines('log.txt').length === 1;
    recordScenario({
      id: 'F-NET-06',
      area: 'network',
      scenario: 'CLI: 401 on the second step (after a tool ran), then a later run with a new key and the same --session file',
      expected: 'Exit 1 with a message naming ANTHROPIC_API_KEY; session file valid; the later run resumes it (earlier input and tool result sent) and exits 0',
      observed: `first run exit ${first.code}, stderr "${first.stderr.trim().split('\n').pop()}"; session ${problem ?? 'valid'}; second run exit ${second.code}, history carried ${resumedCarried}, session ${historyProblem(after.messages) ?? 'valid'}; tool ran ${tmp.lines('log.txt').length}×`,
      passed: ok,
    });
    assert.equal(first.code, 1, first.stderr);
    assert.ok(saysHow, `the error should say how to set a key: ${first.stderr}`);
    assert.equal(problem, undefined);
    assert.equal(second.code, 0, second.stderr);
    assert.ok(second.stdout.includes('Resumed fine.'));
    assert.ok(resumedCarried);
    assert.equal(historyProblem(after.messages), undefined);
    assert.deepEqual(tmp.lines('log.txt'), ['one']);
  });

  it('F-NET-07: T6 400 prompt-too-long compacts the history and resubmits the step; with nothing to compact it fails clearly', async () => {
    // A resumed conversation long enough to compact (more than keepRecent = 4 messages), and large enough that
    // a summary is worth asking for (what it removes must be larger than a summary can be, issue 26).
    const earlier = Array.from({ length: 4 }, (_, i) => [
      { role: 'user' as const, content: [{ type: 'text' as const, text: `earlier question ${i}` }] },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: `earlier answer ${i}: ${'lorem ipsum dolor '.repeat(500)}` }] },
    ]).flat();
    mock.enqueue(
      errorReply(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'),
      jsonMessageReply([{ type: 'text', text: 'Summary: four earlier questions were answered.' }]),
      textReply('Answered after compaction.'),
    );
    const rig = makeRig(mock, tmp, { resume: earlier });
    const summary = await rig.runtime.runTurn('the new question');
    const problems = await sessionProblems(rig);
    const compaction = rig.events.find((e) => e.type === 'compaction');
    const resent = mock.bodies[2] ? (mock.bodies[2]['messages'] as unknown[]).length : 0;
    const carriesInput = JSON.stringify(mock.bodies[2] ?? {}).includes('the new question');

    mock.reset();
    mock.enqueue(errorReply(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'));
    const short = makeRig(mock, tmp);
    const failed = await short.runtime.runTurn('a huge paste');
    const shortProblems = await sessionProblems(short);
    const ok =
      summary.outcome === 'completed' &&
      summary.finalText === 'Answered after compaction.' &&
      compaction?.type === 'compaction' &&
      compaction.trigger === 'context_overflow' &&
      compaction.summarySource === 'model' &&
      carriesInput &&
      problems.length === 0 &&
      failed.outcome === 'failed' &&
      failed.error?.kind === 'context_overflow' &&
      /prompt is too long/.test(failed.error.message) &&
      shortProblems.length === 0;
    recordScenario({
      id: 'F-NET-07',
      area: 'network',
      scenario: '400 "prompt is too long" on a resumed 8-message conversation, and on a fresh one with nothing to compact',
      expected: 'Long: compacted (model summary) and the same step resubmitted once, turn completes. Short: the turn fails with kind context_overflow and the API message; history valid',
      observed: `long: ${summary.outcome}, compaction ${compaction?.type === 'compaction' ? `${compaction.trigger}/${compaction.summarySource}, removed ${compaction.removedMessageCount}` : 'none'}, resent ${resent} messages incl. the input ${carriesInput}; short: ${failed.outcome} (${failed.error?.kind}: "${failed.error?.message}"); ${[...problems, ...shortProblems].join('; ') || 'sessions valid'}`,
      passed: ok,
    });
    assert.equal(summary.outcome, 'completed', summary.error?.message);
    assert.equal(summary.finalText, 'Answered after compaction.');
    assert.ok(compaction?.type === 'compaction' && compaction.trigger === 'context_overflow' && compaction.summarySource === 'model');
    assert.ok(carriesInput);
    assert.deepEqual(problems, []);
    assert.equal(failed.outcome, 'failed');
    assert.equal(failed.error?.kind, 'context_overflow');
    assert.deepEqual(shortProblems, []);
  });

  it('F-NET-14: S6 a socket reset before any byte and a server that never sends headers are retried; a refused connection fails clearly after the budget', async () => {
    tmp.reset('log.txt');
    const IDLE_MS = 300;
    // First step: reset, then a hang (no headers at all: only the idle watchdog can end it), then the reply.
    mock.enqueue({ kind: 'reset' }, { kind: 'hang' }, toolUseReply([appendTool('t1', 'one')]), textReply('Reached the server at last.'));
    const rig = makeRig(mock, tmp, { client: { idleTimeoutMs: IDLE_MS } });
    const summary = await rig.runtime.runTurn('go');
    const reasons = rig.events.flatMap((e) => (e.type === 'retrying' ? [e.reason] : []));
    const problems = await sessionProblems(rig);

    // Nothing listening: connection refused on every attempt.
    const closed = await MockAnthropicServer.start();
    const deadUrl = closed.url;
    await closed.close();
    const dead = makeRig({ url: deadUrl }, tmp, { client: { retry: { maxRetries: 2 } } });
    const failed = await dead.runtime.runTurn('anyone there?');
    const deadProblems = await sessionProblems(dead);
    const ok =
      summary.outcome === 'completed' &&
      summary.finalText === 'Reached the server at last.' &&
      reasons.length === 2 &&
      /connection/i.test(reasons[0] ?? '') &&
      /silent for 300 ms/.test(reasons[1] ?? '') &&
      tmp.lines('log.txt').length === 1 &&
      failed.outcome === 'failed' &&
      failed.error?.kind === 'retryable' &&
      /gave up after 2 retries/.test(failed.error.message) &&
      /ECONNREFUSED/.test(failed.error.message) &&
      [...problems, ...deadProblems].length === 0;
    recordScenario({
      id: 'F-NET-14',
      area: 'network',
      scenario: `Socket reset before any response byte, then a request that never gets headers (idle timeout ${IDLE_MS} ms); separately, a port with nothing listening`,
      expected: 'Both retried and the turn completes (tool ran once); connection refused fails with a clear retryable error naming ECONNREFUSED after the budget; history valid',
      observed: `reset+hang: ${summary.outcome} after retries [${reasons.join(' | ')}], tool ran ${tmp.lines('log.txt').length}×; refused: ${failed.outcome} (${failed.error?.kind}: "${failed.error?.message}"); ${[...problems, ...deadProblems].join('; ') || 'sessions valid'}`,
      passed: ok,
    });
    assert.equal(summary.outcome, 'completed', summary.error?.message);
    assert.equal(reasons.length, 2);
    assert.match(reasons[0] ?? '', /connection/i);
    assert.match(reasons[1] ?? '', /silent for 300 ms/);
    assert.deepEqual(tmp.lines('log.txt'), ['one']);
    assert.equal(failed.outcome, 'failed');
    assert.equal(failed.error?.kind, 'retryable');
    assert.match(failed.error?.message ?? '', /gave up after 2 retries/);
    assert.match(failed.error?.message ?? '', /ECONNREFUSED/, 'a refused connection should say so');
    assert.deepEqual([...problems, ...deadProblems], []);
  });

  // ---------------------------------------------------------------------------
  // Faults inside a 200 stream

  it('F-NET-08: S6 an overloaded_error event after some text is retried with step_reset; nothing duplicated', async () => {
    const full = replyFrames([{ type: 'text', text: 'Half of this arrives twice on the wire.', chunks: 4 }]);
    // message_start, block start and two deltas, then the error event.
    const broken: SseFrame[] = [...full.slice(0, 4), errorFrame('overloaded_error', 'Overloaded')];
    mock.enqueue({ kind: 'sse', frames: broken }, { kind: 'sse', frames: full });
    const rig = makeRig(mock, tmp);
    const summary = await rig.runtime.runTurn('go');
    const shown = shownTextPerStep(rig.events);
    const discarded = rig.events.filter((e) => e.type === 'step_discarded').length;
    const allDeltas = rig.events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join('');
    const problems = await sessionProblems(rig);
    const ok =
      summary.outcome === 'completed' &&
      summary.finalText === 'Half of this arrives twice on the wire.' &&
      JSON.stringify(shown) === JSON.stringify([summary.finalText]) &&
      discarded === 1 &&
      mock.requests.length === 2 &&
      problems.length === 0;
    recordScenario({
      id: 'F-NET-08',
      area: 'network',
      scenario: 'A 200 stream sends two text deltas, then an `error` event (overloaded_error)',
      expected: 'Retried; the partial text is withdrawn (step_discarded) before the retry streams; recorded and shown text appear once',
      observed: `outcome ${summary.outcome}; ${mock.requests.length} requests, ${discarded} step_discarded; ${allDeltas.length} chars streamed in total, ${shown[0]?.length ?? 0} left shown = recorded ${summary.finalText.length}; ${problems.join('; ') || 'session valid'}`,
      passed: ok,
    });
    assert.equal(summary.outcome, 'completed', summary.error?.message);
    assert.deepEqual(shown, [summary.finalText]);
    assert.equal(summary.finalText, 'Half of this arrives twice on the wire.');
    assert.equal(discarded, 1);
    assert.deepEqual(problems, []);
  });

  it('F-NET-09: S4 the request carrying tool results gets headers then silence: the stall timeout resends it once; twice fails clearly', async () => {
    tmp.reset('log.txt');
    const STALL_MS = 300;
    const silent: MockReply = { kind: 'sse', frames: replyFrames([{ type: 'text', text: 'never' }]), stallAfterFrames: 0 };
    mock.enqueue(toolUseReply([appendTool('t1', 'one')]), silent, textReply('After the stall.'));
    const rig = makeRig(mock, tmp, { client: { stallTimeoutMs: STALL_MS } });
    const started = Date.now();
    const summary = await rig.runtime.runTurn('go');
    const ms = Date.now() - started;
    const reason = rig.events.flatMap((e) => (e.type === 'retrying' ? [e.reason] : [])).join(' | ');
    const problems = await sessionProblems(rig);
    const lines = tmp.lines('log.txt').length;

    mock.reset();
    tmp.reset('log.txt');
    mock.enqueue(toolUseReply([appendTool('t2', 'two')]), { ...silent }, { ...silent });
    const twice = makeRig(mock, tmp, { client: { stallTimeoutMs: STALL_MS } });
    const failed = await twice.runtime.runTurn('go');
    const twiceProblems = await sessionProblems(twice);
    const ok =
      summary.outcome === 'completed' &&
      summary.finalText === 'After the stall.' &&
      ms >= STALL_MS &&
      /No response within 300 ms/.test(reason) &&
      lines === 1 &&
      problems.length === 0 &&
      failed.outcome === 'failed' &&
      failed.error?.kind === 'stalled' &&
      tmp.lines('log.txt').length === 1 &&
      twiceProblems.length === 0;
    recordScenario({
      id: 'F-NET-09',
      area: 'network',
      scenario: `The request after tool results gets 200 headers and no bytes (stall timeout ${STALL_MS} ms); then the same twice`,
      expected: 'Once: aborted at the timeout, resent once, the turn completes, the tool is not rerun. Twice: the turn fails with kind stalled; history valid',
      observed: `once: ${summary.outcome} in ${ms} ms ("${reason}"), tool ran ${lines}×; twice: ${failed.outcome} (${failed.error?.kind}: "${failed.error?.message}"); ${[...problems, ...twiceProblems].join('; ') || 'sessions valid'}`,
      passed: ok,
    });
    assert.equal(summary.outcome, 'completed', summary.error?.message);
    assert.ok(ms >= STALL_MS);
    assert.match(reason, /No response within 300 ms/);
    assert.equal(lines, 1);
    assert.deepEqual(problems, []);
    assert.equal(failed.outcome, 'failed');
    assert.equal(failed.error?.kind, 'stalled');
    assert.deepEqual(twiceProblems, []);
  });

  it('F-NET-10: S1/S6 malformed SSE: garbage lines, comments and unknown events are tolerated; a non-JSON data line is retried; never a corrupted message', async () => {
    const text = 'Clean text despite the noise.';
    const frames = replyFrames([{ type: 'text', text, chunks: 3 }]);
    const enc = (f: SseFrame[]) => encodeSse(f).toString('utf8');
    const noisy = Buffer.from(
      [
        enc(frames.slice(0, 2)),
        'this line is garbage without a colon\n',
        ': a comment line\n\n',
        'event: future_event_type\ndata: {"type":"future_event_type","payload":{"x":1}}\n\n',
        'retry: 1000\nid: 7\n\n',
        enc(frames.slice(2, 4)),
        'data: {"type":"content_block_delta","index":9,"delta":{"type":"brand_new_delta","x":1}}\n\n',
        enc(frames.slice(4)),
      ].join(''),
    );
    mock.enqueue({ kind: 'sse', bytes: noisy });
    const rig = makeRig(mock, tmp);
    const tolerated = await rig.runtime.runTurn('go');
    const toleratedRequests = mock.requests.length;
    const p1 = await sessionProblems(rig);

    // A data line that is not JSON, after text was shown.
    mock.reset();
    const mangled = Buffer.from([enc(frames.slice(0, 3)), 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"ty\n\n', enc(frames.slice(3))].join(''));
    mock.enqueue({ kind: 'sse', bytes: mangled }, { kind: 'sse', frames });
    const rig2 = makeRig(mock, tmp);
    const retried = await rig2.runtime.runTurn('go');
    const retriedRequests = mock.requests.length;
    const shown2 = shownTextPerStep(rig2.events);
    const p2 = await sessionProblems(rig2);

    // Every attempt mangled: a clear error after the budget, nothing recorded half-way.
    mock.reset();
    mock.enqueue(...Array.from({ length: 3 }, (): MockReply => ({ kind: 'sse', bytes: mangled })));
    const rig3 = makeRig(mock, tmp, { client: { retry: { maxRetries: 2 } } });
    const failed = await rig3.runtime.runTurn('go');
    const p3 = await sessionProblems(rig3);
    const assistantsAfterFailure = assistants(rig3.runtime.messages).length;
    const ok =
      tolerated.outcome === 'completed' &&
      tolerated.finalText === text &&
      toleratedRequests === 1 &&
      retried.outcome === 'completed' &&
      retried.finalText === text &&
      JSON.stringify(shown2) === JSON.stringify([text]) &&
      retriedRequests === 2 &&
      failed.outcome === 'failed' &&
      /malformed stream frame/.test(failed.error?.message ?? '') &&
      assistantsAfterFailure === 0 &&
      [...p1, ...p2, ...p3].length === 0;
    recordScenario({
      id: 'F-NET-10',
      area: 'network',
      scenario: 'SSE with garbage lines, comments, retry/id fields, an unknown event type and an unknown delta type; a data line that is not JSON; every attempt mangled',
      expected: 'Noise ignored (one request, exact text); a non-JSON frame retries the step with the partial text withdrawn; all attempts mangled → a clear "malformed stream frame" error, no half message recorded',
      observed: `noise: ${tolerated.outcome}, ${toleratedRequests} request, text exact ${tolerated.finalText === text}; non-JSON: ${retried.outcome} after ${retriedRequests} requests, shown once ${JSON.stringify(shown2) === JSON.stringify([text])}; all mangled: ${failed.outcome} ("${failed.error?.message}"), ${assistantsAfterFailure} assistant messages; ${[...p1, ...p2, ...p3].join('; ') || 'sessions valid'}`,
      passed: ok,
    });
    assert.equal(tolerated.outcome, 'completed', tolerated.error?.message);
    assert.equal(tolerated.finalText, text);
    assert.equal(toleratedRequests, 1);
    assert.equal(retried.outcome, 'completed', retried.error?.message);
    assert.deepEqual(shown2, [text]);
    assert.equal(failed.outcome, 'failed');
    assert.match(failed.error?.message ?? '', /malformed stream frame/);
    assert.equal(assistantsAfterFailure, 0);
    assert.deepEqual([...p1, ...p2, ...p3], []);
  });

  it('F-NET-11: S1 a duplicated message_start (back to back, and replayed after content) never yields a duplicated or corrupted message', async () => {
    const text = 'Said exactly once.';
    const frames = replyFrames([{ type: 'text', text, chunks: 3 }]);
    mock.enqueue({ kind: 'sse', frames: [frames[0]!, ...frames] });
    const rig = makeRig(mock, tmp);
    const backToBack = await rig.runtime.runTurn('go');
    const backToBackRequests = mock.requests.length;
    const p1 = await sessionProblems(rig);

    // A proxy that restarts the stream mid-message: message_start and the first block again.
    mock.reset();
    mock.enqueue({ kind: 'sse', frames: [...frames.slice(0, 3), ...frames] }, { kind: 'sse', frames });
    const rig2 = makeRig(mock, tmp);
    const replayed = await rig2.runtime.runTurn('go');
    const shown2 = shownTextPerStep(rig2.events);
    const p2 = await sessionProblems(rig2);
    const ok =
      backToBack.outcome === 'completed' &&
      backToBack.finalText === text &&
      replayed.outcome === 'completed' &&
      replayed.finalText === text &&
      // Tolerated means no retry; replayed means exactly one retry of the step.
      backToBackRequests === 1 &&
      mock.requests.length === 2 &&
      JSON.stringify(shown2) === JSON.stringify([text]) &&
      [...p1, ...p2].length === 0;
    recordScenario({
      id: 'F-NET-11',
      area: 'network',
      scenario: 'message_start sent twice in a row; message_start + first deltas replayed after text was streamed',
      expected: 'Back to back: tolerated, exact text. Replayed after content: not accepted as one message (the step is retried), recorded and shown text exact',
      observed: `back to back: ${backToBack.outcome} "${backToBack.finalText}" in ${backToBackRequests} request(s); replayed: ${replayed.outcome} "${replayed.finalText}" after ${mock.requests.length} request(s), shown ${JSON.stringify(shown2)}; ${[...p1, ...p2].join('; ') || 'sessions valid'}`,
      passed: ok,
    });
    assert.equal(backToBack.finalText, text);
    assert.equal(backToBackRequests, 1, 'a back-to-back duplicate is tolerated without a retry');
    assert.equal(replayed.outcome, 'completed', replayed.error?.message);
    assert.equal(mock.requests.length, 2, 'a replay after content retries the step once');
    assert.equal(replayed.finalText, text);
    assert.deepEqual(shown2, [text]);
    assert.deepEqual([...p1, ...p2], []);
  });

  // ---------------------------------------------------------------------------
  // The user's Stop on an endless slow stream (T8)

  /** A reply that streams a text delta every `everyMs` for minutes: "forever" for a test. */
  const endless = (everyMs = 50): MockReply => {
    const frames = replyFrames([{ type: 'text', text: 'x' }]).slice(0, 2);
    for (let i = 0; i < 4000; i++) frames.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `tick ${i} ` } }, delayMs: everyMs });
    return { kind: 'sse', frames };
  };

  it('F-NET-12: T8 Stop during an endless slow stream (a frame every 50 ms) aborts quickly; history valid; the session resumes', async () => {
    tmp.reset('log.txt');
    mock.enqueue(toolUseReply([appendTool('t1', 'one')]), endless());
    const rig = makeRig(mock, tmp);
    const controller = new AbortController();
    let abortedAt = 0;
    let deltas = 0;
    rig.runtime.subscribe((e) => {
      if (e.type === 'text_delta' && ++deltas === 10) {
        abortedAt = Date.now();
        controller.abort();
      }
    });
    const summary = await rig.runtime.runTurn('go', { signal: controller.signal });
    const stopMs = Date.now() - abortedAt;
    const problems = await sessionProblems(rig);
    const last = rig.runtime.messages[rig.runtime.messages.length - 1];
    const noted = last?.role === 'user' && last.content.some((b) => b.type === 'text' && b.text === TURN_ABORTED_NOTE);
    const loaded = await loadSession(rig.sessionFile);
    mock.reset();
    mock.enqueue(textReply('Resumed after the stop.'));
    const resumed = makeRig(mock, tmp, { sessionFile: rig.sessionFile, resume: loaded.messages });
    const next = await resumed.runtime.runTurn('continue');
    const resumedProblems = await sessionProblems(resumed);
    const ok = summary.outcome === 'aborted' && stopMs < 1000 && noted && problems.length === 0 && next.outcome === 'completed' && resumedProblems.length === 0 && tmp.lines('log.txt').length === 1;
    recordScenario({
      id: 'F-NET-12',
      area: 'network',
      scenario: 'Runtime: Stop (AbortSignal) while a reply streams a frame every 50 ms without end, after a tool ran',
      expected: 'Outcome aborted within 1 s, <turn_aborted> note in history, history and session file valid, the next turn on the resumed session completes',
      observed: `outcome ${summary.outcome} ${stopMs} ms after Stop; note ${noted}; resumed turn ${next.outcome}; ${[...problems, ...resumedProblems].join('; ') || 'sessions valid'}`,
      passed: ok,
    });
    assert.equal(summary.outcome, 'aborted');
    assert.ok(stopMs < 1000, `${stopMs} ms`);
    assert.ok(noted);
    assert.deepEqual(problems, []);
    assert.equal(next.outcome, 'completed', next.error?.message);
    assert.deepEqual(resumedProblems, []);
  });

  it('F-NET-13: T8 SIGINT to the CLI during an endless slow stream exits 130 and leaves a session a later run resumes', async () => {
    const session = tmp.sessionPath();
    const env = { ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: 'sk-test' };
    const args = ['--cwd', tmp.ws, '--session', session];
    mock.enqueue(endless());
    let signalledAt = 0;
    // stream-json: text output to a pipe holds a step's text until the step is kept (issue 14), and this step never ends.
    const first = await runCli(['-p', 'stream forever', ...args, '--output-format', 'stream-json'], {
      env,
      onStdout: (text, child) => {
        if (!signalledAt && text.includes('tick 5')) {
          signalledAt = Date.now();
          child.kill('SIGINT');
        }
      },
    });
    const stopMs = Date.now() - signalledAt;
    const loaded = await loadSession(session);
    const problem = historyProblem(loaded.messages);
    mock.reset();
    mock.enqueue(textReply('Resumed after Ctrl+C.'));
    const second = await runCli(['-p', 'continue', ...args], { env });
    const carried = JSON.stringify(mock.bodies[0] ?? {}).includes('stream forever');
    const ok = signalledAt > 0 && first.code === 130 && stopMs < 3000 && problem === undefined && second.code === 0 && second.stdout.includes('Resumed after Ctrl+C.') && carried;
    recordScenario({
      id: 'F-NET-13',
      area: 'network',
      scenario: 'CLI: SIGINT while the reply streams a frame every 50 ms without end; then a later run on the same --session',
      expected: 'Exit 130 promptly; session file valid; the later run sends the earlier input and exits 0',
      observed: `exit ${first.code} ${stopMs} ms after SIGINT; session ${problem ?? 'valid'}; later run exit ${second.code}, earlier input carried ${carried}`,
      passed: ok,
    });
    assert.ok(signalledAt > 0, `never saw streamed text: ${first.stdout} ${first.stderr}`);
    assert.equal(first.code, 130, first.stderr);
    assert.ok(stopMs < 3000, `${stopMs} ms`);
    assert.equal(problem, undefined);
    assert.equal(second.code, 0, second.stderr);
    assert.ok(carried);
  });
});
