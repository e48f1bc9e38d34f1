import { createBullBoard } from '@bull-board/api';
import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { getQueueToken } from '@nestjs/bull';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Queue } from 'bull';
import type { Express } from 'express';
import { AdminConfig } from './admin.config';
import { ProblemConfig } from '../common/problem/problem.config';
import { TRANSCRIPTION_QUEUE, WEBHOOK_DELIVERY_QUEUE } from '../queues/job-catalogue';
import { adminAccess } from './admin-access.middleware';

export const ADMIN_PATH = '/admin';
export const QUEUE_BOARD_PATH = `${ADMIN_PATH}/queues`;

/**
 * The operators' queue dashboard (Bull Board) at /admin/queues, on HTTP processes only, outside /v1 and the
 * API contract. Without ADMIN_TOKEN nothing is mounted, so every /admin path is the ordinary 404. With it,
 * every /admin request must present the token (admin-access.middleware.ts). It is mounted ahead of the
 * API's middleware, so it takes no API key and no per-key rate limit (it has no key). Its page, scripts and
 * styles come from the @bull-board/ui package on this origin (the Google Fonts stylesheet its page links
 * is blocked by the CSP, so no third party learns who opens it; the UI falls back to system fonts).
 *
 * Read-only: PostgreSQL holds each job's state and money, and Bull only runs it, so retrying, cleaning or
 * adding jobs by hand would bypass billing and fair share; operators look here, and act through the CLI.
 */
export function mountQueueBoard(
  app: NestExpressApplication,
  config: AdminConfig,
  problemConfig: ProblemConfig,
): void {
  if (config.ADMIN_TOKEN === undefined) return;
  const board = new ExpressAdapter();
  board.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: [TRANSCRIPTION_QUEUE, WEBHOOK_DELIVERY_QUEUE].map(
      (name) => new BullAdapter(app.get<Queue>(getQueueToken(name)), { readOnlyMode: true }),
    ),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'Transcription queues' } },
  });
  const router = board.getRouter() as Express;
  router.disable('x-powered-by');
  app.use(ADMIN_PATH, adminAccess(problemConfig, config.ADMIN_TOKEN));
  app.use(QUEUE_BOARD_PATH, router);
}
