/** Where the built renderer is: ROUTELENS_RENDERER_OUT lets parallel work build and serve its own copy. */
import { fileURLToPath } from 'node:url';

export const rendererDir = process.env.ROUTELENS_RENDERER_OUT || fileURLToPath(new URL('../../dist/renderer/', import.meta.url));
