// Claude's model families by name: the current model of each, and the aliases that agent files written for
// Claude Code use (`model: haiku`, `sonnet`, `opus`, `inherit`). Sent as they are, such words are no model id:
// every request of that subagent failed with a 404.
import { newestCloudModel } from './cloud-config';

/** Current, non-deprecated ids of SDK 1.14, newest first per family; any other id can be typed. */
export const MODEL_CHOICES = ['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-haiku-5-5', 'claude-sonnet-5', 'claude-opus-5', 'claude-opus-4-8', 'claude-sonnet-4-6'];

export const FAMILIES = ['opus', 'sonnet', 'haiku'] as const;

/** The newest model of a family, by the list's order ("opus" → claude-opus-5-5). */
export function newestOf(family: string, choices: readonly string[] = MODEL_CHOICES): string | undefined {
  return choices.find((id) => id.startsWith(`claude-${family}-`));
}

/** The current model of a family where `provider` serves Claude: Bedrock and Vertex only by the ids cloud-config maps. */
function familyModel(family: string, provider: string): string | undefined {
  if (provider === 'anthropic') return newestOf(family);
  if (provider === 'bedrock' || provider === 'vertex') return newestCloudModel(family);
  return undefined;
}

/**
 * The model id an agent file's `model` means: `inherit` is `parent`; a family alias is that family's current
 * model where the provider serves Claude (on Bedrock and Vertex, the newest one their id table maps), and
 * `parent` where it does not (an alias names no model there); any other value is an id, sent as it is.
 */
export function resolveModelAlias(model: string, provider: string, parent: string): string {
  const word = model.trim().toLowerCase();
  if (word === 'inherit') return parent;
  if ((FAMILIES as readonly string[]).includes(word)) return familyModel(word, provider) ?? parent;
  return model.trim();
}
