import { type ArgumentMetadata, BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';

import { INT64_MAX, INT64_MIN, type Int64, parseInt64 } from '../common/int64.js';

/** A path parameter that must be an int64, such as a plant's id: 400 naming it otherwise. */
@Injectable()
export class ParseInt64Pipe implements PipeTransform<string, Int64> {
  transform(value: string, metadata: ArgumentMetadata): Int64 {
    const parsed = parseInt64(value);
    if (parsed === undefined) {
      throw new BadRequestException(
        `${metadata.data ?? 'id'} must be an integer from ${INT64_MIN} to ${INT64_MAX}`,
      );
    }
    return parsed;
  }
}
