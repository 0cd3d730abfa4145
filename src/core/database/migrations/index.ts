import { CreatePlants1795339924592 } from './1795339924592-CreatePlants.js';
import { AddWebhookDeliveries1795349339559 } from './1795349339559-AddWebhookDeliveries.js';
import { AddPlantTagIndex1795349339560 } from './1795349339560-AddPlantTagIndex.js';

/** Every migration, oldest first. New ones are generated with `npm run migration:generate`. */
export const MIGRATIONS = [
  CreatePlants1795339924592,
  AddWebhookDeliveries1795349339559,
  AddPlantTagIndex1795349339560,
];
