// Responses API streams as a proxy ends them when the upstream stream was cut
// inside a function call's arguments (issue 42, item 16). Shared by the
// provider tests and the CLI tests.
import assert from 'node:assert/strict';
import { type MockReply, responsesReply } from '../../fixtures/mock-responses';

/**
 * A call to read_file whose arguments stop at `args`, finished all the same, as LiteLLM closes an upstream
 * stream that was cut: `response.completed` (or, with `incomplete`, `response.incomplete` for that reason).
 * `leaveOut`: the finished call is in neither output_item.done nor response.completed, only its deltas are.
 */
export function cutCallReply(args: string, opts: { incomplete?: string; leaveOut?: boolean } = {}): MockReply {
  const whole = responsesReply([{ type: 'call', callId: 'call_cut', name: 'read_file', input: { path: 'a.txt' } }], { pieces: 1, ...(opts.incomplete ? { incomplete: opts.incomplete } : {}) });
  assert.ok(whole.kind === 'sse' && whole.frames);
  const frames = whole.frames.flatMap((frame) => {
    const data = structuredClone(frame.data) as Record<string, unknown> & { response?: { output: Array<Record<string, unknown>> }; item?: Record<string, unknown> };
    if (data['type'] === 'response.function_call_arguments.delta') data['delta'] = args;
    if (data['type'] === 'response.function_call_arguments.done') data['arguments'] = args;
    if (data['type'] === 'response.output_item.done') {
      if (opts.leaveOut) return [];
      data.item!['arguments'] = args;
    }
    if (data['type'] === 'response.completed' || data['type'] === 'response.incomplete') {
      data.response!.output = opts.leaveOut ? [] : data.response!.output.map((item) => ({ ...item, arguments: args }));
    }
    return [{ ...frame, data }];
  });
  return { ...whole, frames };
}
