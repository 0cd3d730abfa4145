import { int64FromString } from '../core/common/int64.js';
import { PlantDto, type StoredPlantView } from './dto/plant.dto.js';

/** A stored plant as clients read it, its id beside its fields: in responses and in webhook payloads. */
export function plantView(
  plant: { readonly id: string } & Parameters<typeof PlantDto.from>[0],
): StoredPlantView {
  return { id: int64FromString(plant.id), ...PlantDto.from(plant) };
}
