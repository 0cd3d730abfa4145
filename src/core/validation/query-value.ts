import 'reflect-metadata';

import { parseInt64 } from '../common/int64.js';

const QUERY_PARSER_KEY = 'validation:queryParser';

export type QueryParser = (text: string) => unknown;

/**
 * How a query parameter's text becomes the value its rules check: query
 * strings carry text only. A value the parser cannot read is left as it was,
 * and fails the rules with their message.
 */
export function QueryValue(parser: QueryParser): PropertyDecorator {
  return (target, propertyKey) => Reflect.defineMetadata(QUERY_PARSER_KEY, parser, target, propertyKey);
}

export function queryParserOf(prototype: object, property: string): QueryParser | undefined {
  return Reflect.getMetadata(QUERY_PARSER_KEY, prototype, property) as QueryParser | undefined;
}

/** Decimal digits as an integer (number or bigint); anything else stays text. */
export function integerQueryValue(text: string): unknown {
  return parseInt64(text) ?? text;
}
