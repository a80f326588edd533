/** The scopes of the support desk, as API keys and tokens grant them. */
export const DeskScopes = {
  ticketsRead: 'tickets:read',
  ticketsWrite: 'tickets:write',
  knowledgeBase: 'kb:read',
  reports: 'reports',
} as const;

/** Everything: the local operator's scopes when authentication is off, and on stdio. */
export const ALL_DESK_SCOPES = Object.values(DeskScopes);
