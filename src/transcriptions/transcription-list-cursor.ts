import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { ProblemException } from '../common/problem/problem.exception';
import { TranscriptionTombstone } from './transcription-tombstone.entity';
import { Transcription } from './transcription.entity';

/**
 * The list cursor is the id of the previous page's last item (a uuid). The next page is every item
 * after that item's place in the order (newest first by createdOn, ties by id descending), so it needs the
 * item's createdOn. A deleted item keeps its place in a tombstone written in the deleting transaction, so
 * the cursor still works, for this many days, when the item it names is deleted between two pages.
 */
export const DELETED_CURSOR_RETENTION_DAYS = 7;
/** Expired tombstones removed per deletion: more than one, so the table never grows past its retention. */
const TOMBSTONE_SWEEP_BATCH = 100;

interface ListPosition {
  id: string;
  createdOn: Date;
}

/** The place of a transcription of this workspace in the list order, present or recently deleted. */
async function listPosition(
  manager: EntityManager,
  workspaceId: string,
  id: string,
): Promise<ListPosition | null> {
  // The delete and its tombstone commit together: each statement sees the id in one table or the other.
  const select = { id: true, createdOn: true } as const;
  return (
    (await manager.getRepository(Transcription).findOne({ where: { workspaceId, id }, select })) ??
    (await manager.getRepository(TranscriptionTombstone).findOne({ where: { workspaceId, id }, select }))
  );
}

/** Orders `alias` newest first and, with a cursor, keeps only what comes after it. 422 for an unknown cursor. */
export async function pageAfterCursor(
  manager: EntityManager,
  builder: SelectQueryBuilder<Transcription>,
  alias: string,
  workspaceId: string,
  cursor: string | undefined,
): Promise<SelectQueryBuilder<Transcription>> {
  builder.orderBy(`${alias}.created_on`, 'DESC').addOrderBy(`${alias}.id`, 'DESC');
  if (cursor === undefined) return builder;
  const anchor = await listPosition(manager, workspaceId, cursor.toLowerCase());
  if (!anchor)
    throw ProblemException.field('cursor', 'cursor does not name a transcription of this workspace');
  return builder.andWhere(`(${alias}.created_on, ${alias}.id) < (:anchorCreated, :anchorId)`, {
    anchorCreated: anchor.createdOn,
    anchorId: anchor.id,
  });
}

/**
 * Keeps a deleted transcription's place in the list; call it in the deleting transaction. Also removes a
 * batch of expired tombstones (skipping any another deletion is removing, so deletions never wait on each
 * other).
 */
export async function keepListPosition(
  tx: EntityManager,
  deleted: Pick<Transcription, 'id' | 'workspaceId' | 'createdOn'>,
): Promise<void> {
  await tx.getRepository(TranscriptionTombstone).insert({
    id: deleted.id,
    workspaceId: deleted.workspaceId,
    createdOn: deleted.createdOn,
  });
  await tx.query(
    `DELETE FROM transcription_tombstones WHERE id IN (
       SELECT id FROM transcription_tombstones WHERE deleted_on < now() - make_interval(days => $1)
       ORDER BY deleted_on LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [DELETED_CURSOR_RETENTION_DAYS, TOMBSTONE_SWEEP_BATCH],
  );
}
