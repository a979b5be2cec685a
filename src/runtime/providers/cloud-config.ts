// Where Claude on Amazon Bedrock and Google Vertex AI is reached: region, project,
// base URL and model id, from our settings first and then the variables the clouds'
// own tools (and Claude Code) read. No SDK here: the CLI checks these before a
// request, and the providers (bedrock.ts, vertex.ts) resolve them the same way.
import { ModelError } from '../types';
import { type BedrockClientOptions, type VertexClientOptions } from './options';

type Env = Record<string, string | undefined>;

const first = (...values: Array<string | undefined>) => values.map((v) => v?.trim()).find((v) => v !== undefined && v !== '');

/** us-east-1, eu-central-2, us-gov-west-1, ap-southeast-4… */
const AWS_REGION_NAME = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
/** us-central1, europe-west4, us-east5; or the multi-region endpoints `global`, `us`, `eu`. */
const VERTEX_REGION_NAME = /^([a-z]+-[a-z]+\d{1,2}|global|us|eu)$/;

export interface BedrockConfig {
  region: string;
  baseURL: string | undefined;
}

export interface VertexConfig {
  region: string;
  /** Undefined: the credentials' own project (a service account's), if they name one. */
  projectId: string | undefined;
  baseURL: string | undefined;
}

export const BEDROCK_REGION_HINT = 'set turnstone.bedrock.region (or AWS_REGION) to the region where the model is enabled, e.g. us-east-1';
export const VERTEX_REGION_HINT = 'set turnstone.vertex.region (or CLOUD_ML_REGION) to a region that serves the model, e.g. us-east5, europe-west1 or global';
export const VERTEX_PROJECT_HINT = 'set turnstone.vertex.projectId (or ANTHROPIC_VERTEX_PROJECT_ID / GOOGLE_CLOUD_PROJECT) to your Google Cloud project id';
export const AWS_CREDENTIALS_HINT =
  'configure AWS credentials: AWS_PROFILE (with ~/.aws/config, e.g. after `aws sso login`), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), or ~/.aws/credentials';
export const GOOGLE_CREDENTIALS_HINT =
  'configure Google application default credentials: run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS to a credentials JSON file';

/** Region and endpoint of Bedrock; a ModelError of kind 'config' naming the setting when the region is missing or malformed. */
export function resolveBedrockConfig(options: Pick<BedrockClientOptions, 'region' | 'baseURL'>, env: Env = process.env): BedrockConfig {
  const region = first(options.region, env['AWS_REGION'], env['AWS_DEFAULT_REGION']);
  if (!region) throw new ModelError('config', `bedrock: no AWS region: ${BEDROCK_REGION_HINT}.`);
  if (!AWS_REGION_NAME.test(region)) throw new ModelError('config', `bedrock: '${region}' is not an AWS region name: ${BEDROCK_REGION_HINT}.`);
  return { region, baseURL: first(options.baseURL, env['ANTHROPIC_BEDROCK_BASE_URL']) };
}

/** Region, project and endpoint of Vertex AI; a ModelError of kind 'config' naming the setting when the region is missing or malformed. */
export function resolveVertexConfig(options: Pick<VertexClientOptions, 'region' | 'projectId' | 'baseURL'>, env: Env = process.env): VertexConfig {
  const region = first(options.region, env['CLOUD_ML_REGION'], env['GOOGLE_CLOUD_LOCATION']);
  if (!region) throw new ModelError('config', `vertex: no Google Cloud region: ${VERTEX_REGION_HINT}.`);
  if (!VERTEX_REGION_NAME.test(region)) throw new ModelError('config', `vertex: '${region}' is not a Vertex AI region name: ${VERTEX_REGION_HINT}.`);
  const projectId = first(options.projectId, env['ANTHROPIC_VERTEX_PROJECT_ID'], env['GOOGLE_CLOUD_PROJECT'], env['GCLOUD_PROJECT']);
  return { region, projectId, baseURL: first(options.baseURL, env['ANTHROPIC_VERTEX_BASE_URL']) };
}

