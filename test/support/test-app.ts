import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import {
  ProvisionedWorkspace,
  WorkspaceProvisioningService,
  WorkspaceRequest,
} from '../../src/auth/provisioning/workspace-provisioning.service';
import { TokenService } from '../../src/auth/token.service';
import { createHttpApp } from '../../src/bootstrap';
import { Configuration } from '../../src/config/configuration';
import { loadAppConfiguration } from '../../src/app-configuration';
import { baseTestEnvironment } from './test-environment';

export interface TestApp {
  app: INestApplication;
  /** The validated slices: `config.get(StorageConfig).STORAGE_DIR`. */
  config: Configuration;
  http: () => TestAgent;
  /** The loopback port the app listens on, listening first if it does not yet (once: a second listen throws). */
  listeningPort: () => Promise<number>;
  createWorkspace: (request?: Partial<WorkspaceRequest>) => Promise<ProvisionedWorkspace>;
  issueToken: (userId: string, ttlSeconds?: number) => string;
  close: () => Promise<void>;
}

/** Boots the real application (real PostgreSQL, Redis) in-process, with optional environment overrides. */
export async function startTestApp(overrides: Record<string, string | undefined> = {}): Promise<TestApp> {
  const config = loadAppConfiguration({ ...baseTestEnvironment(), ...overrides });
  const app = await createHttpApp(config);
  await app.init();
  const provisioning = app.get(WorkspaceProvisioningService);
  const tokens = app.get(TokenService);
  return {
    app,
    config,
    http: () => request(app.getHttpServer()),
    listeningPort: () => listeningPort(app.getHttpServer() as Server),
    createWorkspace: (workspace = {}) =>
      provisioning.create({ name: 'Test workspace', balanceEur: 10, ...workspace }),
    issueToken: (userId, ttlSeconds = 600) => tokens.issue(userId, ttlSeconds).token,
    close: () => app.close(),
  };
}

export const bearer = (credential: string): Record<string, string> => ({
  Authorization: `Bearer ${credential}`,
});

/** The port of `server` on 127.0.0.1, listening on a free one first if it is not listening yet. */
export async function listeningPort(server: Server): Promise<number> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}
