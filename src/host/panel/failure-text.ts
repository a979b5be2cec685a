// Why a turn failed, in the user's words. The runtime's error kinds and the
// provider's raw messages ("anthropic: 529 Overloaded (gave up after 5
// retries)") go to the log; the panel gets a cause, one plain sentence and
// what to do next. No vscode import: the panel bridge (loaded with the core)
// uses it too.
import { type LoopStop } from '../../runtime/loop/loop-guard';
import { type SpendCapStop, usd } from '../../runtime/spend/budget';
import { english, type Translate } from '../../webview/l10n-format';
import { type ErrorCause } from '../../webview/protocol';

export interface FailureText {
  cause: ErrorCause;
  message: string;
  hint?: string;
  /**
   * What the card offers: a key (nothing else fixes it), a retry (only where
   * trying again can help: overload, rate limits, network and server trouble),
   * continuing past a spend cap, or nothing (a refused request, a full context).
   */
  action: 'retry' | 'set_key' | 'continue' | 'none';
}

const status = (message: string): number | undefined => {
  const m = /:\s(\d{3})\b/.exec(message);
  return m ? Number(m[1]) : undefined;
};

/** The cause behind a runtime error kind and the provider's message. */
export function causeOf(kind: string, message: string): Exclude<ErrorCause, 'notice'> {
  const code = status(message);
  if (kind === 'budget' || kind === 'unpriced') return 'spend_cap';
  if (kind === 'loop') return 'loop';
  if (kind === 'auth') return /no .*api key/i.test(message) ? 'no_key' : 'auth';
  // A cloud provider's region, project or credentials: fixed in settings or the environment, like a refused request.
  if (kind === 'config') return 'request';
  if (/credit balance|billing|insufficient_quota|quota|spend limit|budget/i.test(message)) return 'budget';
  if (kind === 'context_overflow') return 'context';
  if (kind === 'stalled') return 'stalled';
  if (code === 529 || /overloaded/i.test(message)) return 'overloaded';
  if (code === 429 || /rate.?limit/i.test(message)) return 'rate_limit';
  if (/connection lost|connection error|ECONNREFUSED|ENOTFOUND|ECONNRESET|ETIMEDOUT|EAI_AGAIN|fetch failed|socket|network|timed out/i.test(message)) return 'network';
  if (code !== undefined && code >= 500) return 'server';
  if (kind === 'invalid_request') return 'request';
  return 'other';
}

/** The API's own explanation without the provider prefix, status code and retry count. */
function apiWords(message: string): string {
  return message
    .replace(/^[a-z-]+:\s*/i, '')
    .replace(/^\d{3}\s+/, '')
    .replace(/\s*\(gave up after \d+ retr(?:y|ies)\)/, '')
    .trim();
}

export function describeFailure(kind: string, message: string, provider = 'Anthropic', t: Translate = english): FailureText {
  const cause = causeOf(kind, message);
  if (kind === 'config') {
    // The message names the setting or variable to set (turnstone.bedrock.region, AWS_PROFILE…): it is the whole point.
    return { cause, message: t('{0} is not set up: {1}', provider, apiWords(message)), hint: t('Set what it names in the settings or the environment, then send a message.'), action: 'none' };
  }
  switch (cause) {
    case 'no_key':
      return { cause, message: t('No API key is set, so nothing was sent to {0}.', provider), hint: t('Add your key to start chatting.'), action: 'set_key' };
    case 'auth':
      return { cause, message: t('{0} did not accept the API key.', provider), hint: t('Check the key (or set a new one), then try again.'), action: 'set_key' };
    case 'overloaded':
      return { cause, message: t("{0}'s servers are overloaded right now, even after several attempts.", provider), hint: t('Nothing was lost. Try again in a minute.'), action: 'retry' };
    case 'rate_limit':
      return { cause, message: t('Too many requests for this key right now (rate limit).'), hint: t('Wait a moment, then try again.'), action: 'retry' };
    case 'network':
      return { cause, message: t('Could not connect to {0} (network problem).', provider), hint: t('Check your network or proxy settings, then try again.'), action: 'retry' };
    case 'server':
      return { cause, message: t('{0} had a server error.', provider), hint: t('This is usually brief. Try again.'), action: 'retry' };
    case 'budget':
      return { cause, message: t('{0} refused the request: the account is out of credit or over its spending limit.', provider), hint: t('Add credit or raise the limit in your account, then send a message to go on.'), action: 'none' };
    case 'spend_cap':
      if (kind === 'unpriced') return { cause, message: t('Nothing was sent: the model has no known price, so your spend cap could not be held.'), hint: t('Give its price in the setting turnstone.modelPrices (the Turnstone log has an example), or remove the spend cap.'), action: 'none' };
      // The card is built from the structured stop (spendCapCard); this is for a stop without its figures.
      return { cause, message: t('Stopped before the next request: it would pass your spend cap.'), hint: t('Raise Turnstone: Max Cost Per Turn Usd or Max Cost Per Session Usd in the settings, then send a message to go on.'), action: 'none' };
    case 'loop':
      // The card is built from the structured stop (loopCard); this is for a stop without it.
      return { cause, message: t('Paused: the agent repeated the same tool call with the same outcome.'), hint: t('Send a message to go on or to steer it.'), action: 'none' };
    case 'context':
      return { cause, message: t('The conversation is too long for the model, even after compacting.'), hint: t('Start a new session, or remove large attachments.'), action: 'none' };
    case 'stalled':
      return { cause, message: t('The model stopped responding in the middle of the answer.'), hint: t('Try again.'), action: 'retry' };
    case 'request': {
      const words = apiWords(message);
      // The same request would be refused again: no Retry.
      return { cause, message: words ? t('{0} refused the request: {1}', provider, words) : t('{0} refused the request.', provider), hint: t('Change what you asked (or the setting it names), then send a message.'), action: 'none' };
    }
    case 'other': {
      if (kind === 'prompt_blocked') return { cause, message: t('A hook in your settings blocked this prompt.'), hint: t('See the Turnstone log for what it said.'), action: 'none' };
      if (kind === 'max_iterations') return { cause, message: t('The turn stopped after too many steps.'), hint: t('Send a message to continue.'), action: 'retry' };
      const words = apiWords(message);
      return { cause, message: words ? t('Something went wrong: {0}', words) : t('Something went wrong.'), action: 'retry' };
    }
  }
}

