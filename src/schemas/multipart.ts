// The body of a multipart/form-data upload as a schema: one file part beside text fields. The multipart
// plugin (http/multipart-body.ts) hands the file over as bytes, which no JSON type describes, so the file part is
// declared by hand here, once, for every upload route.
import { Type, type TObject, type TProperties, type TSchema, type TUnsafe } from '@sinclair/typebox';

/** `fields` plus a required file part named `file` holding bytes. */
export function MultipartUpload<F extends string, T extends TProperties>(
  file: F,
  description: string,
  fields: TObject<T>,
): TObject<T & { [K in F]: TUnsafe<Uint8Array> }> {
  const part: TSchema = Type.Unsafe<Uint8Array>({ contentMediaType: 'application/octet-stream', description });
  return Type.Object({ [file]: part, ...fields.properties } as T & { [K in F]: TUnsafe<Uint8Array> }, {
    additionalProperties: fields.additionalProperties,
  });
}
