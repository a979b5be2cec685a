import { defineToolContractTests } from '../../contract/tools.contract';
import { makeNodeEnv } from './helpers';

describe('tools on the Node adapter (ripgrep)', () => {
  defineToolContractTests(makeNodeEnv);
});

// The same adapter with the JS grep fallback: only grep_search differs, so only it runs again.
describe('tools on the Node adapter (JS grep fallback)', () => {
  defineToolContractTests(() => makeNodeEnv({ ripgrepPath: undefined }), ['grep_search']);
});
