import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { ApiKey } from './api-key.entity';

/**
 * One request made with an API key, for the owner's request log (dashboard, `GET /v1/api-keys/{id}/requests`).
 * Written in batches by ApiKeyRequestLog, deleted with the key, and pruned after API_KEY_REQUEST_LOG_DAYS by
 * the retention purge. The path is stored without its query string.
 */
@Entity('api_key_requests')
@Index('idx_api_key_requests_key_at', ['apiKeyId', 'at'])
export class ApiKeyRequest {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_api_key_requests' })
  id: string;

  @Column({ name: 'api_key_id', type: 'uuid' })
  apiKeyId: string;

  @ManyToOne(() => ApiKey, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'api_key_id', foreignKeyConstraintName: 'FK_api_key_requests_api_key' })
  apiKey?: ApiKey;

  /** When the request arrived. */
  @Index('idx_api_key_requests_at')
  @Column({ type: 'timestamptz' })
  at: Date;

  @Column({ type: 'varchar', length: 16 })
  method: string;

  @Column({ type: 'varchar', length: 512 })
  path: string;

  /** The query string as the log keeps it (loggedQuery: free text never); empty without one. */
  @Column({ type: 'varchar', length: 512, default: '' })
  query: string;

  @Column({ type: 'smallint' })
  status: number;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;

  @Column({ name: 'request_id', type: 'varchar', length: 128 })
  requestId: string;
}
