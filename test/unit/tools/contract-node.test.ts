import { defineToolContractTests } from '../../contract/tools.contract';
import { makeNodeEnv } from './helpers';

describe('tools on the Node adapter (ripgrep)', () => {
  defineToolContractTests(makeNodeEnv);
});

describe('tools on the Node adapter (JS grep fallback)', () => {
  defineToolContractTests(() => makeNodeEnv({ ripgrepPath: undefined }));
});