export interface SpendCapCard extends FailureText {
  continueUsd: number;
  setting: 'turnstone.maxCostPerTurnUsd' | 'turnstone.maxCostPerSessionUsd';
}

/**
 * Issue 25.6: a spend cap is a stop the user chose, not a crash. The card names
 * the VS Code setting and offers to go on with a little more: one more turn's
 * cap (for a per-turn cap, or a session cap when a per-turn cap is set too),
 * else one more session cap, rounded up to the cent.
 */
export function spendCapCard(stop: SpendCapStop, perTurnCapUsd: number, t: Translate = english): SpendCapCard {
  const turn = stop.cap === 'turn';
  const setting = turn ? 'turnstone.maxCostPerTurnUsd' : 'turnstone.maxCostPerSessionUsd';
  // Never less than the request that was held back, or continuing would stop at once again.
  const continueUsd = Math.ceil(Math.max(turn || perTurnCapUsd <= 0 ? stop.capUsd : perTurnCapUsd, stop.nextUsd) * 100) / 100;
  return {
    cause: 'spend_cap',
    message: turn
      ? t('Paused at your spend cap: this turn has cost {0}, and the next request (about {1}) would pass the per-turn cap of {2}.', usd(stop.spentUsd), usd(stop.nextUsd), usd(stop.capUsd))
      : t('Paused at your spend cap: this session has cost {0}, and the next request (about {1}) would pass the per-session cap of {2}.', usd(stop.spentUsd), usd(stop.nextUsd), usd(stop.capUsd)),
    hint: turn
      ? t('Nothing was lost. Continue goes on with {0} more for this turn; the cap itself is the setting Turnstone: Max Cost Per Turn Usd ({1}).', usd(continueUsd), setting)
      : t('Nothing was lost. Continue goes on with {0} more for this session; the cap itself is the setting Turnstone: Max Cost Per Session Usd ({1}).', usd(continueUsd), setting),
    action: 'continue',
    continueUsd,
    setting,
  };
}

export interface LoopCard extends FailureText {
  setting: 'turnstone.loopGuard.repeats';
}

/**
 * Issue 42, loop guard: like a spend cap, a pause before the next request, not a crash. Continue runs the
 * next turn from where this one stopped (with the count started again); Stop leaves it there.
 */
export function loopCard(stop: LoopStop, t: Translate = english): LoopCard {
  return {
    cause: 'loop',
    message: stop.outcome === 'error'
      ? t('Paused: the same tool call failed the same way {0} times in this turn ({1}).', stop.repeats, stop.call)
      : t('Paused: the same tool call returned the same result {0} times in this turn ({1}).', stop.repeats, stop.call),
    hint: t('Nothing was lost. Continue lets the agent go on; Stop leaves the turn here so you can steer it. How many repeats pause a turn is the setting Turnstone: Loop Guard Repeats ({0}).', 'turnstone.loopGuard.repeats'),
    action: 'continue',
    setting: 'turnstone.loopGuard.repeats',
  };
}

/** The short reason shown beside "Retrying in N s". */
export function retryReason(reason: string, t: Translate = english): string {
  switch (causeOf('retryable', reason)) {
    case 'overloaded':
      return t('servers overloaded');
    case 'rate_limit':
      return t('rate limited');
    case 'network':
      return t('connection failed');
    case 'server':
      return t('server error');
    case 'stalled':
      return t('no response');
    default:
      return t('temporary problem');
  }
}
