/**
 * Creates a plant, reads it back, lists its tag, changes it against the
 * version it read and deletes it, with the built client, against a running
 * service:
 *
 *   npm run build    (at the repository's root: builds clients/typescript/dist)
 *   PLANT_STORE_URL=http://127.0.0.1:3000 PLANT_STORE_TOKEN=$(cat .data/auth/dev-token) \
 *     node clients/typescript/examples/basic.js
 */
import { createPlantStoreClient, PlantStoreError } from '@plant-store/client';

const { PLANT_STORE_URL, PLANT_STORE_TOKEN } = process.env;
if (!PLANT_STORE_URL || !PLANT_STORE_TOKEN) {
  console.error('Set PLANT_STORE_URL (such as http://127.0.0.1:3000) and PLANT_STORE_TOKEN.');
  process.exit(2);
}

const client = createPlantStoreClient({ baseUrl: PLANT_STORE_URL, token: PLANT_STORE_TOKEN });

// 2^53 + 1: a number cannot hold this id, a bigint holds it exactly.
const id = 9007199254740993n;

console.log('created:', await client.addPlant({ id, name: 'Monstera deliciosa', tag: 'aroid' }));
console.log('read:', await client.getPlant(id));
for await (const plant of client.plants({ tag: 'aroid', limit: 50 })) {
  console.log('listed:', plant);
}
// Changed only if nobody has changed it since it was read (a PlantStorePreconditionFailedError otherwise).
const { etag } = await client.getPlantWithEtag(id);
const updated = await client.updatePlant(id, { name: 'Swiss cheese plant', tag: null }, { ifMatch: etag });
console.log('updated:', updated.plant, 'now at', updated.etag);
await client.deletePlant(id, { ifMatch: updated.etag });

try {
  await client.getPlant(id);
} catch (error) {
  if (!(error instanceof PlantStoreError && error.status === 404)) {
    throw error;
  }
  console.log('deleted:', error.message);
}
