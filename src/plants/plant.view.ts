import { int64FromString } from '../core/common/int64.js';
import type { StoredPlantView } from './dto/plant.dto.js';

/** A stored plant as clients read it, without `null`s: in responses and in webhook payloads. */
export function plantView(plant: {
  readonly id: string;
  readonly name: string;
  readonly tag: string | null;
}): StoredPlantView {
  const id = int64FromString(plant.id);
  return plant.tag === null ? { id, name: plant.name } : { id, name: plant.name, tag: plant.tag };
}
