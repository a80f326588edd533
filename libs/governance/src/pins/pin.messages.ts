/** The messages of pinned catalogs: what a refused caller, the log and an approver are told. */
export const PinMessages = {
  refused: (where: string, changed: readonly string[] | undefined, rejected: boolean, id: string) =>
    `Quarantined: the ${where} ${
      changed ? `changed since it was approved (${changed.join(', ')})` : 'is new and waits for approval'
    }${rejected ? ', and an approver rejected the change' : ''}, so it is not served. An administrator reviews the difference on the dashboard, or approves it through the admin API (POST api/pins/approve with { "id": "${id}" }).`,
  quarantined: (where: string, isNew: boolean) =>
    `${where} ${isNew ? 'is new' : 'changed since it was approved'}: quarantined until an approver accepts it`,
  nothingPending: (id: string) => `No quarantined definition has the id "${id}" (GET api/pins lists them)`,
  changedSinceReview: (id: string, fingerprint: string) =>
    `"${id}" changed again since it was reviewed (now ${fingerprint}): review it again`,
  decided: (id: string, decision: 'approve' | 'reject', actor: string) =>
    `${actor} ${decision === 'approve' ? 'approved' : 'rejected'} the definition ${id}`,
  unannounced: (message: string) =>
    `cannot tell the other replicas of a pin change (they read the store again within resyncMs): ${message}`,
  unreadable: (store: string, message: string) => `cannot read the catalog pins (${store} store): ${message}`,
} as const;
