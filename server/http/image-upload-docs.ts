import type { OpenAPIObject } from 'trpc-to-openapi';
import { IMAGE_UPLOAD_PATHS } from './image-upload.js';
import { PRODUCT_UPLOAD_PATH } from './product-upload.js';

type SchemaObject = { type?: string; properties?: Record<string, unknown>; required?: string[] } & Record<
  string,
  unknown
>;

const binary = { type: 'string', format: 'binary' };

/**
 * The generator describes the multipart body with the JSON schema (image as base64 text). For the image endpoints
 * the multipart form carries `image` as a file instead (repeatable on stage), so that part is rewritten here.
 */
export function describeImageUploads(document: OpenAPIObject): OpenAPIObject {
  for (const path of IMAGE_UPLOAD_PATHS) {
    const content = (
      document.paths?.[path]?.post?.requestBody as { content?: Record<string, { schema?: SchemaObject }> } | undefined
    )?.content;
    const multipart = content?.['multipart/form-data'];
    if (!multipart?.schema) continue;
    const schema = structuredClone(multipart.schema);
    const properties = { ...(schema.properties ?? {}) };
    const many = 'images' in properties;
    delete properties.images;
    properties.image = many
      ? {
          type: 'array',
          items: binary,
          maxItems: 10,
          description: 'The room photo(s): a file field, repeated for several images (up to 10, ≤ 15 MB each)',
        }
      : { ...binary, description: 'The image file (JPEG, PNG, WebP, AVIF or TIFF, ≤ 15 MB)' };
    multipart.schema = { ...schema, properties };
  }
  const product = (
    document.paths?.[PRODUCT_UPLOAD_PATH]?.post?.requestBody as
      | { content?: Record<string, { schema?: SchemaObject }> }
      | undefined
  )?.content?.['multipart/form-data'];
  if (product?.schema) {
    const schema = structuredClone(product.schema);
    schema.properties = {
      ...(schema.properties ?? {}),
      image: { ...binary, description: 'The product picture: PNG or WebP with transparent pixels, ≤ 5 MB' },
    };
    product.schema = schema;
  }
  return document;
}
