import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import {
  ProvisionedWorkspace,
  WorkspaceProvisioningService,
  WorkspaceRequest,
} from '../../src/account/workspace-provisioning.service';
import { TokenService } from '../../src/auth/token.service';
import { createHttpApp } from '../../src/bootstrap';
import { AppConfig, loadAppConfig } from '../../src/config/app-config';
import { baseTestEnvironment } from './test-environment';

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  http: () => TestAgent;
  createWorkspace: (request?: Partial<WorkspaceRequest>) => Promise<ProvisionedWorkspace>;
  issueToken: (userId: string, ttlSeconds?: number) => string;
  close: () => Promise<void>;
}

/** Boots the real application (real PostgreSQL, Redis) in-process, with optional environment overrides. */
export async function startTestApp(overrides: Record<string, string> = {}): Promise<TestApp> {
  const config = loadAppConfig({ ...baseTestEnvironment(), ...overrides });
  const app = await createHttpApp(config);
  await app.init();
  const provisioning = app.get(WorkspaceProvisioningService);
  const tokens = app.get(TokenService);
  return {
    app,
    config,
    http: () => request(app.getHttpServer()),
    createWorkspace: (workspace = {}) =>
      provisioning.create({ name: 'Test workspace', balanceEur: 10, ...workspace }),
    issueToken: (userId, ttlSeconds = 600) => tokens.issue(userId, ttlSeconds).token,
    close: () => app.close(),
  };
}

export const bearer = (credential: string): Record<string, string> => ({
  Authorization: `Bearer ${credential}`,
});
