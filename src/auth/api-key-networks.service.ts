import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditLog } from '../audit/audit-log.service';
import type { Principal } from '../common/principal/principal';
import { keyNetwork } from './session/client-network';

/** Pairs (key, network) this process knows are recorded, so a known network costs no query. */
export const KNOWN_NETWORKS_REMEMBERED = 10_000;

/**
 * Notices an API key used from a network it was never used from (an IPv4 /24 or an IPv6 /64): the network is
 * remembered (api_key_networks) and the audit event `api_key.used_from_new_network` written in the same
 * transaction, once per key and network whichever process sees it first (the insert's conflict decides).
 * The request waits for it: a use whose event cannot be written is refused like any database failure.
 */
@Injectable()
export class ApiKeyNetworks {
  private readonly known = new Map<string, true>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
  ) {}

  async noteUse(
    principal: Principal,
    clientIp: string | undefined,
    origin?: { clientIp: string | null; requestId: string | null },
  ): Promise<void> {
    const apiKeyId = principal.apiKeyId;
    const network = clientIp === undefined ? null : keyNetwork(clientIp);
    if (!apiKeyId || network === null) return;
    const pair = `${apiKeyId} ${network}`;
    if (this.known.delete(pair)) {
      this.known.set(pair, true);
      return;
    }
    await this.dataSource.transaction(async (tx) => {
      const inserted: unknown[] = await tx.query(
        `INSERT INTO api_key_networks (api_key_id, network) VALUES ($1, $2)
         ON CONFLICT DO NOTHING RETURNING 1`,
        [apiKeyId, network],
      );
      if (inserted.length === 0) return;
      await this.audit.record(tx, {
        principal,
        action: 'api_key.used_from_new_network',
        target: { type: 'api_key', id: apiKeyId },
        details: { network },
        origin,
      });
    });
    this.known.set(pair, true);
    if (this.known.size > KNOWN_NETWORKS_REMEMBERED) {
      this.known.delete(this.known.keys().next().value as string);
    }
  }
}
