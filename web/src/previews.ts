// The preview lines live with the API schemas: the server's preview route speaks only these.
export { previewText } from '../../src/schemas/previews.ts';
