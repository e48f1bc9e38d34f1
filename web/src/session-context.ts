import { createContext, useContext } from 'react';
import { SessionClient } from './api/session-client';

export const ClientContext = createContext<SessionClient | null>(null);

export function useClient(): SessionClient {
  const client = useContext(ClientContext);
  if (!client) throw new Error('useClient outside <ClientContext>');
  return client;
}
