import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPublicAddress } from './outbound-url-policy';

/**
 * Resolves like dns.lookup but refuses non-public addresses, so the address connected to is the address
 * checked (a DNS answer that changes between the policy check and the connection cannot slip through).
 */
export function publicOnlyLookup(): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
      if (blocked || addresses.length === 0) {
        const refused = Object.assign(
          // The address is not named: a refusal reaches the caller (audio_url 422, the delivery log).
          new Error(`${hostname} ${blocked ? 'is not a public address' : 'resolves to nothing'}`),
          { code: 'ENONPUBLIC' },
        );
        return callback(refused, '', 0);
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
