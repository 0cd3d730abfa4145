/**
 * How logs, spans and metrics name a subscriber: its origin and path, never
 * its credentials, query string or fragment, where secrets may be.
 */
export function subscriberLabel(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.origin}${parsed.pathname}` : 'an invalid URL';
}
