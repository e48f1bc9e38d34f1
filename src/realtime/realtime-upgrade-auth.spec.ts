import { chooseProtocol, CREDENTIAL_PROTOCOL_PREFIX } from './realtime-upgrade-auth';

describe('chooseProtocol (the subprotocol a /v1/realtime handshake is answered with)', () => {
  const credential = `${CREDENTIAL_PROTOCOL_PREFIX}ek_secret`;

  it('answers `realtime` when offered (OpenAI’s browser client offers it beside the credential)', () => {
    expect(chooseProtocol(new Set([credential, 'realtime']))).toBe('realtime');
  });

  it('answers another offered protocol rather than the credential', () => {
    expect(chooseProtocol(new Set([credential, 'my-app.v1']))).toBe('my-app.v1');
  });

  it('answers the credential when it is the only one offered: a browser fails a handshake answered with none', () => {
    expect(chooseProtocol(new Set([credential]))).toBe(credential);
  });

  it('answers none when none was offered', () => {
    expect(chooseProtocol(new Set())).toBe(false);
  });
});
