import { describe, expect, it } from 'vitest';
import { AppError } from '../../../server/errors.js';
import { assertPublicUrl, isPrivateAddress, type Resolver } from '../../../server/outbound/network-guard.js';

const deny = { allowPrivateNetwork: false };

async function refusal(url: string, resolver?: Resolver): Promise<AppError> {
  try {
    await assertPublicUrl(url, { ...deny, resolver });
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`${url} was allowed`);
}

describe('network guard', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    'fe80::1%eth0',
  ])('refuses %s', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('allows %s', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });

  it('refuses private literals, hosts resolving to private addresses and non-http schemes with invalid_request', async () => {
    for (const url of [
      'http://127.0.0.1/x',
      'http://[::1]:8080/',
      'http://10.0.0.7/',
      'http://169.254.169.254/latest/meta-data',
      'http://2130706433/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const error = await refusal(url);
      expect(error.code, url).toBe('invalid_request');
    }
    const rebinding: Resolver = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.1', family: 4 },
    ];
    expect((await refusal('https://mixed.example.test/', rebinding)).message).toMatch(/10\.0\.0\.1/);
    expect((await refusal('https://nowhere.example.test/', async () => [])).code).toBe('invalid_request');
    expect((await refusal('ftp://example.com/')).code).toBe('invalid_request');
    expect((await refusal('http://user:pass@example.com/')).code).toBe('invalid_request');
  });

  it('allows public hosts, and anything http(s) when private networks are allowed', async () => {
    const publicHost: Resolver = async () => [{ address: '93.184.215.14', family: 4 }];
    await expect(
      assertPublicUrl('https://hooks.example.test/in', { ...deny, resolver: publicHost }),
    ).resolves.toBeInstanceOf(URL);
    await expect(assertPublicUrl('http://93.184.215.14/', deny)).resolves.toBeInstanceOf(URL);
    await expect(assertPublicUrl('http://127.0.0.1:3000/', { allowPrivateNetwork: true })).resolves.toBeInstanceOf(URL);
  });
});
