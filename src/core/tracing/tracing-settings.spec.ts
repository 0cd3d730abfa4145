import { tracingSettings } from './tracing-settings.js';

describe('tracingSettings', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

  it('is off without an OTLP endpoint, an empty variable counting as unset', () => {
    for (const env of [
      {},
      { OTEL_EXPORTER_OTLP_ENDPOINT: '' },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ' ' },
    ]) {
      expect(tracingSettings(env)).toStrictEqual({
        enabled: false,
        reason: 'neither OTEL_EXPORTER_OTLP_ENDPOINT nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set',
      });
    }
  });

  it('appends the traces path to the base endpoint, and takes the traces endpoint as it is', () => {
    expect(tracingSettings(endpoint)).toMatchObject({
      enabled: true,
      endpoint: 'http://collector:4318/v1/traces',
    });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example/otlp/' })).toMatchObject({
      endpoint: 'https://otlp.example/otlp/v1/traces',
    });
    expect(
      tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom' }),
    ).toMatchObject({ endpoint: 'http://traces:4318/custom' });
  });

  it('names the endpoint without its credentials or query string', () => {
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:secret@otlp.example/v1/traces?key=k',
      }),
    ).toMatchObject({ endpoint: 'https://otlp.example/v1/traces' });
  });

  it('is off when the endpoint is not an http(s) URL', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toStrictEqual({
      enabled: false,
      reason: 'OTEL_EXPORTER_OTLP_ENDPOINT is not an http:// or https:// URL',
    });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' })).toMatchObject({
      enabled: false,
      reason: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not an http:// or https:// URL',
    });
  });

  it('is off when the SDK is disabled or the traces exporter is none', () => {
    expect(tracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toStrictEqual({
      enabled: false,
      reason: 'OTEL_SDK_DISABLED is true',
    });
    expect(tracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toMatchObject({ enabled: true });
    expect(tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toStrictEqual({
      enabled: false,
      reason: 'OTEL_TRACES_EXPORTER is none',
    });
  });

  it('describes the sampler, by default parent-based and always on', () => {
    expect(tracingSettings(endpoint)).toMatchObject({ sampler: 'parentbased_always_on' });
    expect(
      tracingSettings({
        ...endpoint,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.01',
      }),
    ).toMatchObject({ sampler: 'parentbased_traceidratio 0.01' });
  });

  it('encodes spans in protobuf by default, or as the traces’ own variable, then the general one, say', () => {
    expect(tracingSettings(endpoint)).toMatchObject({ protocol: 'http/protobuf', unsupported: [] });
    expect(tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toMatchObject({
      protocol: 'http/json',
      unsupported: [],
    });
    expect(
      tracingSettings({
        ...endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
    ).toMatchObject({ protocol: 'http/protobuf', unsupported: [] });
  });

  it('lists what it cannot follow: gRPC, another exporter than otlp', () => {
    expect(
      tracingSettings({
        ...endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
        OTEL_TRACES_EXPORTER: 'otlp,console',
      }),
    ).toMatchObject({
      protocol: 'http/protobuf',
      unsupported: [
        'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc (spans are sent as http/protobuf)',
        'OTEL_TRACES_EXPORTER=console (spans go to the OTLP endpoint only)',
      ],
    });
  });
});
