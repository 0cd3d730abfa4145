import { defineList, NUMBER_OPERATORS, TEXT_OPERATORS } from '../../core/lists/list-declaration.js';
import { ListQueryDto } from '../../core/lists/list-query.dto.js';
import { Plant } from '../plant.entity.js';

/** What `GET /plants` sorts and filters by: each served by an index (plant.entity.ts). */
export const PLANTS_LIST = defineList(Plant, {
  sortable: ['id', 'name', 'tag'],
  filterable: { id: NUMBER_OPERATORS, name: TEXT_OPERATORS, tag: [...TEXT_OPERATORS, 'null'] },
});

/** The query string of `GET /plants`. */
export class ListPlantsQueryDto extends ListQueryDto(PLANTS_LIST) {}
