/** Whether the service traces, as the standard OpenTelemetry variables say. */
export type TracingSettings =
  | {
      readonly enabled: true;
      /** Where spans go, without what may be secret in the URL (credentials, query string). */
      readonly endpoint: string;
      readonly sampler: string;
      readonly protocol: TracesProtocol;
      /** Settings the service cannot follow, for a warning. */
      readonly unsupported: readonly string[];
    }
  | { readonly enabled: false; readonly reason: string };

/** The OTLP encodings the service speaks: protobuf, the specification's default, and JSON. */
export const TRACES_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type TracesProtocol = (typeof TRACES_PROTOCOLS)[number];
const DEFAULT_TRACES_PROTOCOL: TracesProtocol = 'http/protobuf';

/**
 * Only the variables that decide whether tracing starts; the SDK reads the rest itself. Nothing of
 * OpenTelemetry is loaded here, so that with tracing off none of it is.
 */
export function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings {
  const read = (name: string): string | undefined => env[name]?.trim() || undefined;

  if (read('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') {
    return { enabled: false, reason: 'OTEL_SDK_DISABLED is true' };
  }
  if (
    read('OTEL_TRACES_EXPORTER')
      ?.split(',')
      .some((name) => name.trim() === 'none')
  ) {
    return { enabled: false, reason: 'OTEL_TRACES_EXPORTER is none' };
  }

  // As the OTLP exporter resolves them: the signal's own URL as it is, or the base URL and the signal's path.
  const own = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = read('OTEL_EXPORTER_OTLP_ENDPOINT');
  const variable = own ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const endpoint = own ?? (base && `${base.endsWith('/') ? base : `${base}/`}v1/traces`);
  if (!endpoint) {
    return {
      enabled: false,
      reason: 'neither OTEL_EXPORTER_OTLP_ENDPOINT nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set',
    };
  }
  const url = URL.parse(endpoint);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return { enabled: false, reason: `${variable} is not an http:// or https:// URL` };
  }

  const unsupported: string[] = [];
  // The signal's own variable wins over the general one, as the specification says.
  let protocol = DEFAULT_TRACES_PROTOCOL;
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const configured = read(name);
    if (configured) {
      if ((TRACES_PROTOCOLS as readonly string[]).includes(configured)) {
        protocol = configured as TracesProtocol;
      } else {
        unsupported.push(`${name}=${configured} (spans are sent as ${DEFAULT_TRACES_PROTOCOL})`);
      }
      break;
    }
  }
  const exporters = read('OTEL_TRACES_EXPORTER')
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== 'otlp');
  if (exporters?.length) {
    unsupported.push(`OTEL_TRACES_EXPORTER=${exporters.join(',')} (spans go to the OTLP endpoint only)`);
  }

  const sampler = read('OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on';
  const ratio = sampler.endsWith('traceidratio') ? read('OTEL_TRACES_SAMPLER_ARG') : undefined;
  return {
    enabled: true,
    endpoint: `${url.origin}${url.pathname}`,
    sampler: ratio === undefined ? sampler : `${sampler} ${ratio}`,
    protocol,
    unsupported,
  };
}
