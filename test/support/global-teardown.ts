export default async function globalTeardown(): Promise<void> {
  await globalThis.embeddedPostgres?.stop();
  globalThis.embeddedPostgres = undefined;
}
