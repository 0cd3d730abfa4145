import type { TextRules } from '../../core/validation/constraints.js';
import { PLANT_TEXT_MAX_LENGTH } from '../plant.entity.js';

/** The seed's field rules, shared by the request and the response shapes. */
export const PLANT_NAME_RULES: TextRules = { minLength: 1, maxLength: PLANT_TEXT_MAX_LENGTH, notBlank: true };
export const PLANT_TAG_RULES: TextRules = { minLength: 1, maxLength: PLANT_TEXT_MAX_LENGTH };

export const PLANT_NAME_DESCRIPTION = 'The name of the plant';
export const PLANT_TAG_DESCRIPTION = 'Tag that specifies the type of the plant';
export const PLANT_ID_DESCRIPTION = 'Identification number of the plant';
