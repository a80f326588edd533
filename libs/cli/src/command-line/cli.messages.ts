/** What the command line itself says (the tools' own messages come from the host). */
export const CliMessages = {
  /**
   * An API key given to an application without authentication. Taken silently, a read-only key
   * would run as the configured operator, who may do anything: the holder meant to be held back.
   */
  uncheckableApiKey: (apiKeyEnv: string) =>
    `An API key was given (--api-key or $${apiKeyEnv}), but this application has no authentication ` +
    `(auth mode "none"), so the key cannot be checked; it is refused rather than ignored. ` +
    `Leave it out to act as the configured operator, or start the application with authentication ` +
    `(auth mode "apiKey" or "oauth") for the key to count.`,
} as const;
