import assert from 'node:assert/strict';
import { modelSummary } from '../../../src/runtime/context/model-summary';

describe('model picker summary (issue 19, finding 6)', () => {
  it('names the context window and the price from the runtime\'s own tables', () => {
    assert.equal(modelSummary('claude-sonnet-5-5'), '200k context · $3 / $15 per M tokens (in / out)');
    assert.equal(modelSummary('claude-opus-4-1'), '200k context · $5 / $25 per M tokens (in / out)');
    assert.equal(modelSummary('gpt-4o'), '128k context');
    assert.equal(modelSummary('llama3:8b'), 'context window unknown');
  });
});
