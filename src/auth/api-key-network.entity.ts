import { CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ApiKey } from './api-key.entity';

/**
 * A client network an API key has been used from (an IPv4 /24 or an IPv6 /64, `keyNetwork`): the first use
 * from one that is not here is an audit event (`api_key.used_from_new_network`), written with this row.
 * Deleted with the key.
 */
@Entity('api_key_networks')
export class ApiKeyNetwork {
  @PrimaryColumn({ name: 'api_key_id', type: 'uuid', primaryKeyConstraintName: 'PK_api_key_networks' })
  apiKeyId: string;

  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'PK_api_key_networks' })
  network: string;

  @ManyToOne(() => ApiKey, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'api_key_id', foreignKeyConstraintName: 'FK_api_key_networks_api_key' })
  apiKey?: ApiKey;

  @CreateDateColumn({ name: 'first_seen_on', type: 'timestamptz' })
  firstSeenOn: Date;
}
