import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/**
 * The longest message an answer carries: a message that would be longer
 * (one that quotes a request's path, say) is cut, so that no failure echoes
 * kilobytes of a client's input back at it.
 */
export const ERROR_MESSAGE_MAX_LENGTH = 1024;

/** The body of every failed request, whatever failed. */
@ApiSchema({ name: 'Error' })
export class ErrorDto {
  @ApiProperty({
    type: 'integer',
    format: 'int32',
    description: 'Numeric error value: the HTTP status of the answer',
    minimum: 400,
    maximum: 599,
    example: 400,
  })
  readonly error!: number;

  @ApiProperty({
    type: 'string',
    description: 'Error message text',
    minLength: 1,
    maxLength: ERROR_MESSAGE_MAX_LENGTH,
    example: 'name must be a string of 1 to 255 characters that is not only white space',
  })
  readonly message!: string;
}
