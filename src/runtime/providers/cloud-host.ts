// What Bedrock and Vertex share as hosts of the Anthropic client: the SDK built once, at the first request
// (a missing region or credential is then that request's error), the cloud's model ids, and failures
// explained in the cloud's terms.
import { type ClaudeHost, type MessagesSdk } from './anthropic';
import { cloudModelId, modelIdHint } from './cloud-config';
import { type CloudFailureContext, explainCloudFailure } from './cloud-failures';

/** The cloud's SDK client, and whether it talks to the cloud's own endpoint (not a base URL the user set). */
export interface BuiltSdk {
  sdk: MessagesSdk;
  defaultEndpoint: boolean;
}

export function cloudClaudeHost(cloud: CloudFailureContext['cloud'], hints: Pick<CloudFailureContext, 'credentialsHint' | 'regionHint' | 'projectHint'>, build: () => Promise<BuiltSdk>): ClaudeHost {
  let built: BuiltSdk | undefined;
  let lastModel = '';
  return {
    provider: cloud,
    async sdk() {
      built ??= await build();
      return built.sdk;
    },
    modelId(id) {
      lastModel = cloudModelId(cloud, id);
      return lastModel;
    },
    explain: (err) => explainCloudFailure(err, { cloud, ...hints, defaultEndpoint: built?.defaultEndpoint ?? true, modelHint: () => modelIdHint(cloud, lastModel) }),
  };
}
