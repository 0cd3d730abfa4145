/**
 * Creates, reads, lists, patches and deletes the plant 9007199254740993 with
 * the client @hey-api/openapi-ts generated (./generated), its int64s made
 * exact by ./exact-int64.ts; and shows what the same client loses without
 * it. Against a running service, with Node.js 22.18 or later (which runs
 * TypeScript as it is), once the client is generated (it is not committed):
 *
 *   npm run generate:example --workspace @plant-store/client
 *   PLANT_STORE_URL=http://127.0.0.1:3000 PLANT_STORE_TOKEN=$(cat .data/auth/dev-token) \
 *     node clients/typescript/examples/hey-api/plants.ts
 */
import { exactInt64s } from './exact-int64.ts';
import { createClient, createConfig } from './generated/client/index.ts';
import { addPlant, deletePlant, getPlant, listPlants, updatePlant } from './generated/index.ts';

const { PLANT_STORE_URL, PLANT_STORE_TOKEN } = process.env;
if (!PLANT_STORE_URL || !PLANT_STORE_TOKEN) {
  console.error('Set PLANT_STORE_URL (such as http://127.0.0.1:3000) and PLANT_STORE_TOKEN.');
  process.exit(2);
}

/** hey-api's fetch client for the service, as generated. */
const generated = () => createClient(createConfig({ baseUrl: PLANT_STORE_URL, auth: PLANT_STORE_TOKEN }));

const client = exactInt64s(generated());
// 2^53 + 1: JSON.parse alone reads it as 9007199254740992.
const id = 9007199254740993n;

const created = await addPlant({ client, body: { id, name: 'Fern', tag: 'x' }, throwOnError: true });
console.log('created:', created.data);
const read = await getPlant({ client, path: { id }, throwOnError: true });
console.log('read:', read.data);
const listed = await listPlants({ client, query: { after: id - 1n }, throwOnError: true });
console.log('listed:', listed.data);
const patched = await updatePlant({
  client,
  path: { id },
  headers: { 'If-Match': read.response.headers.get('ETag')! },
  body: { tag: null },
  throwOnError: true,
});
console.log('patched:', patched.data);

// The same client without the hook: the id read loses its last digit, and an id sent becomes a string.
const plain = generated();
const misread = await getPlant({ client: plain, path: { id }, throwOnError: true });
console.log('read without the hook:', misread.data);
const refused = await addPlant({ client: plain, body: { id: id + 2n, name: 'Cactus' } });
console.log('created without the hook:', refused.response?.status, refused.error?.message);

await deletePlant({ client, path: { id }, throwOnError: true });
console.log('deleted:', id);
