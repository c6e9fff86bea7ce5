import express, { type Router } from 'express';
import Stripe from 'stripe';
import { checkoutReturnPath, completeSimulatedCheckout } from '../domain/billing/checkout.js';
import { applyStripeEvent } from '../domain/billing/stripe-events.js';
import { errorResponse, toErrorResponse } from '../errors.js';
import { log } from '../observability/logger.js';
import type { Services } from '../services.js';

/** Stripe signs a few kilobytes of JSON; the limit only keeps junk out. */
const STRIPE_EVENT_LIMIT = '512kb';
/** Where Stripe posts events; not an /api/v1 operation, so the request log is told its route by name. */
export const STRIPE_WEBHOOK_PATH = '/api/stripe/webhook';

/**
 * POST /api/stripe/webhook: the exact body bytes are verified with Stripe's library (a bad signature is 400 and
 * changes nothing), then the event is applied at most once.
 */
export function stripeWebhookRouter(services: Services): Router {
  const router = express.Router();
  // Verifying the signature needs the raw bytes, so this route parses its own body before the JSON parser.
  router.post(STRIPE_WEBHOOK_PATH, express.raw({ type: () => true, limit: STRIPE_EVENT_LIMIT }), async (req, res) => {
    const secret = services.config.stripe.webhookSecret;
    if (services.payments.name !== 'stripe' || !secret) {
      const { status, body } = errorResponse(
        'invalid_request',
        'Stripe webhooks are not configured on this server (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET).',
      );
      return void res.status(status).json(body);
    }
    const signature = req.headers['stripe-signature'];
    let event: Stripe.Event;
    try {
      if (typeof signature !== 'string' || !Buffer.isBuffer(req.body))
        throw new Error('missing Stripe-Signature header or body');
      event = Stripe.webhooks.constructEvent(req.body, signature, secret);
    } catch (error) {
      log.info({ err: error }, 'Stripe webhook refused: bad signature');
      const { status, body } = errorResponse(
        'invalid_request',
        'The Stripe-Signature header does not verify against this body.',
      );
      return void res.status(status).json(body);
    }
    try {
      const outcome = await applyStripeEvent(
        { db: services.db, gateway: services.payments, now: () => services.clock.now() },
        event,
      );
      res.json({ received: true, outcome });
    } catch (error) {
      // A 5xx makes Stripe deliver the event again later; nothing was recorded, so the retry applies it.
      log.error({ err: error, stripeEventId: event.id }, 'Stripe event could not be applied');
      const { status, body } = toErrorResponse(error);
      res.status(Math.max(status, 500)).json(body);
    }
  });
  return router;
}

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Roomstage</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#1f2937}
.badge{display:inline-block;background:#fef3c7;color:#92400e;border-radius:4px;padding:.1rem .5rem;font-weight:600}
a.button{display:inline-block;margin-top:1rem;background:#111827;color:#fff;padding:.5rem 1rem;border-radius:6px;text-decoration:none}</style>
</head><body>${body}</body></html>`;

/**
 * The simulated gateway's checkout URL (no STRIPE_SECRET_KEY): opening it completes the purchase and saves a
 * simulated card; `?card=declines_off_session` saves one whose off-session charges decline. It says plainly that
 * no money moved.
 */
export function simulatedCheckoutRouter(services: Services): Router {
  const router = express.Router();
  router.get('/billing/simulated-checkout/:sessionId', async (req, res, next) => {
    try {
      const session =
        services.payments.name === 'simulated'
          ? await completeSimulatedCheckout(services.db, {
              sessionId: req.params.sessionId,
              card: req.query.card === 'declines_off_session' ? 'declines_off_session' : 'succeeds',
              now: services.clock.now(),
            })
          : null;
      res.set('Cache-Control', 'no-store');
      if (!session) {
        return void res
          .status(404)
          .type('html')
          .send(
            page(
              'Checkout not found',
              '<h1>Checkout not found</h1><p>This simulated checkout does not exist. Start a new purchase from the billing page.</p><a class="button" href="/billing">Billing</a>',
            ),
          );
      }
      const returnUrl = `${checkoutReturnPath(session.purpose)}?session_id=${encodeURIComponent(session.id)}`;
      res.type('html').send(
        page(
          'Simulated payment',
          `<p><span class="badge">Simulated payment</span></p>
<h1>${session.purpose === 'ad_funds' ? `$${(Number(session.amount_cents) / 100).toFixed(2)} of advertising funds added` : `${session.credits} credit${session.credits === 1 ? '' : 's'} added`}</h1>
<p>This server runs without Stripe keys, so payments are <strong>simulated</strong>: no card was charged and no money moved.
A simulated card is saved for auto top-up${req.query.card === 'declines_off_session' ? ' (it declines every off-session charge, like Stripe’s test card 4000 0000 0000 0341)' : ''}.
Opening this page again adds nothing.</p>
<a class="button" href="${returnUrl}">${session.purpose === 'ad_funds' ? 'Back to advertising funds' : 'Back to billing'}</a>`,
        ),
      );
    } catch (error) {
      next(error);
    }
  });
  return router;
}
