/** A WEBHOOK_URLS entry, split into what may be shown and stored (`key`), and what may not. */
export interface WebhookSubscriber {
  readonly key: string;
  /** Without its credentials, its query string kept. */
  readonly url: string;
  readonly authorization?: string;
}

/**
 * Of an entry `subscriberProblems` accepts. Credentials cannot stay in a request's URL (`fetch` refuses
 * them, and logs would show them): they become the Basic authorization they stand for (RFC 7617).
 */
export function parseSubscriber(entry: string): WebhookSubscriber {
  const url = new URL(entry);
  const key = subscriberLabel(entry);
  if (url.username === '' && url.password === '') {
    return { key, url: url.href };
  }
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return { key, url: url.href, authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** By position: an entry is never echoed, as it may carry a password. */
export function subscriberProblems(entries: readonly string[]): string[] {
  const problems: string[] = [];
  const positions = new Map<string, number[]>();
  entries.forEach((entry, index) => {
    const url = URL.parse(entry);
    if (!url || !isHttpUrl(url)) {
      problems.push(`WEBHOOK_URLS entry ${index + 1} is not an http:// or https:// URL`);
      return;
    }
    try {
      decodeURIComponent(url.username);
      decodeURIComponent(url.password);
    } catch {
      problems.push(`WEBHOOK_URLS entry ${index + 1} has credentials that are not valid percent-encoding`);
      return;
    }
    const key = subscriberLabel(entry);
    positions.set(key, [...(positions.get(key) ?? []), index + 1]);
  });
  for (const same of positions.values()) {
    if (same.length > 1) {
      problems.push(
        `WEBHOOK_URLS entries ${same.join(', ')} name the same subscriber (the same origin and path, ` +
          'which is what the outbox and the logs know it by): list it once',
      );
    }
  }
  return problems;
}

export function isHttpUrl(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}

/** How logs, spans and metrics name a subscriber: no credentials, query or fragment, where secrets may be. */
export function subscriberLabel(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.protocol}//${parsed.host}${parsed.pathname}` : 'an invalid URL';
}

/** An error's message for a log line or a row, its URLs cut to their origin and path. */
export function describeError(error: unknown): string {
  return redactUrls(error instanceof Error ? error.message : String(error));
}

/** Any URL in the text (an error's message, say), cut to its origin and path. */
export function redactUrls(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, (url) => subscriberLabel(url));
}
