import { z } from 'zod';

export const ErrorSchema = z
  .object({
    // zod-openapi writes int32's bounds but not its format; the interface names the format.
    error: z.int32().meta({ description: 'Numeric error indicator: the HTTP status code', format: 'int32', examples: [400] }),
    message: z.string().meta({ description: 'What went wrong and, where it can, what to fix', examples: ['id must be an integer'] }),
  })
  .meta({ id: 'Error', description: 'An error' });

export type ErrorBody = z.infer<typeof ErrorSchema>;
