// e2e tests run real jobs and boot real applications; jest's per-project config has no testTimeout.
jest.setTimeout(120_000);
