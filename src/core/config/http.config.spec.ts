import { readEnvironment } from './environment.js';
import { httpConfig, HttpEnvironment } from './http.config.js';

/** The HTTP settings the service would run with under these variables. */
function httpSettingsWith(env: Record<string, string>) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return httpConfig();
  } finally {
    for (const name of Object.keys(process.env)) {
      if (!(name in saved)) {
        delete process.env[name];
      }
    }
    Object.assign(process.env, saved);
  }
}

describe('PUBLIC_URL', () => {
  it('is where a development instance listens unless set, and is kept without a trailing slash', () => {
    expect(httpSettingsWith({}).publicUrl).toBe('http://127.0.0.1:3000');
    expect(httpSettingsWith({ PUBLIC_URL: 'https://plants.example.com/store/' }).publicUrl).toBe(
      'https://plants.example.com/store',
    );
  });

  it.each([
    [
      'http://plants.example.com',
      'PUBLIC_URL must use https (plain http is allowed on a loopback address only)',
    ],
    [
      'https://user:secret@plants.example.com',
      'PUBLIC_URL must be a base URL: no credentials, query or fragment',
    ],
    ['https://plants.example.com/?a=1', 'PUBLIC_URL must be a base URL: no credentials, query or fragment'],
    ['ftp://plants.example.com', 'PUBLIC_URL must be an https:// URL (http:// on a loopback address)'],
    ['plants.example.com', 'PUBLIC_URL must be an https:// URL (http:// on a loopback address)'],
  ])('refuses %j at start', (url, problem) => {
    expect(() => readEnvironment(HttpEnvironment, { PUBLIC_URL: url })).toThrow(problem);
  });

  it('takes plain http to this machine', () => {
    expect(() => readEnvironment(HttpEnvironment, { PUBLIC_URL: 'http://localhost:8080' })).not.toThrow();
  });
});

describe('METRICS_ON_API_PORT', () => {
  it('is off in production unless the operator asks for it, and on elsewhere unless told not', () => {
    expect(httpSettingsWith({ NODE_ENV: 'production' }).metricsOnApiPort).toBe(false);
    expect(httpSettingsWith({ NODE_ENV: 'production', METRICS_ON_API_PORT: 'true' }).metricsOnApiPort).toBe(
      true,
    );
    expect(httpSettingsWith({ NODE_ENV: 'development' }).metricsOnApiPort).toBe(true);
    expect(httpSettingsWith({ NODE_ENV: 'test', METRICS_ON_API_PORT: 'false' }).metricsOnApiPort).toBe(false);
  });

  it('is refused beside METRICS_PORT, which serves them elsewhere, and when not a boolean', () => {
    expect(() =>
      readEnvironment(HttpEnvironment, { METRICS_PORT: '9464', METRICS_ON_API_PORT: 'true' }),
    ).toThrow(
      'METRICS_ON_API_PORT=true serves /metrics on the API’s port, METRICS_PORT on a port of its own',
    );
    expect(() => readEnvironment(HttpEnvironment, { METRICS_ON_API_PORT: 'yes' })).toThrow(
      'METRICS_ON_API_PORT must be true or false',
    );
    expect(() =>
      readEnvironment(HttpEnvironment, { METRICS_PORT: '9464', METRICS_ON_API_PORT: 'false' }),
    ).not.toThrow();
  });
});