/**
 * Anthropic's ids of the models both clouds list under a fixed id, taken from
 * their model catalogues. Only these are mapped: a newer model's cloud id (and
 * whether Bedrock wants an inference profile for it) cannot be derived from ours,
 * so any other id is sent as written — set turnstone.model / --model to the
 * cloud's id (`us.anthropic.claude-…`, `claude-…@date`) for those.
 */
const CLOUD_IDS: Record<string, { bedrock: string; vertex: string }> = {
  'claude-opus-4-5-20251101': { bedrock: 'anthropic.claude-opus-4-5-20251101-v1:0', vertex: 'claude-opus-4-5@20251101' },
  'claude-haiku-4-5-20251001': { bedrock: 'anthropic.claude-haiku-4-5-20251001-v1:0', vertex: 'claude-haiku-4-5@20251001' },
  'claude-sonnet-4-5-20250929': { bedrock: 'anthropic.claude-sonnet-4-5-20250929-v1:0', vertex: 'claude-sonnet-4-5@20250929' },
  'claude-opus-4-1-20250805': { bedrock: 'anthropic.claude-opus-4-1-20250805-v1:0', vertex: 'claude-opus-4-1@20250805' },
  'claude-opus-4-20250514': { bedrock: 'anthropic.claude-opus-4-20250514-v1:0', vertex: 'claude-opus-4@20250514' },
  'claude-sonnet-4-20250514': { bedrock: 'anthropic.claude-sonnet-4-20250514-v1:0', vertex: 'claude-sonnet-4@20250514' },
  'claude-3-7-sonnet-20250219': { bedrock: 'anthropic.claude-3-7-sonnet-20250219-v1:0', vertex: 'claude-3-7-sonnet@20250219' },
  'claude-3-5-haiku-20241022': { bedrock: 'anthropic.claude-3-5-haiku-20241022-v1:0', vertex: 'claude-3-5-haiku@20241022' },
};

/** The API's aliases of the same models. */
const ALIASES: Record<string, string> = {
  'claude-opus-4-5': 'claude-opus-4-5-20251101',
  'claude-haiku-4-5': 'claude-haiku-4-5-20251001',
  'claude-sonnet-4-5': 'claude-sonnet-4-5-20250929',
  'claude-opus-4-1': 'claude-opus-4-1-20250805',
  'claude-opus-4-0': 'claude-opus-4-20250514',
  'claude-sonnet-4-0': 'claude-sonnet-4-20250514',
  'claude-3-7-sonnet-latest': 'claude-3-7-sonnet-20250219',
  'claude-3-5-haiku-latest': 'claude-3-5-haiku-20241022',
};

/** The newest of our model ids in a family ("haiku") that the clouds are known to serve (the table is newest first). */
export function newestCloudModel(family: string): string | undefined {
  return Object.keys(CLOUD_IDS).find((id) => id.includes(`-${family}-`));
}

/** The id a cloud knows one of our model ids by; an id without a certain mapping is passed through. */
export function cloudModelId(cloud: 'bedrock' | 'vertex', model: string): string {
  const known = CLOUD_IDS[ALIASES[model] ?? model];
  return known ? known[cloud] : model;
}

/** An id the cloud rejected as unknown, or (Bedrock) as needing an inference profile: which setting to change. */
export function modelIdHint(cloud: 'bedrock' | 'vertex', sent: string): string {
  return cloud === 'bedrock'
    ? `set turnstone.model (or --model) to a Bedrock model id or inference profile enabled in this region, e.g. us.anthropic.claude-sonnet-4-5-20250929-v1:0 (sent: ${sent})`
    : `set turnstone.model (or --model) to a Vertex AI model id available in this region and project, e.g. claude-sonnet-4-5@20250929 (sent: ${sent})`;
}
