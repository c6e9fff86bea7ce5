import { describe, expect, it } from 'vitest';
import { decodeInlineImage, MAX_IMAGE_BYTES, readImageSources } from '../../../server/domain/staging/image-input.js';
import { AppError } from '../../../server/errors.js';

const policy = { allowPrivateNetwork: false };
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? error.code : 'not an AppError';
  }
  return 'no error';
};

describe('inline image decoding', () => {
  const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5, 6, 7, 8]);

  it('reads base64, base64url, data URLs and tolerates line breaks', () => {
    expect(decodeInlineImage(bytes.toString('base64'), 'image')).toEqual(bytes);
    expect(decodeInlineImage(bytes.toString('base64url'), 'image')).toEqual(bytes);
    expect(decodeInlineImage(`data:image/jpeg;base64,${bytes.toString('base64')}`, 'image')).toEqual(bytes);
    expect(decodeInlineImage(bytes.toString('base64').replace(/(.{4})/g, '$1\n'), 'image')).toEqual(bytes);
  });

  it('answers 400 for text that is not base64 and for a data URL without ;base64', () => {
    expect(codeOf(() => decodeInlineImage('not base64 at all!', 'image'))).toBe('invalid_request');
    expect(codeOf(() => decodeInlineImage('data:image/png,rawbytes', 'image'))).toBe('invalid_request');
    expect(codeOf(() => decodeInlineImage('   ', 'image'))).toBe('invalid_request');
    // One stray character in otherwise clean base64, at every length remainder.
    for (const junk of ['AAAA*AAA', 'AAAA*AA', 'AAAA*A', 'AAAA*', 'AA=A'])
      expect(codeOf(() => decodeInlineImage(junk, 'image'))).toBe('invalid_request');
  });

  it('answers 415 for a data URL of something other than an image', () => {
    expect(codeOf(() => decodeInlineImage(`data:application/pdf;base64,${bytes.toString('base64')}`, 'image'))).toBe(
      'unsupported_media_type',
    );
  });

  it('answers 413 for more than 15 MB before decoding', () => {
    const big = 'A'.repeat(Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 16);
    expect(codeOf(() => decodeInlineImage(big, 'image'))).toBe('payload_too_large');
  });
});

describe('image sources', () => {
  const one = Buffer.from('abc').toString('base64');

  it('take exactly one source', async () => {
    await expect(readImageSources({}, policy, { allowMany: true })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(
      readImageSources({ image: one, image_url: 'https://example.com/a.jpg' }, policy, { allowMany: true }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('allow several images only where asked, and at most 10', async () => {
    await expect(readImageSources({ images: [one, one] }, policy, { allowMany: true })).resolves.toHaveLength(2);
    await expect(readImageSources({ images: [one] }, policy, { allowMany: false })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(readImageSources({ images: Array(11).fill(one) }, policy, { allowMany: true })).rejects.toMatchObject({
      code: 'payload_too_large',
    });
  });

  it('refuse image_url on loopback and private hosts and non-http schemes', async () => {
    for (const url of [
      'http://127.0.0.1/a.jpg',
      'http://192.168.1.10/a.jpg',
      'file:///etc/passwd',
      'ftp://example.com/a.jpg',
    ]) {
      await expect(readImageSources({ image_url: url }, policy, { allowMany: false })).rejects.toMatchObject({
        code: 'invalid_request',
        extra: { details: [{ path: 'image_url' }] },
      });
    }
  });
});
