import { nodeVersionWarning } from './node-version';

describe('nodeVersionWarning', () => {
  it('warns on a Node older than engines, naming both and the way to Node 24', () => {
    const warning = nodeVersionWarning('v20.19.2', '>=24');
    expect(warning).toContain('Node v20.19.2 is older than this service supports');
    expect(warning).toContain('engines: node >=24');
    expect(warning).toContain('.tools/node-24/bin');
  });

  it('compares minor and patch when engines names them', () => {
    expect(nodeVersionWarning('v24.8.9', '>=24.9.0')).not.toBeNull();
    expect(nodeVersionWarning('v24.9.0', '>=24.9.0')).toBeNull();
    expect(nodeVersionWarning('v24.10.0', '>=24.9')).toBeNull();
  });

  it('is silent on a supported Node and on ranges it does not read', () => {
    expect(nodeVersionWarning('v24.9.0', '>=24')).toBeNull();
    expect(nodeVersionWarning('v26.0.0', '>=24')).toBeNull();
    expect(nodeVersionWarning('v20.0.0', '^24 || ^26')).toBeNull();
    expect(nodeVersionWarning('v20.0.0', undefined)).toBeNull();
  });
});
