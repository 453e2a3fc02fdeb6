/** Options of `createRateLimiter`. */
export interface RateLimiterOptions {
  /** Requests allowed per window and client. */
  max: number;
  /** Window length in milliseconds. */
  windowMs: number;
  /** Clock in milliseconds; injectable for tests. Default `Date.now`. */
  now?: () => number;
}

/** Outcome of one request: allowed, or rejected with the seconds until the window ends. */
export type RateLimitResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** A fixed-window limiter; `hit` counts one request for `key` (the client address). */
export interface RateLimiter {
  hit(key: string): RateLimitResult;
}

interface Window {
  endsAt: number;
  count: number;
}

/**
 * Fixed-window rate limiter. A client's window opens with its first request and lasts `windowMs`;
 * every request in it counts (rejected ones too, they do not extend it); request number
 * `max + 1` and later are rejected with `retryAfterSeconds = ceil(ms left / 1000)`, clamped to
 * `1..ceil(windowMs / 1000)`.
 *
 * @example
 * const limiter = createRateLimiter({ max: 50, windowMs: 10_000 });
 * limiter.hit('127.0.0.1'); // { allowed: true }
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { max, windowMs, now = Date.now } = options;
  const maxRetry = Math.max(1, Math.ceil(windowMs / 1000));
  const windows = new Map<string, Window>();
  let nextSweep = 0;
  return {
    hit(key) {
      const t = now();
      // Expired windows are dropped at most once per window, so the map cannot grow without bound.
      if (t >= nextSweep) {
        for (const [k, w] of windows) if (w.endsAt <= t) windows.delete(k);
        nextSweep = t + windowMs;
      }
      let w = windows.get(key);
      if (!w || w.endsAt <= t) {
        w = { endsAt: t + windowMs, count: 0 };
        windows.set(key, w);
      }
      w.count += 1;
      if (w.count <= max) return { allowed: true };
      const seconds = Math.ceil((w.endsAt - t) / 1000);
      return { allowed: false, retryAfterSeconds: Math.min(maxRetry, Math.max(1, seconds)) };
    },
  };
}
