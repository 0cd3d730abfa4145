import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/** The body of every failed request, whatever failed. */
@ApiSchema({ name: 'Error' })
export class ErrorDto {
  @ApiProperty({
    type: 'integer',
    format: 'int32',
    description: 'Numeric error value',
    example: 400,
  })
  readonly error!: number;

  @ApiProperty({
    type: 'string',
    description: 'Error message text',
    example: 'name must be a string of 1 to 255 characters that is not only white space',
  })
  readonly message!: string;
}
