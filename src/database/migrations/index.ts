import { CreatePlants1795339924592 } from './1795339924592-CreatePlants.js';

/** Every migration, oldest first. New ones are generated with `npm run migration:generate`. */
export const MIGRATIONS = [CreatePlants1795339924592];
