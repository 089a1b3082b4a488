// A vendor socket's message checked against the TypeBox schema that documents it; the first problem is a
// `validation` error naming the field, as for an HTTP body.
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { AppError } from '../../errors.ts';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

export function checkMessage<T extends TSchema>(schema: T, value: unknown): Static<T> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  if (check.Check(value)) return value as Static<T>;
  const first = check.Errors(value).First();
  const field = first?.path ? first.path.slice(1).replace(/\//g, '.') : 'message';
  throw new AppError('validation', `${field || 'message'}: ${first?.message ?? 'is invalid'}`);
}
