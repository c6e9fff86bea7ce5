import { z } from 'zod';
import { apiKeyProcedure, router } from '../trpc/index.js';
import { noInput } from './schemas.js';

export const balanceSchema = z.object({
  credits: z.number().int().meta({ description: 'Current balance' }),
  has_payment_method: z.boolean(),
  total_purchased: z.number().int(),
  total_used: z.number().int(),
  auto_topup: z.object({ enabled: z.boolean(), amount: z.number().int(), threshold: z.number().int() }),
});

export const creditsRouter = router({
  balance: apiKeyProcedure
    .meta({
      scope: 'credits:read',
      openapi: {
        method: 'GET',
        path: '/api/v1/credits',
        tags: ['Credits'],
        summary: 'Credit balance of the API key’s account',
        description:
          'The balance of the account the API key belongs to, whether it has a card on file, the credits bought and used so far, and its auto top-up settings.',
      },
    })
    .input(noInput)
    .output(balanceSchema)
    // apiKeyProcedure read the balance in the query that verified the key.
    .query(({ ctx }) => ctx.apiKey.balance),
});
