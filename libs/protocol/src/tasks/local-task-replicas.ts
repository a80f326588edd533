import type { TaskReplicas } from './task-replicas';

const NOTHING_TO_STOP = () => undefined;

/** One replica: it runs every task itself, and no other replica asks or tells it anything. */
export class LocalTaskReplicas implements TaskReplicas {
  readonly replica = undefined;

  runsElsewhere(): boolean {
    return false;
  }

  async cancel(): Promise<void> {}

  onCancel(): () => void {
    return NOTHING_TO_STOP;
  }

  async answer(): Promise<void> {}

  onAnswers(): () => void {
    return NOTHING_TO_STOP;
  }

  statusChanged(): void {}

  onStatus(): () => void {
    return NOTHING_TO_STOP;
  }
}
