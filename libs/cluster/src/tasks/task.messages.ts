/** What a task says when the cluster, not its call, ended it. */
export const TaskMessages = {
  replicaStopped: (replica: string) =>
    `The replica running it (${replica}) stopped before the task ended; start the call again.`,
} as const;
