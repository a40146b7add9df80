// "try again in 120 seconds", "retry in 5 min", "try again later in 30s", "please retry after
// 2 minutes", "come back in 300s". A number without a unit is seconds.
const RETRY_HINT =
  /\b(?:try(?:\s+again)?|retry|come\s+back)(?:\s+later)?[\s,]*(?:in|after)\s+(\d{1,7})\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)?\b/i;

// Longer hints are not believed: the retry schedule spans about a day in total.
const MAX_RETRY_AFTER_SECONDS = 24 * 60 * 60;

/**
 * The delay a temporary rejection asks for, in seconds, or null when the text names none
 * (greylisting servers often say how long they want the client to wait).
 */
export function parseRetryAfterSeconds(text: string): number | null {
  const match = RETRY_HINT.exec(text);
  if (!match) return null;
  const amount = Number(match[1]);
  const unit = (match[2] ?? 's').toLowerCase();
  const multiplier = unit.startsWith('h') ? 3600 : unit.startsWith('m') ? 60 : 1;
  return Math.min(amount * multiplier, MAX_RETRY_AFTER_SECONDS);
}
