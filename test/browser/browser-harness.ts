import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, chromium, type Page } from 'playwright-core';
import { baseTestEnvironment } from '../support/test-environment';
import { freePort, ServiceProcess } from '../support/service-process';

const ROOT = join(__dirname, '..', '..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's Chromium, headless, making no connection of its own (no updates, sync, QUIC or prefetching). */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Dashboard {
  baseUrl: string;
  email: string;
  password: string;
  service: ServiceProcess;
  context: BrowserContext;
  close: () => Promise<void>;
}

/**
 * The real service (`node dist/main.js`, API and worker in one process, serving the built dist/web at /app),
 * a workspace with 10 EUR and no free transcriptions whose first user has a password (created with the
 * operators' CLI), and a fresh Chromium
 * profile. A missing browser or build is an error, never a skip: CI must install both. `chromiumArgs` add to
 * the browser's flags (e.g. a fake microphone); `serviceEnv` adds to the service's environment (given the URL
 * it will listen on).
 */
export async function startDashboard(
  viewport = { width: 1280, height: 800 },
  chromiumArgs: string[] = [],
  serviceEnv: (baseUrl: string) => Record<string, string> = () => ({}),
): Promise<Dashboard> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (scripts/install-system-deps.sh) to run the browser tests`,
    );
  }
  if (!existsSync(join(ROOT, 'dist', 'web', 'index.html'))) {
    throw new Error(
      'dist/web/index.html is missing: run `npm run build` (it builds the dashboard with Vite)',
    );
  }
  const port = await freePort();
  const service = new ServiceProcess({
    PORT: String(port),
    ROLE: 'all',
    ...serviceEnv(`http://127.0.0.1:${port}`),
  });
  const profile = mkdtempSync(join(tmpdir(), 'stt-chromium-'));
  const email = `owner-${Date.now().toString(36)}@dashboard.example`;
  const password = 'correct horse battery staple';
  let context: BrowserContext;
  try {
    await service.start();
    execFileSync(
      'node',
      [
        join(ROOT, 'dist', 'cli.js'),
        'workspace:create',
        '--name',
        'Dashboard',
        '--email',
        email,
        '--balance',
        '10',
        // No free transcriptions: every job is charged, so the pages show real sub-cent costs (0.00055 EUR).
        '--free',
        '0',
        '--password-stdin',
      ],
      {
        env: { ...process.env, ...baseTestEnvironment() },
        input: password,
        stdio: ['pipe', 'ignore', 'inherit'],
        timeout: 60_000,
      },
    );
    const launch = () =>
      chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        args: [...CHROMIUM_ARGS, ...chromiumArgs],
        headless: true,
        viewport,
        acceptDownloads: true,
        timeout: 30_000,
      });
    // A start that hangs is killed at the timeout and tried once more: seen once in a full two-lane run (no
    // output from Chromium, the next start at once fine), never reproduced alone.
    context = await launch().catch((error: unknown) => {
      console.warn(`Chromium did not start (${String(error).split('\n')[0]}); trying once more`);
      return launch();
    });
  } catch (error) {
    // A half-started set-up must not leave the service running (jest would wait for it forever).
    await service.stop();
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    email,
    password,
    service,
    context,
    close: async () => {
      await context.close();
      await service.stop();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Browser-side names used inside page.evaluate callbacks (this project's tsconfig has no DOM library).
declare const document: {
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelectorAll: (selector: string) => ArrayLike<{ getBoundingClientRect: () => { right: number } }>;
};

/**
 * Fails when the page at its current viewport (expected `width` px wide) scrolls sideways or an element of
 * <main> sticks out of the window, counting the elements that do.
 */
export async function expectNoHorizontalOverflow(page: Page, width: number): Promise<void> {
  const overflow = await page.evaluate(() => {
    const root = document.documentElement;
    const beyond = Array.from(document.querySelectorAll('main *'))
      .map((element) => Math.round(element.getBoundingClientRect().right))
      .filter((right) => right > root.clientWidth + 1);
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, beyond: beyond.length };
  });
  expect({ width, ...overflow }).toEqual({
    width,
    scrollWidth: overflow.clientWidth,
    clientWidth: width,
    beyond: 0,
  });
}

/** Opens `/app<route>` and signs in there as the dashboard's user (the sign-in form the app shows first). */
export async function signInAt(page: Page, dashboard: Dashboard, route: string): Promise<void> {
  await page.goto(`${dashboard.baseUrl}/app${route}`);
  await page.getByLabel('Email').fill(dashboard.email);
  await page.getByLabel('Password').fill(dashboard.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
