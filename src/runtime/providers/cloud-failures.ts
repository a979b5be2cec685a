// A failed Bedrock or Vertex request in the cloud's terms: a credential chain that
// found nothing, credentials or a project the cloud refused, a model id it does not
// know there, or a region whose endpoint does not exist. Each becomes a ModelError of
// kind 'config' that names what to set; anything else is classified as for Anthropic.
import { ModelError } from '../types';
import { classifyError } from './retry';

export interface CloudFailureContext {
  cloud: 'bedrock' | 'vertex';
  /** How to provide credentials (the chain's own variables and files). */
  credentialsHint: string;
  regionHint: string;
  /** Vertex: how to name the project. */
  projectHint?: string;
  /** The request went to the cloud's own endpoint, so a name that does not resolve is the region's fault. */
  defaultEndpoint: boolean;
  /** Which setting names the model, given the id that was sent. */
  modelHint: () => string;
}

/** The causes of an error, outermost first (the SDKs wrap credential failures in a connection error). */
function chain(err: unknown): Array<{ name?: unknown; message?: unknown; code?: unknown }> {
  const out: Array<{ name?: unknown; message?: unknown; code?: unknown }> = [];
  for (let e: unknown = err; e && typeof e === 'object' && out.length < 6; e = (e as { cause?: unknown }).cause) out.push(e as object);
  return out;
}

const firstLine = (message: unknown) => (typeof message === 'string' ? message.split(/\r?\n/, 1)[0]!.trim() : '');

// What the SDKs say when the credential chain or token endpoint gave nothing usable.
const CREDENTIAL_FAILURE = /Failed to resolve AWS credentials|Failed to acquire Google OAuth credentials/;
const UNKNOWN_MODEL =
  /model identifier is invalid|inference profile|on-demand throughput|model.*(not found|does not exist|not supported)|Publisher Model .*(not found|not servable)|not allowed to use Publisher Model/i;

/** A ModelError of kind 'config' when the failure is one the user fixes in settings or the environment; undefined otherwise. */
export function explainCloudFailure(err: unknown, ctx: CloudFailureContext): ModelError | undefined {
  if (err instanceof ModelError) return undefined;
  const causes = chain(err);
  const prefix = `${ctx.cloud}: `;
  if (causes.some((e) => CREDENTIAL_FAILURE.test(String(e.message)))) {
    // The innermost cause says why (no profile, an expired SSO session, a missing file); it never holds a secret.
    const why = firstLine(causes[causes.length - 1]!.message);
    return new ModelError('config', `${prefix}no usable cloud credentials${why ? ` (${why})` : ''}: ${ctx.credentialsHint}.`, { cause: err });
  }
  const projectMissing = causes.find((e) => /No projectId was given/.test(String(e.message)));
  if (projectMissing && ctx.projectHint) return new ModelError('config', `${prefix}no Google Cloud project (the credentials name none): ${ctx.projectHint}.`, { cause: err });
  if (ctx.defaultEndpoint && causes.some((e) => e.code === 'ENOTFOUND')) {
    return new ModelError('config', `${prefix}the region's endpoint does not exist (ENOTFOUND): ${ctx.regionHint}.`, { cause: err });
  }
  const classified = withAwsRequestId(classifyError(err, ctx.cloud), err);
  const status = classified.details.status;
  // The credentials were found but refused, or lack access to the model: no key of ours can fix that (authError named the chain).
  if (classified.kind === 'auth') return new ModelError('config', classified.message, classified.details);
  if ((status === 400 || status === 404) && UNKNOWN_MODEL.test(classified.message)) {
    return new ModelError('config', `${classified.message} (${ctx.modelHint()})`, classified.details);
  }
  return classified;
}

/** Bedrock names its request id x-amzn-requestid: the id a user quotes to AWS support. */
function withAwsRequestId(failure: ModelError, err: unknown): ModelError {
  if (failure.details.requestId) return failure;
  const id = (err as { headers?: { get?(name: string): string | null } } | undefined)?.headers?.get?.('x-amzn-requestid');
  return id ? new ModelError(failure.kind, failure.message, { ...failure.details, requestId: id }) : failure;
}
