/**
 * The one INSERT of a plant that the floor sends per request and the ceiling
 * sends straight through pg: the plant, or what is stored under its id
 * already, in one round trip.
 */
export const INSERT_PLANT = {
  name: 'insert-plant',
  text: `WITH inserted AS (
           INSERT INTO plants (id, name, tag) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING name, tag)
         SELECT true AS created, name, tag FROM inserted
         UNION ALL SELECT false, name, tag FROM plants WHERE id = $1 AND NOT EXISTS (SELECT FROM inserted)`,
};
