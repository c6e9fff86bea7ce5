import type { LoaderFunctionArgs } from '@remix-run/node';

/**
 * The photo an image was drawn on, for the before/after views (a resource route: bytes, no page). Only the account
 * that staged the image or the agent who redeemed it gets it; the session cookie says who is asking.
 */
export async function loader({ context, params }: LoaderFunctionArgs) {
  try {
    const original = await context.trpc.claims.original({ image_id: params.id ?? '' });
    return new Response(Buffer.from(original.data, 'base64'), {
      headers: {
        'Content-Type': original.content_type,
        'Cache-Control': 'private, max-age=3600',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  } catch (error) {
    const { status } = context.describeError(error);
    return new Response(status === 401 ? 'Sign in to see this image.' : 'Not found', {
      status: status === 401 ? 401 : 404,
      headers: { 'Content-Type': 'text/plain' },
    });
  }
}
