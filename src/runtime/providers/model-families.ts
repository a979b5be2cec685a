// Claude's model families by name: the current model of each, and the aliases that agent files written for
// Claude Code use (`model: haiku`, `sonnet`, `opus`, `inherit`). Sent as they are, such words are no model id:
// every request of that subagent failed with a 404.

/** Current, non-deprecated ids of SDK 1.14, newest first per family; any other id can be typed. */
export const MODEL_CHOICES = ['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-haiku-5-5', 'claude-sonnet-5', 'claude-opus-5', 'claude-opus-4-8', 'claude-sonnet-4-6'];

export const FAMILIES = ['opus', 'sonnet', 'haiku'] as const;

/** The newest model of a family, by the list's order ("opus" → claude-opus-5-5). */
export function newestOf(family: string, choices: readonly string[] = MODEL_CHOICES): string | undefined {
  return choices.find((id) => id.startsWith(`claude-${family}-`));
}

/** Providers that serve Claude under our ids (Bedrock and Vertex map them to theirs). */
const CLAUDE_PROVIDERS = ['anthropic', 'bedrock', 'vertex'];

/**
 * The model id an agent file's `model` means: `inherit` is `parent`; a family alias is that family's current
 * model where the provider serves Claude, and `parent` where it does not (an alias names no model there); any
 * other value is an id, sent as it is.
 */
export function resolveModelAlias(model: string, provider: string, parent: string): string {
  const word = model.trim().toLowerCase();
  if (word === 'inherit') return parent;
  if ((FAMILIES as readonly string[]).includes(word)) return CLAUDE_PROVIDERS.includes(provider) ? (newestOf(word) ?? parent) : parent;
  return model.trim();
}
